//===- ScheduleAllocation.cpp - async regions to explicit commands --------===//
//
// Invariant established: host code holds no async (value-semantics) work.
// Every `stream.async.execute` is a `stream.cmd.execute` over explicitly
// allocated resources:
//   - results get a `stream.resource.alloca` before the region (the region
//     awaits it) that awaits what the region awaits: queues are not in order,
//     so this is what bounds memory (in a loop whose region waits for the
//     previous iteration, the next buffer waits for it too) without ordering
//     an alloca behind unrelated work of its queue; the allocation affinity
//     is the set of devices
//     that touch the value: the producing region's device plus the devices
//     of the regions that read it, as `#hal.device.optimal<[...]>` in device
//     declaration order when there are several (Fleet issue 7; a value only
//     its own device touches — e.g. a result pinned to A once transfers run
//     on A — stays `on(A)`);
//   - values produced and consumed inside one region get an alloca before it
//     (awaiting the same) and a dealloca after it; two of them of the same size that are never
//     live in the same serial step of the region share one alloca (a step
//     ends in an execution barrier, so the later writer cannot overtake the
//     earlier readers); results passed between regions are deallocated after
//     the last region reading them;
//   - a buffer an `scf.for` carries from one iteration to the next is freed
//     once the iteration's regions have read it, when the loop owns it: its
//     init and each iteration's yielded buffer are allocations that only
//     the region writing them and this one loop operand (or yield operand)
//     use, and the body hands the carried buffer only to regions; the
//     loop's result is freed after the last region reading it;
//   - dispatches become `stream.cmd.dispatch` (ro inputs, wo results, rw
//     tied), transfers `stream.cmd.copy`, preceded by `stream.cmd.invalidate
//     from(SRC)` when the source lives on another device than where the copy
//     runs and followed by `stream.cmd.flush to(DST)` when the result does;
//     splats/fills `stream.cmd.fill`, copies/updates/slices/clones
//     `stream.cmd.copy`, concurrent regions `stream.cmd.concurrent`;
//   - host constants become `util.buffer.constant` mapped as resources with
//     `stream.resource.try_map` (host memory every local device can read).
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/IR/DeviceTopology.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-schedule-allocation"

namespace fleet::stream {
#define GEN_PASS_DEF_SCHEDULEALLOCATIONPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

/// Converts the async ops of one execute region into commands.
class CommandBuilder {
public:
  /// `zero` is an index 0 defined outside the command region (only stream
  /// commands may appear inside it).
  CommandBuilder(OpBuilder &builder, IRMapping &buffers, Attribute affinity,
                 Value zero, SymbolTableCollection &symbols)
      : builder(builder), buffers(buffers), affinity(affinity), zero(zero),
        symbols(symbols) {}

  LogicalResult convertBlock(Block &block);

private:
  Value lookup(Value v) { return buffers.lookupOrDefault(v); }
  Value sizeOf(Value v) {
    return getResourceSize(builder, builder.getUnknownLoc(), v);
  }
  LogicalResult convert(Operation *op);

