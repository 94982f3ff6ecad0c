//===- ElideTimepoints.cpp - drop waits already covered -------------------===//
//
// Invariant established: no op awaits, and no join combines, a timepoint that
// another timepoint it awaits (or combines) already implies, nor an
// immediate one. A timepoint t' covers t when t' is reached only after t:
// the op producing t' awaited t (directly or transitively), a timeline-aware
// op's signal covers its waits, and coverage follows `arith.select`, block
// arguments, region results and calls (stream::TimepointCoverage, a
// module-level analysis on MLIR's data-flow framework). Joins are flattened;
// a join whose result escapes (returned, stored to a global, passed to a
// call) is rewritten to the timepoints it still needs — the one left, or an
// immediate timepoint when none is.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/Analysis/TimepointCoverage.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-elide-timepoints"

namespace fleet::stream {
#define GEN_PASS_DEF_ELIDETIMEPOINTSPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

/// Flattens joins so every awaited timepoint is visible.
void flatten(Value timepoint, llvm::SetVector<Value> &out) {
  if (auto join = timepoint.getDefiningOp<TimepointJoinOp>()) {
    for (Value nested : join.getAwaitTimepoints())
      flatten(nested, out);
    return;
  }
  out.insert(timepoint);
}

/// The timepoints of `awaits` (joins flattened) still needed: immediates and
/// those another kept one covers are dropped. Each dropped timepoint is
/// covered by one not dropped when it is checked, so mutual coverage never
/// drops both.
SmallVector<Value> keepNeeded(ValueRange awaits,
                              const TimepointCoverage &coverage) {
  llvm::SetVector<Value> flat;
  for (Value await : awaits)
    flatten(await, flat);
  SmallVector<bool> dropped(flat.size(), false);
  for (auto [i, await] : llvm::enumerate(flat)) {
    if (isa_and_nonnull<TimepointImmediateOp>(await.getDefiningOp())) {
      dropped[i] = true;
      continue;
    }
    for (auto [j, other] : llvm::enumerate(flat))
      if (i != j && !dropped[j] && coverage.covers(other, await)) {
        dropped[i] = true;
        break;
      }
  }
  SmallVector<Value> kept;
  for (auto [i, await] : llvm::enumerate(flat))
    if (!dropped[i])
      kept.push_back(await);
  return kept;
}

struct ElideTimepointsPass
    : public fleet::stream::impl::ElideTimepointsPassBase<ElideTimepointsPass> {
  void runOnOperation() override {
    TimepointCoverage coverage(getOperation());
    if (failed(coverage.run()))
      return signalPassFailure();

    // Decide everything on the analysed IR first, then rewrite.
    SmallVector<std::pair<TimelineOpInterface, SmallVector<Value>>> opEdits;
    SmallVector<std::pair<TimepointJoinOp, SmallVector<Value>>> joinEdits;
    getOperation().walk([&](TimelineOpInterface op) {
      if (auto join = dyn_cast<TimepointJoinOp>(op.getOperation())) {
        SmallVector<Value> kept = keepNeeded(join.getAwaitTimepoints(), coverage);
        if (!llvm::equal(kept, join.getAwaitTimepoints()))
          joinEdits.push_back({join, std::move(kept)});
        return;
      }
      SmallVector<Value> awaits = op.getAwaitTimepoints();
      if (awaits.empty())
        return;
      SmallVector<Value> kept = keepNeeded(awaits, coverage);
      if (!llvm::equal(kept, awaits))
        opEdits.push_back({op, std::move(kept)});
    });

    for (auto &[op, kept] : opEdits) {
      LLVM_DEBUG(llvm::dbgs() << "awaits " << op.getAwaitTimepoints().size()
                              << " -> " << kept.size()
                              << " (covered, immediate or joined) at "
                              << op->getLoc() << "\n");
      OpBuilder builder(op);
      op.setAwaitTimepoints(kept, builder);
    }
    // Joins still read (returned, stored, passed on, awaited by an op that
    // takes one await): the timepoints they still need.
    for (auto &[join, kept] : joinEdits) {
      if (join->use_empty())
        continue;
      OpBuilder builder(join);
      Value replacement =
          kept.empty()
              ? TimepointImmediateOp::create(
                    builder, join.getLoc(),
                    TimepointType::get(builder.getContext()))
                    .getResult()
              : joinTimepoints(builder, join.getLoc(), kept);
      LLVM_DEBUG(llvm::dbgs() << "join of "
                              << join.getAwaitTimepoints().size() << " -> "
                              << kept.size() << " at " << join.getLoc()
                              << "\n");
      join.getResult().replaceAllUsesWith(replacement);
    }
    // Joins nobody reads any more (innermost last, so nested ones go too).
    SmallVector<TimepointJoinOp> joins;
    getOperation().walk([&](TimepointJoinOp join) { joins.push_back(join); });
    for (TimepointJoinOp join : llvm::reverse(joins))
      if (join->use_empty())
        join.erase();
  }
};

} // namespace
