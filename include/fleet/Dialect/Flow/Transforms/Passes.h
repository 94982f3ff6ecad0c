//===- Passes.h - flow (input phase) passes ---------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_H
#define FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_H

#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "fleet/Dialect/Stream/IR/StreamDialect.h"
#include "fleet/Dialect/Util/IR/UtilDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fleet::flow {

/// Defaults the global compiler flags set (fleet/Tools/CompilerFlags.h).
struct FlagDefaults {
  /// `--opt-data-tiling` (IREE: --iree-opt-data-tiling): flow-data-tiling.
  bool dataTiling = true;
  /// `--partition` (Fleet's): none | pipeline (flow-partition-pipeline).
  std::string partition = "none";
  /// `--micro-batches` (Fleet's): flow-split-micro-batches.
  int64_t microBatches = 1;
  /// `--explain-placement`, `--profile`, `--cost-model` (Fleet's).
  bool explainPlacement = false;
  std::string profile;
  std::string costModel;
};
FlagDefaults &getFlagDefaults();

#define GEN_PASS_DECL
#include "fleet/Dialect/Flow/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fleet/Dialect/Flow/Transforms/Passes.h.inc"

} // namespace fleet::flow

#endif // FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_H