  OpBuilder &builder;
  IRMapping &buffers;
  Attribute affinity;
  Value zero;
  SymbolTableCollection &symbols;
};

LogicalResult CommandBuilder::convertBlock(Block &block) {
  for (Operation &op : block)
    if (failed(convert(&op)))
      return failure();
  return success();
}

LogicalResult CommandBuilder::convert(Operation *op) {
  Location loc = op->getLoc();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AsyncDispatchOp op) -> LogicalResult {
        SmallVector<Value> uniforms, resources, sizes, offsets, lengths;
        SmallVector<Attribute> accesses;
        MLIRContext *context = op.getContext();
        auto access = [&](ResourceAccessBitfield bits) {
          return ResourceAccessBitfieldAttr::get(context, bits);
        };
        unsigned rangeIndex = 0;
        // Tied results write their operand: that operand is read-write. So
        // is every operand of a dispatch whose export is not in the module
        // (nothing says what it only reads).
        bool unresolved = isUnresolvedDispatch(op, symbols);
        if (unresolved)
          LLVM_DEBUG(llvm::dbgs() << "unresolved dispatch " << op.getEntryPoints()
                                  << ": every operand read-write\n");
        llvm::SmallDenseSet<unsigned> tiedOperands;
        for (unsigned i = 0; i < op->getNumResults(); ++i)
          if (auto index = cast<util::TiedOpInterface>(op.getOperation())
                               .getTiedResultOperandIndex(i))
            tiedOperands.insert(*index);
        for (auto [i, operand] : llvm::enumerate(op.getResourceOperands())) {
          if (!isa<ResourceType>(operand.getType())) {
            uniforms.push_back(operand);
            continue;
          }
          unsigned operandIndex =
              op.getResourceOperands().getBeginOperandIndex() + i;
          resources.push_back(lookup(operand));
          sizes.push_back(op.getResourceOperandSizes()[rangeIndex]);
          offsets.push_back(op.getResourceOperandOffsets()[rangeIndex]);
          lengths.push_back(op.getResourceOperandLengths()[rangeIndex]);
          accesses.push_back(access(unresolved ||
                                            tiedOperands.contains(operandIndex)
                                        ? ResourceAccessBitfield::Read |
                                              ResourceAccessBitfield::Write
                                        : ResourceAccessBitfield::Read));
          ++rangeIndex;
        }
        auto tied = cast<util::TiedOpInterface>(op.getOperation());
        for (auto [i, result] : llvm::enumerate(op.getResults())) {
          if (tied.getTiedResultOperandIndex(i))
            continue;
          resources.push_back(lookup(result));
          sizes.push_back(op.getResultSizes()[i]);
          offsets.push_back(zero);
          lengths.push_back(op.getResultSizes()[i]);
          accesses.push_back(access(ResourceAccessBitfield::Write));
        }
        CmdDispatchOp::create(builder, loc, op.getWorkload(),
                              op.getEntryPoints(), uniforms, resources, sizes,
                              offsets, lengths,
                              builder.getArrayAttr(accesses));
        return success();
      })
      .Case([&](AsyncTransferOp op) -> LogicalResult {
        Value source = lookup(op.getSource());
        Value target = lookup(op.getResult());
        Value size = op.getSourceSize();
        Attribute execution = op.getAffinityAttr();
        StringRef runsOn = getAffinityDeviceName(execution ? execution : affinity);
        // Acquire a range another device flushed, release one another
        // device reads (docs/design.md §3; explicit even on coherent memory).
        Attribute from = op.getSourceAffinityAttr();
        if (from && getAffinityDeviceName(from) != runsOn)
          CmdInvalidateOp::create(builder, loc, source, size, zero, size,
                                  from);
        CmdCopyOp::create(builder, loc, source, size, zero, target,
                          op.getResultSize(), zero, size);
        Attribute to = op.getTargetAffinityAttr();
        if (to && getAffinityDeviceName(to) != runsOn)
          CmdFlushOp::create(builder, loc, target, op.getResultSize(), zero,
                             op.getResultSize(), to);
        return success();
      })
      .Case([&](AsyncSplatOp op) -> LogicalResult {
        if (op.getValue().getType().getIntOrFloatBitWidth() > 32)
          return op.emitOpError()
                 << "64-bit fill patterns are not supported by stream.cmd.fill";
        CmdFillOp::create(builder, loc, lookup(op.getResult()),
                          op.getResultSize(), zero, op.getResultSize(),
                          op.getValue());
        return success();
      })
      .Case([&](AsyncFillOp op) -> LogicalResult {
        if (op.getValue().getType().getIntOrFloatBitWidth() > 32)
          return op.emitOpError()
                 << "64-bit fill patterns are not supported by stream.cmd.fill";
        CmdFillOp::create(builder, loc, lookup(op.getTarget()),
                          op.getTargetSize(), op.getTargetOffset(),
                          op.getTargetLength(), op.getValue());
        buffers.map(op.getResult(), lookup(op.getTarget()));
        return success();
      })
      .Case([&](AsyncCopyOp op) -> LogicalResult {
        CmdCopyOp::create(builder, loc, lookup(op.getSource()),
                          op.getSourceSize(), op.getSourceOffset(),
                          lookup(op.getTarget()), op.getTargetSize(),
                          op.getTargetOffset(), op.getLength());
        buffers.map(op.getResult(), lookup(op.getTarget()));
        return success();
      })
      .Case([&](AsyncUpdateOp op) -> LogicalResult {
        CmdCopyOp::create(builder, loc, lookup(op.getUpdate()),
                          op.getUpdateSize(), zero, lookup(op.getTarget()),
                          op.getTargetSize(), op.getTargetOffset(),
                          op.getUpdateSize());
        buffers.map(op.getResult(), lookup(op.getTarget()));
        return success();
      })
      .Case([&](AsyncCloneOp op) -> LogicalResult {
        CmdCopyOp::create(builder, loc, lookup(op.getSource()),
                          op.getSourceSize(), zero, lookup(op.getResult()),
                          op.getResultSize(), zero, op.getResultSize());
        return success();
      })
      .Case([&](AsyncSliceOp op) -> LogicalResult {
        CmdCopyOp::create(builder, loc, lookup(op.getSource()),
                          op.getSourceSize(), op.getSourceOffset(),
                          lookup(op.getResult()), op.getResultSize(), zero,
                          op.getResultSize());
        return success();
      })
      .Case([&](AsyncAllocaOp) { return success(); })
      .Case([&](AsyncConcurrentOp op) -> LogicalResult {
        auto concurrent = CmdConcurrentOp::create(builder, loc);
        Block *body = &concurrent.getBody().emplaceBlock();
        Block &source = op.getBody().front();
        for (auto [arg, operand] :
             llvm::zip(source.getArguments(), op.getResourceOperands()))
          buffers.map(arg, lookup(operand));
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(body);
        if (failed(convertBlock(source)))
          return failure();
        YieldOp::create(builder, loc, ValueRange{}, ValueRange{});
        // Results of the concurrent region are the buffers its yield names.
        auto yield = cast<YieldOp>(source.getTerminator());
        for (auto [result, yielded] :
             llvm::zip(op.getResults(), yield.getResourceOperands()))
          buffers.map(result, lookup(yielded));
        return success();
      })
      .Case([&](YieldOp) { return success(); })
      .Default([&](Operation *op) -> LogicalResult {
        return op->emitOpError()
               << "cannot be turned into a command (unsupported in "
                  "stream-schedule-allocation)";
      });
}

