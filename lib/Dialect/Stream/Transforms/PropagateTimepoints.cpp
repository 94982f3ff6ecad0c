//===- PropagateTimepoints.cpp - timepoints travel with resources ---------===//
//
// Invariant established: no host wait sits between device regions of
// consecutive loop iterations. A loop-carried resource carries a
// loop-carried timepoint: the execute regions of iteration i+1 that read it
// await iteration i's timepoint, and the host waits only where it reads the
// value itself (docs/design.md §1, "PropagateTimepoints").
//
// Calls and globals keep their host waits for now (resources crossing them
// are awaited before the call/store); see docs/status.md.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "stream-propagate-timepoints"

namespace fleet::stream {
#define GEN_PASS_DEF_PROPAGATETIMEPOINTSPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

/// Makes every reader of `resource` (available once `timepoint` is reached)
/// wait for it: execute regions await it, other ops read a host-awaited
/// value created before the first of them.
void waitBeforeUses(Value resource, Value timepoint, OpBuilder &builder) {
  Value awaited;
  for (OpOperand &use : llvm::make_early_inc_range(resource.getUses())) {
    Operation *user = use.getOwner();
    // Sizes are metadata: reading one needs no ready value.
    if (isa<ResourceSizeOp>(user))
      continue;
    if (auto execute = dyn_cast<AsyncExecuteOp>(user)) {
      SmallVector<Value> awaits = execute.getAwaitTimepoints();
      if (!llvm::is_contained(awaits, timepoint)) {
        awaits.push_back(timepoint);
        OpBuilder b(execute);
        execute.setAwaitTimepoints(awaits, b);
      }
      continue;
    }
    if (!awaited) {
      Value size = getResourceSize(builder, resource.getLoc(), resource);
      awaited = TimepointAwaitOp::create(builder, resource.getLoc(),
                                         TypeRange{resource.getType()},
                                         ValueRange{resource},
                                         ValueRange{size}, timepoint,
                                         /*sync=*/false)
                    .getResult(0);
    }
    use.set(awaited);
  }
}

/// `value` and the timepoint it becomes ready at: the awaited resource and
/// its timepoint when `value` comes from a single-resource await.
std::pair<Value, Value> splitAwait(Value value, OpBuilder &builder) {
  if (auto await = value.getDefiningOp<TimepointAwaitOp>())
    if (await.getResourceOperands().size() == 1)
      return {await.getResourceOperands()[0], await.getAwaitTimepoint()};
  Value immediate = TimepointImmediateOp::create(
      builder, value.getLoc(), TimepointType::get(builder.getContext()));
  return {value, immediate};
}

void propagate(scf::ForOp loop) {
  SmallVector<unsigned> carried;
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    if (isa<ResourceType>(arg.getType()))
      carried.push_back(i);
  if (carried.empty())
    return;

  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> initTimepoints;
  for (unsigned i : carried) {
    Value init = loop.getInitArgs()[i];
    auto [resource, timepoint] = splitAwait(init, rewriter);
    loop.getInitArgsMutable()[i].set(resource);
    initTimepoints.push_back(timepoint);
    // The host no longer waits before the loop.
    if (auto await = init.getDefiningOp<TimepointAwaitOp>())
      if (await->use_empty())
        await.erase();
  }

  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  SmallVector<Value> yieldTimepoints;
  {
    OpBuilder b(yield);
    for (unsigned i : carried) {
      auto [resource, timepoint] = splitAwait(yield.getOperand(i), b);
      yield.setOperand(i, resource);
      yieldTimepoints.push_back(timepoint);
    }
  }
  FailureOr<LoopLikeOpInterface> newLoop = loop.replaceWithAdditionalYields(
      rewriter, initTimepoints, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return yieldTimepoints;
      });
  if (failed(newLoop))
    return;
  auto forOp = cast<scf::ForOp>(newLoop->getOperation());
  unsigned base = forOp.getNumRegionIterArgs() - carried.size();
  OpBuilder bodyBuilder = OpBuilder::atBlockBegin(forOp.getBody());
  OpBuilder afterBuilder(forOp->getContext());
  afterBuilder.setInsertionPointAfter(forOp);
  for (auto [k, i] : llvm::enumerate(carried)) {
    waitBeforeUses(forOp.getRegionIterArgs()[i],
                   forOp.getRegionIterArgs()[base + k], bodyBuilder);
    waitBeforeUses(forOp.getResult(i), forOp.getResult(base + k),
                   afterBuilder);
  }
  // Awaits that only fed the yield are dead now.
  forOp.getBody()->walk([](TimepointAwaitOp await) {
    if (await->use_empty())
      await.erase();
  });
}

struct PropagateTimepointsPass
    : public fleet::stream::impl::PropagateTimepointsPassBase<
          PropagateTimepointsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      propagate(loop);
  }
};

} // namespace
