//===- HALObjectHandlers.cpp - devices, allocators, buffer views ---------===//

#include "HALHandlers.h"

#include "fleet/runtime/hal/DeviceGroup.h"

namespace fleet::runtime::host {

using hal::Buffer;
using hal::BufferView;
using hal::Device;
using hal::makeStatus;
using hal::Status;
using hal::StatusCode;

namespace {

const Instr *nullOperand(Frame &frame, const Instr *instr, const char *what) {
  return failOp(frame, instr,
                makeStatus(StatusCode::InvalidArgument,
                           frame.function->sites[instr->site].op, ": ", what,
                           " is null"));
}

#define FLEET_OPERAND(TYPE, NAME, SLOT, WHAT)                                  \
  TYPE *NAME = refAs<TYPE>(frame, SLOT);                                       \
  if (!NAME)                                                                   \
  return nullOperand(frame, instr, WHAT)

/// Converts a query answer to the result's stored bits.
uint64_t answerBits(ValueType type, int64_t value) {
  switch (type) {
  case ValueType::F32:
    return Value::f32(float(value)).bits();
  case ValueType::F64:
    return Value::f64(double(value)).bits();
  case ValueType::I1:
    return value != 0 ? 1 : 0;
  default:
    return Value::integer(type, value).bits();
  }
}

} // namespace

namespace handlers {

const Instr *deviceAllocator(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Device, device, instr->slots[0], "device");
  copyRef(frame.refs[instr->slots[1]], device);
  return instr + 1;
}

const Instr *devicesGet(Frame &frame, const Instr *instr) {
  uint64_t index = frame.scalars[instr->slots[0]];
  hal::Span<Device *const> devices = frame.state->context->devices();
  if (index >= devices.size())
    return failOp(frame, instr,
                  makeStatus(StatusCode::OutOfRange, "hal.devices.get: index ",
                             int64_t(index), " is out of range (",
                             devices.size(), " devices)"));
  copyRef(frame.refs[instr->slots[1]], devices[index]);
  return instr + 1;
}

const Instr *deviceQuery(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Device, device, instr->slots[0], "device");
  const auto *data = static_cast<const DeviceQueryData *>(instr->data);
  hal::QueryAnswer answer = device->query(data->category, data->key);
  frame.scalars[instr->slots[1]] = answer.ok ? 1 : 0;
  frame.scalars[instr->slots[2]] =
      answer.ok ? answerBits(data->resultType, answer.value)
                : data->defaultBits;
  return instr + 1;
}

const Instr *deviceQueryLink(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Device, from, instr->slots[0], "source device");
  FLEET_OPERAND(Device, to, instr->slots[1], "target device");
  const auto *data = static_cast<const LinkQueryData *>(instr->data);
  hal::DeviceGroup *group = frame.state->context->group();
  hal::LinkAnswer answer =
      group ? group->queryLink(*from, *to, data->key) : hal::LinkAnswer{};
  frame.scalars[instr->slots[2]] = answer.ok ? 1 : 0;
  frame.scalars[instr->slots[3]] =
      answer.ok ? (answer.value ? 1 : 0) : data->defaultBits;
  return instr + 1;
}

// ---- allocators ------------------------------------------------------------

const Instr *allocatorAllocate(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  FLEET_OPERAND(Device, device, s[0], "allocator");
  auto buffer = device->allocator().allocate(
      hal::MemoryType(uint32_t(frame.scalars[s[2]])),
      hal::BufferUsage(uint32_t(frame.scalars[s[3]])), frame.scalars[s[4]]);
  return storeCreated(frame, instr, std::move(buffer), s[5]);
}

/// Wraps the host bytes without copying; the buffer keeps the HostBuffer
/// alive. An allocator that cannot provide the memory answers ok = false
/// (the IR then falls back to an upload), not an error.
const Instr *allocatorImport(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  FLEET_OPERAND(Device, device, s[0], "allocator");
  FLEET_OPERAND(HostBuffer, source, s[1], "source host buffer");
  uint64_t offset = frame.scalars[s[2]], length = frame.scalars[s[3]];
  if (offset > source->size() || length > source->size() - offset)
    return failOp(frame, instr,
                  makeStatus(StatusCode::OutOfRange,
                             "hal.allocator.import: range [", offset, ", ",
                             offset + length, ") exceeds the host buffer of ",
                             source->size(), " bytes"));
  hal::Ref<HostBuffer> keepAlive(source);
  auto buffer = device->allocator().importHostMemory(
      source->data() + offset, length,
      hal::MemoryType(uint32_t(frame.scalars[s[5]])),
      hal::BufferUsage(uint32_t(frame.scalars[s[6]])),
      [keepAlive]() mutable { keepAlive.reset(); });
  frame.scalars[s[7]] = buffer.ok() ? 1 : 0;
  storeRef(frame.refs[s[8]], buffer.ok() ? buffer->detach() : nullptr);
  return instr + 1;
}

