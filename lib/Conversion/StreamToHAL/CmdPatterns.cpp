//===- CmdPatterns.cpp - stream.cmd.execute → command buffers -------------===//
//
// A stream.cmd.execute becomes a one-shot command buffer recorded in the
// order of its body, finalized and submitted with hal.device.queue.execute:
// the submission waits on the fence of the awaited timepoint and signals a
// fresh fence, which stands for the execute's timepoint (docs/design.md §4).
//
// Ordering inside the command buffer: the body and `stream.cmd.serial`
// regions are serial — an execution barrier separates consecutive commands;
// the commands of a `stream.cmd.concurrent` region are recorded with no
// barrier between them and one after the region. A barrier is only emitted
// when a command follows (the end of a command buffer orders everything).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-conversion"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream_to_hal;

namespace {

/// Records the commands of one stream.cmd.execute into a command buffer.
class CommandRecorder {
public:
  CommandRecorder(ConversionPatternRewriter &rewriter,
                  const ConversionState &state, Value commandBuffer,
                  Value device, IRMapping &mapping)
      : rewriter(rewriter), state(state), commandBuffer(commandBuffer),
        device(device), mapping(mapping) {}

  /// Records the ops of `block`; returns whether any command was recorded.
  FailureOr<bool> recordBlock(Block &block, bool serial) {
    bool recordedAny = false;
    for (Operation &op : block) {
      if (isa<stream::YieldOp>(op))
        continue;
      FailureOr<bool> recorded = recordOp(op);
      if (failed(recorded))
        return failure();
      if (*recorded && serial)
        needsBarrier = true;
      recordedAny |= *recorded;
    }
    return recordedAny;
  }

private:
  /// A value used inside the execute region: a capture, a value defined in
  /// the region (cloned), or an outer value (as converted so far).
  Value lookup(Value value) {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    return rewriter.getRemappedValue(value);
  }

  /// Emits the barrier a previous serial command asked for.
  void beginCommand(Location loc) {
    if (!needsBarrier)
      return;
    needsBarrier = false;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "]   execution barrier before "
                            << loc << "\n");
    hal::CommandBufferExecutionBarrierOp::create(
        rewriter, loc, commandBuffer,
        hal::ExecutionStage::CommandRetire | hal::ExecutionStage::Dispatch |
            hal::ExecutionStage::Transfer,
        hal::ExecutionStage::CommandIssue | hal::ExecutionStage::Dispatch |
            hal::ExecutionStage::Transfer,
        hal::ExecutionBarrierFlags::None);
  }

  FailureOr<bool> recordOp(Operation &op) {
    if (auto serial = dyn_cast<stream::CmdSerialOp>(op))
      return recordBlock(serial.getBody().front(), /*serial=*/true);
    if (auto concurrent = dyn_cast<stream::CmdConcurrentOp>(op)) {
      FailureOr<bool> recorded =
          recordBlock(concurrent.getBody().front(), /*serial=*/false);
      // Whatever follows the region waits for all of it.
      if (succeeded(recorded) && *recorded)
        needsBarrier = true;
      return recorded;
    }
    if (auto dispatch = dyn_cast<stream::CmdDispatchOp>(op))
      return recordDispatch(dispatch);
    if (auto copy = dyn_cast<stream::CmdCopyOp>(op)) {
      beginCommand(copy.getLoc());
      hal::CommandBufferCopyBufferOp::create(
          rewriter, copy.getLoc(), commandBuffer, lookup(copy.getSource()),
          lookup(copy.getSourceOffset()), lookup(copy.getTarget()),
          lookup(copy.getTargetOffset()), lookup(copy.getLength()),
          hal::CopyFlags::None);
      return true;
    }
    if (auto fill = dyn_cast<stream::CmdFillOp>(op)) {
      beginCommand(fill.getLoc());
      hal::CommandBufferFillBufferOp::create(
          rewriter, fill.getLoc(), commandBuffer, lookup(fill.getTarget()),
          lookup(fill.getTargetOffset()), lookup(fill.getTargetLength()),
          lookup(fill.getValue()), hal::FillFlags::None);
      return true;
    }
    if (isa<stream::CmdFlushOp, stream::CmdInvalidateOp,
            stream::CmdDiscardOp>(op)) {
      // Local devices share coherent host memory, so releasing a range to
      // another consumer, acquiring it, or dropping its contents needs no
      // command; the runtime enforces which device may access which buffer
      // (docs/design.md §5). Devices with incoherent memory would record cache
      // maintenance here.
      return false;
    }
    if (op.getDialect() == op.getContext()->getLoadedDialect("stream")) {
      return op.emitOpError()
             << "is not supported inside stream.cmd.execute by hal-conversion";
    }
    // Plain host values computed inside the region (constants, index math).
    for (Value operand : op.getOperands())
      if (!mapping.contains(operand))
        mapping.map(operand, lookup(operand));
    rewriter.clone(op, mapping);
    return false;
  }

