//===- Passes.h - conversions between phases --------------------*- C++ -*-===//
#ifndef FLEET_CONVERSION_PASSES_H
#define FLEET_CONVERSION_PASSES_H

#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "fleet/Dialect/Stream/IR/StreamDialect.h"
#include "fleet/Dialect/Util/IR/UtilDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fleet {

#define GEN_PASS_DECL
#include "fleet/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/Conversion/Passes.h.inc"

} // namespace fleet

#endif // FLEET_CONVERSION_PASSES_H
