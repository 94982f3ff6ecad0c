//===- HALQueueHandlers.cpp - fences, queue ops, command buffers ---------===//
//
// The handlers on the dispatch hot path (docs/runtime.md "Measured costs":
// fence.create, command_buffer.create/dispatch/finalize, queue.execute).
// They avoid heap allocation of their own: operand arrays live on the stack.
//
//===----------------------------------------------------------------------===//

#include "HALHandlers.h"

#include "fleet/runtime/hal/Device.h"

#include <algorithm>
#include <new>
#include <type_traits>

namespace fleet::runtime::host {

using hal::Buffer;
using hal::BindingRef;
using hal::CommandBuffer;
using hal::Device;
using hal::Fence;
using hal::makeStatus;
using hal::Status;
using hal::StatusCode;

namespace {

const Instr *nullOperand(Frame &frame, const Instr *instr, const char *what) {
  return failOp(frame, instr,
                makeStatus(StatusCode::InvalidArgument, frame.function->sites[instr->site].op,
                           ": ", what, " is null"));
}

#define FLEET_OPERAND(TYPE, NAME, SLOT, WHAT)                                  \
  TYPE *NAME = refAs<TYPE>(frame, SLOT);                                       \
  if (!NAME)                                                                   \
  return nullOperand(frame, instr, WHAT)

/// A Buffer operand or a binding-table slot (tagged slot).
inline BindingRef bindingOperand(Frame &frame, uint32_t slot, uint64_t offset,
                                 uint64_t length) {
  if (isRefSlot(slot))
    return BindingRef{static_cast<Buffer *>(frame.refs[slotIndex(slot)]), 0,
                      offset, length};
  return BindingRef{nullptr, uint32_t(frame.scalars[slot]), offset, length};
}

inline const Instr *check(Frame &frame, const Instr *instr, Status status) {
  if (!status.ok())
    return failOp(frame, instr, std::move(status));
  return instr + 1;
}

} // namespace

namespace handlers {

// ---- fences ----------------------------------------------------------------

const Instr *fenceCreate(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Device, device, instr->slots[0], "device");
  storeRef(frame.refs[instr->slots[1]], device->createFence().detach());
  return instr + 1;
}

/// The fences an op lists in its first `instr->imm` slots; up to 8 without
/// a heap allocation (joins and awaits of a few fences are the common case).
class FenceList {
public:
  FenceList(Frame &frame, const Instr *instr) : count_(size_t(instr->imm)) {
    if (count_ > kInline)
      heap_.resize(count_);
    Fence **fences = data();
    for (size_t i = 0; i < count_; ++i)
      fences[i] = refAs<Fence>(frame, instr->slots[i]);
  }
  FenceList(const FenceList &) = delete;
  FenceList &operator=(const FenceList &) = delete;
  size_t size() const { return count_; }
  hal::Span<Fence *const> span() { return {data(), count_}; }

private:
  static constexpr size_t kInline = 8;
  Fence **data() { return count_ > kInline ? heap_.data() : inline_; }
  size_t count_;
  Fence *inline_[kInline];
  std::vector<Fence *> heap_;
};

const Instr *fenceJoin(Frame &frame, const Instr *instr) {
  FenceList fences(frame, instr);
  size_t count = fences.size();
  storeRef(frame.refs[instr->slots[count]],
           Fence::join(fences.span()).detach());
  return instr + 1;
}

const Instr *fenceQuery(Frame &frame, const Instr *instr) {
  Fence *fence = refAs<Fence>(frame, instr->slots[0]);
  Status status = fence ? fence->query() : Status();
  if (!status.ok() && status.code() != StatusCode::Deferred)
    frame.state->lastWaitFailure = status;
  frame.scalars[instr->slots[1]] = uint32_t(status.code());
  return instr + 1;
}

const Instr *fenceSignal(Frame &frame, const Instr *instr) {
  Fence *fence = refAs<Fence>(frame, instr->slots[0]);
  return fence ? check(frame, instr, fence->signal()) : instr + 1;
}

const Instr *fenceFail(Frame &frame, const Instr *instr) {
  Fence *fence = refAs<Fence>(frame, instr->slots[0]);
  auto code = StatusCode(int32_t(uint32_t(frame.scalars[instr->slots[1]])));
  if (code == StatusCode::Ok)
    code = StatusCode::Unknown; // a fence cannot fail with OK
  if (fence)
    fence->fail(Status(code, "failed by the host program (hal.fence.fail in @" +
                                 frame.function->displayName + ")"));
  return instr + 1;
}

/// A negative timeout waits without limit, 0 polls (IREE's convention).
const Instr *fenceAwait(Frame &frame, const Instr *instr) {
  FenceList fences(frame, instr);
  size_t count = fences.size();
  auto millis = int32_t(uint32_t(frame.scalars[instr->slots[count]]));
  uint64_t limit = frame.state->context->hostWaitLimit();
  if (limit && (millis < 0 || uint64_t(millis) > limit))
    millis = int32_t(std::min<uint64_t>(limit, INT32_MAX));
  hal::Timeout timeout = millis < 0 ? hal::Timeout::infinite()
                         : millis == 0
                             ? hal::Timeout::immediate()
                             : hal::Timeout::milliseconds(uint64_t(millis));
  Status status =
      hal::waitFences(fences.span(), timeout);
  if (!status.ok())
    frame.state->lastWaitFailure = status;
  frame.scalars[instr->slots[count + 1]] = uint32_t(status.code());
  return instr + 1;
}

// ---- queue ops -------------------------------------------------------------

#define FLEET_QUEUE_PROLOGUE                                                   \
  const uint32_t *s = instr->slots;                                            \
  FLEET_OPERAND(Device, device, s[0], "device");                               \
  hal::QueueAffinity affinity = frame.scalars[s[1]];                           \
  Fence *wait = refAs<Fence>(frame, s[2]);                                     \
  Fence *signal = refAs<Fence>(frame, s[3])

const Instr *queueAlloca(Frame &frame, const Instr *instr) {
  FLEET_QUEUE_PROLOGUE;
  auto buffer = device->queueAlloca(
      affinity, wait, signal, frame.scalars[s[4]],
      hal::MemoryType(uint32_t(frame.scalars[s[5]])),
      hal::BufferUsage(uint32_t(frame.scalars[s[6]])), frame.scalars[s[7]]);
  return storeCreated(frame, instr, std::move(buffer), s[8]);
}

const Instr *queueDealloca(Frame &frame, const Instr *instr) {
  FLEET_QUEUE_PROLOGUE;
  FLEET_OPERAND(Buffer, buffer, s[4], "buffer");
  return check(frame, instr,
               device->queueDealloca(affinity, wait, signal, *buffer));
}

const Instr *queueExecute(Frame &frame, const Instr *instr) {
  FLEET_QUEUE_PROLOGUE;
  FLEET_OPERAND(CommandBuffer, commands, s[4], "command buffer");
  CommandBuffer *list[1] = {commands};
  return check(frame, instr,
               device->queueExecute(affinity, wait, signal,
                                    hal::Span<CommandBuffer *const>(list, 1)));
}

const Instr *queueCopy(Frame &frame, const Instr *instr) {
  FLEET_QUEUE_PROLOGUE;
  FLEET_OPERAND(Buffer, source, s[4], "source buffer");
  FLEET_OPERAND(Buffer, target, s[6], "target buffer");
  return check(frame, instr,
               device->queueCopy(affinity, wait, signal, *source,
                                 frame.scalars[s[5]], *target,
                                 frame.scalars[s[7]], frame.scalars[s[8]]));
}

const Instr *queueFill(Frame &frame, const Instr *instr) {
  FLEET_QUEUE_PROLOGUE;
  FLEET_OPERAND(Buffer, target, s[4], "target buffer");
  return check(frame, instr,
               device->queueFill(affinity, wait, signal, *target,
                                 frame.scalars[s[5]], frame.scalars[s[6]],
                                 uint32_t(frame.scalars[s[7]]),
                                 uint8_t(instr->imm)));
}

const Instr *queueUpdate(Frame &frame, const Instr *instr) {
  FLEET_QUEUE_PROLOGUE;
  FLEET_OPERAND(HostBuffer, source, s[4], "source host buffer");
  FLEET_OPERAND(Buffer, target, s[6], "target buffer");
  uint64_t sourceOffset = frame.scalars[s[5]], length = frame.scalars[s[8]];
  if (sourceOffset > source->size() || length > source->size() - sourceOffset)
    return failOp(frame, instr,
                  makeStatus(StatusCode::OutOfRange,
                             "hal.device.queue.update: source range [",
                             sourceOffset, ", ", sourceOffset + length,
                             ") exceeds the host buffer of ", source->size(),
                             " bytes"));
  return check(frame, instr,
               device->queueUpdate(affinity, wait, signal,
                                   source->data() + sourceOffset, *target,
                                   frame.scalars[s[7]], length));
}

const Instr *queueBarrier(Frame &frame, const Instr *instr) {
  FLEET_QUEUE_PROLOGUE;
  return check(frame, instr, device->queueBarrier(affinity, wait, signal));
}

const Instr *queueFlush(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Device, device, instr->slots[0], "device");
  return check(frame, instr, device->queueFlush(frame.scalars[instr->slots[1]]));
}

