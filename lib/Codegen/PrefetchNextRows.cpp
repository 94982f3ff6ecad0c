//===- PrefetchNextRows.cpp - kernels fetch the next row or block --------===//
//
// A reduction kernel visits each row of its input several times (softmax:
// max, exp, sum, divide; docs/pipeline.md "Row groups"). Only the first
// visit reads memory; the later ones compute on the row in L1/L2 while
// memory sits idle, so the first visit of the next row waits for DRAM again.
// After this step each vector read of the last loop visiting a row (when
// several do) also prefetches the cache lines of the same columns one row
// further on (`memref.prefetch`, an upstream op lowered to `llvm.prefetch`),
// so the next row streams in while this one computes (docs/kernels.md
// "Streaming stores").
//
// A matmul walking B in blocks (docs/kernels.md "B blocks") computes a
// block from L2 (B in place, or its copy) while memory would idle; each
// register tile first prefetches the lines under its columns in the next
// block, so the next block streams in meanwhile.
//
// Invariant: prefetches never change a kernel's result; their row index is
// clamped to the binding's last row.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "fleet/Codegen/KernelConfig.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "codegen-tile-and-vectorize"

namespace fleet::codegen::detail {

namespace {

/// x86 and AArch64 cache lines.
constexpr int64_t kCacheLineBytes = 64;

/// The binding view `tensor` is (`bufferization.to_tensor` of it), if the
/// view is static, row-major and of rank 2 or more, else null.
TypedValue<MemRefType> rowMajorView(Value tensor) {
  auto toTensor = tensor.getDefiningOp<bufferization::ToTensorOp>();
  auto view = toTensor ? dyn_cast<TypedValue<MemRefType>>(toTensor.getBuffer())
                       : nullptr;
  if (!view || view.getType().getRank() < 2 ||
      !view.getType().hasStaticShape() ||
      !view.getType().getLayout().isIdentity())
    return nullptr;
  return view;
}

/// The row-major binding view `read` reads from, if it reads a whole
/// in-bounds vector along the innermost dimension of a rank >= 2 view at a
/// varying row and column (a chunk loop's read), else null.
TypedValue<MemRefType> rowMajorSource(vector::TransferReadOp read) {
  TypedValue<MemRefType> view = rowMajorView(read.getBase());
  if (!view)
    return nullptr;
  VectorType vector = read.getVectorType();
  if (vector.getRank() != 1 || !read.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
    return nullptr;
  // A loop's read: the row and the column vary (a peeled remainder's
  // column is constant).
  Value row = read.getIndices()[view.getType().getRank() - 2];
  Value column = read.getIndices().back();
  if (matchPattern(row, m_Constant()) || matchPattern(column, m_Constant()))
    return nullptr;
  return view;
}

/// Prefetches into L2 (locality 2: x86 `prefetcht1`) the cache lines of
/// `view` at `indices` (a row's position, its column last) and the next
/// `elements` - 1 elements of that row; with `lastColumn`, each line's
/// column is clamped to it (a tile whose extent is only bounded).
void prefetchLines(OpBuilder &builder, Location loc,
                   TypedValue<MemRefType> view, SmallVector<Value> indices,
                   int64_t elements, Value lastColumn = {}) {
  int64_t lineElements = std::max<int64_t>(
      1, kCacheLineBytes * 8 /
             std::max<int64_t>(8, view.getType().getElementTypeBitWidth()));
  Value column = indices.back();
  for (int64_t offset = 0; offset < elements; offset += lineElements) {
    if (offset != 0)
      indices.back() = arith::AddIOp::create(
          builder, loc, column,
          arith::ConstantIndexOp::create(builder, loc, offset));
    if (lastColumn && offset != 0)
      indices.back() =
          arith::MinSIOp::create(builder, loc, indices.back(), lastColumn);
    memref::PrefetchOp::create(builder, loc, view, indices, /*isWrite=*/false,
                               /*localityHint=*/2, /*isDataCache=*/true);
  }
}

} // namespace

void prefetchNextRows(func::FuncOp func) {
  // Per row of a binding: how many loops visit it, and the reads of the
  // last one. A row read by one loop only streams, and the hardware
  // prefetcher follows a stream without help.
  struct Visits {
    int64_t loops = 0;
    SmallVector<vector::TransferReadOp> lastReads;
  };
  llvm::MapVector<std::pair<Value, Value>, Visits> rows;
  func.walk([&](vector::TransferReadOp read) {
    TypedValue<MemRefType> view = rowMajorSource(read);
    auto loop = read->getParentOfType<scf::ForOp>();
    if (!view || !loop)
      return;
    Value row = read.getIndices()[view.getType().getRank() - 2];
    Visits &visits = rows[{view, row}];
    if (visits.lastReads.empty() ||
        visits.lastReads.back()->getParentOfType<scf::ForOp>() != loop) {
      ++visits.loops;
      visits.lastReads.clear();
    }
    visits.lastReads.push_back(read);
  });
  SmallVector<std::pair<vector::TransferReadOp, TypedValue<MemRefType>>> reads;
  for (auto &[key, visits] : rows)
    if (visits.loops > 1)
      for (vector::TransferReadOp read : visits.lastReads)
        reads.push_back({read, cast<TypedValue<MemRefType>>(key.first)});
  for (auto [read, view] : reads) {
    // Locality 2 (x86 `prefetcht1`, into L2) rather than 3 (`prefetcht0`,
    // into L1): the row waits in L2 for the first visit, and the fills do
    // not take L1's miss buffers from the passes computing on this row.
    // Softmax over [4096, 4096] on Zen 4, medians of 10 calls: 7.16-7.47
    // ms with 3, 6.90-7.11 with 2; 1 (`prefetcht2`) and 0 (`prefetchnta`)
    // as 2; two or three rows ahead no faster.
    OpBuilder builder(read);
    Location loc = read.getLoc();
    int64_t rank = view.getType().getRank();
    SmallVector<Value> indices(read.getIndices());
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value lastRow = arith::ConstantIndexOp::create(
        builder, loc, view.getType().getDimSize(rank - 2) - 1);
    Value next = arith::AddIOp::create(builder, loc, indices[rank - 2], one);
    indices[rank - 2] = arith::MinSIOp::create(builder, loc, next, lastRow);
    prefetchLines(builder, loc, view, indices,
                  read.getVectorType().getNumElements());
    LLVM_DEBUG(llvm::dbgs() << "prefetch the next row of " << view.getType()
                            << " at " << read.getLoc() << "\n");
  }
}

/// `value` traced through unit-stride tensor.extract_slice ops to the value
/// they slice (the source), with its offsets there (built before `at`).
/// Nothing when a slice has other strides.
static std::optional<std::pair<Value, SmallVector<Value>>>
traceSlices(OpBuilder &builder, Operation *at, Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return std::nullopt;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(at);
  Location loc = at->getLoc();
  SmallVector<Value> offsets(type.getRank(),
                             arith::ConstantIndexOp::create(builder, loc, 0));
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!slice.hasUnitStride() ||
        slice.getSourceType().getRank() != int64_t(offsets.size()))
      return std::nullopt;
    for (auto [offset, add] : llvm::zip(offsets, slice.getMixedOffsets())) {
      Value step = getValueOrCreateConstantIndexOp(builder, loc, add);
      offset = arith::AddIOp::create(builder, loc, offset, step);
    }
    value = slice.getSource();
  }
  return std::make_pair(value, offsets);
}

