//===- ResourcePatterns.cpp - resources and allocation --------------------===//
//
// `!stream.resource` values become `!hal.buffer`s. Every allocation asks
// `hal.allocator.resolve_memory_properties` for its memory type and usage —
// single affinities too, so one pass (hal-resolve-topology-queries) owns the
// rule of docs/design.md §3 — and allocations shared by several devices
// (`#hal.device.optimal`) pick their device and queue with
// `hal.allocator.select` fed by those bits.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream_to_hal;

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-conversion"

namespace {

struct ResourceAllocaPattern : StatefulPattern<stream::ResourceAllocaOp> {
  using StatefulPattern::StatefulPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceAllocaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<AllocationTarget> target =
        buildResultAllocationTarget(rewriter, op);
    if (failed(target))
      return failure();
    Value device = target->deviceQueue.device;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] stream.resource.alloca at "
                            << loc << " -> hal.device.queue.alloca"
                            << (adaptor.getAwaitTimepoint()
                                    ? " after its await fence"
                                    : " with no wait")
                            << "\n");
    Value waitFence = getWaitFence(rewriter, loc, adaptor.getAwaitTimepoint());
    Value signalFence = createSignalFence(rewriter, loc, device);
    auto flags = op.getIndeterminateLifetime()
                     ? hal::AllocaFlags::IndeterminateLifetime
                     : hal::AllocaFlags::None;
    Value buffer = hal::DeviceQueueAllocaOp::create(
        rewriter, loc, hal::BufferType::get(rewriter.getContext()), device,
        target->deviceQueue.queueAffinity, waitFence, signalFence,
        /*pool=*/buildI64(rewriter, loc, 0), target->memoryTypes,
        target->bufferUsage, adaptor.getStorageSize(), flags);
    rewriter.replaceOp(op, {buffer, signalFence});
    return success();
  }
};

struct ResourceDeallocaPattern : StatefulPattern<stream::ResourceDeallocaOp> {
  using StatefulPattern::StatefulPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceDeallocaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Attribute affinity = lookupAffinity(op, op.getAffinityAttr(), state);
    DeviceQueue deviceQueue;
    if (isa_and_nonnull<hal::DeviceOptimalAttr>(affinity)) {
      // The same query as the allocation: it names the same device and
      // queue once resolved (or memoized).
      FailureOr<AllocationTarget> target = buildAllocationTarget(
          rewriter, op, affinity, getLifetime(op.getOperand().getType()),
          state);
      if (failed(target))
        return failure();
      deviceQueue = target->deviceQueue;
    } else {
      FailureOr<DeviceQueue> single =
          buildDeviceQueue(rewriter, op, affinity, state);
      if (failed(single))
        return failure();
      deviceQueue = *single;
    }
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] stream.resource.dealloca at "
                            << loc << " on " << affinity
                            << (op.getPreferOrigin() ? " (prefer origin)" : "")
                            << "\n");
    Value waitFence = getWaitFence(rewriter, loc, adaptor.getAwaitTimepoint());
    Value signalFence = createSignalFence(rewriter, loc, deviceQueue.device);
    hal::DeviceQueueDeallocaOp::create(
        rewriter, loc, deviceQueue.device, deviceQueue.queueAffinity,
        waitFence, signalFence, adaptor.getOperand(),
        op.getPreferOrigin() ? hal::DeallocaFlags::PreferOrigin
                             : hal::DeallocaFlags::None);
    rewriter.replaceOp(op, signalFence);
    return success();
  }
};

struct ResourceAllocPattern : StatefulPattern<stream::ResourceAllocOp> {
  using StatefulPattern::StatefulPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<AllocationTarget> target =
        buildResultAllocationTarget(rewriter, op);
    if (failed(target))
      return failure();
    Value allocator = hal::DeviceAllocatorOp::create(
        rewriter, loc, hal::AllocatorType::get(rewriter.getContext()),
        target->deviceQueue.device);
    rewriter.replaceOpWithNewOp<hal::AllocatorAllocateOp>(
        op, hal::BufferType::get(rewriter.getContext()), allocator,
        target->deviceQueue.queueAffinity, target->memoryTypes,
        target->bufferUsage, adaptor.getStorageSize());
    return success();
  }
};

