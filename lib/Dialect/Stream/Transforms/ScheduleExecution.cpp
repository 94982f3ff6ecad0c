//===- ScheduleExecution.cpp - per-device execute regions -----------------===//
//
// Invariant established: outside execute regions no streamable async op
// remains in host code (constants stay on the host: they are mapped host
// memory, ready at once). Each `stream.async.execute` holds ops of one
// affinity, awaits exactly the regions it depends on, and ends as soon as
// another region or the host consumes one of its values, so consumers start
// early (Fleet issue 7; docs/design.md §1 "ScheduleExecution").
//
// Algorithm (one walk per block, in program order):
//   - a streamable op X with affinity A and producer regions D first closes
//     every open region in D whose affinity cannot execute with A;
//   - X joins the open region P of A when every region in D other than P is
//     already awaited by P (a region's waits are fixed when it starts, so a
//     later consumer never delays it); otherwise P is closed and X starts a
//     new region awaiting D;
//   - a host op consuming a value of an open region closes it.
// Exports (`stream.tensor.export`, metadata on the host) first move down to
// their first user, so a result's export does not close regions — and later
// make the host wait — ahead of device work the program lists after it
// (e.g. the copy of a second result).
// Regions await only closed regions and are never reopened, so the region
// graph is acyclic. Each region is materialized right after its last op:
// every consumer outside the region comes after that point.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-schedule-execution"

namespace fleet::stream {
#define GEN_PASS_DEF_SCHEDULEEXECUTIONPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

struct Partition {
  unsigned ordinal = 0;
  Attribute affinity;
  SmallVector<Operation *> ops;
  llvm::SetVector<Partition *> awaits;
  /// Timepoints from outside the block's regions (imported fences, signals
  /// of timeline-aware ops) the region waits for instead of the host.
  llvm::SetVector<Value> externalAwaits;
  bool closed = false;
};

/// Ops scheduled into execute regions. Constants stay on the host (mapped
/// host memory); execute/concurrent regions themselves are not rescheduled.
bool isScheduled(Operation *op) {
  if (isa<AsyncExecuteOp, AsyncConcurrentOp, AsyncConstantOp>(op))
    return false;
  return isa<StreamableOpInterface>(op) &&
         op->getParentOfType<AsyncExecuteOp>() == nullptr;
}

Attribute getAffinity(Operation *op) {
  if (auto affinityOp = dyn_cast<AffinityOpInterface>(op))
    return affinityOp.getAffinityAttr();
  return {};
}

/// Splats and allocas without an affinity take their consumers': one copy
/// per consuming affinity (as IREE clones splats into each partition), so
/// none opens a region that swallows several devices' work (Fleet issue 22).
void cloneUnplacedOps(Block &block) {
  SmallVector<Operation *> unplaced;
  for (Operation &op : block)
    if (isa<AsyncSplatOp, AsyncAllocaOp>(op) && !getAffinity(&op))
      unplaced.push_back(&op);
  for (Operation *op : unplaced) {
    llvm::SetVector<Attribute> affinities;
    for (Operation *user : op->getUsers())
      if (Attribute affinity = getAffinity(user))
        affinities.insert(affinity);
    if (affinities.empty())
      continue;
    OpBuilder builder(op);
    for (Attribute affinity : affinities) {
      Operation *clone = builder.clone(*op);
      cast<AffinityOpInterface>(clone).setAffinityAttr(affinity);
      op->getResult(0).replaceUsesWithIf(
          clone->getResult(0), [&](OpOperand &use) {
            return getAffinity(use.getOwner()) == affinity;
          });
      LLVM_DEBUG(llvm::dbgs() << op->getName() << " placed on " << affinity
                              << "\n");
    }
    if (op->use_empty())
      op->erase();
  }
}

class BlockScheduler {
public:
  explicit BlockScheduler(Block &block) : block(block) {}

  void partition();
  void materialize();

private:
  void close(Partition *partition) {
    if (partition->closed)
      return;
    partition->closed = true;
    llvm::erase(openPartitions, partition);
  }
  /// The latest open region `affinity` may join. Only open regions are
  /// scanned (a few at a time, one per affinity at most), so a long block
  /// of closed regions costs nothing here.
  Partition *getOpenPartition(Attribute affinity) {
    for (Partition *p : llvm::reverse(openPartitions))
      if (canExecuteTogether(p->affinity, affinity))
        return p;
    return nullptr;
  }
  void materialize(Partition &partition);