class Allocator {
public:
  Allocator(ModuleOp module) : devices(module) {}

  LogicalResult convert(AsyncExecuteOp execute);
  void convertConstant(AsyncConstantOp constant);
  void deallocateBetweenRegions(Block &block);

private:
  /// The allocation affinity for a value produced in `execute`.
  Attribute getAllocationAffinity(AsyncExecuteOp execute, Value result);

  DeviceTopology devices;
  SymbolTableCollection symbols;
  /// Buffers allocated for region results and the region affinity.
  SmallVector<std::pair<Value, Attribute>> allocated;
};

Attribute Allocator::getAllocationAffinity(AsyncExecuteOp execute,
                                           Value result) {
  Attribute producer = execute.getAffinityAttr();
  llvm::SetVector<Attribute> touching;
  if (producer)
    touching.insert(producer);
  for (Operation *user : result.getUsers()) {
    auto consumer = dyn_cast<AsyncExecuteOp>(user);
    if (consumer && consumer.getAffinityAttr())
      touching.insert(consumer.getAffinityAttr());
  }
  // A transfer's result is for its target, whoever reads it later (a
  // global, the host): the target must reach it.
  auto yield = cast<YieldOp>(execute.getBody().front().getTerminator());
  unsigned index = cast<OpResult>(result).getResultNumber();
  if (index < yield.getResourceOperands().size())
    if (auto transfer =
            yield.getResourceOperands()[index].getDefiningOp<AsyncTransferOp>())
      if (Attribute target = transfer.getTargetAffinityAttr()) {
        LLVM_DEBUG(llvm::dbgs() << "transfer result for " << target << "\n");
        touching.insert(target);
      }
  // Affinities on the same device count once; several devices share the
  // buffer through the joined affinity (#hal.device.optimal in HAL).
  SmallVector<Attribute> list(touching.begin(), touching.end());
  Attribute joined = devices.getJoinedAffinity(list);
  if (!joined || llvm::is_contained(list, joined))
    return producer;
  return joined;
}

