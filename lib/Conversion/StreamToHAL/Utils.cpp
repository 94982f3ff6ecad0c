//===- Utils.cpp - shared pieces of the stream → hal conversion -----------===//

#include "Utils.h"

#include "fleet/Dialect/Stream/IR/DeviceTopology.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-conversion"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream_to_hal;

Attribute fleet::stream_to_hal::lookupAffinity(Operation *op, Attribute own,
                                               const ConversionState &state) {
  if (own)
    return own;
  if (Attribute affinity = stream::getDefaultAffinity(op->getParentOp())) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << op->getName() << " at "
                            << op->getLoc() << ": default affinity "
                            << affinity << "\n");
    return affinity;
  }
  // A single-device program needs no placement (docs/pipeline.md §1).
  if (state.devices.getDevices().size() == 1) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << op->getName() << " at "
                            << op->getLoc()
                            << ": no affinity, the only device @"
                            << state.devices.getDevices().front().getName()
                            << "\n");
    MLIRContext *context = op->getContext();
    return hal::DeviceAffinityAttr::get(
        context,
        FlatSymbolRefAttr::get(context,
                               state.devices.getDevices().front().getName()),
        -1);
  }
  return {};
}

Value fleet::stream_to_hal::buildIndex(OpBuilder &builder, Location loc,
                                       int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

Value fleet::stream_to_hal::buildI64(OpBuilder &builder, Location loc,
                                     int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 64);
}

Value fleet::stream_to_hal::buildI32(OpBuilder &builder, Location loc,
                                     int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 32);
}

stream::Lifetime fleet::stream_to_hal::getLifetime(Type type) {
  if (auto resource = dyn_cast<stream::ResourceType>(type))
    return resource.getLifetime();
  return stream::Lifetime::Unknown;
}

/// Loads the device global of `member` (an immutable load when the global
/// is immutable, as device globals are).
static FailureOr<Value> loadDevice(OpBuilder &builder, Operation *op,
                                   StringRef name,
                                   const ConversionState &state) {
  const hal::DeviceInfo *info = state.devices.lookup(name);
  if (!info) {
    return op->emitOpError() << "names device @" << name
                             << ", which is not a declared !hal.device global";
  }
  return util::GlobalLoadOp::create(builder, op->getLoc(), info->global)
      .getResult();
}

FailureOr<DeviceQueue>
fleet::stream_to_hal::buildDeviceQueue(OpBuilder &builder, Operation *op,
                                       Attribute affinity,
                                       const ConversionState &state) {
  auto single = dyn_cast_or_null<hal::DeviceAffinityAttr>(affinity);
  if (!single) {
    if (!affinity)
      return op->emitOpError()
             << "has no affinity and the module has no default device "
                "(stream.affinity.default)";
    return op->emitOpError()
           << "needs a single device affinity (#hal.device.affinity) here; got "
           << affinity;
  }
  FailureOr<Value> device = loadDevice(
      builder, op, single.getDevice().getRootReference().getValue(), state);
  if (failed(device))
    return failure();
  return DeviceQueue{*device,
                     buildI64(builder, op->getLoc(), single.getQueueMask())};
}

FailureOr<AllocationTarget> fleet::stream_to_hal::buildAllocationTarget(
    OpBuilder &builder, Operation *op, Attribute affinity,
    stream::Lifetime lifetime, const ConversionState &state) {
  Location loc = op->getLoc();
  FailureOr<SmallVector<hal::AffinityMember>> members =
      hal::DeviceSet::getAffinityMembers(affinity, &state.devices);
  if (failed(members)) {
    if (!affinity)
      return op->emitOpError()
             << "has no affinity and the module has no default device "
                "(stream.affinity.default)";
    return op->emitOpError()
           << "cannot allocate on affinity " << affinity
           << " (expected #hal.device.affinity or #hal.device.optimal of them)";
  }
  auto i32 = builder.getI32Type();
  auto resolve = hal::AllocatorResolveMemoryPropertiesOp::create(
      builder, loc, i32, i32, affinity,
      stream::LifetimeAttr::get(builder.getContext(), lifetime));
  AllocationTarget target;
  target.memoryTypes = resolve.getMemoryTypes();
  target.bufferUsage = resolve.getBufferUsage();
  if (isa<hal::DeviceAffinityAttr>(affinity)) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << op->getName() << " at "
                            << loc << ": allocates on " << affinity
                            << " (lifetime " << stream::stringifyLifetime(lifetime)
                            << ")\n");
    FailureOr<DeviceQueue> deviceQueue =
        buildDeviceQueue(builder, op, affinity, state);
    if (failed(deviceQueue))
      return failure();
    target.deviceQueue = *deviceQueue;
    return target;
  }
  // #hal.device.optimal: candidates in declaration order, the order the
  // allocating-device rule walks (docs/design.md §3).
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << op->getName() << " at "
                          << loc << ": allocating device of " << affinity
                          << " chosen by hal.allocator.select over "
                          << members->size() << " candidates\n");
  SmallVector<Value> devices, queueAffinities;
  for (const hal::AffinityMember &member : *members) {
    FailureOr<Value> device = loadDevice(builder, op, member.device, state);
    if (failed(device))
      return failure();
    devices.push_back(*device);
    queueAffinities.push_back(buildI64(builder, loc, member.queueMask));
  }
  auto select = hal::AllocatorSelectOp::create(
      builder, loc, hal::DeviceType::get(builder.getContext()),
      builder.getI64Type(), devices, queueAffinities, target.memoryTypes,
      target.bufferUsage);
  target.deviceQueue = {select.getSelectedDevice(),
                        select.getSelectedQueueAffinity()};
  return target;
}

Value fleet::stream_to_hal::getWaitFence(OpBuilder &builder, Location loc,
                                         Value timepointFence) {
  if (timepointFence)
    return timepointFence;
  return util::NullOp::create(builder, loc,
                              hal::FenceType::get(builder.getContext()));
}

Value fleet::stream_to_hal::createSignalFence(OpBuilder &builder,
                                              Location loc, Value device) {
  return hal::FenceCreateOp::create(builder, loc,
                                    hal::FenceType::get(builder.getContext()),
                                    device, hal::FenceFlags::None);
}

void fleet::stream_to_hal::buildHostWait(OpBuilder &builder, Location loc,
                                         ValueRange fences,
                                         Operation *anchor) {
  // No timeout: device work either finishes or fails its fences, and a
  // failure reaches every waiter (docs/design.md §4).
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] host wait on " << fences.size()
                          << " fence(s) at " << loc << " for "
                          << anchor->getName() << "\n");
  Value infinite = buildI32(builder, loc, -1);
  auto await = hal::FenceAwaitOp::create(builder, loc, builder.getI32Type(),
                                         fences, infinite,
                                         hal::WaitFlags::None);
  std::string message = "device work failed";
  Operation *callable = anchor->getParentOfType<util::FuncOp>();
  if (callable) {
    message = (cast<util::FuncOp>(callable).getSymName() + ": " + message)
                  .str();
  } else if (anchor->getParentOfType<util::InitializerOp>()) {
    message = "initializer: " + message;
  }
  util::StatusCheckOkOp::create(builder, loc, await.getStatus(),
                                builder.getStringAttr(message));
}
