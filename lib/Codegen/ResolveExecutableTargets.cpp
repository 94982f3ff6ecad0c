//===- ResolveExecutableTargets.cpp - CPU targets of local devices --------===//
//
// Invariant established: every `!hal.device` global initialized with
// `#hal.device.target<"local", ...>` lists at least one executable target,
// and each of Fleet's CPU targets among them has `cpu`, `native_vector_size`
// and `cache_sizes` in its configuration (fleet/Codegen/CPUTarget.h), so
// `codegen-configure-workgroups` and serialization read one description per
// variant instead of global flags.
//
//===----------------------------------------------------------------------===//

#include "fleet/Codegen/Passes.h"

#include "fleet/Codegen/CPUTarget.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "codegen-resolve-executable-targets"

namespace fleet::codegen {
#define GEN_PASS_DEF_RESOLVEEXECUTABLETARGETSPASS
#include "fleet/Codegen/Passes.h.inc"
} // namespace fleet::codegen

using namespace mlir;
using namespace fleet;
using namespace fleet::codegen;

namespace {

struct ResolveExecutableTargetsPass
    : public fleet::codegen::impl::ResolveExecutableTargetsPassBase<
          ResolveExecutableTargetsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::array<int64_t, 2> sizes;
    std::string error;
    if (!parseCacheSizes(cacheSizes, sizes, error)) {
      getOperation().emitError() << "--llvmcpu-cache-sizes: " << error;
      return signalPassFailure();
    }
    CPUTarget defaults;
    defaults.cpu = targetCPU.empty() ? std::string("host") : targetCPU;
    defaults.l1Bytes = sizes[0];
    defaults.l2Bytes = sizes[1];

    for (auto global : getOperation().getOps<util::GlobalOp>()) {
      auto device =
          dyn_cast_or_null<hal::DeviceTargetAttr>(global.getInitialValueAttr());
      if (!device || device.getDeviceID().getValue() != "local")
        continue;
      SmallVector<hal::ExecutableTargetAttr> targets(
          device.getExecutableTargets());
      if (targets.empty())
        targets.push_back(hal::ExecutableTargetAttr());
      for (hal::ExecutableTargetAttr &target : targets) {
        if (target && !isCPUExecutableTarget(target))
          continue;
        CPUTarget resolved = getCPUTarget(target, defaults);
        // The vector width always follows the CPU and features named.
        DictionaryAttr config = target ? target.getConfiguration() : nullptr;
        if (!config || !config.get("native_vector_size")) {
          int64_t bits =
              getVectorBits(resolved.cpu, resolved.features, error);
          if (!bits) {
            bool declared = config && config.get("cpu");
            global.emitError() << "executable target of device @"
                               << global.getSymName() << ": " << error
                               << (declared ? " (declared on the device)"
                                            : " (from --llvmcpu-target-cpu)");
            return signalPassFailure();
          }
          resolved.vectorBits = bits;
        }
        target = buildCPUExecutableTarget(&getContext(), resolved, config);
        LLVM_DEBUG(llvm::dbgs() << "@" << global.getSymName() << ": cpu "
                                << resolved.cpu << ", " << resolved.vectorBits
                                << "-bit vectors, L1 " << resolved.l1Bytes
                                << ", L2 " << resolved.l2Bytes << "\n");
      }
      global.setInitialValueAttr(hal::DeviceTargetAttr::get(
          &getContext(), device.getType(), device.getDeviceID(),
          device.getConfiguration(), targets));
    }
  }
};

} // namespace
