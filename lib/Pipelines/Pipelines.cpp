//===- Pipelines.cpp - fleet-compile's pass pipelines ---------------------===//

#include "fleet/Pipelines/Pipelines.h"

#include "fleet/Codegen/CPUTarget.h"
#include "fleet/Codegen/KernelConfig.h"
#include "fleet/Codegen/Passes.h"
#include "fleet/Conversion/Passes.h"
#include "fleet/Dialect/Flow/Transforms/Passes.h"
#include "fleet/Dialect/HAL/Transforms/Passes.h"
#include "fleet/Dialect/Stream/Transforms/Passes.h"
#include "fleet/Dialect/Util/Transforms/Passes.h"
#include "fleet/InputConversion/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace fleet {

CompileOptions CompileOptions::fromFlags() {
  CompileOptions options;
  const hal::FlagDefaults &hal = hal::getFlagDefaults();
  options.targetDevices = hal.targetDevices;
  options.externalResourcesMappable = hal.externalResourcesMappable;
  options.targetCPU = codegen::getFlagDefaults().targetCPU;
  options.cacheSizes = codegen::getFlagDefaults().cacheSizes;
  options.dataTiling = flow::getFlagDefaults().dataTiling;
  options.partition = flow::getFlagDefaults().partition;
  options.microBatches = flow::getFlagDefaults().microBatches;
  options.explainPlacement = flow::getFlagDefaults().explainPlacement;
  options.profile = flow::getFlagDefaults().profile;
  options.costModel = flow::getFlagDefaults().costModel;
  options.asyncExternal =
      input::getFlagDefaults().executionModel == "async-external";
  return options;
}

