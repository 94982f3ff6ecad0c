//===- CommandBuffer.cpp - recorded device work ----------------------------===//

#include "fleet/runtime/hal/CommandBuffer.h"

#include "fleet/runtime/hal/Device.h"

#include <cstring>

namespace fleet::runtime::hal {

StatusOr<Ref<CommandBuffer>>
CommandBuffer::create(Device &device, CommandBufferMode mode,
                      CommandCategory categories, QueueAffinity affinity,
                      uint32_t bindingCapacity) {
  if (affinity == 0)
    return makeStatus(StatusCode::InvalidArgument,
                      "hal.command_buffer.create on device '", device.name(),
                      "': queue affinity 0 selects no queue");
  Ref<CommandBuffer> commandBuffer =
      Ref<CommandBuffer>::adopt(new CommandBuffer());
  commandBuffer->device_ = Ref<Device>(&device);
  commandBuffer->mode_ = mode;
  commandBuffer->categories_ = categories;
  commandBuffer->affinity_ = affinity;
  commandBuffer->bindingCapacity_ = bindingCapacity;
  return commandBuffer;
}

Status CommandBuffer::checkRecording(const char *operation) const {
  if (finalized_)
    return makeStatus(StatusCode::FailedPrecondition, operation,
                      ": command buffer of device '", device_->name(),
                      "' is already finalized");
  return Status();
}

uint32_t CommandBuffer::internExecutable(Executable &executable) {
  for (uint32_t i = 0; i < executables_.size(); ++i)
    if (executables_[i].get() == &executable)
      return i;
  executables_.push_back(Ref<Executable>(&executable));
  return uint32_t(executables_.size() - 1);
}

void CommandBuffer::rollBack(size_t bindings, size_t buffers,
                             uint32_t slotsUsed) {
  // Nothing of a rejected command stays recorded.
  bindings_.truncate(bindings);
  buffers_.truncate(buffers);
  slotsUsed_ = slotsUsed;
}

Status CommandBuffer::addBinding(const char *operation, const char *what,
                                 int index, BindingRef ref,
                                 BufferUsage requiredUsage,
                                 uint64_t alignment) {
  auto operand = [&] {
    return index < 0 ? std::string(what)
                     : std::string(what) + " " + std::to_string(index);
  };
  if (ref.offset % alignment != 0)
    return makeStatus(StatusCode::InvalidArgument, operation, ": ", operand(),
                      " offset ", ref.offset, " is not a multiple of ",
                      alignment);
  if (!ref.buffer) {
    if (ref.slot >= bindingCapacity_)
      return makeStatus(StatusCode::OutOfRange, operation, ": ", operand(),
                        " uses binding-table slot ", ref.slot,
                        " but the command buffer was created with capacity ",
                        bindingCapacity_);
    if (ref.slot + 1 > slotsUsed_)
      slotsUsed_ = ref.slot + 1;
    bindings_.push_back(ref);
    return Status();
  }
  Buffer &buffer = *ref.buffer;
  // The operand's name is built only for the error (this is the dispatch
  // recording hot path).
  if (!anyBitSet(buffer.allowedUsage(), requiredUsage))
    return buffer.requireUsage(operation, operand(), requiredUsage);
  if (ref.offset > buffer.byteSize() ||
      (ref.length != kWholeBuffer &&
       ref.length > buffer.byteSize() - ref.offset)) {
    auto range = buffer.resolveRange(operation, operand(), ref.offset,
                                     ref.length);
    return range.status();
  }
  if (ref.length == kWholeBuffer)
    ref.length = buffer.byteSize() - ref.offset;
  bindings_.push_back(ref);
  for (const Ref<Buffer> &retained : buffers_)
    if (retained.get() == &buffer)
      return Status();
  buffers_.push_back(Ref<Buffer>(&buffer));
  return Status();
}

Status CommandBuffer::dispatch(Executable &executable, uint32_t ordinal,
                               const uint32_t workgroups[3],
                               Span<const uint32_t> constants,
                               Span<const BindingRef> bindings) {
  static constexpr const char *kOperation = "hal.command_buffer.dispatch";
  FLEET_RETURN_IF_ERROR(checkRecording(kOperation));
  if (!anyBitSet(uint32_t(categories_), uint32_t(CommandCategory::Dispatch)))
    return makeStatus(StatusCode::InvalidArgument, kOperation,
                      ": command buffer was created without the Dispatch "
                      "category");
  if (ordinal >= executable.exportCount())
    return makeStatus(StatusCode::OutOfRange, kOperation, ": export ordinal ",
                      ordinal, " of executable '", executable.name(),
                      "' is out of range (", executable.exportCount(),
                      " exports)");
  if (executable.device() && executable.device() != device_.get())
    return makeStatus(StatusCode::InvalidArgument, kOperation,
                      ": executable '", executable.name(),
                      "' was loaded by device '", executable.device()->name(),
                      "' and runs only there, not on device '",
                      device_->name(), "'");
  if (!executable.device() &&
      std::strcmp(device_->executableFormat(), kLocalExecutableFormat) != 0)
    return makeStatus(StatusCode::InvalidArgument, kOperation,
                      ": executable '", executable.name(),
                      "' is host code, which device '", device_->name(),
                      "' (format ", device_->executableFormat(),
                      ") cannot run");
  if (const std::optional<ExportLayout> &layout = executable.layout(ordinal);
      layout && (layout->bindingCount != bindings.size() ||
                 layout->constantCount != constants.size()))
    return makeStatus(StatusCode::InvalidArgument, kOperation, ": export '",
                      executable.exportName(ordinal), "' of executable '",
                      executable.name(), "' takes ", layout->bindingCount,
                      " bindings and ", layout->constantCount,
                      " push constants (its layout), but the dispatch passes ",
                      bindings.size(), " and ", constants.size());
  size_t bindingsBefore = bindings_.size();
  uint32_t slotsBefore = slotsUsed_;
  size_t buffersBefore = buffers_.size();
  for (size_t i = 0; i < bindings.size(); ++i) {
    Status status = addBinding(kOperation, "binding", int(i), bindings[i],
                               BufferUsage::DispatchStorage, 1);
    if (!status.ok()) {
      rollBack(bindingsBefore, buffersBefore, slotsBefore);
      return status;
    }
  }
  RecordedCommand command{};
  command.kind = CommandKind::Dispatch;
  command.executable = internExecutable(executable);
  command.ordinal = ordinal;
  std::memcpy(command.workgroups, workgroups, sizeof(command.workgroups));
  command.firstConstant = uint32_t(constants_.size());
  command.constantCount = uint32_t(constants.size());
  constants_.append(constants.begin(), constants.end());
  command.firstBinding = uint32_t(bindingsBefore);
  command.bindingCount = uint32_t(bindings.size());
  commands_.push_back(command);
  ++dispatchCount_;
  return Status();
}

Status CommandBuffer::copyBuffer(BindingRef source, BindingRef target,
                                 uint64_t length) {
  static constexpr const char *kOperation = "hal.command_buffer.copy_buffer";
  FLEET_RETURN_IF_ERROR(checkRecording(kOperation));
  size_t bindingsBefore = bindings_.size();
  uint32_t slotsBefore = slotsUsed_;
  size_t buffersBefore = buffers_.size();
  source.length = length;
  target.length = length;
  Status status = addBinding(kOperation, "source", -1, source,
                             BufferUsage::TransferSource, 1);
  if (status.ok())
    status = addBinding(kOperation, "target", -1, target,
                        BufferUsage::TransferTarget, 1);
  if (!status.ok()) {
    rollBack(bindingsBefore, buffersBefore, slotsBefore);
    return status;
  }
  RecordedCommand command{};
  command.kind = CommandKind::Copy;
  command.firstBinding = uint32_t(bindingsBefore);
  command.bindingCount = 2;
  command.length = length;
  commands_.push_back(command);
  return Status();
}

Status CommandBuffer::fillBuffer(BindingRef target, uint64_t length,
                                 uint32_t pattern, uint8_t patternLength) {
  static constexpr const char *kOperation = "hal.command_buffer.fill_buffer";
  FLEET_RETURN_IF_ERROR(checkRecording(kOperation));
  if (patternLength != 1 && patternLength != 2 && patternLength != 4)
    return makeStatus(StatusCode::InvalidArgument, kOperation,
                      ": pattern length ", int(patternLength),
                      " is not 1, 2 or 4 bytes");
  if (length % patternLength != 0)
    return makeStatus(StatusCode::InvalidArgument, kOperation, ": length ",
                      length, " is not a multiple of the pattern length ",
                      int(patternLength));
  size_t bindingsBefore = bindings_.size();
  target.length = length;
  FLEET_RETURN_IF_ERROR(addBinding(kOperation, "target", -1, target,
                                   BufferUsage::TransferTarget,
                                   patternLength));
  RecordedCommand command{};
  command.kind = CommandKind::Fill;
  command.firstBinding = uint32_t(bindingsBefore);
  command.bindingCount = 1;
  command.pattern = pattern;
  command.patternLength = patternLength;
  command.length = length;
  commands_.push_back(command);
  return Status();
}

Status CommandBuffer::updateBuffer(const void *source, BindingRef target,
                                   uint64_t length) {
  static constexpr const char *kOperation = "hal.command_buffer.update_buffer";
  FLEET_RETURN_IF_ERROR(checkRecording(kOperation));
  if (length && !source)
    return makeStatus(StatusCode::InvalidArgument, kOperation,
                      ": null source for ", length, " bytes");
  size_t bindingsBefore = bindings_.size();
  target.length = length;
  FLEET_RETURN_IF_ERROR(addBinding(kOperation, "target", -1, target,
                                   BufferUsage::TransferTarget, 1));
  RecordedCommand command{};
  command.kind = CommandKind::Update;
  command.firstBinding = uint32_t(bindingsBefore);
  command.bindingCount = 1;
  command.firstByte = updateBytes_.size();
  command.byteCount = length;
  command.length = length;
  const uint8_t *bytes = static_cast<const uint8_t *>(source);
  updateBytes_.insert(updateBytes_.end(), bytes, bytes + length);
  commands_.push_back(command);
  return Status();
}

Status CommandBuffer::executionBarrier() {
  FLEET_RETURN_IF_ERROR(
      checkRecording("hal.command_buffer.execution_barrier"));
  RecordedCommand command{};
  command.kind = CommandKind::Barrier;
  commands_.push_back(command);
  return Status();
}

Status CommandBuffer::recordCommand(const RecordedCommand &command,
                                    Span<const BindingRef> operands,
                                    const uint32_t *constants,
                                    const uint8_t *updateBytes,
                                    Executable *executable) {
  switch (command.kind) {
  case CommandKind::Dispatch:
    if (!executable)
      return Status(StatusCode::InvalidArgument,
                    "hal.command_buffer.dispatch: no executable to record");
    return dispatch(*executable, command.ordinal, command.workgroups,
                    Span<const uint32_t>(constants + command.firstConstant,
                                         command.constantCount),
                    operands);
  case CommandKind::Copy:
    return copyBuffer(operands[0], operands[1], command.length);
  case CommandKind::Fill:
    return fillBuffer(operands[0], command.length, command.pattern,
                      command.patternLength);
  case CommandKind::Update:
    return updateBuffer(updateBytes + command.firstByte, operands[0],
                        command.byteCount);
  case CommandKind::Barrier:
    return executionBarrier();
  }
  return Status(StatusCode::InvalidArgument, "unknown recorded command");
}

Status CommandBuffer::finalize() {
  FLEET_RETURN_IF_ERROR(checkRecording("hal.command_buffer.finalize"));
  finalized_ = true;
  return Status();
}

} // namespace fleet::runtime::hal
