//===- Passes.h - hal passes ------------------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_HAL_TRANSFORMS_PASSES_H
#define FLEET_DIALECT_HAL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::arith {
class ArithDialect;
}
namespace fleet::util {
class UtilDialect;
}
namespace fleet::hal {
class HALDialect;

#define GEN_PASS_DECL
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"

} // namespace fleet::hal

#endif // FLEET_DIALECT_HAL_TRANSFORMS_PASSES_H
