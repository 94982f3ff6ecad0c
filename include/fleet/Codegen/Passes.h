//===- Passes.h - kernel codegen passes -------------------------*- C++ -*-===//
#ifndef FLEET_CODEGEN_PASSES_H
#define FLEET_CODEGEN_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace fleet::codegen {

/// What the codegen pass options default to: the values of the global flags
/// `--llvmcpu-target-cpu` and `--llvmcpu-cache-sizes`, which fleet/Tools/CompilerFlags.h registers in
/// fleet-opt and fleet-compile (docs/contributing.md "IREE flags"). An
/// option given to the pass explicitly wins.
struct FlagDefaults {
  /// Default of `target-cpu` of `--hal-serialize-executables`.
  std::string targetCPU = "host";
  /// `--llvmcpu-cache-sizes=L1,L2` (bytes); empty: the host's
  /// (fleet/Codegen/CPUTarget.h).
  std::string cacheSizes;
};
FlagDefaults &getFlagDefaults();

#define GEN_PASS_DECL
#include "fleet/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/Codegen/Passes.h.inc"

} // namespace fleet::codegen

#endif // FLEET_CODEGEN_PASSES_H