  /// Appends the 32-bit push-constant words of `value` (KernelABI.h: i32/f32
  /// one word; index/i64/f64 two, low word first; narrower values widen).
  void appendConstantWords(Location loc, Value value,
                           SmallVectorImpl<Value> &words) {
    Type i32 = rewriter.getI32Type();
    Type i64 = rewriter.getI64Type();
    Type type = value.getType();
    if (type.isIndex()) {
      value = arith::IndexCastOp::create(rewriter, loc, i64, value);
      type = i64;
    } else if (auto floatType = dyn_cast<FloatType>(type)) {
      type = rewriter.getIntegerType(floatType.getWidth());
      value = arith::BitcastOp::create(rewriter, loc, type, value);
    }
    unsigned width = type.getIntOrFloatBitWidth();
    if (width < 32) {
      words.push_back(arith::ExtUIOp::create(rewriter, loc, i32, value));
    } else if (width == 32) {
      words.push_back(value);
    } else {
      words.push_back(arith::TruncIOp::create(rewriter, loc, i32, value));
      Value shift = arith::ConstantIntOp::create(rewriter, loc, 32, width);
      Value high = arith::ShRUIOp::create(rewriter, loc, value, shift);
      words.push_back(arith::TruncIOp::create(rewriter, loc, i32, high));
    }
  }

  FailureOr<bool> recordDispatch(stream::CmdDispatchOp dispatch) {
    Location loc = dispatch.getLoc();
    ArrayAttr entryPoints = dispatch.getEntryPoints();
    if (entryPoints.size() != 1) {
      return dispatch.emitOpError()
             << "has " << entryPoints.size()
             << " entry points; a dispatch names exactly one export (the "
                "variant is chosen by the device)";
    }
    auto entryPoint = cast<SymbolRefAttr>(entryPoints[0]);
    auto executable = state.symbols.lookup<hal::ExecutableOp>(
        entryPoint.getRootReference());
    if (!executable)
      return dispatch.emitOpError()
             << "dispatch to " << entryPoint << ": no such executable";
    // The variant of this dispatch's device (ConvertExecutables.cpp: with
    // several, each lists the device globals it serves), else the first.
    StringRef deviceName;
    if (auto load = device.getDefiningOp<util::GlobalLoadOp>())
      deviceName = load.getGlobal();
    hal::ExecutableVariantOp variant;
    for (auto candidate : executable.getOps<hal::ExecutableVariantOp>()) {
      auto users = candidate->getAttrOfType<ArrayAttr>("fleet.devices");
      bool serves = !users || llvm::any_of(users, [&](Attribute user) {
        return cast<FlatSymbolRefAttr>(user).getValue() == deviceName;
      });
      if (!variant || (serves && users)) {
        variant = candidate;
        if (serves && users)
          break;
      }
    }
    hal::ExecutableExportOp exportOp;
    if (variant)
      exportOp = dyn_cast_or_null<hal::ExecutableExportOp>(
          SymbolTable::lookupSymbolIn(variant, entryPoint.getLeafReference()));
    if (!exportOp || !exportOp.getOrdinal())
      return dispatch.emitOpError()
             << "dispatch to " << entryPoint << ": executable @"
             << entryPoint.getRootReference().getValue()
             << " has no converted export @"
             << entryPoint.getLeafReference().getValue();
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] dispatch of " << entryPoint
                            << " on @" << deviceName << ": variant @"
                            << variant.getSymName() << "\n");

    // Workgroup count: the chosen variant's count region, evaluated on the
    // host once codegen-configure-workgroups has chosen that variant's grid
    // (hal-materialize-workgroup-counts).
    SmallVector<Value> workload;
    for (Value value : dispatch.getWorkload())
      workload.push_back(lookup(value));
    Type indexType = rewriter.getIndexType();
    auto calculate = hal::ExecutableCalculateWorkgroupsOp::create(
        rewriter, loc, indexType, indexType, indexType, device,
        SymbolRefAttr::get(
            entryPoint.getRootReference(),
            {FlatSymbolRefAttr::get(variant.getSymNameAttr()),
             FlatSymbolRefAttr::get(exportOp.getSymNameAttr())}),
        workload);
    SmallVector<Value, 3> workgroups(calculate.getResults());

    SmallVector<Value> constants;
    for (Value uniform : dispatch.getUniformOperands()) {
      if (!uniform.getType().isIntOrIndexOrFloat())
        return dispatch.emitOpError()
               << "passes a uniform of type " << uniform.getType()
               << "; push constants are integers, indices and floats";
      appendConstantWords(loc, lookup(uniform), constants);
    }

    SmallVector<Value> buffers, offsets, lengths;
    for (auto [resource, offset, length] :
         llvm::zip_equal(dispatch.getResources(), dispatch.getResourceOffsets(),
                         dispatch.getResourceLengths())) {
      buffers.push_back(lookup(resource));
      offsets.push_back(lookup(offset));
      lengths.push_back(lookup(length));
    }

    beginCommand(loc);
    Value loaded = hal::ExecutableLookupOp::create(
        rewriter, loc, hal::ExecutableType::get(rewriter.getContext()), device,
        FlatSymbolRefAttr::get(entryPoint.getRootReference()));
    Value ordinal =
        buildI64(rewriter, loc, exportOp.getOrdinal()->getSExtValue());
    hal::CommandBufferDispatchOp::create(
        rewriter, loc, commandBuffer, loaded, ordinal, workgroups[0],
        workgroups[1], workgroups[2], constants, buffers, offsets, lengths,
        hal::DispatchFlags::None);
    return true;
  }

  ConversionPatternRewriter &rewriter;
  const ConversionState &state;
  Value commandBuffer;
  Value device;
  IRMapping &mapping;
  /// Set after a serial command or a concurrent region: the next command
  /// must wait for everything recorded before it.
  bool needsBarrier = false;
};

