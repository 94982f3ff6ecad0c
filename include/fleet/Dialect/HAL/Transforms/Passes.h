//===- Passes.h - hal passes ------------------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_HAL_TRANSFORMS_PASSES_H
#define FLEET_DIALECT_HAL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <string>
#include <vector>

namespace mlir::arith {
class ArithDialect;
}
namespace fleet::util {
class UtilDialect;
}
namespace fleet::hal {
class HALDialect;

/// What the hal pass options default to: the values of the global flags
/// `--hal-target-device` and `--stream-external-resources-mappable` (alias
/// `--hal-external-resources-mappable`), which fleet/Tools/CompilerFlags.h
/// registers in fleet-opt and fleet-compile (docs/contributing.md
/// "IREE flags"). An option given to the pass explicitly wins.
struct FlagDefaults {
  /// Device specs `--hal-assign-target-devices` uses when its
  /// `targetDevices` option is empty.
  std::vector<std::string> targetDevices;
  /// Default of `external-resources-mappable` of
  /// `--hal-resolve-topology-queries` and `--hal-lower-topology-queries`.
  bool externalResourcesMappable = false;
};
FlagDefaults &getFlagDefaults();

#define GEN_PASS_DECL
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"

} // namespace fleet::hal

#endif // FLEET_DIALECT_HAL_TRANSFORMS_PASSES_H