void buildInputPipeline(OpPassManager &pm, const CompileOptions &options) {
  pm.addPass(input::createConvertToUtilPass());
  hal::AssignTargetDevicesPassOptions deviceOptions;
  deviceOptions.targetDevices.assign(options.targetDevices.begin(),
                                    options.targetDevices.end());
  pm.addPass(hal::createAssignTargetDevicesPass(deviceOptions));
  input::WrapEntryPointsPassOptions wrapOptions;
  wrapOptions.invocationModel = options.asyncExternal ? "coarse-fences" : "sync";
  pm.addPass(input::createWrapEntryPointsPass(wrapOptions));
  pm.addPass(util::createAttributeCallGraphPass());
  pm.addPass(createInlinerPass());
  pm.addPass(hal::createResolveDevicePromisesPass());
  pm.addPass(hal::createMaterializeTopologyPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(flow::createConvertConv2DToImg2ColPass());
  // Automatic placement (docs/partitioning.md): micro-batches first, so the
  // cut applies to each; after data tiling, so the cost model sees the
  // kernels that will run.
  if (options.microBatches != 1) {
    flow::SplitMicroBatchesPassOptions splitOptions;
    splitOptions.count = options.microBatches;
    pm.addPass(flow::createSplitMicroBatchesPass(splitOptions));
  }
  flow::DataTilingPassOptions dataTilingOptions;
  dataTilingOptions.enabled = options.dataTiling;
  // The packed tile is the kernels' register tile on the target CPU
  // (KernelConfig.h getMatmulRegisterTile, full size).
  std::string error;
  int64_t vectorBits =
      codegen::getVectorBits(options.targetCPU, /*features=*/"", error);
  if (vectorBits > 0) {
    codegen::RegisterTile tile =
        codegen::getMatmulRegisterTile(/*m=*/0, vectorBits, /*elementBits=*/32);
    dataTilingOptions.tileM = tile.rows;
    dataTilingOptions.tileN = tile.columns;
  }
  pm.addPass(flow::createDataTilingPass(dataTilingOptions));
  // Also for placement flags without --partition=pipeline, which the pass
  // rejects rather than ignoring.
  if (options.partition != "none" || options.microBatches > 1 ||
      options.explainPlacement || !options.profile.empty() ||
      !options.costModel.empty()) {
    flow::PartitionPipelinePassOptions partitionOptions;
    partitionOptions.mode = options.partition;
    partitionOptions.costModel = options.costModel;
    partitionOptions.profile = options.profile;
    partitionOptions.explain = options.explainPlacement;
    pm.addPass(flow::createPartitionPipelinePass(partitionOptions));
  }
  pm.addPass(flow::createFormDispatchesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildStreamPipeline(OpPassManager &pm, const CompileOptions &options) {
  pm.addPass(createConvertToStreamPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(stream::createRefineUsagePass());
  pm.addPass(stream::createElideAsyncCopiesPass());
  pm.addPass(stream::createPlaceTransferExecutionsPass());
  pm.addPass(stream::createScheduleExecutionPass());
  pm.addPass(stream::createScheduleConcurrencyPass());
  pm.addPass(stream::createPropagateTimepointsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(stream::createScheduleAllocationPass());
  pm.addPass(stream::createElideTimepointsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildHALPipeline(OpPassManager &pm, const CompileOptions &options) {
  // Each local device's kernel target (CPU, vector width, cache sizes);
  // StreamToHAL makes one executable variant per target in use.
  codegen::ResolveExecutableTargetsPassOptions targetOptions;
  targetOptions.targetCPU = options.targetCPU;
  targetOptions.cacheSizes = options.cacheSizes;
  pm.addPass(codegen::createResolveExecutableTargetsPass(targetOptions));
  pm.addPass(createConvertStreamToHALPass());
  // Tile sizes decide each variant's workgroup grid; the host program reads
  // it once chosen (the dispatches name their variant's grid).
  codegen::ConfigureWorkgroupsPassOptions configureOptions;
  configureOptions.targetCPU = options.targetCPU;
  configureOptions.cacheSizes = options.cacheSizes;
  pm.addPass(codegen::createConfigureWorkgroupsPass(configureOptions));
  pm.addPass(hal::createMaterializeWorkgroupCountsPass());
  hal::ResolveTopologyQueriesPassOptions resolveOptions;
  resolveOptions.externalResourcesMappable = options.externalResourcesMappable;
  pm.addPass(hal::createResolveTopologyQueriesPass(resolveOptions));
  hal::LowerTopologyQueriesPassOptions lowerOptions;
  lowerOptions.externalResourcesMappable = options.externalResourcesMappable;
  pm.addPass(hal::createLowerTopologyQueriesPass(lowerOptions));
  // CSE merges the identical queries and constants the memoization passes
  // would otherwise hoist one by one (linear; a full canonicalization here
  // grew faster than linearly with the program size, measured by P3). One
  // run is enough: CSE merges operands before it visits their users.
  pm.addPass(createCSEPass());
  pm.addPass(hal::createMemoizeDeviceQueriesPass());
  pm.addPass(hal::createMemoizeDeviceSelectionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildKernelPipeline(OpPassManager &pm, const CompileOptions &options) {
  codegen::SerializeExecutablesPassOptions serializeOptions;
  serializeOptions.targetCPU = options.targetCPU;
  pm.addPass(codegen::createSerializeExecutablesPass(serializeOptions));
  // One shared object per target for the runtime's dlopen loader.
  codegen::LinkExecutablesPassOptions linkOptions;
  linkOptions.targetCPU = options.targetCPU;
  pm.addPass(codegen::createLinkExecutablesPass(linkOptions));
}

void registerPipelines() {
  PassPipelineRegistration<>(
      "stream-transformation-pipeline",
      "Fleet's stream phase: tensors to cmd-level stream IR (docs/pipeline.md)",
      [](OpPassManager &pm) { buildStreamPipeline(pm, CompileOptions::fromFlags()); });
  PassPipelineRegistration<>(
      "fleet-input-pipeline", "Fleet's input phase (docs/design.md §1)",
      [](OpPassManager &pm) { buildInputPipeline(pm, CompileOptions::fromFlags()); });
  PassPipelineRegistration<>(
      "fleet-hal-pipeline", "Fleet's HAL phase (docs/pipeline.md §3)",
      [](OpPassManager &pm) { buildHALPipeline(pm, CompileOptions::fromFlags()); });
}

} // namespace fleet