#undef FLEET_QUEUE_PROLOGUE

// ---- command buffers -------------------------------------------------------

const Instr *commandBufferCreate(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  FLEET_OPERAND(Device, device, s[0], "device");
  bool hasCapacity = instr->slotCount == 4;
  uint64_t capacity = hasCapacity ? frame.scalars[s[2]] : 0;
  if (capacity > UINT32_MAX)
    return failOp(frame, instr,
                  makeStatus(StatusCode::OutOfRange,
                             "hal.command_buffer.create: binding capacity ",
                             capacity, " is too large"));
  auto commands = CommandBuffer::create(
      *device, hal::CommandBufferMode(uint32_t(instr->imm)),
      hal::CommandCategory(uint32_t(instr->imm2)), frame.scalars[s[1]],
      uint32_t(capacity));
  return storeCreated(frame, instr, std::move(commands),
                      s[hasCapacity ? 3 : 2]);
}

const Instr *commandBufferFinalize(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(CommandBuffer, commands, instr->slots[0], "command buffer");
  return check(frame, instr, commands->finalize());
}

const Instr *commandBufferDevice(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(CommandBuffer, commands, instr->slots[0], "command buffer");
  copyRef(frame.refs[instr->slots[1]], &commands->device());
  return instr + 1;
}

const Instr *commandBufferBarrier(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(CommandBuffer, commands, instr->slots[0], "command buffer");
  return check(frame, instr, commands->executionBarrier());
}