const Instr *allocatorSelect(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  size_t count = size_t(instr->imm);
  hal::DeviceGroup *group = frame.state->context->group();
  std::vector<hal::DeviceCandidate> candidates(count);
  for (size_t i = 0; i < count; ++i) {
    FLEET_OPERAND(Device, device, s[i], "candidate device");
    candidates[i] = hal::DeviceCandidate{device, frame.scalars[s[count + i]]};
  }
  if (!group)
    return failOp(frame, instr,
                  makeStatus(StatusCode::FailedPrecondition,
                             "hal.allocator.select: no device group"));
  auto selected = group->select(
      candidates, hal::MemoryType(uint32_t(frame.scalars[s[2 * count]])),
      hal::BufferUsage(uint32_t(frame.scalars[s[2 * count + 1]])));
  if (!selected.ok())
    return failOp(frame, instr, selected.status());
  copyRef(frame.refs[s[2 * count + 2]], selected->device);
  frame.scalars[s[2 * count + 3]] = selected->affinity;
  return instr + 1;
}

// ---- buffer views ----------------------------------------------------------

const Instr *bufferViewCreate(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  FLEET_OPERAND(Buffer, buffer, s[0], "buffer");
  size_t rank = size_t(instr->imm);
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i)
    shape[i] = int64_t(frame.scalars[s[3 + i]]);
  auto view = BufferView::create(
      hal::Ref<Buffer>(buffer), frame.scalars[s[1]], frame.scalars[s[2]],
      std::move(shape), hal::ElementType(frame.scalars[s[3 + rank]]),
      hal::EncodingType(frame.scalars[s[4 + rank]]));
  return storeCreated(frame, instr, std::move(view), s[5 + rank]);
}

const Instr *bufferViewBuffer(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(BufferView, view, instr->slots[0], "buffer view");
  copyRef(frame.refs[instr->slots[1]], &view->buffer());
  return instr + 1;
}

const Instr *bufferLength(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Buffer, buffer, instr->slots[0], "buffer");
  frame.scalars[instr->slots[1]] = buffer->byteSize();
  return instr + 1;
}

// Host reads/writes of mapped buffers: imm = the value's byte width
// (i1: 1 byte, nonzero is true on load).
const Instr *bufferLoad(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Buffer, buffer, instr->slots[0], "buffer");
  uint64_t bits = 0;
  hal::Status status = buffer->read(frame.scalars[instr->slots[1]], &bits,
                                    uint64_t(instr->imm));
  if (!status.ok())
    return failOp(frame, instr, std::move(status));
  if (instr->imm2) // i1
    bits = bits != 0;
  frame.scalars[instr->slots[2]] = bits;
  return instr + 1;
}

const Instr *bufferStore(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(Buffer, buffer, instr->slots[1], "buffer");
  uint64_t bits = frame.scalars[instr->slots[0]];
  hal::Status status = buffer->write(frame.scalars[instr->slots[2]], &bits,
                                     uint64_t(instr->imm));
  if (!status.ok())
    return failOp(frame, instr, std::move(status));
  return instr + 1;
}

const Instr *bufferViewRank(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(BufferView, view, instr->slots[0], "buffer view");
  frame.scalars[instr->slots[1]] = view->rank();
  return instr + 1;
}

const Instr *bufferViewDim(Frame &frame, const Instr *instr) {
  FLEET_OPERAND(BufferView, view, instr->slots[0], "buffer view");
  size_t index = size_t(instr->imm);
  if (index >= view->rank())
    return failOp(frame, instr,
                  makeStatus(StatusCode::OutOfRange, "hal.buffer_view.dim: ",
                             "dimension ", index, " of a rank-", view->rank(),
                             " view (", view->typeString(), ")"));
  frame.scalars[instr->slots[1]] = uint64_t(view->dim(index));
  return instr + 1;
}

const Instr *bufferViewAssert(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  const auto *message = static_cast<const std::string *>(instr->data);
  BufferView *view = refAs<BufferView>(frame, s[0]);
  if (!view)
    return failOp(frame, instr,
                  makeStatus(StatusCode::InvalidArgument,
                             "hal.buffer_view.assert '", *message,
                             "': the buffer view is null"));
  size_t rank = size_t(instr->imm);
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i)
    shape[i] = int64_t(frame.scalars[s[1 + i]]);
  Status status =
      view->check(*message, shape, hal::ElementType(frame.scalars[s[1 + rank]]),
                  hal::EncodingType(frame.scalars[s[2 + rank]]));
  if (!status.ok())
    return failOp(frame, instr, std::move(status));
  return instr + 1;
}

} // namespace handlers

} // namespace fleet::runtime::host