/// The rank-2 row-major binding view `tensor` is, else null.
static TypedValue<MemRefType> matrixView(Value tensor) {
  TypedValue<MemRefType> view = rowMajorView(tensor);
  return view && view.getType().getRank() == 2 ? view : nullptr;
}

std::optional<BBlockOrigin> findBBlockOrigin(linalg::CopyOp copy) {
  OpBuilder builder(copy);
  auto traced = traceSlices(builder, copy, copy.getInputs().front());
  TypedValue<MemRefType> view = traced ? matrixView(traced->first) : nullptr;
  if (!view)
    return std::nullopt;
  return BBlockOrigin{view, traced->second[0], traced->second[1]};
}

std::optional<BBlockOrigin> findBOrigin(linalg::LinalgOp root) {
  if (root.getNumDpsInputs() < 2 || !readsRowsOfB(root))
    return std::nullopt;
  // The register tiles' slices trace back to B itself, with B's offsets.
  Value b = root.getDpsInputOperand(1)->get();
  while (auto slice = b.getDefiningOp<tensor::ExtractSliceOp>())
    b = slice.getSource();
  TypedValue<MemRefType> view = matrixView(b);
  if (!view)
    return std::nullopt;
  return BBlockOrigin{view, Value(), Value()};
}

void prefetchNextBBlock(linalg::LinalgOp tile, const BBlockOrigin &origin,
                        int64_t blockRows) {
  if (tile.getNumDpsInputs() < 2)
    return;
  Value b = tile.getDpsInputOperand(1)->get();
  auto type = dyn_cast<RankedTensorType>(b.getType());
  if (!type || type.getRank() != 2 || type.isDynamicDim(0))
    return;
  // A tile of a workgroup its tile does not divide has columns bounded by
  // the register tile's (peeled later): prefetch that many, clamped to B's
  // last column.
  int64_t columns = type.getDimSize(1);
  bool bounded = ShapedType::isDynamic(columns);
  if (bounded) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(b, 1),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(bound) || *bound <= 0)
      return;
    columns = *bound;
  }
  OpBuilder builder(tile);
  auto traced = traceSlices(builder, tile, b);
  // The copy of the block, or B itself (read in place).
  if (!traced)
    return;
  auto toTensor = traced->first.getDefiningOp<bufferization::ToTensorOp>();
  if (!traced->first.getDefiningOp<linalg::CopyOp>() &&
      !(toTensor && toTensor.getBuffer() == origin.view))
    return;
  Location loc = tile.getLoc();
  Value first = traced->second[0], column = traced->second[1];
  if (origin.row) { // The copy's offsets, from its origin in B.
    first = arith::AddIOp::create(builder, loc, origin.row, first);
    column = arith::AddIOp::create(builder, loc, origin.column, column);
  }
  first = arith::AddIOp::create(
      builder, loc, first,
      arith::ConstantIndexOp::create(builder, loc, blockRows));
  Value lastRow = arith::ConstantIndexOp::create(
      builder, loc, origin.view.getType().getDimSize(0) - 1);
  Value lastColumn =
      bounded ? arith::ConstantIndexOp::create(
                    builder, loc, origin.view.getType().getDimSize(1) - 1)
              : Value();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value rows = arith::ConstantIndexOp::create(builder, loc, type.getDimSize(0));
  scf::ForOp::create(
      builder, loc, zero, rows, one, ValueRange{},
      [&](OpBuilder &nested, Location loc, Value k, ValueRange) {
        Value row = arith::AddIOp::create(nested, loc, first, k);
        row = arith::MinSIOp::create(nested, loc, row, lastRow);
        prefetchLines(nested, loc, origin.view, {row, column}, columns,
                      lastColumn);
        scf::YieldOp::create(nested, loc);
      });
  LLVM_DEBUG(llvm::dbgs() << "register tile at " << loc
                          << " prefetches the next B block\n");
}

} // namespace fleet::codegen::detail
