//===- CommandBuffer.h - recorded device work --------------------*- C++ -*-===//
//
// A command buffer records dispatches, copies, fills, updates and execution
// barriers (`hal.command_buffer.*`) for later submission with
// Device::queueExecute. Commands run in recording order; on local devices an
// execution barrier is implied between commands (each command finishes before
// the next starts), so recorded barriers cost nothing.
//
// Buffers are named by a BindingRef: a buffer, or a slot of the binding table
// given to queueExecute (`(%slot : index)[...]` in the IR).
// Recording validates everything it can see: export ordinal, usage bits
// (TransferSource/TransferTarget for copies, fills and updates;
// DispatchStorageRead or DispatchStorageWrite for dispatch bindings), ranges,
// slots against the binding capacity, fill pattern sizes. Access from the
// executing device (direct or by import) is checked at submission, per
// queue op (DeviceGroup.h).
//
// Ownership: CommandBuffer::create returns the first reference. The command
// buffer retains the device, executables and buffers it records and copies
// constants and update bytes, so the caller's arrays may die after recording.
// Thread safety: recording is single-threaded; after finalize() the command
// buffer is immutable and may be submitted from several threads, and several
// times unless created with the OneShot mode.
// Failure behaviour: a rejected command returns InvalidArgument naming the
// op (`hal.command_buffer.copy_buffer`, ...) and the operand; nothing is
// recorded then. Recording after finalize() is FailedPrecondition.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_COMMANDBUFFER_H
#define FLEET_RUNTIME_HAL_COMMANDBUFFER_H

#include "fleet/runtime/hal/Buffer.h"
#include "fleet/runtime/hal/Executable.h"
#include "fleet/runtime/hal/InlineVector.h"

#include <string>
#include <vector>

namespace fleet::runtime::hal {

/// `hal.command_buffer.create mode(...)`: None=0, OneShot=1,
/// AllowInlineExecution=0x10 (docs/ir-reference.md).
enum class CommandBufferMode : uint32_t {
  None = 0,
  OneShot = 1,
  AllowInlineExecution = 0x10,
};
/// `categories(...)`: Transfer=1, Dispatch=2.
enum class CommandCategory : uint32_t {
  None = 0,
  Transfer = 1,
  Dispatch = 2,
  Any = 3,
};

/// A buffer range operand: `buffer` set, or `buffer` null and `slot` an index
/// into the binding table of queueExecute. `length` may be kWholeBuffer.
struct BindingRef {
  Buffer *buffer = nullptr;
  uint32_t slot = 0;
  uint64_t offset = 0;
  uint64_t length = kWholeBuffer;

  static BindingRef of(Buffer &buffer, uint64_t offset = 0,
                       uint64_t length = kWholeBuffer) {
    return BindingRef{&buffer, 0, offset, length};
  }
  static BindingRef ofSlot(uint32_t slot, uint64_t offset = 0,
                           uint64_t length = kWholeBuffer) {
    return BindingRef{nullptr, slot, offset, length};
  }
};

enum class CommandKind : uint8_t { Dispatch, Copy, Fill, Update, Barrier };

/// One recorded command (read by drivers). Ranges index the command
/// buffer's shared arrays.
struct RecordedCommand {
  CommandKind kind;
  /// Dispatch: executable index and export ordinal.
  uint32_t executable = 0;
  uint32_t ordinal = 0;
  uint32_t workgroups[3] = {0, 0, 0};
  /// Dispatch: [firstConstant, firstConstant+constantCount) of constants();
  /// update: [firstByte, firstByte+byteCount) of updateBytes().
  uint32_t firstConstant = 0, constantCount = 0;
  /// Dispatch: bindings [firstBinding, +bindingCount); copy: source, target;
  /// fill/update: target.
  uint32_t firstBinding = 0, bindingCount = 0;
  uint64_t firstByte = 0, byteCount = 0;
  /// Fill pattern (low patternLength bytes) and length in bytes of the fill.
  uint32_t pattern = 0;
  uint8_t patternLength = 0;
  uint64_t length = 0;
};

class Device;

class CommandBuffer final : public RefCounted {
public:
  static StatusOr<Ref<CommandBuffer>>
  create(Device &device, CommandBufferMode mode, CommandCategory categories,
         QueueAffinity affinity, uint32_t bindingCapacity = 0);

