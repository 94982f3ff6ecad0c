//===- HALDialect.h - hal dialect, types and attributes ---------*- C++ -*-===//
#ifndef FLEET_DIALECT_HAL_IR_HALDIALECT_H
#define FLEET_DIALECT_HAL_IR_HALDIALECT_H

#include "fleet/Dialect/Stream/IR/StreamDialect.h"
#include "fleet/Dialect/Util/IR/AsmDirectives.h"
#include "fleet/Dialect/Util/IR/UtilTypes.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "fleet/Dialect/HAL/IR/HALEnums.h.inc"

#include "fleet/Dialect/HAL/IR/HALDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fleet/Dialect/HAL/IR/HALTypes.h.inc"

namespace fleet::hal {
class ExecutableTargetAttr;
class DeviceLinkAttr;
class PipelineBindingAttr;
} // namespace fleet::hal

#define GET_ATTRDEF_CLASSES
#include "fleet/Dialect/HAL/IR/HALAttrs.h.inc"

#endif // FLEET_DIALECT_HAL_IR_HALDIALECT_H
