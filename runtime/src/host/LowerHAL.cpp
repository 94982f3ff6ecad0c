//===- LowerHAL.cpp - hal ops to records ---------------------------------===//
//
// Slot layouts are those of HALHandlers.h. Constant-like hal ops
// (memory_type, buffer_usage, element_type, encoding_type, devices.count)
// never get here: they are registers of the frame template.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace fleet::runtime::host {

using namespace mlir;
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
                                   Value::integer(type, integer.getInt()).bits());
  if (auto floating = dyn_cast<FloatAttr>(attr)) {
    if (type == ValueType::F32)
      return Value::f32(floating.getValue().convertToFloat()).bits();
    if (type == ValueType::F64)
      return Value::f64(floating.getValue().convertToDouble()).bits();
  }
  return std::nullopt;
}

} // namespace

bool FunctionLowering::lowerHAL(Operation *op) {
  // Fences.
  if (auto create = dyn_cast<halir::FenceCreateOp>(op)) {
    emit(op, &handlers::fenceCreate,
         {plain(create.getDevice()), plain(create.getResult())});
    return true;
  }
  if (auto join = dyn_cast<halir::FenceJoinOp>(op)) {
    SmallVector<uint32_t> slots;
    for (mlir::Value fence : join.getFences())
      slots.push_back(plain(fence));
    slots.push_back(plain(join.getResult()));
    emit(op, &handlers::fenceJoin, slots, int64_t(join.getFences().size()));
    return true;
  }
  if (auto query = dyn_cast<halir::FenceQueryOp>(op)) {
    emit(op, &handlers::fenceQuery,
         {plain(query.getFence()), plain(query.getStatus())});
    return true;
  }
  if (auto signal = dyn_cast<halir::FenceSignalOp>(op)) {
    emit(op, &handlers::fenceSignal, {plain(signal.getFence())});
    return true;
  }
  if (auto fail = dyn_cast<halir::FenceFailOp>(op)) {
    emit(op, &handlers::fenceFail,
         {plain(fail.getFence()), plain(fail.getStatus())});
    return true;
  }
  if (auto await = dyn_cast<halir::FenceAwaitOp>(op)) {
    SmallVector<uint32_t> slots;
    for (mlir::Value fence : await.getFences())
      slots.push_back(plain(fence));
    slots.push_back(plain(await.getTimeoutMillis()));
    slots.push_back(plain(await.getStatus()));
    emit(op, &handlers::fenceAwait, slots, int64_t(await.getFences().size()));
    return true;
  }

  // Devices.
  if (auto allocator = dyn_cast<halir::DeviceAllocatorOp>(op)) {
    emit(op, &handlers::deviceAllocator,
         {plain(allocator.getDevice()), plain(allocator.getResult())});
    return true;
  }
  if (auto get = dyn_cast<halir::DevicesGetOp>(op)) {
    emit(op, &handlers::devicesGet,
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
    DeviceQueryData data{query.getCategory().str(), query.getKey().str(), type,
                         *fallback};
    emit(op, &handlers::deviceQuery,
         {plain(query.getDevice()), plain(query.getOk()),
          plain(query.getValue())},
         0, 0, code_.addData(std::move(data)));
    return true;
  }
  if (auto query = dyn_cast<halir::DeviceQueryLinkOp>(op)) {
    std::optional<uint64_t> fallback =
        defaultBits(query.getDefaultValueAttr(), ValueType::I1);
    if (!fallback)
      return error(op, "hal.device.query.link default is not an i1 constant");
    LinkQueryData data{query.getKey().str(), *fallback};
    emit(op, &handlers::deviceQueryLink,
         {plain(query.getSourceDevice()), plain(query.getTargetDevice()),
          plain(query.getOk()), plain(query.getValue())},
         0, 0, code_.addData(std::move(data)));
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
    emit(op, &handlers::queueAlloca, slots);
    return true;
  }
  if (auto dealloca = dyn_cast<halir::DeviceQueueDeallocaOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(dealloca);
    slots.push_back(plain(dealloca.getBuffer()));
    emit(op, &handlers::queueDealloca, slots);
    return true;
  }
  if (auto execute = dyn_cast<halir::DeviceQueueExecuteOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(execute);
    slots.push_back(plain(execute.getCommandBuffer()));
    emit(op, &handlers::queueExecute, slots);
    return true;
  }
  if (auto copy = dyn_cast<halir::DeviceQueueCopyOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(copy);
    slots.append({plain(copy.getSourceBuffer()), plain(copy.getSourceOffset()),
                  plain(copy.getTargetBuffer()), plain(copy.getTargetOffset()),
                  plain(copy.getLength())});
    emit(op, &handlers::queueCopy, slots);
    return true;
  }
  if (auto fill = dyn_cast<halir::DeviceQueueFillOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(fill);
    slots.append({plain(fill.getTargetBuffer()), plain(fill.getTargetOffset()),
                  plain(fill.getLength()), plain(fill.getPattern())});
    emit(op, &handlers::queueFill, slots,
         fill.getPattern().getType().getIntOrFloatBitWidth() / 8);
    return true;
  }
  if (auto update = dyn_cast<halir::DeviceQueueUpdateOp>(op)) {
    SmallVector<uint32_t> slots = queuePrefix(update);
    slots.append({plain(update.getSourceBuffer()),
                  plain(update.getSourceOffset()),
                  plain(update.getTargetBuffer()),
                  plain(update.getTargetOffset()), plain(update.getLength())});
    emit(op, &handlers::queueUpdate, slots);
    return true;
  }
  if (auto barrier = dyn_cast<halir::DeviceQueueBarrierOp>(op)) {
    emit(op, &handlers::queueBarrier, queuePrefix(barrier));
    return true;
  }
  if (auto flush = dyn_cast<halir::DeviceQueueFlushOp>(op)) {
    emit(op, &handlers::queueFlush,
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
    emit(op, &handlers::commandBufferCreate, slots,
         int64_t(create.getModes()), int64_t(create.getCommandCategories()));
    return true;
  }
  if (auto finalize = dyn_cast<halir::CommandBufferFinalizeOp>(op)) {
    emit(op, &handlers::commandBufferFinalize,
         {plain(finalize.getCommandBuffer())});
    return true;
  }
  if (auto device = dyn_cast<halir::CommandBufferDeviceOp>(op)) {
    emit(op, &handlers::commandBufferDevice,
         {plain(device.getCommandBuffer()), plain(device.getDevice())});
    return true;
  }
  if (auto barrier = dyn_cast<halir::CommandBufferExecutionBarrierOp>(op)) {
    emit(op, &handlers::commandBufferBarrier,
         {plain(barrier.getCommandBuffer())});
    return true;
  }
  if (auto fill = dyn_cast<halir::CommandBufferFillBufferOp>(op)) {
    emit(op, &handlers::commandBufferFill,
         {plain(fill.getCommandBuffer()), slot(fill.getTargetBuffer()),
          plain(fill.getTargetOffset()), plain(fill.getLength()),
          plain(fill.getPattern())},
         fill.getPattern().getType().getIntOrFloatBitWidth() / 8);
    return true;
  }
  if (auto update = dyn_cast<halir::CommandBufferUpdateBufferOp>(op)) {
    emit(op, &handlers::commandBufferUpdate,
         {plain(update.getCommandBuffer()), plain(update.getSourceBuffer()),
          plain(update.getSourceSize()), plain(update.getSourceOffset()),
          slot(update.getTargetBuffer()), plain(update.getTargetOffset()),
          plain(update.getLength())});
    return true;
  }
  if (auto copy = dyn_cast<halir::CommandBufferCopyBufferOp>(op)) {
    emit(op, &handlers::commandBufferCopy,
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
    emit(op, &handlers::commandBufferDispatch, slots,
         int64_t(dispatch.getConstants().size()),
         int64_t(dispatch.getBindingBuffers().size()));
    return true;
  }
  if (auto lookup = dyn_cast<halir::ExecutableLookupOp>(op)) {
    auto it = env_.executables.find(lookup.getExecutable());
    if (it == env_.executables.end())
      return error(op, "unknown executable @" + lookup.getExecutable());
    emit(op, &handlers::executableLookup,
         {plain(lookup.getDevice()), plain(lookup.getResult())}, 0, 0,
         it->second);
    return true;
  }

  // Allocators.
  if (auto allocate = dyn_cast<halir::AllocatorAllocateOp>(op)) {
    emit(op, &handlers::allocatorAllocate,
         {plain(allocate.getAllocator()), plain(allocate.getQueueAffinity()),
          plain(allocate.getMemoryTypes()), plain(allocate.getBufferUsage()),
          plain(allocate.getResultSize()), plain(allocate.getResult())});
    return true;
  }
  if (auto import = dyn_cast<halir::AllocatorImportOp>(op)) {
    emit(op, &handlers::allocatorImport,
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
    emit(op, &handlers::allocatorSelect, slots,
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
    emit(op, &handlers::bufferViewCreate, slots,
         int64_t(create.getShape().size()));
    return true;
  }
  if (auto buffer = dyn_cast<halir::BufferViewBufferOp>(op)) {
    emit(op, &handlers::bufferViewBuffer,
         {plain(buffer.getBufferView()), plain(buffer.getResult())});
    return true;
  }
  if (auto load = dyn_cast<halir::BufferLoadOp>(op)) {
    ValueType type = typeOf(load.getResult());
    emit(op, &handlers::bufferLoad,
         {plain(load.getSourceBuffer()), plain(load.getSourceOffset()),
          plain(load.getResult())},
         int64_t(std::max(1u, bitWidth(type) / 8)),
         type == ValueType::I1 ? 1 : 0);
    return true;
  }
  if (auto store = dyn_cast<halir::BufferStoreOp>(op)) {
    ValueType type = typeOf(store.getValue());
    emit(op, &handlers::bufferStore,
         {plain(store.getValue()), plain(store.getTargetBuffer()),
          plain(store.getTargetOffset())},
         int64_t(std::max(1u, bitWidth(type) / 8)));
    return true;
  }
  if (auto length = dyn_cast<halir::BufferLengthOp>(op)) {
    emit(op, &handlers::bufferLength,
         {plain(length.getBuffer()), plain(length.getResult())});
    return true;
  }
  if (auto rank = dyn_cast<halir::BufferViewRankOp>(op)) {
    emit(op, &handlers::bufferViewRank,
         {plain(rank.getBufferView()), plain(rank.getResult())});
    return true;
  }
  if (auto dim = dyn_cast<halir::BufferViewDimOp>(op)) {
    emit(op, &handlers::bufferViewDim,
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
    emit(op, &handlers::bufferViewAssert, slots,
         int64_t(check.getShape().size()), 0,
         code_.addData(check.getMessage().str()));
    return true;
  }

  if (isa<halir::TensorImportOp, halir::TensorExportOp, halir::TensorBarrierOp,
          halir::TensorAliasOp>(op))
    return error(op, "'" + op->getName().getStringRef() +
                         "' is a tensor-level op: the module was not compiled "
                         "to the end (fleet-compile without --compile-to)");
  return error(op, "unsupported op '" + op->getName().getStringRef() + "'");
}

} // namespace fleet::runtime::host