/// Two size values that are the same SSA value or the same constant.
static bool isSameSize(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<int64_t> x = getConstantIntValue(a);
  std::optional<int64_t> y = getConstantIntValue(b);
  return x && y && *x == *y;
}

/// Lets the transients of `region` whose live ranges do not overlap share
/// storage: a live range is the span of the region's top-level (serial)
/// commands that use the transient; transients of the same size are given
/// the first free one of the earlier transients' allocations, first fit in
/// order of first use. A merged transient's capture, block argument and
/// alloca are removed and its timepoint taken out of `awaits`; `temporaries`
/// keeps the allocations that remain (each freed after the region).
static void shareTransientStorage(
    CmdExecuteOp region, SmallVectorImpl<std::pair<Value, Value>> &temporaries,
    SmallVectorImpl<Value> &awaits) {
  Block &body = region.getBody().front();
  DenseMap<Operation *, unsigned> stepOf;
  for (Operation &op : body)
    stepOf[&op] = stepOf.size();
  auto argumentOf = [&](Value buffer) -> BlockArgument {
    for (OpOperand &use : buffer.getUses())
      if (use.getOwner() == region)
        return body.getArgument(use.getOperandNumber());
    return {};
  };
  struct LiveRange {
    unsigned temporary, first, last;
  };
  SmallVector<LiveRange> ranges;
  for (auto [index, temporary] : llvm::enumerate(temporaries)) {
    BlockArgument arg = argumentOf(temporary.first);
    if (!arg || arg.use_empty())
      continue;
    LiveRange range{static_cast<unsigned>(index), ~0u, 0};
    for (Operation *user : arg.getUsers()) {
      unsigned step = stepOf.lookup(body.findAncestorOpInBlock(*user));
      range.first = std::min(range.first, step);
      range.last = std::max(range.last, step);
    }
    ranges.push_back(range);
  }
  llvm::stable_sort(ranges, [](const LiveRange &a, const LiveRange &b) {
    return a.first < b.first;
  });
  // Each slot is one kept allocation and the last step that uses it.
  SmallVector<LiveRange> slots;
  llvm::SmallDenseSet<unsigned> merged;
  for (const LiveRange &range : ranges) {
    Value size = temporaries[range.temporary].second;
    LiveRange *slot = llvm::find_if(slots, [&](const LiveRange &slot) {
      return slot.last < range.first &&
             isSameSize(temporaries[slot.temporary].second, size);
    });
    if (slot == slots.end()) {
      slots.push_back(range);
      continue;
    }
    argumentOf(temporaries[range.temporary].first)
        .replaceAllUsesWith(argumentOf(temporaries[slot->temporary].first));
    slot->last = range.last;
    merged.insert(range.temporary);
  }
  if (merged.empty())
    return;
  // Drop the merged captures (highest argument first) and their allocas.
  SmallVector<std::pair<unsigned, Value>> dropped;
  for (unsigned index : merged) {
    Value buffer = temporaries[index].first;
    dropped.push_back({argumentOf(buffer).getArgNumber(), buffer});
  }
  llvm::sort(dropped, [](auto &a, auto &b) { return a.first > b.first; });
  for (auto [argNumber, buffer] : dropped) {
    body.eraseArgument(argNumber);
    region.getResourceOperandsMutable().erase(argNumber);
    region.getResourceOperandSizesMutable().erase(argNumber);
    auto alloca = buffer.getDefiningOp<ResourceAllocaOp>();
    llvm::erase(awaits, alloca.getResultTimepoint());
    alloca.erase();
  }
  SmallVector<std::pair<Value, Value>> kept;
  for (auto [index, temporary] : llvm::enumerate(temporaries))
    if (!merged.contains(index))
      kept.push_back(temporary);
  temporaries.assign(kept.begin(), kept.end());
}

