//===- NonTemporalStores.cpp - large results streamed past the caches -----===//
//
// A reduction kernel writing a result far larger than the caches (a softmax
// of 64 MiB) pays for each written line twice with ordinary stores: the line
// is first read from memory (read for ownership), then written back. Stores
// marked non-temporal go to memory directly (docs/kernels.md "Streaming
// stores"). After this step, every vector write of such a kernel into a
// binding of at least kMinBytes, in a loop without inner loops, whose first
// element is provably 64-byte aligned relative to the binding, is a
// `vector.store {nontemporal = true, alignment = 64}` — in a copy of its
// loop that runs only when the binding pointers are 64-byte aligned; the
// original loop runs otherwise. Invariant: results are unchanged; a
// non-temporal store never claims an alignment it lacks. Whoever runs the
// workgroups fences them (KernelABI.h fleet_kernel_store_fence).
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "fleet/Codegen/KernelConfig.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Debug.h"

#include <algorithm>

using namespace mlir;

#define DEBUG_TYPE "codegen-lower-to-llvm"

namespace fleet::codegen::detail {

namespace {

/// Results smaller than this may still be in a cache when the next dispatch
/// reads them; only larger ones are streamed.
constexpr int64_t kMinBytes = 16 << 20;
/// The alignment of a 512-bit store, and the cache line.
constexpr int64_t kAlignBytes = 64;
/// Divisors are powers of two up to this ("any multiple", the divisor of 0):
/// they stay true when index arithmetic wraps around, and alignment needs
/// no other factor.
constexpr int64_t kAnyMultiple = int64_t(1) << 20;

/// The largest power of two dividing `v` (two's complement, so INT64_MIN
/// and wrapped products are safe), at most kAnyMultiple.
int64_t powerOfTwoOf(int64_t v) {
  if (v == 0)
    return kAnyMultiple;
  unsigned zeros = llvm::countr_zero(uint64_t(v));
  return zeros >= 20 ? kAnyMultiple : int64_t(1) << zeros;
}
int64_t gcd(int64_t a, int64_t b) { return std::min(a, b); }
int64_t times(int64_t a, int64_t b) { return std::min(kAnyMultiple, a * b); }

int64_t knownDivisor(Value value);

int64_t knownDivisor(AffineExpr expr, ValueRange dims, ValueRange symbols) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return powerOfTwoOf(constant.getValue());
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return knownDivisor(dims[dim.getPosition()]);
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return knownDivisor(symbols[symbol.getPosition()]);
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t lhs = knownDivisor(binary.getLHS(), dims, symbols);
  int64_t rhs = knownDivisor(binary.getRHS(), dims, symbols);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return gcd(lhs, rhs);
  case AffineExprKind::Mul:
    return times(lhs, rhs);
  default:
    return 1;
  }
}

/// A power of two every value `value` takes is a multiple of (1 when
/// unknown).
int64_t knownDivisor(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return powerOfTwoOf(constant.getSExtValue());
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
    if (loop && loop.getInductionVar() == argument)
      return gcd(knownDivisor(loop.getLowerBound()),
                 knownDivisor(loop.getStep()));
    return 1;
  }
  Operation *op = value.getDefiningOp();
  if (isa<arith::AddIOp, arith::SubIOp>(op))
    return gcd(knownDivisor(op->getOperand(0)),
               knownDivisor(op->getOperand(1)));
  if (isa<arith::MulIOp>(op))
    return times(knownDivisor(op->getOperand(0)),
                 knownDivisor(op->getOperand(1)));
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    return knownDivisor(map.getResult(0),
                        apply.getMapOperands().take_front(map.getNumDims()),
                        apply.getMapOperands().drop_front(map.getNumDims()));
  }
  return 1;
}

int64_t knownDivisor(OpFoldResult value) {
  if (auto attr = dyn_cast<Attribute>(value))
    return powerOfTwoOf(cast<IntegerAttr>(attr).getInt());
  return knownDivisor(cast<Value>(value));
}

/// Divisor, in elements, of the distance from `type`'s origin to the
/// element at `indices` (strides must be static).
std::optional<int64_t> offsetDivisor(MemRefType type,
                                     ArrayRef<OpFoldResult> indices) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  int64_t divisor = kAnyMultiple;
  for (auto [index, stride] : llvm::zip(indices, strides))
    divisor = gcd(divisor, times(knownDivisor(index), powerOfTwoOf(stride)));
  return divisor;
}

