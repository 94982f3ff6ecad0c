//===- Passes.h - input conversion passes -----------------------*- C++ -*-===//
#ifndef FLEET_INPUTCONVERSION_PASSES_H
#define FLEET_INPUTCONVERSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fleet::util {
class UtilDialect;
}
namespace fleet::hal {
class HALDialect;
}

namespace fleet::input {

#define GEN_PASS_DECL
#include "fleet/InputConversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/InputConversion/Passes.h.inc"

} // namespace fleet::input

#endif // FLEET_INPUTCONVERSION_PASSES_H