/// The operand whose storage `value` was written into in place (update,
/// fill, copy and other tied results), or null.
static Value getInPlaceTarget(Value value) {
  Operation *producer = value.getDefiningOp();
  if (auto update = dyn_cast_or_null<AsyncUpdateOp>(producer))
    return update.getTarget();
  if (auto fill = dyn_cast_or_null<AsyncFillOp>(producer))
    return fill.getTarget();
  if (auto copy = dyn_cast_or_null<AsyncCopyOp>(producer))
    return copy.getTarget();
  if (auto tied = dyn_cast_or_null<util::TiedOpInterface>(producer))
    return tied.getTiedResultOperand(value);
  return {};
}

LogicalResult Allocator::convert(AsyncExecuteOp execute) {
  MLIRContext *context = execute.getContext();
  Location loc = execute.getLoc();
  Attribute affinity = execute.getAffinityAttr();
  Block &body = execute.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  auto timepointType = TimepointType::get(context);
  OpBuilder builder(execute);

  IRMapping buffers;
  llvm::SetVector<Value> captures;
  SmallVector<Value> captureSizes;
  SmallVector<Value> awaits;
  if (Value await = execute.getAwaitTimepoint())
    awaits.push_back(await);
  auto capture = [&](Value buffer, Value size) {
    if (captures.insert(buffer))
      captureSizes.push_back(size);
  };
  for (auto [arg, operand, size] :
       llvm::zip(body.getArguments(), execute.getResourceOperands(),
                 execute.getResourceOperandSizes())) {
    buffers.map(arg, operand);
    capture(operand, size);
  }

  // Results: allocate unless the region yields a capture, or a value written
  // in place into one (update/fill/copy and other tied results): then the
  // capture's storage is the result (e.g. caller-provided output storage).
  auto traceToCapture = [&](Value value) -> Value {
    while (value) {
      if (auto arg = dyn_cast<BlockArgument>(value))
        return arg.getOwner() == &body
                   ? execute.getResourceOperands()[arg.getArgNumber()]
                   : Value();
      value = getInPlaceTarget(value);
    }
    return {};
  };
  // The op that made the storage a yielded value was written into in place
  // (through tied results and concurrent regions), inside the region; null
  // when it is a capture or nothing in the region made it.
  auto traceToRoot = [&](Value value) -> Value {
    while (value) {
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        auto concurrent =
            dyn_cast<AsyncConcurrentOp>(arg.getOwner()->getParentOp());
        if (!concurrent)
          return {};
        value = concurrent.getResourceOperands()[arg.getArgNumber()];
        continue;
      }
      Operation *producer = value.getDefiningOp();
      if (auto concurrent = dyn_cast<AsyncConcurrentOp>(producer)) {
        auto inner =
            cast<YieldOp>(concurrent.getBody().front().getTerminator());
        value = inner.getResourceOperands()[cast<OpResult>(value)
                                                .getResultNumber()];
      } else if (Value target = getInPlaceTarget(value)) {
        value = target;
      } else {
        return value;
      }
    }
    return {};
  };
  SmallVector<Value> resultBuffers;
  for (auto [i, yielded] : llvm::enumerate(yield.getResourceOperands())) {
    if (Value capture = traceToCapture(yielded)) {
      resultBuffers.push_back(capture);
      continue;
    }
    Value size = execute.getResultSizes()[i];
    auto alloca = ResourceAllocaOp::create(
        builder, loc, execute.getResult(i).getType(), timepointType, size,
        execute.getAwaitTimepoint(), /*indeterminate_lifetime=*/false,
        getAllocationAffinity(execute, execute.getResult(i)));
    // A value built in place (a copy chain into an alloca, a splat then
    // copies) is built in the result's buffer: map the op that made its
    // storage, so every write of the chain lands there.
    Value root = traceToRoot(yielded);
    if (root && root != yielded && !buffers.contains(root)) {
      LLVM_DEBUG(llvm::dbgs() << "result " << i
                              << " built in place from its root\n");
      buffers.map(root, alloca.getResult());
    } else {
      buffers.map(yielded, alloca.getResult());
    }
    awaits.push_back(alloca.getResultTimepoint());
    capture(alloca.getResult(), size);
    resultBuffers.push_back(alloca.getResult());
    allocated.push_back({alloca.getResult(), affinity});
  }

  // A concurrent region yielding a value that is a result of the execute
  // writes it straight into the result's buffer.
  SmallVector<AsyncConcurrentOp> concurrents;
  body.walk<WalkOrder::PreOrder>(
      [&](AsyncConcurrentOp op) { concurrents.push_back(op); });
  for (AsyncConcurrentOp op : concurrents) {
    auto innerYield = cast<YieldOp>(op.getBody().front().getTerminator());
    for (auto [result, yielded] :
         llvm::zip(op.getResults(), innerYield.getResourceOperands()))
      if (Value buffer = buffers.lookupOrNull(result))
        buffers.map(yielded, buffer);
  }

  // Temporaries: produced and consumed inside the region.
  SmallVector<std::pair<Value, Value>> temporaries;
  body.walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      if (!isa<ResourceType>(result.getType()) || buffers.contains(result))
        continue;
      // Tied/in-place results reuse their target (mapped during conversion).
      if (isa<AsyncFillOp, AsyncCopyOp, AsyncUpdateOp, AsyncConcurrentOp>(op))
        continue;
      if (auto tied = dyn_cast<util::TiedOpInterface>(op))
        if (tied.getTiedResultOperand(result))
          continue;
      Value size = getResourceSize(builder, loc, result);
      auto alloca = ResourceAllocaOp::create(
          builder, loc,
          ResourceType::get(context, Lifetime::Transient), timepointType,
          size, execute.getAwaitTimepoint(), false, affinity);
      buffers.map(result, alloca.getResult());
      awaits.push_back(alloca.getResultTimepoint());
      capture(alloca.getResult(), size);
      temporaries.push_back({alloca.getResult(), size});
    }
  });

  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  // The await is joined once transients sharing storage are known.
  auto cmdExecute = CmdExecuteOp::create(
      builder, loc, timepointType, captures.getArrayRef(), captureSizes,
      /*await_timepoint=*/Value{}, /*once=*/false, affinity);
  Block *cmdBody = &cmdExecute.getBody().emplaceBlock();
  IRMapping inner;
  for (Value buffer : captures)
    inner.map(buffer, cmdBody->addArgument(buffer.getType(), loc));
  // Region values -> buffers -> the command region's arguments.
  IRMapping commandBuffers;
  for (auto &[value, buffer] : buffers.getValueMap())
    commandBuffers.map(value, inner.lookupOrDefault(buffer));
  OpBuilder bodyBuilder = OpBuilder::atBlockBegin(cmdBody);
  CommandBuilder commands(bodyBuilder, commandBuffers, affinity, zero,
                          symbols);
  if (failed(commands.convertBlock(body)))
    return failure();
  YieldOp::create(bodyBuilder, loc, ValueRange{}, ValueRange{});

  shareTransientStorage(cmdExecute, temporaries, awaits);
  // Every alloca awaits the region's own await: their timepoints cover it.
  if (Value await = execute.getAwaitTimepoint(); await && awaits.size() > 1)
    llvm::erase(awaits, await);
  builder.setInsertionPoint(cmdExecute);
  if (Value await = joinTimepoints(builder, loc, awaits))
    cmdExecute.getAwaitTimepointMutable().assign(await);

  // Temporaries die with the region.
  builder.setInsertionPointAfter(cmdExecute);
  for (auto [buffer, size] : temporaries)
    ResourceDeallocaOp::create(builder, loc, timepointType, buffer, size,
                               cmdExecute.getResultTimepoint(),
                               /*prefer_origin=*/true, affinity);

  for (auto [result, buffer] : llvm::zip(execute.getResults(), resultBuffers))
    result.replaceAllUsesWith(buffer);
  execute.getResultTimepoint().replaceAllUsesWith(
      cmdExecute.getResultTimepoint());
  execute.erase();
  return success();
}

