//===- SPIRVKernelLimits.cpp - bounded temporaries and loop budgets -------===//
//
// A Vulkan workgroup tile runs in one invocation (SPIRVKernelCompiler.cpp),
// so two limits of shaders matter: temporaries must have a static size
// (private arrays), and Mesa's lavapipe ends an invocation's loops after
// 65,535 back-edges in total without any error (gallivm's loop limiter,
// LP_MAX_TGSI_LOOP_ITERATIONS), which would leave outputs unwritten.
// Here: static upper bounds for tile-sized temporaries, and the loop count
// that compileSPIRVKernelModule checks against the target's budget
// (docs/kernels.md "Vulkan kernels").
//
//===----------------------------------------------------------------------===//

#include "SPIRVKernelInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "spirv-kernel-compiler"

using namespace mlir;

namespace fleet::codegen::detail {
namespace {

std::optional<int64_t> getLowerBound(Value value);
std::optional<int64_t> getUpperBound(Value value);

/// Bounds of index arithmetic that arith's ValueBoundsOpInterface models do
/// not cover: the min/max of a partial tile (arith.minsi after
/// lower-affine), and the products and ceiling divisions of trip counts
/// that the distribution over invocations builds from them
/// (SPIRVKernelDistribution.cpp), by interval arithmetic on non-negative
/// operands. `upper` selects the closed upper bound, else the lower one.
std::optional<int64_t> getArithBound(Operation *op, bool upper) {
  auto bound = [&](Value v, bool up) {
    return up ? getUpperBound(v) : getLowerBound(v);
  };
  if (!op || op->getNumOperands() != 2)
    return std::nullopt;
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (isa<arith::MinSIOp, arith::MinUIOp, arith::MaxSIOp, arith::MaxUIOp>(
          op)) {
    bool isMin = isa<arith::MinSIOp, arith::MinUIOp>(op);
    std::optional<int64_t> a = bound(lhs, upper), b = bound(rhs, upper);
    if (a && b)
      return isMin ? std::min(*a, *b) : std::max(*a, *b);
    // min(a, b) <= a whatever b is, and max(a, b) >= a.
    if (isMin == upper)
      return a ? a : b;
    return std::nullopt;
  }
  if (isa<arith::AddIOp>(op)) {
    std::optional<int64_t> a = bound(lhs, upper), b = bound(rhs, upper);
    return a && b ? std::optional<int64_t>(*a + *b) : std::nullopt;
  }
  if (isa<arith::SubIOp>(op)) {
    std::optional<int64_t> a = bound(lhs, upper), b = bound(rhs, !upper);
    return a && b ? std::optional<int64_t>(*a - *b) : std::nullopt;
  }
  // Products and quotients: only of non-negative operands. Other ops with
  // two operands (memref.dim of a view and an index) have no bound here.
  if (!isa<arith::MulIOp, arith::CeilDivUIOp, arith::DivUIOp>(op))
    return std::nullopt;
  std::optional<int64_t> lowA = getLowerBound(lhs), lowB = getLowerBound(rhs);
  if (!lowA || !lowB || *lowA < 0 || *lowB < 0)
    return std::nullopt;
  if (isa<arith::MulIOp>(op)) {
    if (!upper)
      return *lowA * *lowB;
    std::optional<int64_t> a = getUpperBound(lhs), b = getUpperBound(rhs);
    return a && b ? std::optional<int64_t>(*a * *b) : std::nullopt;
  }
  if (isa<arith::CeilDivUIOp, arith::DivUIOp>(op)) {
    bool ceil = isa<arith::CeilDivUIOp>(op);
    std::optional<int64_t> a = bound(lhs, upper), b = bound(rhs, !upper);
    if (!a || !b || *b <= 0)
      return std::nullopt;
    return ceil ? (*a + *b - 1) / *b : *a / *b;
  }
  return std::nullopt;
}

/// The constant closed upper bound of index `value`, if there is one.
std::optional<int64_t> getUpperBound(Value value) {
  if (!value.getType().isIntOrIndex())
    return std::nullopt;
  if (std::optional<int64_t> bound =
          getArithBound(value.getDefiningOp(), /*upper=*/true))
    return bound;
  FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(value),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
  if (failed(bound))
    return std::nullopt;
  return *bound;
}

std::optional<int64_t> getLowerBound(Value value) {
  if (!value.getType().isIntOrIndex())
    return std::nullopt;
  if (std::optional<int64_t> bound =
          getArithBound(value.getDefiningOp(), /*upper=*/false))
    return bound;
  FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::LB, ValueBoundsConstraintSet::Variable(value),
      /*stopCondition=*/nullptr);
  if (failed(bound))
    return std::nullopt;
  return *bound;
}

/// Back-edges of the ops in `block` (see countLoopIterations).
FailureOr<int64_t> countBlock(Block &block, int64_t unroll,
                              Operation *&unbounded);

FailureOr<int64_t> countOp(Operation &op, int64_t unroll,
                           Operation *&unbounded) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> lower = getLowerBound(loop.getLowerBound());
    std::optional<int64_t> upper = getUpperBound(loop.getUpperBound());
    std::optional<int64_t> step = getLowerBound(loop.getStep());
    if (!lower || !upper || !step || *step <= 0) {
      unbounded = loop;
      return failure();
    }
    // The loop runs while iv < ub: at most ceil((max ub - min lb) / step).
    int64_t trips =
        *upper <= *lower ? 0 : (*upper - *lower + *step - 1) / *step;
    FailureOr<int64_t> body = countBlock(*loop.getBody(), unroll, unbounded);
    if (failed(body))
      return failure();
    bool innermost = true;
    loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
    if (innermost && unroll > 1)
      // Unrolled by `unroll`: the main loop and an epilogue of the rest.
      return (trips / unroll) * (1 + *body) +
             std::min(trips, unroll - 1) * (1 + *body);
    return trips * (1 + *body);
  }
  if (isa<scf::WhileOp>(op)) {
    unbounded = &op;
    return failure();
  }
  // scf.if and other region ops: the most expensive region.
  int64_t most = 0;
  for (Region &region : op.getRegions())
    for (Block &block : region) {
      FailureOr<int64_t> count = countBlock(block, unroll, unbounded);
      if (failed(count))
        return failure();
      most = std::max(most, *count);
    }
  return most;
}