  Block &block;
  SmallVector<std::unique_ptr<Partition>> partitions;
  /// The partitions not yet closed, in creation order.
  SmallVector<Partition *> openPartitions;
  DenseMap<Operation *, Partition *> partitionOf;
  DenseMap<Partition *, Value> timepointOf;
  /// Host awaits whose device readers now wait themselves.
  llvm::SetVector<Operation *> bypassedAwaits;
};

/// True when every user of `value` is a timeline-aware op.
bool onlyFeedsTimelineAwareOps(Value value) {
  if (value.use_empty())
    return false;
  return llvm::all_of(value.getUsers(), [](Operation *user) {
    auto aware = dyn_cast<TimelineAwareOpInterface>(user);
    return aware && aware.isTimelineAware();
  });
}

/// Results of a timeline-aware op are ready at its signal: make that
/// explicit as an imported timepoint awaited after each import of a result,
/// so device consumers can wait for it instead of the host.
void importSignals(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto aware = dyn_cast<TimelineAwareOpInterface>(&op);
    if (!aware || !aware.isTimelineAware())
      continue;
    for (Value result : op.getResults()) {
      for (Operation *user : llvm::make_early_inc_range(result.getUsers())) {
        auto import = dyn_cast<TensorImportOp>(user);
        if (!import)
          continue;
        Value imported = import.getResult();
        if (imported.hasOneUse())
          if (auto await =
                  dyn_cast<TimepointAwaitOp>(*imported.getUsers().begin()))
            if (await.getAwaitTimepoint().getDefiningOp<TimepointImportOp>())
              continue; // already waits for an imported fence
        OpBuilder builder(import->getContext());
        builder.setInsertionPointAfter(import);
        Value timepoint =
            aware.importSignalTimepoint(builder, import.getAffinityAttr());
        auto await = TimepointAwaitOp::create(
            builder, import.getLoc(), TypeRange{imported.getType()},
            ValueRange{imported}, ValueRange{import.getResultSize()},
            timepoint, /*sync=*/false);
        imported.replaceAllUsesExcept(await.getResult(0), await);
      }
    }
  }
}

/// A host-awaited value exported only to timeline-aware ops needs no host
/// wait: the ops wait for the timepoint through their fences (two aware
/// calls in sequence chain on the device timeline).
void forwardAwaitsToTimelineAwareOps(Block &block) {
  for (auto exportOp : llvm::make_early_inc_range(block.getOps<TensorExportOp>())) {
    auto await = exportOp.getSource().getDefiningOp<TimepointAwaitOp>();
    if (!await || !onlyFeedsTimelineAwareOps(exportOp.getResult()))
      continue;
    unsigned index = cast<OpResult>(exportOp.getSource()).getResultNumber();
    exportOp.getSourceMutable().assign(await.getResourceOperands()[index]);
    for (Operation *user : exportOp.getResult().getUsers()) {
      OpBuilder builder(user);
      cast<TimelineAwareOpInterface>(user).joinTimepoint(
          await.getAwaitTimepoint(), builder, exportOp.getAffinityAttr());
    }
    if (await->use_empty())
      await.erase();
  }
}

/// A host wait read only by timepoint barriers is no wait at all: each
/// barrier's value is the awaited resource and its timepoint the awaited
/// one (barriers feed fences: a coarse-fences call reading the result of
/// another one chains on the device timeline, docs/design.md §4).
void forwardAwaitsToBarriers(Block &block) {
  for (auto await :
       llvm::make_early_inc_range(block.getOps<TimepointAwaitOp>())) {
    if (await->use_empty() ||
        !llvm::all_of(await->getUsers(), llvm::IsaPred<TimepointBarrierOp>))
      continue;
    for (Operation *user : llvm::make_early_inc_range(await->getUsers())) {
      auto barrier = cast<TimepointBarrierOp>(user);
      unsigned index = cast<OpResult>(barrier.getResource()).getResultNumber();
      barrier.getResult().replaceAllUsesWith(
          await.getResourceOperands()[index]);
      barrier.getResultTimepoint().replaceAllUsesWith(
          await.getAwaitTimepoint());
      barrier.erase();
    }
    await.erase();
  }
}

