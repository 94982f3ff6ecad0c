//===- CompilerFlags.cpp - IREE's compiler flags of the tools -------------===//
//
// One flag per IREE flag the lit tests of IREE's counterparts of Fleet's
// passes use (or that fleet-compile already took) and that maps onto
// behaviour Fleet has; docs/contributing.md "IREE flags" lists them, with
// the IREE flags Fleet has no behaviour for.
//
//===----------------------------------------------------------------------===//

#include "fleet/Tools/CompilerFlags.h"

#include "fleet/Codegen/Passes.h"
#include "fleet/Dialect/Flow/Transforms/Passes.h"
#include "fleet/Dialect/HAL/Transforms/Passes.h"
#include "fleet/InputConversion/Passes.h"
#include "llvm/Support/ManagedStatic.h"

namespace cl = llvm::cl;

llvm::cl::OptionCategory &fleet::getCompilerFlagsCategory() {
  static cl::OptionCategory category("Compiler flags (IREE's, without iree-)");
  return category;
}

namespace {
struct CompilerFlags {
  // IREE: --iree-hal-target-device.
  cl::list<std::string, std::vector<std::string>> targetDevices{
      "hal-target-device",
      cl::desc("Device to compile for: local | NAME=local | NAME=local[N] "
               "(repeatable; used when the input declares no device "
               "globals and --hal-assign-target-devices gets no "
               "targetDevices)"),
      cl::location(fleet::hal::getFlagDefaults().targetDevices),
      cl::cat(fleet::getCompilerFlagsCategory())};

  // IREE: --iree-stream-external-resources-mappable (StreamToHAL's
  // allocations) and --iree-hal-external-resources-mappable
  // (resolve-topology-queries). Fleet derives every allocation's bits in one
  // place, the topology-query passes, so both names set one switch.
  cl::opt<bool, /*ExternalStorage=*/true> externalResourcesMappable{
      "stream-external-resources-mappable",
      cl::desc("Allocates external resources as host-visible and mappable "
               "(HostVisible memory, Mapping usage); alias "
               "--hal-external-resources-mappable"),
      cl::location(fleet::hal::getFlagDefaults().externalResourcesMappable),
      cl::init(false), cl::cat(fleet::getCompilerFlagsCategory())};
  cl::alias externalResourcesMappableHAL{
      "hal-external-resources-mappable",
      cl::desc("Alias for --stream-external-resources-mappable"),
      cl::aliasopt(externalResourcesMappable),
      cl::cat(fleet::getCompilerFlagsCategory())};

  // IREE: --iree-execution-model (Fleet has async-internal and
  // async-external).
  cl::opt<std::string, /*ExternalStorage=*/true> executionModel{
      "execution-model",
      cl::desc("async-internal (default) or async-external (exports take a "
               "wait and a signal fence)"),
      cl::location(fleet::input::getFlagDefaults().executionModel),
      cl::init("async-internal"), cl::cat(fleet::getCompilerFlagsCategory())};

  // IREE: --iree-llvmcpu-target-cpu.
  cl::opt<std::string, /*ExternalStorage=*/true> targetCPU{
      "llvmcpu-target-cpu",
      cl::desc("CPU of the kernels: host (default) or an LLVM CPU name such "
               "as x86-64-v3 for portable artifacts"),
      cl::location(fleet::codegen::getFlagDefaults().targetCPU),
      cl::init("host"), cl::cat(fleet::getCompilerFlagsCategory())};

  // Fleet's (IREE reads cache sizes from its target CPU's tables).
  cl::opt<std::string, /*ExternalStorage=*/true> cacheSizes{
      "llvmcpu-cache-sizes",
      cl::desc("Per-core L1 data and L2 cache sizes of the kernels' CPU, "
               "L1,L2 in bytes (32K,1M also works); default: this "
               "machine's, read from the OS. Workgroup tiles are sized "
               "from them"),
      cl::location(fleet::codegen::getFlagDefaults().cacheSizes),
      cl::init(""), cl::cat(fleet::getCompilerFlagsCategory())};

  // IREE: --iree-opt-data-tiling.
  cl::opt<bool, /*ExternalStorage=*/true> dataTiling{
      "opt-data-tiling",
      cl::desc("Packs the operands of large f32 matmuls into tiles "
               "(flow-data-tiling; constant weights at compile time)"),
      cl::location(fleet::flow::getFlagDefaults().dataTiling), cl::init(true),
      cl::cat(fleet::getCompilerFlagsCategory())};

  // Fleet's (IREE has no automatic placement): docs/partitioning.md.
  cl::opt<std::string, /*ExternalStorage=*/true> partition{
      "partition",
      cl::desc("none (default) or pipeline: cut each entry function into "
               "contiguous stages over the devices from the cost model "
               "(flow-partition-pipeline)"),
      cl::location(fleet::flow::getFlagDefaults().partition),
      cl::init("none"), cl::cat(fleet::getCompilerFlagsCategory())};
  cl::opt<int64_t, /*ExternalStorage=*/true> microBatches{
      "micro-batches",
      cl::desc("Computes the leading (batch) dimension of input 0 as K "
               "micro-batches that pipeline through the stages "
               "(flow-split-micro-batches)"),
      cl::location(fleet::flow::getFlagDefaults().microBatches), cl::init(1),
      cl::cat(fleet::getCompilerFlagsCategory())};
  cl::opt<bool, /*ExternalStorage=*/true> explainPlacement{
      "explain-placement",
      cl::desc("Prints each stage's ops, estimated (and measured) cost, "
               "bytes crossing devices and why each cut sits where it does"),
      cl::location(fleet::flow::getFlagDefaults().explainPlacement),
      cl::init(false), cl::cat(fleet::getCompilerFlagsCategory())};
  cl::opt<std::string, /*ExternalStorage=*/true> profile{
      "profile",
      cl::desc("Dispatch times measured by fleet-run --profile_out, used by "
               "--partition in place of the estimates"),
      cl::location(fleet::flow::getFlagDefaults().profile), cl::init(""),
      cl::cat(fleet::getCompilerFlagsCategory())};
  cl::opt<std::string, /*ExternalStorage=*/true> costModel{
      "cost-model",
      cl::desc("JSON file of cost-model constants "
               "(bench/calibrate_cost_model.py writes one)"),
      cl::location(fleet::flow::getFlagDefaults().costModel), cl::init(""),
      cl::cat(fleet::getCompilerFlagsCategory())};
};
} // namespace

static llvm::ManagedStatic<CompilerFlags> compilerFlags;

void fleet::registerCompilerFlags() { *compilerFlags; }