const Instr *commandBufferFill(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  FLEET_OPERAND(CommandBuffer, commands, s[0], "command buffer");
  BindingRef target =
      bindingOperand(frame, s[1], frame.scalars[s[2]], hal::kWholeBuffer);
  if (isRefSlot(s[1]) && !target.buffer)
    return nullOperand(frame, instr, "target buffer");
  return check(frame, instr,
               commands->fillBuffer(target, frame.scalars[s[3]],
                                    uint32_t(frame.scalars[s[4]]),
                                    uint8_t(instr->imm)));
}

const Instr *commandBufferUpdate(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  FLEET_OPERAND(CommandBuffer, commands, s[0], "command buffer");
  FLEET_OPERAND(HostBuffer, source, s[1], "source host buffer");
  uint64_t sourceOffset = frame.scalars[s[3]], length = frame.scalars[s[6]];
  if (sourceOffset > source->size() || length > source->size() - sourceOffset)
    return failOp(frame, instr,
                  makeStatus(StatusCode::OutOfRange,
                             "hal.command_buffer.update_buffer: source range [",
                             sourceOffset, ", ", sourceOffset + length,
                             ") exceeds the host buffer of ", source->size(),
                             " bytes"));
  BindingRef target =
      bindingOperand(frame, s[4], frame.scalars[s[5]], hal::kWholeBuffer);
  if (isRefSlot(s[4]) && !target.buffer)
    return nullOperand(frame, instr, "target buffer");
  return check(frame, instr,
               commands->updateBuffer(source->data() + sourceOffset, target,
                                      length));
}