/// Host bytes used in place when the device can import them; otherwise a
/// device allocation filled by a queue update, waited for on the host (the
/// mapped resource is usable immediately, it has no timepoint).
struct ResourceTryMapPattern : StatefulPattern<stream::ResourceTryMapOp> {
  using StatefulPattern::StatefulPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceTryMapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<AllocationTarget> target =
        buildResultAllocationTarget(rewriter, op);
    if (failed(target))
      return failure();
    MLIRContext *context = rewriter.getContext();
    auto bufferType = hal::BufferType::get(context);
    Value device = target->deviceQueue.device;
    Value queueAffinity = target->deviceQueue.queueAffinity;
    Value size = adaptor.getResultSize();
    Value allocator = hal::DeviceAllocatorOp::create(
        rewriter, loc, hal::AllocatorType::get(context), device);
    auto import = hal::AllocatorImportOp::create(
        rewriter, loc, rewriter.getI1Type(), bufferType, allocator,
        adaptor.getSource(), adaptor.getSourceOffset(), size, queueAffinity,
        target->memoryTypes, target->bufferUsage);
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{bufferType},
                                  import.getDidImport(),
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
      scf::YieldOp::create(rewriter, loc, import.getResult());
      rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
      Value noFence = getWaitFence(rewriter, loc, Value());
      Value allocated = createSignalFence(rewriter, loc, device);
      Value buffer = hal::DeviceQueueAllocaOp::create(
          rewriter, loc, bufferType, device, queueAffinity, noFence,
          allocated, buildI64(rewriter, loc, 0), target->memoryTypes,
          target->bufferUsage, size, hal::AllocaFlags::None);
      Value uploaded = createSignalFence(rewriter, loc, device);
      hal::DeviceQueueUpdateOp::create(
          rewriter, loc, device, queueAffinity, allocated, uploaded,
          adaptor.getSource(), adaptor.getSourceOffset(), buffer,
          buildIndex(rewriter, loc, 0), size, hal::UpdateFlags::None);
      buildHostWait(rewriter, loc, uploaded, op);
      scf::YieldOp::create(rewriter, loc, buffer);
    }
    // Either way the resource is usable now.
    Value mapped = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    rewriter.replaceOp(op, {mapped, ifOp.getResult(0)});
    return success();
  }
};

/// `stream.context.resolve`: each result by type — the device, its queue
/// mask (`i64`) or its allocator.
struct ContextResolvePattern : StatefulPattern<stream::ContextResolveOp> {
  using StatefulPattern::StatefulPattern;
  LogicalResult
  matchAndRewrite(stream::ContextResolveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<DeviceQueue> deviceQueue = buildOwnDeviceQueue(rewriter, op);
    if (failed(deviceQueue))
      return failure();
    SmallVector<Value> results;
    for (Type type : op.getResultTypes()) {
      if (isa<hal::DeviceType>(type)) {
        results.push_back(deviceQueue->device);
      } else if (type.isInteger(64)) {
        results.push_back(deviceQueue->queueAffinity);
      } else if (isa<hal::AllocatorType>(type)) {
        results.push_back(hal::DeviceAllocatorOp::create(
            rewriter, op.getLoc(), type, deviceQueue->device));
      } else {
        return op.emitOpError()
               << "resolves to " << type
               << "; hal-conversion provides !hal.device, i64 (queue "
                  "affinity) and !hal.allocator";
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// The byte size of `resource` as known at `user`: from the op defining it,
/// or from another size-aware user whose size value dominates `user`.
Value findResourceSize(Value resource, Operation *user,
                       DominanceInfo &dominance) {
  if (auto sizeAware = resource.getDefiningOp<util::SizeAwareOpInterface>())
    if (Value size = sizeAware.getResultSize(
            cast<OpResult>(resource).getResultNumber()))
      return size;
  for (OpOperand &use : resource.getUses()) {
    auto sizeAware = dyn_cast<util::SizeAwareOpInterface>(use.getOwner());
    if (!sizeAware)
      continue;
    Value size = sizeAware.getOperandSize(use.getOperandNumber());
    if (size && dominance.properlyDominates(size, user))
      return size;
  }
  return {};
}

} // namespace

LogicalResult fleet::stream_to_hal::resolveResourceSizes(ModuleOp module) {
  // Almost every size is an SSA value next to its resource
  // (docs/ir-reference.md "Sizes in braces"); the rest (resources loaded
  // from globals) become `hal.buffer.length` queries (ResourceSizePattern).
  DominanceInfo dominance(module);
  SmallVector<stream::ResourceSizeOp> sizeOps;
  module.walk([&](stream::ResourceSizeOp op) { sizeOps.push_back(op); });
  for (stream::ResourceSizeOp op : sizeOps) {
    Value size = findResourceSize(op.getOperand(), op, dominance);
    if (!size)
      continue;
    op.getResult().replaceAllUsesWith(size);
    op.erase();
  }
  return success();
}

namespace {
/// Host reads and writes of staging buffers.
struct ResourceLoadPattern : OpConversionPattern<stream::ResourceLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<hal::BufferLoadOp>(
        op, op.getType(), adaptor.getSource(), adaptor.getSourceOffset());
    return success();
  }
};
struct ResourceStorePattern : OpConversionPattern<stream::ResourceStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<hal::BufferStoreOp>(
        op, adaptor.getValue(), adaptor.getTarget(), adaptor.getTargetOffset());
    return success();
  }
};

/// A size no SSA value carries: ask the buffer.
struct ResourceSizePattern : OpConversionPattern<stream::ResourceSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::ResourceSizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<hal::BufferLengthOp>(
        op, rewriter.getIndexType(), adaptor.getOperand());
    return success();
  }
};
} // namespace

void fleet::stream_to_hal::populateResourcePatterns(
    const TypeConverter &typeConverter, const ConversionState &state,
    RewritePatternSet &patterns) {
  patterns.add<ResourceAllocaPattern, ResourceDeallocaPattern,
               ResourceAllocPattern, ResourceTryMapPattern,
               ContextResolvePattern>(typeConverter, patterns.getContext(),
                                      state);
  patterns.add<ResourceSizePattern, ResourceLoadPattern, ResourceStorePattern>(
      typeConverter, patterns.getContext());
}