void BlockScheduler::partition() {
  cloneUnplacedOps(block);
  importSignals(block);
  forwardAwaitsToBarriers(block);
  forwardAwaitsToTimelineAwareOps(block);
  for (Operation &op : block) {
    // A device op reading a host-awaited value waits for the timepoint
    // itself: the host does not (imported fences, aware ops' signals).
    llvm::SetVector<Value> externalTimepoints;
    if (isScheduled(&op)) {
      for (OpOperand &operand : op.getOpOperands()) {
        auto await = operand.get().getDefiningOp<TimepointAwaitOp>();
        if (!await || partitionOf.count(await))
          continue;
        unsigned index = cast<OpResult>(operand.get()).getResultNumber();
        operand.set(await.getResourceOperands()[index]);
        externalTimepoints.insert(await.getAwaitTimepoint());
        bypassedAwaits.insert(await);
      }
      // The op's own await (a splat awaiting a timepoint) becomes the
      // region's: inside a region an op awaits nothing itself.
      if (auto timeline = dyn_cast<TimelineOpInterface>(op)) {
        SmallVector<Value> awaited(timeline.getAwaitTimepoints());
        if (!awaited.empty()) {
          externalTimepoints.insert(awaited.begin(), awaited.end());
          OpBuilder builder(&op);
          timeline.setAwaitTimepoints(ValueRange{}, builder);
          LLVM_DEBUG(llvm::dbgs() << op.getName() << ": its "
                                  << awaited.size()
                                  << " awaited timepoint(s) go to its region\n");
        }
      }
    }
    // Producer regions of the op's operands.
    llvm::SetVector<Partition *> deps;
    for (Value operand : op.getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (Partition *p = partitionOf.lookup(producer))
          deps.insert(p);
    // Values used inside nested regions count as operands too.
    op.walk([&](Operation *nested) {
      if (nested == &op)
        return;
      for (Value operand : nested->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          if (Partition *p = partitionOf.lookup(producer))
            deps.insert(p);
    });

    if (!isScheduled(&op)) {
      // Host consumer: the regions it reads from end here.
      for (Partition *p : deps)
        close(p);
      // A call that is not timeline-aware may read or write anything (a
      // resource in place): no device work crosses it, so every open
      // region ends before it and later work starts new ones.
      auto aware = dyn_cast<TimelineAwareOpInterface>(op);
      if (isa<CallOpInterface>(op) && !(aware && aware.isTimelineAware())) {
        LLVM_DEBUG(llvm::dbgs() << "regions end at " << op.getName()
                                << ": device work does not cross it\n");
        for (Partition *p : llvm::to_vector(openPartitions))
          close(p);
      }
      continue;
    }

    Attribute affinity = getAffinity(&op);
    for (Partition *p : deps)
      if (!canExecuteTogether(p->affinity, affinity))
        close(p);
    Partition *target = getOpenPartition(affinity);
    if (target) {
      bool covered =
          llvm::all_of(deps,
                       [&](Partition *p) {
                         return p == target || target->awaits.contains(p);
                       }) &&
          llvm::all_of(externalTimepoints, [&](Value t) {
            return target->externalAwaits.contains(t);
          });
      if (!covered) {
        LLVM_DEBUG(llvm::dbgs() << "closing region " << target->ordinal
                                << ": " << op.getName()
                                << " needs a timepoint it does not await\n");
        close(target);
        target = nullptr;
      }
    }
    if (!target) {
      partitions.push_back(std::make_unique<Partition>());
      target = partitions.back().get();
      target->ordinal = partitions.size() - 1;
      openPartitions.push_back(target);
      target->affinity = affinity;
      for (Partition *p : deps) {
        close(p);
        target->awaits.insert(p);
      }
      target->externalAwaits = externalTimepoints;
    }
    // A region opened by an op without an affinity takes the first device
    // that joins it; other devices' work then needs regions of its own.
    if (!target->affinity && affinity)
      target->affinity = affinity;
    target->ops.push_back(&op);
    partitionOf[&op] = target;
  }
}

void BlockScheduler::materialize(Partition &partition) {
  Operation *last = partition.ops.back();
  MLIRContext *context = last->getContext();
  Location loc = last->getLoc();
  OpBuilder builder(context);
  builder.setInsertionPointAfter(last);
  SmallVector<Value> awaited;
  for (Partition *dep : partition.awaits)
    awaited.push_back(timepointOf[dep]);
  awaited.append(partition.externalAwaits.begin(),
                 partition.externalAwaits.end());
  Value await = joinTimepoints(builder, loc, awaited);

  // Captures: resources defined outside the region; results: values used
  // outside.
  RegionInterface interface = getRegionInterface(builder, loc, partition.ops);
  const llvm::SetVector<Value> &results = interface.results;
  auto execute = AsyncExecuteOp::create(
      builder, loc, interface.resultTypes, TimepointType::get(context),
      interface.captures.getArrayRef(), interface.captureSizes,
      interface.resultSizes, await,
      /*tied_operands=*/ArrayAttr{}, partition.affinity);
  moveIntoRegion(builder, execute.getBody(), loc, partition.ops, interface);
  timepointOf[&partition] = execute.getResultTimepoint();

  // Outside uses: device consumers capture the result (and await the
  // timepoint through their own region); host consumers wait.
  builder.setInsertionPointAfter(execute);
  for (auto [i, result] : llvm::enumerate(results)) {
    Value regionResult = execute.getResult(i);
    Value hostValue;
    for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
      Operation *user = use.getOwner();
      if (user->getParentOp() == execute.getOperation() ||
          execute->isProperAncestor(user))
        continue;
      Operation *topUser = block.findAncestorOpInBlock(*user);
      if (topUser && isScheduled(topUser)) {
        use.set(regionResult);
        continue;
      }
      // A barrier on the value is the region's timepoint: no host wait.
      if (auto barrier = dyn_cast<TimepointBarrierOp>(user)) {
        barrier.getResult().replaceAllUsesWith(regionResult);
        barrier.getResultTimepoint().replaceAllUsesWith(
            execute.getResultTimepoint());
        barrier.erase();
        continue;
      }
      // Exported only to timeline-aware ops: they wait for the region's
      // timepoint through their fences instead of the host (docs/design.md §4).
      if (auto exportOp = dyn_cast<TensorExportOp>(user);
          exportOp && onlyFeedsTimelineAwareOps(exportOp.getResult())) {
        use.set(regionResult);
        for (Operation *awareUser : exportOp.getResult().getUsers()) {
          OpBuilder awareBuilder(awareUser);
          cast<TimelineAwareOpInterface>(awareUser).joinTimepoint(
              execute.getResultTimepoint(), awareBuilder,
              partition.affinity);
        }
        continue;
      }
      if (!hostValue) {
        // Wait as late as possible: right before the first host reader, so
        // regions created between this one and that reader (the next
        // micro-batch) are submitted before the host blocks.
        Operation *firstHostUser = topUser ? topUser : user;
        for (Operation *other : result.getUsers()) {
          Operation *otherTop = block.findAncestorOpInBlock(*other);
          if (otherTop && otherTop != execute.getOperation() &&
              !isScheduled(otherTop) &&
              otherTop->isBeforeInBlock(firstHostUser))
            firstHostUser = otherTop;
        }
        OpBuilder awaitBuilder(firstHostUser);
        hostValue = TimepointAwaitOp::create(
                        awaitBuilder, loc, TypeRange{result.getType()},
                        ValueRange{regionResult},
                        ValueRange{interface.resultSizes[i]},
                        execute.getResultTimepoint(), /*sync=*/false)
                        .getResult(0);
      }
      use.set(hostValue);
    }
  }
}

void BlockScheduler::materialize() {
  for (auto &partition : partitions)
    materialize(*partition);
  for (Operation *await : bypassedAwaits)
    if (await->use_empty())
      await->erase();
}

/// Moves each export right before its first user in `block` (exports only
/// read values defined earlier, so the move keeps dominance).
void sinkExports(Block &block) {
  SmallVector<TensorExportOp> exports(block.getOps<TensorExportOp>());
  for (TensorExportOp exportOp : llvm::reverse(exports)) {
    Operation *first = nullptr;
    bool inBlock = true;
    for (Operation *user : exportOp->getUsers()) {
      Operation *top = block.findAncestorOpInBlock(*user);
      inBlock &= top != nullptr;
      if (top && (!first || top->isBeforeInBlock(first)))
        first = top;
    }
    if (inBlock && first && first != exportOp->getNextNode())
      exportOp->moveBefore(first);
  }
}

struct ScheduleExecutionPass
    : public fleet::stream::impl::ScheduleExecutionPassBase<
          ScheduleExecutionPass> {
  bool canScheduleOn(RegisteredOperationName name) const override {
    return canScheduleOnHostCallable(name);
  }

  void runOnOperation() override {
    SmallVector<Block *> blocks;
    for (Operation *op : getHostCallables(getOperation())) {
      op->walk([&](Block *block) {
        // Only host blocks: not the bodies of (async or cmd) regions.
        Operation *parent = block->getParentOp();
        if (isa<AsyncExecuteOp, AsyncConcurrentOp, CmdExecuteOp,
                CmdSerialOp, CmdConcurrentOp>(parent) ||
            parent->getParentOfType<AsyncExecuteOp>() ||
            parent->getParentOfType<CmdExecuteOp>())
          return;
        blocks.push_back(block);
      });
    }
    for (Block *block : blocks) {
      sinkExports(*block);
      BlockScheduler scheduler(*block);
      scheduler.partition();
      scheduler.materialize();
    }
  }
};

} // namespace