const Instr *commandBufferCopy(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  FLEET_OPERAND(CommandBuffer, commands, s[0], "command buffer");
  BindingRef source =
      bindingOperand(frame, s[1], frame.scalars[s[2]], hal::kWholeBuffer);
  BindingRef target =
      bindingOperand(frame, s[3], frame.scalars[s[4]], hal::kWholeBuffer);
  if (isRefSlot(s[1]) && !source.buffer)
    return nullOperand(frame, instr, "source buffer");
  if (isRefSlot(s[3]) && !target.buffer)
    return nullOperand(frame, instr, "target buffer");
  return check(frame, instr,
               commands->copyBuffer(source, target, frame.scalars[s[5]]));
}

const Instr *commandBufferDispatch(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  FLEET_OPERAND(CommandBuffer, commands, s[0], "command buffer");
  FLEET_OPERAND(hal::Executable, executable, s[1], "executable");
  uint64_t ordinal = frame.scalars[s[2]];
  uint64_t x = frame.scalars[s[3]], y = frame.scalars[s[4]],
           z = frame.scalars[s[5]];
  if (ordinal > UINT32_MAX || x > UINT32_MAX || y > UINT32_MAX ||
      z > UINT32_MAX)
    return failOp(frame, instr,
                  makeStatus(StatusCode::OutOfRange,
                             "hal.command_buffer.dispatch: export ordinal ",
                             int64_t(ordinal), " or workgroup count (", x,
                             ", ", y, ", ", z, ") out of range"));
  const uint32_t workgroups[3] = {uint32_t(x), uint32_t(y), uint32_t(z)};

  size_t constantCount = size_t(instr->imm), bindingCount = size_t(instr->imm2);
  constexpr size_t kInline = 16;
  uint32_t inlineConstants[kInline];
  static_assert(std::is_trivially_destructible_v<BindingRef>);
  // Raw storage: BindingRef's member initializers would otherwise clear all
  // kInline entries on every dispatch (the P2 hot path).
  alignas(BindingRef) unsigned char inlineBindings[kInline * sizeof(BindingRef)];
  std::vector<uint32_t> heapConstants;
  std::vector<BindingRef> heapBindings;
  uint32_t *constants = inlineConstants;
  BindingRef *bindings = reinterpret_cast<BindingRef *>(inlineBindings);
  if (constantCount > kInline) {
    heapConstants.resize(constantCount);
    constants = heapConstants.data();
  }
  if (bindingCount > kInline) {
    heapBindings.resize(bindingCount);
    bindings = heapBindings.data();
  }
  const uint32_t *constantSlots = s + 6;
  for (size_t i = 0; i < constantCount; ++i)
    constants[i] = uint32_t(frame.scalars[constantSlots[i]]);
  const uint32_t *bindingSlots = constantSlots + constantCount;
  for (size_t i = 0; i < bindingCount; ++i) {
    const uint32_t *b = bindingSlots + 3 * i;
    new (&bindings[i]) BindingRef(bindingOperand(
        frame, b[0], frame.scalars[b[1]], frame.scalars[b[2]]));
    if (isRefSlot(b[0]) && !bindings[i].buffer)
      return failOp(frame, instr,
                    makeStatus(StatusCode::InvalidArgument,
                               "hal.command_buffer.dispatch: binding ", i,
                               " is a null buffer"));
  }
  return check(frame, instr,
               commands->dispatch(
                   *executable, uint32_t(ordinal), workgroups,
                   hal::Span<const uint32_t>(constants, constantCount),
                   hal::Span<const BindingRef>(bindings, bindingCount)));
}

const Instr *executableLookup(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Device, device, instr->slots[0], "device");
  const auto *table = static_cast<const ExecutableTable *>(instr->data);
  uint32_t index = device->groupIndex();
  hal::Executable *executable =
      device->group() == frame.state->context->group() &&
              index < table->byDevice.size()
          ? table->byDevice[index].get()
          : nullptr;
  if (!executable) {
    std::string reason = index < table->missingReason.size()
                             ? table->missingReason[index]
                             : std::string("the device is not one of the "
                                           "context's devices");
    return failOp(frame, instr,
                  makeStatus(StatusCode::NotFound, "hal.executable.lookup: @",
                             table->name, " is not loaded on device '",
                             device->name(), "': ", reason));
  }
  copyRef(frame.refs[instr->slots[1]], executable);
  return instr + 1;
}

} // namespace handlers

} // namespace fleet::runtime::host