void Allocator::convertConstant(AsyncConstantOp constant) {
  OpBuilder builder(constant);
  Location loc = constant.getLoc();
  auto hostBuffer = util::BufferConstantOp::create(
      builder, loc, util::BufferType::get(constant.getContext()),
      /*name=*/StringAttr{}, constant.getValue(), /*alignment=*/IntegerAttr{});
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  auto mapped = ResourceTryMapOp::create(
      builder, loc, builder.getI1Type(), constant.getResult().getType(),
      hostBuffer, zero, constant.getResultSize(), constant.getAffinityAttr());
  constant.getResult().replaceAllUsesWith(mapped.getResult());
  constant.erase();
}

/// A dealloca of `buffer` on the queue of the last of `readers` (command
/// regions of one block), awaiting all of them. Freeing on the last
/// reader's queue: that queue has nothing of this value left to do, while a
/// wait on another device's work queued on the producer's in-order queue
/// would hold back the producer's next region (pipelining, Fleet issue 12).
static void deallocateAfter(Value buffer, ArrayRef<CmdExecuteOp> readers) {
  CmdExecuteOp last = readers.front();
  SmallVector<Value> timepoints;
  for (CmdExecuteOp reader : readers) {
    if (last->isBeforeInBlock(reader))
      last = reader;
    timepoints.push_back(reader.getResultTimepoint());
  }
  OpBuilder builder = OpBuilder::atBlockBegin(last->getBlock());
  builder.setInsertionPointAfter(last);
  Location loc = last.getLoc();
  Value await = joinTimepoints(builder, loc, timepoints);
  Value size = getResourceSize(builder, loc, buffer);
  ResourceDeallocaOp::create(builder, loc,
                             TimepointType::get(builder.getContext()), buffer,
                             size, await, /*prefer_origin=*/true,
                             last.getAffinityAttr());
}

