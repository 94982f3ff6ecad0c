//===- Passes.h - input conversion passes -----------------------*- C++ -*-===//
#ifndef FLEET_INPUTCONVERSION_PASSES_H
#define FLEET_INPUTCONVERSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace fleet::util {
class UtilDialect;
}
namespace fleet::hal {
class HALDialect;
}

namespace fleet::input {

/// What the input pass options default to: the value of the global flag
/// `--execution-model`, which fleet/Tools/CompilerFlags.h registers in
/// fleet-opt and fleet-compile (docs/contributing.md "IREE flags"). An
/// option given to the pass explicitly wins.
struct FlagDefaults {
  /// `async-internal` or `async-external`: what `--abi-wrap-entry-points`
  /// uses when neither `invocation-model` nor `executionModel` is given
  /// (async-external = coarse-fences).
  std::string executionModel = "async-internal";
};
FlagDefaults &getFlagDefaults();

#define GEN_PASS_DECL
#include "fleet/InputConversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/InputConversion/Passes.h.inc"

} // namespace fleet::input

#endif // FLEET_INPUTCONVERSION_PASSES_H
