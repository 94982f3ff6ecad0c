//===- PropagateTimepoints.cpp - timepoints travel with resources ---------===//
//
// Invariant established: no host wait sits between device regions of
// consecutive loop iterations. A loop-carried resource carries a
// loop-carried timepoint: the execute regions of iteration i+1 that read it
// await iteration i's timepoint, and the host waits only where it reads the
// value itself (docs/design.md §1, "PropagateTimepoints").
//
// Only scf.for is handled: values crossing scf.if, cf branches, calls and
// globals keep their host waits (resources crossing them are awaited before
// the branch/call/store); see docs/status.md. Loops are visited innermost
// first; when an outer loop's carried resource is an inner loop's init, the
// outer timepoint becomes the inner loop's timepoint init (no host wait per
// outer iteration).
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

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
/// For each propagated loop: init operand index of a carried resource →
/// init operand index of its timepoint.
using CarriedTimepoints =
    llvm::DenseMap<mlir::Operation *, llvm::DenseMap<unsigned, unsigned>>;

void waitBeforeUses(Value resource, Value timepoint, OpBuilder &builder,
                    const CarriedTimepoints &carriedTimepoints) {
  Value awaited;
  for (OpOperand &use : llvm::make_early_inc_range(resource.getUses())) {
    Operation *user = use.getOwner();
    // An inner loop already carrying this resource's timepoint starts from
    // `timepoint` instead of a ready value.
    if (auto inner = dyn_cast<scf::ForOp>(user)) {
      auto it = carriedTimepoints.find(inner);
      if (it != carriedTimepoints.end()) {
        unsigned initIndex =
            use.getOperandNumber() - inner.getNumControlOperands();
        auto pair = it->second.find(initIndex);
        if (pair != it->second.end()) {
          OpOperand &init = inner.getInitArgsMutable()[pair->second];
          Value previous = init.get();
          init.set(timepoint);
          if (previous.use_empty())
            previous.getDefiningOp()->erase();
          LLVM_DEBUG(llvm::dbgs() << "inner loop at " << inner.getLoc()
                                  << " starts from the outer timepoint\n");
          continue;
        }
      }
    }
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

void propagate(scf::ForOp loop, CarriedTimepoints &carriedTimepoints) {
  SmallVector<unsigned> carried;
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    if (isa<ResourceType>(arg.getType()))
      carried.push_back(i);
  if (carried.empty()) {
    LLVM_DEBUG(llvm::dbgs() << "skip (no loop-carried resource): "
                            << loop.getLoc() << "\n");
    return;
  }
  LLVM_DEBUG(llvm::dbgs() << "carrying " << carried.size()
                          << " timepoint(s) through the loop at "
                          << loop.getLoc() << "\n");

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
                   forOp.getRegionIterArgs()[base + k], bodyBuilder,
                   carriedTimepoints);
    waitBeforeUses(forOp.getResult(i), forOp.getResult(base + k),
                   afterBuilder, carriedTimepoints);
    carriedTimepoints[forOp][i] = base + k;
  }
  // Awaits that only fed the yield are dead now, and so are sizes read only
  // for them.
  forOp.getBody()->walk([](TimepointAwaitOp await) {
    if (await->use_empty())
      await.erase();
  });
  forOp.getBody()->walk([](ResourceSizeOp size) {
    if (size->use_empty())
      size.erase();
  });
}

struct PropagateTimepointsPass
    : public fleet::stream::impl::PropagateTimepointsPassBase<
          PropagateTimepointsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    // Innermost first (see the header).
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    CarriedTimepoints carriedTimepoints;
    for (scf::ForOp loop : loops)
      propagate(loop, carriedTimepoints);
  }
};

} // namespace
