//===- LowerHAL.cpp - hal ops to records ---------------------------------===//
//
// Slot layouts are those of OpTable.def (checked in finalize()). Constant-like hal ops
// (memory_type, buffer_usage, element_type, encoding_type, devices.count)
// never get here: they are registers of the frame template.
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace fleet::artifact {

using namespace mlir;
namespace rh = ::fleet::runtime::host;
using rh::bitWidth;
using rh::isFloatType;
using rh::isReferenceType;
namespace halir = ::fleet::hal;

namespace {

/// The stored bits of a query default (a typed attribute of the result's
/// type); 0 when absent.
std::optional<uint64_t> defaultBits(TypedAttr attr, ValueType type) {
  if (!attr)
    return 0;
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return isFloatType(type) ? std::nullopt
                             : std::optional<uint64_t>(
                                   rh::Value::integer(type, integer.getInt()).bits());
  if (auto floating = dyn_cast<FloatAttr>(attr)) {
    if (type == ValueType::F32)
      return rh::Value::f32(floating.getValue().convertToFloat()).bits();
    if (type == ValueType::F64)
      return rh::Value::f64(floating.getValue().convertToDouble()).bits();
  }
  return std::nullopt;
}

} // namespace

bool FunctionLowering::lowerHAL(Operation *op) {
  // Fences.
  if (auto create = dyn_cast<halir::FenceCreateOp>(op)) {
    emit(op, OpKind::FenceCreate,
         {plain(create.getDevice()), plain(create.getResult())});
    return true;
  }
  if (auto join = dyn_cast<halir::FenceJoinOp>(op)) {
    SmallVector<uint32_t> slots;
    for (mlir::Value fence : join.getFences())
      slots.push_back(plain(fence));
    slots.push_back(plain(join.getResult()));
    emit(op, OpKind::FenceJoin, slots, int64_t(join.getFences().size()));
    return true;
  }
  if (auto query = dyn_cast<halir::FenceQueryOp>(op)) {
    emit(op, OpKind::FenceQuery,
         {plain(query.getFence()), plain(query.getStatus())});
    return true;
  }
  if (auto signal = dyn_cast<halir::FenceSignalOp>(op)) {
    emit(op, OpKind::FenceSignal, {plain(signal.getFence())});
    return true;
  }
  if (auto fail = dyn_cast<halir::FenceFailOp>(op)) {
    emit(op, OpKind::FenceFail,
         {plain(fail.getFence()), plain(fail.getStatus())});
    return true;
  }
  if (auto await = dyn_cast<halir::FenceAwaitOp>(op)) {
    SmallVector<uint32_t> slots;
    for (mlir::Value fence : await.getFences())
      slots.push_back(plain(fence));
    slots.push_back(plain(await.getTimeoutMillis()));
    slots.push_back(plain(await.getStatus()));
    emit(op, OpKind::FenceAwait, slots, int64_t(await.getFences().size()));
    return true;
  }

  // Devices.
  if (auto allocator = dyn_cast<halir::DeviceAllocatorOp>(op)) {
    emit(op, OpKind::DeviceAllocator,
         {plain(allocator.getDevice()), plain(allocator.getResult())});
    return true;
  }
  if (auto get = dyn_cast<halir::DevicesGetOp>(op)) {
    emit(op, OpKind::DevicesGet,
         {plain(get.getIndex()), plain(get.getResult())});
    return true;
  }
  if (auto query = dyn_cast<halir::DeviceQueryOp>(op)) {
    ValueType type = typeOf(query.getValue());
    if (isReferenceType(type) || type == ValueType::Pointer)
      return error(op, "hal.device.query result must be a scalar");
    std::optional<uint64_t> fallback =
        defaultBits(query.getDefaultValueAttr(), type);
    if (!fallback)
      return error(op, "hal.device.query default is not a scalar constant");
    env_.deviceQueries.push_back(EmittedDeviceQuery{
        query.getCategory().str(), query.getKey().str(), type, *fallback});
    emit(op, OpKind::DeviceQuery,
         {plain(query.getDevice()), plain(query.getOk()),
          plain(query.getValue())},
         0, 0, uint32_t(env_.deviceQueries.size() - 1));
    return true;
  }
  if (auto query = dyn_cast<halir::DeviceQueryLinkOp>(op)) {
    std::optional<uint64_t> fallback =
        defaultBits(query.getDefaultValueAttr(), ValueType::I1);
    if (!fallback)
      return error(op, "hal.device.query.link default is not an i1 constant");
    env_.linkQueries.push_back(EmittedLinkQuery{query.getKey().str(), *fallback});
    emit(op, OpKind::DeviceQueryLink,
         {plain(query.getSourceDevice()), plain(query.getTargetDevice()),
          plain(query.getOk()), plain(query.getValue())},
         0, 0, uint32_t(env_.linkQueries.size() - 1));
    return true;
  }

  // Queue ops.
  auto queuePrefix = [&](auto queueOp) {
    return SmallVector<uint32_t>{
        plain(queueOp.getDevice()), plain(queueOp.getQueueAffinity()),
        plain(queueOp.getWaitFence()), plain(queueOp.getSignalFence())};
  };
  if (auto alloca = dyn_cast<halir::DeviceQueueAllocaOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(alloca);
    slots.append({plain(alloca.getPool()), plain(alloca.getMemoryTypes()),
                  plain(alloca.getBufferUsage()), plain(alloca.getResultSize()),
                  plain(alloca.getResult())});
    emit(op, OpKind::QueueAlloca, slots);
    return true;
  }
  if (auto dealloca = dyn_cast<halir::DeviceQueueDeallocaOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(dealloca);
    slots.push_back(plain(dealloca.getBuffer()));
    emit(op, OpKind::QueueDealloca, slots);
    return true;
  }
  if (auto execute = dyn_cast<halir::DeviceQueueExecuteOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(execute);
    slots.push_back(plain(execute.getCommandBuffer()));
    emit(op, OpKind::QueueExecute, slots);
    return true;
  }
  if (auto copy = dyn_cast<halir::DeviceQueueCopyOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(copy);
    slots.append({plain(copy.getSourceBuffer()), plain(copy.getSourceOffset()),
                  plain(copy.getTargetBuffer()), plain(copy.getTargetOffset()),
                  plain(copy.getLength())});
    emit(op, OpKind::QueueCopy, slots);
    return true;
  }
  if (auto fill = dyn_cast<halir::DeviceQueueFillOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(fill);
    slots.append({plain(fill.getTargetBuffer()), plain(fill.getTargetOffset()),
                  plain(fill.getLength()), plain(fill.getPattern())});
    emit(op, OpKind::QueueFill, slots,
         fill.getPattern().getType().getIntOrFloatBitWidth() / 8);
    return true;
  }
  if (auto update = dyn_cast<halir::DeviceQueueUpdateOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(update);
    slots.append({plain(update.getSourceBuffer()),
                  plain(update.getSourceOffset()),
                  plain(update.getTargetBuffer()),
                  plain(update.getTargetOffset()), plain(update.getLength())});
    emit(op, OpKind::QueueUpdate, slots);
    return true;
  }
  if (auto barrier = dyn_cast<halir::DeviceQueueBarrierOp>(op)) {
    emit(op, OpKind::QueueBarrier, queuePrefix(barrier));
    return true;
  }
  if (auto flush = dyn_cast<halir::DeviceQueueFlushOp>(op)) {
    emit(op, OpKind::QueueFlush,
         {plain(flush.getDevice()), plain(flush.getQueueAffinity())});
    return true;
  }

  // Command buffers.
  if (auto create = dyn_cast<halir::CommandBufferCreateOp>(op)) {
    SmallVector<uint32_t> slots = {plain(create.getDevice()),
                                   plain(create.getQueueAffinity())};
    if (create.getBindingCapacity())
      slots.push_back(plain(create.getBindingCapacity()));
    slots.push_back(plain(create.getResult()));
    emit(op, OpKind::CommandBufferCreate, slots,
         int64_t(create.getModes()), int64_t(create.getCommandCategories()));
    return true;
  }
  if (auto finalize = dyn_cast<halir::CommandBufferFinalizeOp>(op)) {
    emit(op, OpKind::CommandBufferFinalize,
         {plain(finalize.getCommandBuffer())});
    return true;
  }
  if (auto device = dyn_cast<halir::CommandBufferDeviceOp>(op)) {
    emit(op, OpKind::CommandBufferDevice,
         {plain(device.getCommandBuffer()), plain(device.getDevice())});
    return true;
  }
  if (auto barrier = dyn_cast<halir::CommandBufferExecutionBarrierOp>(op)) {
    emit(op, OpKind::CommandBufferBarrier,
         {plain(barrier.getCommandBuffer())});
    return true;
  }
  if (auto fill = dyn_cast<halir::CommandBufferFillBufferOp>(op)) {
    emit(op, OpKind::CommandBufferFill,
         {plain(fill.getCommandBuffer()), slot(fill.getTargetBuffer()),
          plain(fill.getTargetOffset()), plain(fill.getLength()),
          plain(fill.getPattern())},
         fill.getPattern().getType().getIntOrFloatBitWidth() / 8);
    return true;
  }
  if (auto update = dyn_cast<halir::CommandBufferUpdateBufferOp>(op)) {
    emit(op, OpKind::CommandBufferUpdate,
         {plain(update.getCommandBuffer()), plain(update.getSourceBuffer()),
          plain(update.getSourceSize()), plain(update.getSourceOffset()),
          slot(update.getTargetBuffer()), plain(update.getTargetOffset()),
          plain(update.getLength())});
    return true;
  }
  if (auto copy = dyn_cast<halir::CommandBufferCopyBufferOp>(op)) {
    emit(op, OpKind::CommandBufferCopy,
         {plain(copy.getCommandBuffer()), slot(copy.getSourceBuffer()),
          plain(copy.getSourceOffset()), slot(copy.getTargetBuffer()),
          plain(copy.getTargetOffset()), plain(copy.getLength())});
    return true;
  }
  if (auto dispatch = dyn_cast<halir::CommandBufferDispatchOp>(op)) {
    SmallVector<uint32_t> slots = {
        plain(dispatch.getCommandBuffer()), plain(dispatch.getExecutable()),
        plain(dispatch.getEntryPoint()),    plain(dispatch.getWorkgroupX()),
        plain(dispatch.getWorkgroupY()),    plain(dispatch.getWorkgroupZ())};
    for (mlir::Value constant : dispatch.getConstants())
      slots.push_back(plain(constant));
    for (auto [buffer, offset, length] :
         llvm::zip(dispatch.getBindingBuffers(), dispatch.getBindingOffsets(),
                   dispatch.getBindingLengths())) {
      slots.push_back(slot(buffer)); // tagged: a buffer or a table slot
      slots.push_back(plain(offset));
      slots.push_back(plain(length));
    }
    emit(op, OpKind::CommandBufferDispatch, slots,
         int64_t(dispatch.getConstants().size()),
         int64_t(dispatch.getBindingBuffers().size()));
    return true;
  }
  if (auto lookup = dyn_cast<halir::ExecutableLookupOp>(op)) {
    auto it = env_.executables.find(lookup.getExecutable());
    if (it == env_.executables.end())
      return error(op, "unknown executable @" + lookup.getExecutable());
    emit(op, OpKind::ExecutableLookup,
         {plain(lookup.getDevice()), plain(lookup.getResult())}, 0, 0,
         it->second);
    return true;
  }

  // Allocators.
  if (auto allocate = dyn_cast<halir::AllocatorAllocateOp>(op)) {
    emit(op, OpKind::AllocatorAllocate,
         {plain(allocate.getAllocator()), plain(allocate.getQueueAffinity()),
          plain(allocate.getMemoryTypes()), plain(allocate.getBufferUsage()),
          plain(allocate.getResultSize()), plain(allocate.getResult())});
    return true;
  }
  if (auto import = dyn_cast<halir::AllocatorImportOp>(op)) {
    emit(op, OpKind::AllocatorImport,
         {plain(import.getAllocator()), plain(import.getSource()),
          plain(import.getOffset()), plain(import.getLength()),
          plain(import.getQueueAffinity()), plain(import.getMemoryTypes()),
          plain(import.getBufferUsage()), plain(import.getDidImport()),
          plain(import.getResult())});
    return true;
  }
  if (auto select = dyn_cast<halir::AllocatorSelectOp>(op)) {
    SmallVector<uint32_t> slots;
    for (mlir::Value device : select.getDevices())
      slots.push_back(plain(device));
    for (mlir::Value affinity : select.getQueueAffinities())
      slots.push_back(plain(affinity));
    slots.append({plain(select.getMemoryTypes()), plain(select.getBufferUsage()),
                  plain(select.getSelectedDevice()),
                  plain(select.getSelectedQueueAffinity())});
    emit(op, OpKind::AllocatorSelect, slots,
         int64_t(select.getDevices().size()));
    return true;
  }
  if (isa<halir::AllocatorResolveMemoryPropertiesOp>(op))
    return error(op, "hal.allocator.resolve_memory_properties must be "
                     "resolved by the compiler (hal-resolve-topology-queries "
                     "and hal-lower-topology-queries)");

  // Buffer views.
  if (auto create = dyn_cast<halir::BufferViewCreateOp>(op)) {
    SmallVector<uint32_t> slots = {plain(create.getSourceBuffer()),
                                   plain(create.getSourceOffset()),
                                   plain(create.getSourceLength())};
    for (mlir::Value dim : create.getShape())
      slots.push_back(plain(dim));
    slots.append({plain(create.getElementType()),
                  plain(create.getEncodingType()), plain(create.getResult())});
    emit(op, OpKind::BufferViewCreate, slots,
         int64_t(create.getShape().size()));
    return true;
  }
  if (auto buffer = dyn_cast<halir::BufferViewBufferOp>(op)) {
    emit(op, OpKind::BufferViewBuffer,
         {plain(buffer.getBufferView()), plain(buffer.getResult())});
    return true;
  }
  if (auto load = dyn_cast<halir::BufferLoadOp>(op)) {
    ValueType type = typeOf(load.getResult());
    emit(op, OpKind::BufferLoad,
         {plain(load.getSourceBuffer()), plain(load.getSourceOffset()),
          plain(load.getResult())},
         int64_t(std::max(1u, bitWidth(type) / 8)),
         type == ValueType::I1 ? 1 : 0);
    return true;
  }
  if (auto store = dyn_cast<halir::BufferStoreOp>(op)) {
    ValueType type = typeOf(store.getValue());
    emit(op, OpKind::BufferStore,
         {plain(store.getValue()), plain(store.getTargetBuffer()),
          plain(store.getTargetOffset())},
         int64_t(std::max(1u, bitWidth(type) / 8)));
    return true;
  }
  if (auto length = dyn_cast<halir::BufferLengthOp>(op)) {
    emit(op, OpKind::BufferLength,
         {plain(length.getBuffer()), plain(length.getResult())});
    return true;
  }
  if (auto rank = dyn_cast<halir::BufferViewRankOp>(op)) {
    emit(op, OpKind::BufferViewRank,
         {plain(rank.getBufferView()), plain(rank.getResult())});
    return true;
  }
  if (auto dim = dyn_cast<halir::BufferViewDimOp>(op)) {
    emit(op, OpKind::BufferViewDim,
         {plain(dim.getBufferView()), plain(dim.getResult())},
         int64_t(dim.getIndex().getZExtValue()));
    return true;
  }
  if (auto check = dyn_cast<halir::BufferViewAssertOp>(op)) {
    SmallVector<uint32_t> slots = {plain(check.getBufferView())};
    for (mlir::Value dim : check.getShape())
      slots.push_back(plain(dim));
    slots.append(
        {plain(check.getElementType()), plain(check.getEncodingType())});
    emit(op, OpKind::BufferViewAssert, slots,
         int64_t(check.getShape().size()), 0,
         addString(check.getMessage().str()));
    return true;
  }

  if (isa<halir::TensorImportOp, halir::TensorExportOp, halir::TensorBarrierOp,
          halir::TensorAliasOp>(op))
    return error(op, "'" + op->getName().getStringRef() +
                         "' is a tensor-level op: the module was not compiled "
                         "to the end (fleet-compile without --compile-to)");
  return error(op, "unsupported op '" + op->getName().getStringRef() + "'");
}

} // namespace fleet::artifact
