//===- QueueOp.h - a validated queue operation (driver interface) -*- C++ -*-===//
//
// Device's public queue methods validate their arguments, build a QueueOp on
// the caller's stack and hand it to the driver (Device::submit), which runs it
// at once or moves it into its own pending state. Everything a queue op needs
// when it runs is retained here, so the caller's objects may die after
// submission.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_HAL_QUEUEOP_H
#define FLEET_RUNTIME_SRC_HAL_QUEUEOP_H

#include "fleet/runtime/hal/CommandBuffer.h"
#include "fleet/runtime/hal/Device.h"
#include "fleet/runtime/hal/Fence.h"

#include <vector>

namespace fleet::runtime::hal {

enum class QueueOpKind : uint8_t {
  Alloca,
  Dealloca,
  Execute,
  Copy,
  Fill,
  Update,
  Barrier,
};

/// The IR op name ("hal.device.queue.copy"), used in error messages.
const char *queueOpName(QueueOpKind kind);
/// The trace slice name ("copy").
const char *queueOpShortName(QueueOpKind kind);

struct QueueOp {
  QueueOpKind kind = QueueOpKind::Barrier;
  uint32_t queueIndex = 0;
  /// 1-based submission number on the device (`fail_after`).
  uint64_t sequence = 0;
  /// Keeps the device alive while the op is pending.
  Ref<Device> device;
  /// Null or empty: nothing to wait for / signal.
  Ref<Fence> wait;
  Ref<Fence> signal;

  // Operands. Alloca/dealloca/fill/update use `target`; copy uses both.
  Ref<Buffer> source;
  Ref<Buffer> target;
  uint64_t sourceOffset = 0;
  uint64_t targetOffset = 0;
  uint64_t length = 0;
  uint32_t pattern = 0;
  uint8_t patternLength = 0;
  std::vector<uint8_t> updateBytes;
  /// Execute: one command buffer inline (the common case), more in `extra`.
  Ref<CommandBuffer> commandBuffer;
  std::vector<Ref<CommandBuffer>> extraCommandBuffers;
  std::vector<BindingRef> bindingTable;
  std::vector<Ref<Buffer>> bindingTableBuffers;

  /// A command's operand with a binding-table slot replaced by its entry:
  /// the buffer, the entry's offset plus the operand's, and the length
  /// (kWholeBuffer of a slot: the rest of the entry).
  BindingRef resolve(const BindingRef &ref) const {
    if (ref.buffer)
      return ref;
    const BindingRef &entry = bindingTable[ref.slot];
    return BindingRef{entry.buffer, 0, entry.offset + ref.offset,
                      ref.length == kWholeBuffer ? entry.length - ref.offset
                                                 : ref.length};
  }

  template <typename Fn> void forEachCommandBuffer(Fn fn) const {
    if (commandBuffer)
      fn(*commandBuffer);
    for (const Ref<CommandBuffer> &extra : extraCommandBuffers)
      fn(*extra);
  }
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_SRC_HAL_QUEUEOP_H
