//===- TimepointPatterns.cpp - timepoints become fences -------------------===//
//
// A `!stream.timepoint` is a `!hal.fence` (docs/design.md §4): the fence a
// queue op signals when the timepoint is reached. Immediate timepoints are null
// fences (queue ops treat a null wait fence as "already reached"), joins are
// fence joins, host awaits block on the fence and check its status.
// Cross-device ordering needs nothing more: a queue op on one device simply
// waits on a fence signalled by another device's queue.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-conversion"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream_to_hal;

namespace {

struct TimepointImmediatePattern
    : OpConversionPattern<stream::TimepointImmediateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointImmediateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, getWaitFence(rewriter, op.getLoc(), Value()));
    return success();
  }
};

struct TimepointJoinPattern : OpConversionPattern<stream::TimepointJoinOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointJoinOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fenceType = hal::FenceType::get(rewriter.getContext());
    rewriter.replaceOpWithNewOp<hal::FenceJoinOp>(
        op, fenceType, adaptor.getAwaitTimepoints(), hal::FenceFlags::None);
    return success();
  }
};

struct TimepointAwaitPattern : OpConversionPattern<stream::TimepointAwaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointAwaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // `sync` or not, the host blocks: the executor has no coroutines.
    buildHostWait(rewriter, op.getLoc(), adaptor.getAwaitTimepoint(), op);
    rewriter.replaceOp(op, adaptor.getResourceOperands());
    return success();
  }
};

struct TimepointBarrierPattern
    : OpConversionPattern<stream::TimepointBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // In cmd-level IR every pending write to a resource is already ordered
    // by the timepoint of the queue op that made it, which its users await;
    // the barrier's own timepoint adds nothing (IREE lowers it the same way).
    rewriter.replaceOp(op, {adaptor.getResource(),
                            getWaitFence(rewriter, op.getLoc(), Value())});
    return success();
  }
};

/// Fails unless `types` is exactly one `!hal.fence` (the only external
/// timeline object Fleet's HAL has).
LogicalResult checkSingleFence(Operation *op, TypeRange types) {
  if (types.size() == 1 && isa<hal::FenceType>(types.front()))
    return success();
  return op->emitOpError()
         << "exchanges timepoints with " << types.size()
         << " external values; hal-conversion supports one !hal.fence";
}

struct TimepointExportPattern : OpConversionPattern<stream::TimepointExportOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointExportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkSingleFence(op, op.getResultTypes())))
      return failure();
    rewriter.replaceOp(op, adaptor.getAwaitTimepoint());
    return success();
  }
};

struct TimepointImportPattern : OpConversionPattern<stream::TimepointImportOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointImportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkSingleFence(op, op.getOperands().getTypes())))
      return failure();
    rewriter.replaceOp(op, adaptor.getOperands().front());
    return success();
  }
};

struct TimepointChainExternalPattern
    : StatefulPattern<stream::TimepointChainExternalOp> {
  using StatefulPattern::StatefulPattern;
  LogicalResult
  matchAndRewrite(stream::TimepointChainExternalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkSingleFence(op, op.getExternalValues().getTypes())))
      return failure();
    // A queue barrier on the affinity's queue signals the external fence
    // once the timepoint's fence is reached, without a host wait.
    FailureOr<DeviceQueue> deviceQueue = buildOwnDeviceQueue(rewriter, op);
    if (failed(deviceQueue))
      return failure();
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] chain_external at "
                            << op.getLoc()
                            << " -> hal.device.queue.barrier (no host wait)\n");
    hal::DeviceQueueBarrierOp::create(
        rewriter, op.getLoc(), deviceQueue->device,
        deviceQueue->queueAffinity, adaptor.getAwaitTimepoint(),
        adaptor.getExternalValues().front(), hal::ExecuteFlags::None);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void fleet::stream_to_hal::populateTimepointPatterns(
    const TypeConverter &typeConverter, const ConversionState &state,
    RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<TimepointImmediatePattern, TimepointJoinPattern,
               TimepointAwaitPattern, TimepointBarrierPattern,
               TimepointExportPattern, TimepointImportPattern>(typeConverter,
                                                               context);
  patterns.add<TimepointChainExternalPattern>(typeConverter, context, state);
}
