//===- HALCommandBufferOps.cpp - fences and command buffers ---------------===//
//
// Verifiers and interfaces of the ops in HALCommandBufferOps.td
// (docs/ir-reference.md, "Fences" and "Command buffers").
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALOps.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

LogicalResult CommandBufferDispatchOp::verify() {
  // Each binding is one buffer (or slot) with one offset and one length
  // (docs/ir-reference.md, command_buffer.dispatch).
  size_t buffers = getBindingBuffers().size();
  size_t offsets = getBindingOffsets().size();
  size_t lengths = getBindingLengths().size();
  if (buffers != offsets || buffers != lengths)
    return emitOpError("binding buffer, offset and length counts must be "
                       "equal; got ")
           << buffers << " buffers, " << offsets << " offsets and " << lengths
           << " lengths";
  return success();
}

// The host source buffer carries its byte size (`!util.buffer{%size}`).
Value CommandBufferUpdateBufferOp::getOperandSize(unsigned idx) {
  return idx == getSourceBufferMutable().getOperandNumber() ? getSourceSize()
                                                            : Value();
}

Value CommandBufferUpdateBufferOp::getResultSize(unsigned) { return {}; }

//===----------------------------------------------------------------------===//
// Result names (IREE's, docs/ir-reference.md "Result names")
//===----------------------------------------------------------------------===//

void FenceCreateOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "fence");
}

void FenceJoinOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "fence");
}

void FenceAwaitOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getStatus(), "status");
}

void CommandBufferCreateOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "cmd");
}

void CommandBufferDeviceOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "device");
}
