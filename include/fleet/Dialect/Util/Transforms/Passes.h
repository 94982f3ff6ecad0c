//===- Passes.h - util passes -----------------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_UTIL_TRANSFORMS_PASSES_H
#define FLEET_DIALECT_UTIL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fleet::util {

#define GEN_PASS_DECL
#include "fleet/Dialect/Util/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/Dialect/Util/Transforms/Passes.h.inc"

} // namespace fleet::util

#endif // FLEET_DIALECT_UTIL_TRANSFORMS_PASSES_H