/// The binding argument whose view `write` writes into, when the write's
/// first element lies a multiple of kAlignBytes from the binding's start
/// and the view is at least kMinBytes.
BlockArgument streamedBinding(vector::TransferWriteOp write) {
  VectorType vector = write.getVectorType();
  auto type = dyn_cast<MemRefType>(write.getBase().getType());
  if (!type || vector.getRank() != 1 || write.getMask() ||
      !write.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }))
    return nullptr;
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  if (elementBytes == 0 || kAlignBytes % elementBytes != 0)
    return nullptr;
  // The innermost dimension must be contiguous for one vector store.
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return nullptr;

  std::optional<int64_t> divisor =
      offsetDivisor(type, getAsOpFoldResult(write.getIndices()));
  Value base = write.getBase();
  while (auto subview = base.getDefiningOp<memref::SubViewOp>()) {
    std::optional<int64_t> step =
        offsetDivisor(subview.getSourceType(), subview.getMixedOffsets());
    if (!divisor || !step)
      return nullptr;
    divisor = gcd(*divisor, *step);
    base = subview.getSource();
  }
  auto view = base.getDefiningOp<memref::ViewOp>();
  if (!divisor || !view || !matchPattern(view.getByteShift(), m_Zero()) ||
      !view.getType().hasStaticShape() ||
      view.getType().getNumElements() * elementBytes < kMinBytes ||
      times(*divisor, elementBytes) % kAlignBytes != 0)
    return nullptr;
  return dyn_cast<BlockArgument>(view.getSource());
}

} // namespace

void useNonTemporalStores(func::FuncOp func) {
  std::optional<KernelConfig> config =
      KernelConfig::fromAttr(func->getAttr(kConfigAttrName));
  if (!config || config->kind != KernelKind::Reduction || func.isExternal())
    return;
  // Candidate writes by their loop; loops with inner loops are left alone
  // (their copy would duplicate the whole row computation).
  llvm::MapVector<scf::ForOp, SmallVector<vector::TransferWriteOp>> loops;
  llvm::SetVector<BlockArgument> bindings;
  func.walk([&](vector::TransferWriteOp write) {
    auto loop = write->getParentOfType<scf::ForOp>();
    if (!loop || write->getParentOp() != loop.getOperation())
      return;
    BlockArgument binding = streamedBinding(write);
    if (!binding || binding.getOwner() != &func.getBody().front())
      return;
    bool innermost = true;
    loop.getBody()->walk([&](LoopLikeOpInterface) { innermost = false; });
    if (!innermost)
      return;
    loops[loop].push_back(write);
    bindings.insert(binding);
  });
  if (loops.empty())
    return;

  // Every streamed binding's pointer is 64-byte aligned (the runtime's
  // allocations are; a binding at an odd offset takes the original loops).
  OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
  Location loc = func.getLoc();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value alignment = arith::ConstantIndexOp::create(builder, loc, kAlignBytes);
  Value aligned;
  for (BlockArgument binding : bindings) {
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, binding);
    Value rest = arith::RemUIOp::create(builder, loc, pointer, alignment);
    Value isAligned = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, rest, zero);
    aligned = aligned ? arith::AndIOp::create(builder, loc, aligned, isAligned)
                            .getResult()
                      : isAligned;
  }

  for (auto &entry : loops) {
    scf::ForOp loop = entry.first;
    ArrayRef<vector::TransferWriteOp> writes = entry.second;
    builder.setInsertionPoint(loop);
    Operation *original = loop.getOperation();
    IRMapping mapping;
    auto branch = scf::IfOp::create(
        builder, loop.getLoc(), aligned,
        [&](OpBuilder &b, Location at) {
          scf::YieldOp::create(b, at,
                               b.clone(*original, mapping)->getResults());
        },
        [&](OpBuilder &b, Location at) {
          scf::YieldOp::create(b, at, b.clone(*original)->getResults());
        });
    for (vector::TransferWriteOp write : writes) {
      auto copy = cast<vector::TransferWriteOp>(mapping.lookup(write));
      builder.setInsertionPoint(copy);
      vector::StoreOp::create(builder, copy.getLoc(), copy.getVector(),
                              copy.getBase(), copy.getIndices(),
                              /*nontemporal=*/true,
                              builder.getI64IntegerAttr(kAlignBytes));
      copy.erase();
    }
    LLVM_DEBUG(llvm::dbgs() << "non-temporal stores: " << writes.size()
                            << " in the loop at " << loop.getLoc() << "\n");
    loop->replaceAllUsesWith(branch.getResults());
    loop.erase();
  }
}

} // namespace fleet::codegen::detail