/// The command regions among the users of `value` in `block`, or nothing
/// when anything else (the host, a yield, a loop) uses it.
static std::optional<SmallVector<CmdExecuteOp>> getOnlyRegionReaders(
    Value value, Block *block) {
  SmallVector<CmdExecuteOp> readers;
  for (Operation *user : value.getUsers()) {
    auto region = dyn_cast<CmdExecuteOp>(user);
    if (!region || region->getBlock() != block)
      return std::nullopt;
    readers.push_back(region);
  }
  return readers;
}

void Allocator::deallocateBetweenRegions(Block &block) {
  // A buffer read only by command regions is freed after the last of them.
  for (auto [buffer, affinity] : allocated) {
    if (buffer.getParentBlock() != &block)
      continue;
    auto readers = getOnlyRegionReaders(buffer, &block);
    if (!readers || readers->size() < 2)
      continue; // producer only, or host uses: the host owns it.
    deallocateAfter(buffer, *readers);
  }
  allocated.clear();
}

/// Frees the buffers `loop` owns (see the file comment).
static void deallocateLoopCarried(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  // An allocation whose users are exactly `owner` (once) and one command
  // region of `block` (the region that writes it) — so no other device can
  // still be reading it when the loop frees it.
  auto writtenOnceThenHandedTo = [](Value buffer, Operation *owner,
                                    Block *block) {
    auto alloca = buffer.getDefiningOp<ResourceAllocaOp>();
    if (!alloca || alloca->getBlock() != block)
      return false;
    unsigned owners = 0, writers = 0;
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (user == owner)
        ++owners;
      else if (isa<CmdExecuteOp>(user) && user->getBlock() == block &&
               user->isBeforeInBlock(owner))
        ++writers;
      else
        return false;
    }
    return owners == 1 && writers == 1;
  };
  for (auto [index, init] : llvm::enumerate(loop.getInitArgs())) {
    if (!isa<ResourceType>(init.getType()))
      continue;
    // The init and each iteration's fresh buffer belong to this iter_arg
    // alone (not shared with another one) and reach the loop straight from
    // the region that wrote them.
    if (!writtenOnceThenHandedTo(init, loop, loop->getBlock()) ||
        !writtenOnceThenHandedTo(yield.getOperand(index), yield, body))
      continue;
    BlockArgument carried = loop.getRegionIterArg(index);
    auto readers = getOnlyRegionReaders(carried, body);
    if (!readers || readers->empty())
      continue;
    deallocateAfter(carried, *readers);
    Value result = loop.getResult(index);
    auto resultReaders = getOnlyRegionReaders(result, loop->getBlock());
    if (resultReaders && !resultReaders->empty())
      deallocateAfter(result, *resultReaders);
  }
}

