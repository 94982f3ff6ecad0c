//===- Pipelines.h - fleet-compile's pass pipelines -------------*- C++ -*-===//
//
// The named pipelines of docs/design.md §1, assembled from the passes of each
// phase. fleet-compile runs them in order and may stop after any phase
// (--compile-to=input|stream|hal).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_PIPELINES_PIPELINES_H
#define FLEET_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace fleet {

/// Where fleet-compile stops. `End` writes the artifact.
enum class CompilePhase { Input, Stream, HAL, End };

struct CompileOptions {
  /// `--hal-target-device` specs (local | NAME=local | NAME=local[N]).
  std::vector<std::string> targetDevices;
  /// `--execution-model=async-external`: exports take coarse fences.
  bool asyncExternal = false;
  /// `--stream-external-resources-mappable` (alias
  /// `--hal-external-resources-mappable`): external resources get mapping
  /// bits.
  bool externalResourcesMappable = false;
  /// `--llvmcpu-target-cpu`: "host" or an LLVM CPU name (e.g. x86-64-v3).
  std::string targetCPU = "host";
  /// `--llvmcpu-cache-sizes`: "L1,L2" bytes; empty: the host's.
  std::string cacheSizes;
  /// `--opt-data-tiling`: flow-data-tiling packs large matmuls.
  bool dataTiling = true;
  /// `--partition`, `--micro-batches`, `--explain-placement`, `--profile`,
  /// `--cost-model` (docs/partitioning.md).
  std::string partition = "none";
  int64_t microBatches = 1;
  bool explainPlacement = false;
  std::string profile;
  std::string costModel;

  /// The options the global compiler flags set (fleet/Tools/CompilerFlags.h;
  /// their defaults when the flags are not registered or not given).
  static CompileOptions fromFlags();
};

/// Input phase: func→util, device globals, ABI wrapping, call-graph
/// annotations, topology, dispatch formation.
void buildInputPipeline(mlir::OpPassManager &pm, const CompileOptions &options);

/// Stream phase (`stream-transformation-pipeline`): tensors to resources,
/// lifetimes, copy elision, transfer placement, execution and allocation
/// scheduling; ends in cmd-level IR (docs/pipeline.md §2).
void buildStreamPipeline(mlir::OpPassManager &pm, const CompileOptions &options);

/// HAL phase (docs/pipeline.md §3): StreamToHAL, then memory properties —
/// folded where the static topology proves them, lowered to run-time link
/// queries elsewhere — and device queries and selections memoized into
/// initializers.
void buildHALPipeline(mlir::OpPassManager &pm, const CompileOptions &options);

/// Kernels (docs/pipeline.md §4): every executable variant compiled to object
/// code for `options.targetCPU`; what remains is the artifact's content.
void buildKernelPipeline(mlir::OpPassManager &pm,
                         const CompileOptions &options);

/// Registers the named pipelines with the global registry (for fleet-opt).
void registerPipelines();

} // namespace fleet

#endif // FLEET_PIPELINES_PIPELINES_H
