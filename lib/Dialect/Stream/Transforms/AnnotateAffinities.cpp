//===- AnnotateAffinities.cpp - AffinityAnalysis as attributes (debug) ----===//
//
// Invariant established: none; a debugging aid. Every op the analysis
// visited carries what the analysis concluded, so tests and users can see
// placement decisions (`stream.affinities*`).
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/Analysis/AffinityAnalysis.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/IR/Builders.h"

namespace fleet::stream {
#define GEN_PASS_DEF_ANNOTATEAFFINITIESPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

struct AnnotateAffinitiesPass
    : public fleet::stream::impl::AnnotateAffinitiesPassBase<
          AnnotateAffinitiesPass> {
  void runOnOperation() override {
    AffinityAnalysis analysis(getOperation());
    if (failed(analysis.run()))
      return signalPassFailure();
    Builder builder(&getContext());
    Attribute none = builder.getUnitAttr();
    auto orNone = [&](Attribute a) { return a ? a : none; };
    getOperation().walk([&](Operation *op) {
      if (op->getParentOfType<ExecutableOp>())
        return;
      Attribute execution = analysis.getExecutionAffinity(op);
      if (!execution)
        return;
      op->setAttr("stream.affinities", builder.getArrayAttr({execution}));
      SmallVector<Attribute> operands, results, pins;
      for (Value operand : op->getOperands())
        operands.push_back(orNone(analysis.getValueAffinity(operand)));
      for (Value result : op->getResults()) {
        results.push_back(orNone(analysis.getValueAffinity(result)));
        pins.push_back(builder.getArrayAttr(analysis.getPinnedAffinities(result)));
      }
      op->setAttr("stream.affinities.operands", builder.getArrayAttr(operands));
      op->setAttr("stream.affinities.results", builder.getArrayAttr(results));
      op->setAttr("stream.affinities.results.pins", builder.getArrayAttr(pins));
    });
  }
};

} // namespace
