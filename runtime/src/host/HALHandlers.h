//===- HALHandlers.h - handlers of hal ops --------------------*- C++ -*-===//
//
// The hal ops of the host program (docs/ir-reference.md "hal") as Instr
// handlers (Program.h). Each declaration gives the record's slot layout:
// operands in the op's order, then results. `r` marks reference slots, `s`
// scalar slots;
// `t` marks tagged slots (a `!hal.buffer` or an `index` binding-table slot).
// Every handler calls the runtime API (runtime/include/fleet/runtime/hal),
// which validates and reports; the handlers add null checks and the
// conversions between IR scalars and runtime types.
//
// Ownership, thread safety, failure behaviour: as Program.h.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_HOST_HALHANDLERS_H
#define FLEET_RUNTIME_SRC_HOST_HALHANDLERS_H

#include "Program.h"

#include "fleet/runtime/hal/Executable.h"

namespace fleet::runtime::host {

/// Per-executable table of `hal.executable.lookup`: the loaded executable
/// for each device, indexed by the device's DeviceGroup index (null: no
/// variant for that device).
struct ExecutableTable {
  std::string name;
  std::vector<hal::Ref<hal::Executable>> byDevice;
  /// Why a device has no entry ("no variant of format ..."), by index.
  std::vector<std::string> missingReason;
};

/// `hal.device.query` data: the key and the result's type and default.
struct DeviceQueryData {
  std::string category;
  std::string key;
  ValueType resultType = ValueType::I1;
  uint64_t defaultBits = 0;
};

struct LinkQueryData {
  std::string key;
  uint64_t defaultBits = 0;
};

namespace handlers {
// Fences.
const Instr *fenceCreate(Frame &, const Instr *);  // [r device, r result]
const Instr *fenceJoin(Frame &, const Instr *);    // [r fences..., r result]; imm = count
const Instr *fenceQuery(Frame &, const Instr *);   // [r fence, s status]
const Instr *fenceSignal(Frame &, const Instr *);  // [r fence]
const Instr *fenceFail(Frame &, const Instr *);    // [r fence, s status]
const Instr *fenceAwait(Frame &, const Instr *);   // [r fences..., s timeout, s status]; imm = count

// Devices.
const Instr *deviceAllocator(Frame &, const Instr *); // [r device, r allocator]
const Instr *devicesGet(Frame &, const Instr *);      // [s index, r device]
const Instr *deviceQuery(Frame &, const Instr *);     // [r device, s ok, s value]; data DeviceQueryData
const Instr *deviceQueryLink(Frame &, const Instr *); // [r from, r to, s ok, s value]; data LinkQueryData

// Queue ops: all start [r device, s affinity, r wait, r signal].
const Instr *queueAlloca(Frame &, const Instr *);   // + [s pool, s type, s usage, s size, r result]
const Instr *queueDealloca(Frame &, const Instr *); // + [r buffer]
const Instr *queueExecute(Frame &, const Instr *);  // + [r command buffer]
const Instr *queueCopy(Frame &, const Instr *);     // + [r src, s srcOffset, r dst, s dstOffset, s length]
const Instr *queueFill(Frame &, const Instr *);     // + [r dst, s offset, s length, s pattern]; imm = pattern bytes
const Instr *queueUpdate(Frame &, const Instr *);   // + [r host src, s srcOffset, r dst, s dstOffset, s length]
const Instr *queueBarrier(Frame &, const Instr *);
const Instr *queueFlush(Frame &, const Instr *);    // [r device, s affinity]

// Command buffers.
const Instr *commandBufferCreate(Frame &, const Instr *); // [r device, s affinity, (s capacity)?, r result]; imm = mode, imm2 = categories
const Instr *commandBufferFinalize(Frame &, const Instr *); // [r cmd]
const Instr *commandBufferDevice(Frame &, const Instr *);   // [r cmd, r device]
const Instr *commandBufferBarrier(Frame &, const Instr *);  // [r cmd]
const Instr *commandBufferFill(Frame &, const Instr *);   // [r cmd, t target, s offset, s length, s pattern]; imm = pattern bytes
const Instr *commandBufferUpdate(Frame &, const Instr *); // [r cmd, r host src, s srcSize, s srcOffset, t target, s offset, s length]
const Instr *commandBufferCopy(Frame &, const Instr *);   // [r cmd, t src, s srcOffset, t dst, s dstOffset, s length]
/// [r cmd, r executable, s ordinal, s x, s y, s z, s constants...,
///  (t buffer, s offset, s length)...]; imm = constants, imm2 = bindings.
const Instr *commandBufferDispatch(Frame &, const Instr *);
const Instr *executableLookup(Frame &, const Instr *); // [r device, r result]; data ExecutableTable

// Allocators (an allocator register holds its device).
const Instr *allocatorAllocate(Frame &, const Instr *); // [r allocator, s affinity, s type, s usage, s size, r result]
const Instr *allocatorImport(Frame &, const Instr *);   // [r allocator, r host src, s offset, s length, s affinity, s type, s usage, s ok, r result]
/// [r devices..., s affinities..., s type, s usage, r device, s affinity];
/// imm = candidates.
const Instr *allocatorSelect(Frame &, const Instr *);

// Buffer views.
const Instr *bufferViewCreate(Frame &, const Instr *); // [r buffer, s offset, s length, s dims..., s type, s encoding, r result]; imm = rank
const Instr *bufferViewBuffer(Frame &, const Instr *); // [r view, r buffer]
const Instr *bufferLength(Frame &, const Instr *); // [r buffer, index]
// [r buffer, offset, value]; imm = bytes, imm2 = 1 for i1.
const Instr *bufferLoad(Frame &, const Instr *);
// [value, r buffer, offset]; imm = bytes.
const Instr *bufferStore(Frame &, const Instr *);
const Instr *bufferViewRank(Frame &, const Instr *);   // [r view, s rank]
const Instr *bufferViewDim(Frame &, const Instr *);    // [r view, s dim]; imm = index
const Instr *bufferViewAssert(Frame &, const Instr *); // [r view, s dims..., s type, s encoding]; imm = rank; data std::string message
} // namespace handlers

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_SRC_HOST_HALHANDLERS_H
