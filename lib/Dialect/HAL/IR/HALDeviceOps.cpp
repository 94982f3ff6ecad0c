//===- HALDeviceOps.cpp - devices and queue ops ---------------------------===//
//
// Verifiers and interfaces of the ops in HALDeviceOps.td (docs/ir-reference.md,
// "Devices" and "Queue ops").
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

/// The optional `= default` of a query is a typed attribute of exactly the
/// value's type (docs/ir-reference.md, device.query).
static LogicalResult verifyQueryDefault(Operation *op, TypedAttr defaultValue,
                                        Type valueType) {
  if (!defaultValue || defaultValue.getType() == valueType)
    return success();
  return op->emitOpError("default value type ")
         << defaultValue.getType() << " must equal the value type "
         << valueType;
}

LogicalResult DeviceQueryOp::verify() {
  return verifyQueryDefault(*this, getDefaultValueAttr(),
                            getValue().getType());
}

LogicalResult DeviceQueryLinkOp::verify() {
  if (!isKnownKey(getKey()))
    return emitOpError("unknown link key '")
           << getKey()
           << "' (expected unified_memory, transparent_access or "
              "export_import)";
  return verifyQueryDefault(*this, getDefaultValueAttr(),
                            getValue().getType());
}

//===----------------------------------------------------------------------===//
// Queue ops
//===----------------------------------------------------------------------===//

LogicalResult fleet::hal::verifyQueueFences(Operation *op, Value wait,
                                            Value signal) {
  if (wait != signal)
    return success();
  // util.null is "no fence": waiting on nothing and signalling nothing.
  if (isa_and_nonnull<util::NullOp>(wait.getDefiningOp()))
    return success();
  return op->emitOpError("wait and signal fences must be different values "
                         "(unless they come from util.null): the op would "
                         "wait for its own signal");
}

Value DeviceQueueAllocaOp::getOperandSize(unsigned) { return {}; }

Value DeviceQueueAllocaOp::getResultSize(unsigned) { return getResultSize(); }

//===----------------------------------------------------------------------===//
// Result names (IREE's, docs/ir-reference.md "Result names")
//===----------------------------------------------------------------------===//

void DeviceAllocatorOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "allocator");
}

void DevicesCountOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "device_count");
}

/// `%device_<i>` for a constant index, else `%device_n`.
void DevicesGetOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  APInt index;
  if (!matchPattern(getIndex(), m_ConstantInt(&index))) {
    setNameFn(getResult(), "device_n");
    return;
  }
  SmallString<16> name("device_");
  index.toStringUnsigned(name);
  setNameFn(getResult(), name);
}

void DeviceQueueAllocaOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "transient_buffer");
}