/// Moves each alloca above the command regions and deallocas before it, up
/// to the previous alloca (allocas keep their order) or the definition of
/// an operand (size, await). The queue orders it behind neither (it is not
/// in order: fences alone order queue ops); the host program then submits
/// B's alloca before A's work and A's frees of its temporaries, so a trace
/// reads in dependency order (Fleet issue 21).
static void hoistAllocas(Block &block) {
  SmallVector<ResourceAllocaOp> allocas(block.getOps<ResourceAllocaOp>());
  for (ResourceAllocaOp alloca : allocas) {
    Operation *target = alloca;
    for (Operation *prev = alloca->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      // Allocas keep their order among themselves.
      if (!isa<CmdExecuteOp, TimepointJoinOp, ResourceDeallocaOp>(prev))
        break;
      if (llvm::any_of(prev->getResults(), [&](Value result) {
            return llvm::is_contained(alloca->getOperands(), result);
          }))
        break;
      target = prev;
    }
    if (target != alloca.getOperation()) {
      LLVM_DEBUG(llvm::dbgs() << "alloca hoisted above " << target->getName()
                              << "\n");
      alloca->moveBefore(target);
    }
  }
}

struct ScheduleAllocationPass
    : public fleet::stream::impl::ScheduleAllocationPassBase<
          ScheduleAllocationPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Allocator allocator(module);
    SmallVector<Block *> blocks;
    module.walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (parent->getParentOfType<ExecutableOp>() || isa<ExecutableOp>(parent))
        return;
      if (isa<AsyncExecuteOp, AsyncConcurrentOp, CmdExecuteOp,
              CmdConcurrentOp, CmdSerialOp>(parent) ||
          parent->getParentOfType<AsyncExecuteOp>())
        return;
      blocks.push_back(block);
    });
    for (Block *block : blocks) {
      for (auto constant :
           llvm::make_early_inc_range(block->getOps<AsyncConstantOp>()))
        allocator.convertConstant(constant);
      for (auto execute :
           llvm::make_early_inc_range(block->getOps<AsyncExecuteOp>()))
        if (failed(allocator.convert(execute)))
          return signalPassFailure();
      allocator.deallocateBetweenRegions(*block);
      hoistAllocas(*block);
      // Host reads and writes of staging resources (awaited by the host).
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        OpBuilder builder(&op);
        if (auto load = dyn_cast<AsyncLoadOp>(op)) {
          Value value = ResourceLoadOp::create(
              builder, load.getLoc(), load.getType(), load.getSource(),
              load.getSourceSize(), load.getSourceOffset());
          load.getResult().replaceAllUsesWith(value);
          load.erase();
        } else if (auto store = dyn_cast<AsyncStoreOp>(op)) {
          ResourceStoreOp::create(builder, store.getLoc(), store.getTarget(),
                                  store.getTargetSize(),
                                  store.getTargetOffset(), store.getValue());
          store.getResult().replaceAllUsesWith(store.getTarget());
          store.erase();
        }
      }
    }
    module.walk([](scf::ForOp loop) {
      if (!loop->getParentOfType<ExecutableOp>())
        deallocateLoopCarried(loop);
    });
  }
};

} // namespace