  Status dispatch(Executable &executable, uint32_t ordinal,
                  const uint32_t workgroups[3], Span<const uint32_t> constants,
                  Span<const BindingRef> bindings);
  Status copyBuffer(BindingRef source, BindingRef target, uint64_t length);
  /// `pattern` repeats every `patternLength` (1, 2 or 4) bytes; offset and
  /// length must be multiples of `patternLength`. `target.length` is ignored:
  /// `length` bytes are filled.
  Status fillBuffer(BindingRef target, uint64_t length, uint32_t pattern,
                    uint8_t patternLength);
  /// Copies `length` bytes from `source` now; they are written when the
  /// command runs.
  Status updateBuffer(const void *source, BindingRef target, uint64_t length);
  Status executionBarrier();
  /// Records again a command another command buffer recorded (the mpi
  /// driver moves command buffers between processes and splits them):
  /// `operands` are its bindings, resolved; `constants` and `updateBytes`
  /// the recording buffer's arrays it indexes; `executable` the one its
  /// dispatch runs (null for other commands).
  Status recordCommand(const RecordedCommand &command,
                       Span<const BindingRef> operands,
                       const uint32_t *constants, const uint8_t *updateBytes,
                       Executable *executable);
  Status finalize();

  Device &device() const { return *device_; }
  CommandBufferMode mode() const { return mode_; }
  QueueAffinity affinity() const { return affinity_; }
  uint32_t bindingCapacity() const { return bindingCapacity_; }
  bool isFinalized() const { return finalized_; }

  Span<const RecordedCommand> commands() const { return commands_; }
  Span<const BindingRef> bindings() const { return bindings_; }
  Span<const uint32_t> constants() const { return constants_; }
  const std::vector<uint8_t> &updateBytes() const { return updateBytes_; }
  Executable &executable(uint32_t index) const { return *executables_[index]; }
  /// Distinct buffers recorded directly (not through slots).
  Span<const Ref<Buffer>> directBuffers() const { return buffers_; }
  /// Highest binding-table slot used + 1.
  uint32_t slotsUsed() const { return slotsUsed_; }
  /// Number of Dispatch commands.
  uint32_t dispatchCount() const { return dispatchCount_; }

private:
  CommandBuffer() = default;
  Status checkRecording(const char *operation) const;
  /// Validates one operand and stores it; a direct buffer is retained.
  /// `what` and `index` name the operand in errors ("binding", 2); the
  /// text is only built when there is an error.
  Status addBinding(const char *operation, const char *what, int index,
                    BindingRef ref, BufferUsage requiredUsage,
                    uint64_t alignment);
  void rollBack(size_t bindings, size_t buffers, uint32_t slotsUsed);
  uint32_t internExecutable(Executable &executable);

  Ref<Device> device_;
  CommandBufferMode mode_ = CommandBufferMode::None;
  CommandCategory categories_ = CommandCategory::Any;
  QueueAffinity affinity_ = kQueueAffinityAny;
  uint32_t bindingCapacity_ = 0;
  bool finalized_ = false;
  uint32_t slotsUsed_ = 0;
  uint32_t dispatchCount_ = 0;

  // Sized for the common one-dispatch command buffer, so recording it does
  // not touch the heap (the host program records one per dispatch).
  InlineVector<RecordedCommand, 1> commands_;
  InlineVector<BindingRef, 4> bindings_;
  InlineVector<uint32_t, 8> constants_;
  std::vector<uint8_t> updateBytes_;
  InlineVector<Ref<Executable>, 1> executables_;
  InlineVector<Ref<Buffer>, 4> buffers_;
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_COMMANDBUFFER_H
