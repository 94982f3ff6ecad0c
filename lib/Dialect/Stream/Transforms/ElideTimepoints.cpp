//===- ElideTimepoints.cpp - drop waits already covered -------------------===//
//
// Invariant established: no op awaits a timepoint that another timepoint it
// awaits already implies. A timepoint t' covers t when the op producing t'
// awaited t (directly or transitively): t' is reached only after t. Joins of
// one timepoint are that timepoint. Timeline-aware ops (a later issue)
// report their waits through TimelineOpInterface, so their signal covers
// their waits the same way.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

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

/// Bound on how far coverage is traced back (keeps the pass linear-ish on
/// long chains; missing an elision is only a lost optimization).
constexpr unsigned kMaxDepth = 16;

/// The timepoints `timepoint` is known to come after (not including itself).
void collectCovered(Value timepoint, llvm::SetVector<Value> &covered,
                    unsigned depth) {
  if (depth > kMaxDepth)
    return;
  Operation *producer = timepoint.getDefiningOp();
  if (!producer)
    return;
  SmallVector<Value> awaits;
  if (auto import = dyn_cast<TimepointImportOp>(producer)) {
    // The signal of a timeline-aware op is reached only after its waits.
    for (Value fence : import.getOperands())
      for (Operation *user : fence.getUsers()) {
        auto aware = dyn_cast<TimelineAwareOpInterface>(user);
        if (!aware || !aware.isTimelineAware() ||
            aware.getSignalFence() != fence)
          continue;
        for (Value wait : aware.getWaitFences()) {
          if (auto exported = wait.getDefiningOp<TimepointExportOp>())
            awaits.push_back(exported.getAwaitTimepoint());
          for (Operation *waitUser : wait.getUsers())
            if (auto chain = dyn_cast<TimepointChainExternalOp>(waitUser))
              awaits.push_back(chain.getAwaitTimepoint());
        }
      }
  } else if (auto join = dyn_cast<TimepointJoinOp>(producer))
    awaits.assign(join.getAwaitTimepoints().begin(),
                  join.getAwaitTimepoints().end());
  else if (auto timeline = dyn_cast<TimelineOpInterface>(producer))
    awaits = timeline.getAwaitTimepoints();
  for (Value await : awaits)
    if (covered.insert(await))
      collectCovered(await, covered, depth + 1);
}

/// Flattens joins so every awaited timepoint is visible.
void flatten(Value timepoint, llvm::SetVector<Value> &out) {
  if (auto join = timepoint.getDefiningOp<TimepointJoinOp>()) {
    for (Value nested : join.getAwaitTimepoints())
      flatten(nested, out);
    return;
  }
  out.insert(timepoint);
}

struct ElideTimepointsPass
    : public fleet::stream::impl::ElideTimepointsPassBase<ElideTimepointsPass> {
  void runOnOperation() override {
    SmallVector<TimelineOpInterface> ops;
    getOperation().walk([&](TimelineOpInterface op) {
      if (!isa<TimepointJoinOp>(op.getOperation()))
        ops.push_back(op);
    });
    for (TimelineOpInterface op : ops) {
      SmallVector<Value> awaits = op.getAwaitTimepoints();
      if (awaits.empty())
        continue;
      llvm::SetVector<Value> flat;
      for (Value await : awaits)
        flatten(await, flat);
      llvm::SetVector<Value> covered;
      for (Value await : flat)
        collectCovered(await, covered, 0);
      SmallVector<Value> kept;
      for (Value await : flat)
        if (!covered.contains(await) &&
            !isa_and_nonnull<TimepointImmediateOp>(await.getDefiningOp()))
          kept.push_back(await);
      if (kept.size() == awaits.size() &&
          llvm::equal(kept, awaits))
        continue;
      LLVM_DEBUG(llvm::dbgs() << "awaits " << flat.size() << " -> "
                              << kept.size() << " (covered or immediate "
                              << "dropped) at " << op->getLoc() << "\n");
      OpBuilder builder(op);
      op.setAwaitTimepoints(kept, builder);
    }
    // Joins nobody reads any more.
    getOperation().walk([](TimepointJoinOp join) {
      if (join->use_empty())
        join.erase();
    });
  }
};

} // namespace