struct CmdExecutePattern : StatefulPattern<stream::CmdExecuteOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(stream::CmdExecuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<DeviceQueue> deviceQueue = buildOwnDeviceQueue(rewriter, op);
    if (failed(deviceQueue))
      return failure();
    Value commandBuffer = hal::CommandBufferCreateOp::create(
        rewriter, loc, hal::CommandBufferType::get(rewriter.getContext()),
        deviceQueue->device, hal::CommandBufferMode::OneShot,
        hal::CommandCategory::Transfer | hal::CommandCategory::Dispatch,
        deviceQueue->queueAffinity, /*binding_capacity=*/Value());

    IRMapping mapping;
    Block &body = op.getBody().front();
    for (auto [argument, buffer] :
         llvm::zip_equal(body.getArguments(), adaptor.getResourceOperands()))
      mapping.map(argument, buffer);
    CommandRecorder recorder(rewriter, state, commandBuffer,
                             deviceQueue->device, mapping);
    if (failed(recorder.recordBlock(body, /*serial=*/true)))
      return failure();
    hal::CommandBufferFinalizeOp::create(rewriter, loc, commandBuffer);
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] stream.cmd.execute at " << loc
               << " -> one-shot command buffer on "
               << op.getAffinityAttr() << ", waits on "
               << (adaptor.getAwaitTimepoint() ? "its await fence"
                                               : "nothing")
               << "\n");

    Value waitFence = getWaitFence(rewriter, loc, adaptor.getAwaitTimepoint());
    Value signalFence = createSignalFence(rewriter, loc, deviceQueue->device);
    hal::DeviceQueueExecuteOp::create(
        rewriter, loc, deviceQueue->device, deviceQueue->queueAffinity,
        waitFence, signalFence, commandBuffer, hal::ExecuteFlags::None);
    rewriter.replaceOp(op, signalFence);
    return success();
  }

};

} // namespace

void fleet::stream_to_hal::populateCmdPatterns(
    const TypeConverter &typeConverter, const ConversionState &state,
    RewritePatternSet &patterns) {
  patterns.add<CmdExecutePattern>(typeConverter, patterns.getContext(),
                                  state);
}