FailureOr<int64_t> countBlock(Block &block, int64_t unroll,
                              Operation *&unbounded) {
  int64_t total = 0;
  for (Operation &op : block) {
    FailureOr<int64_t> count = countOp(op, unroll, unbounded);
    if (failed(count))
      return failure();
    total += *count;
  }
  return total;
}

} // namespace

void boundDynamicAllocations(ModuleOp module) {
  SmallVector<memref::AllocOp> allocations;
  module.walk([&](memref::AllocOp alloc) {
    if (!alloc.getType().hasStaticShape() &&
        alloc.getType().getLayout().isIdentity())
      allocations.push_back(alloc);
  });
  for (memref::AllocOp alloc : allocations) {
    MemRefType type = alloc.getType();
    SmallVector<int64_t> shape(type.getShape());
    SmallVector<OpFoldResult> sizes;
    unsigned dynamic = 0;
    bool bounded = true;
    for (int64_t &size : shape) {
      if (!ShapedType::isDynamic(size)) {
        sizes.push_back(IntegerAttr::get(IndexType::get(module.getContext()),
                                         size));
        continue;
      }
      Value value = alloc.getDynamicSizes()[dynamic++];
      std::optional<int64_t> bound = getUpperBound(value);
      if (!bound || *bound <= 0) {
        bounded = false;
        break;
      }
      size = *bound;
      sizes.push_back(value);
    }
    if (!bounded) {
      LLVM_DEBUG(llvm::dbgs() << "no bound for " << alloc << "\n");
      continue;
    }
    OpBuilder builder(alloc);
    auto staticType = MemRefType::get(shape, type.getElementType(),
                                      MemRefLayoutAttrInterface(),
                                      type.getMemorySpace());
    Value whole = memref::AllocOp::create(builder, alloc.getLoc(), staticType);
    SmallVector<OpFoldResult> offsets(shape.size(), builder.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(shape.size(), builder.getIndexAttr(1));
    Value view = memref::SubViewOp::create(builder, alloc.getLoc(), whole,
                                           offsets, sizes, strides);
    // The view's layout has the strides of the identity layout of `type`,
    // so a cast gives the users the type they had.
    Value cast = memref::CastOp::create(builder, alloc.getLoc(), type, view);
    alloc.replaceAllUsesWith(cast);
    alloc.erase();
  }
}

FailureOr<int64_t> countLoopIterations(func::FuncOp func, int64_t unroll,
                                       Operation *&unbounded) {
  unbounded = nullptr;
  int64_t total = 0;
  for (Block &block : func.getBody()) {
    FailureOr<int64_t> count = countBlock(block, unroll, unbounded);
    if (failed(count))
      return failure();
    total += *count;
  }
  return total;
}

} // namespace fleet::codegen::detail
