//===- MaskedReductions.cpp - masked reductions in a vectorizable form ----===//
//
// A reduction that skips some elements (a causal softmax's row maximum over
// the columns up to the row, docs/kernels.md "Masked reductions") arrives as
//   %m = arith.maximumf %in, %acc
//   %r = arith.select %skip, %acc, %m
//   linalg.yield %r
// which the vectorizer cannot take: the yielded value is not the reduction's
// combining op, so the kernel ran as scalar code. With `e` the combining
// op's neutral element (upstream arith::getNeutralElement: -inf for
// maximumf, 1.0 for mulf, ...; -0.0 for addf, where upstream's +0.0 would
// turn an accumulator of -0.0 into +0.0) the body becomes
//   %v = arith.select %skip, e, %in
//   %r = arith.maximumf %v, %acc
// which yields the same value for every input, NaN and signed zeros
// included, since combining e with %acc gives %acc exactly. Invariant: every
// rewritten body yields its combining op.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "codegen-tile-and-vectorize"

namespace fleet::codegen::detail {

namespace {

struct YieldCombiningOp : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumReductionLoops() == 0)
      return failure();
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    bool changed = false;
    for (OpOperand &result : op.getDpsInitsMutable()) {
      BlockArgument accumulator = op.getMatchingBlockArgument(&result);
      unsigned index = op.getTiedOpResult(&result).getResultNumber();
      auto select = yield.getOperand(index).getDefiningOp<arith::SelectOp>();
      if (!select || select->getBlock() != &body)
        continue;
      // select(skip, acc, combine) or select(keep, combine, acc).
      bool accumulatorIfTrue = select.getTrueValue() == accumulator;
      Value combined =
          accumulatorIfTrue ? select.getFalseValue() : select.getTrueValue();
      if (!accumulatorIfTrue && select.getFalseValue() != accumulator)
        continue;
      Operation *combine = combined.getDefiningOp();
      if (!combine || combine->getBlock() != &body ||
          combine->getNumOperands() != 2 || combine->getNumResults() != 1 ||
          !combined.hasOneUse())
        continue;
      // Float and integer (not index) element types: upstream's neutral
      // element of an index-typed integer op asserts.
      Type type = combined.getType();
      if (!isa<FloatType>(type) && !type.isSignlessInteger())
        continue;
      std::optional<TypedAttr> neutral = arith::getNeutralElement(combine);
      if (!neutral || neutral->getType() != type)
        continue;
      // x + (-0.0) = x for every x; upstream gives +0.0, which turns an
      // accumulator of -0.0 into +0.0.
      if (isa<arith::AddFOp>(combine))
        neutral = rewriter.getFloatAttr(type, -0.0);
      unsigned accumulatorOperand = combine->getOperand(0) == accumulator   ? 0
                                    : combine->getOperand(1) == accumulator ? 1
                                                                            : 2;
      if (accumulatorOperand == 2)
        continue;
      Value element = combine->getOperand(1 - accumulatorOperand);

      // The combining op moves down to the select, after the mask it now
      // reads (the mask may be computed after it).
      rewriter.moveOpBefore(combine, select);
      rewriter.setInsertionPoint(combine);
      Value identity =
          arith::ConstantOp::create(rewriter, select.getLoc(), *neutral);
      Value masked = arith::SelectOp::create(
          rewriter, select.getLoc(), select.getCondition(),
          accumulatorIfTrue ? identity : element,
          accumulatorIfTrue ? element : identity);
      rewriter.modifyOpInPlace(combine, [&] {
        combine->setOperand(1 - accumulatorOperand, masked);
      });
      rewriter.replaceOp(select, combined);
      LLVM_DEBUG(llvm::dbgs() << "masked reduction at " << op.getLoc()
                              << ": yields " << combine->getName() << "\n");
      changed = true;
    }
    return success(changed);
  }
};

} // namespace

void exposeMaskedReductions(func::FuncOp func) {
  RewritePatternSet patterns(func.getContext());
  patterns.add<YieldCombiningOp>(func.getContext());
  // Each rewrite removes a select: the driver always converges.
  (void)applyPatternsGreedily(func, std::move(patterns));
}

} // namespace fleet::codegen::detail
