//===- MaterializeTopology.cpp - default topology from device targets -----===//
//
// Invariant established: a module with two or more devices and no
// `stream.topology` gets one derived from its device targets
// (docs/design.md §3): plain local devices are unified both ways; discrete
// devices and devices of different backends get no link, leaving the question
// to the runtime.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"
#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-materialize-topology"

namespace fleet::hal {
#define GEN_PASS_DEF_MATERIALIZETOPOLOGYPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

/// True when the target is a plain (non-discrete) local device.
bool isPlainLocal(DeviceTargetAttr target) {
  return target && target.getDeviceID().getValue() == "local" &&
         !target.isDiscrete();
}

struct MaterializeTopologyPass
    : public fleet::hal::impl::MaterializeTopologyPassBase<
          MaterializeTopologyPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module->hasAttr("stream.topology")) {
      LLVM_DEBUG(llvm::dbgs() << "module has a topology; left alone\n");
      return;
    }
    DeviceSet devices(module);
    if (devices.getDevices().size() < 2)
      return;
    MLIRContext *context = &getContext();
    SmallVector<DeviceLinkAttr> links;
    for (const DeviceInfo &x : devices.getDevices()) {
      for (const DeviceInfo &y : devices.getDevices()) {
        if (x.index == y.index)
          continue;
        if (!isPlainLocal(x.target) || !isPlainLocal(y.target)) {
          LLVM_DEBUG(llvm::dbgs() << "no link " << x.getName() << " -> "
                                  << y.getName() << ": not two plain local "
                                  << "devices\n");
          continue;
        }
        links.push_back(DeviceLinkAttr::get(
            context, FlatSymbolRefAttr::get(context, x.getName()),
            FlatSymbolRefAttr::get(context, y.getName()),
            /*unifiedMemory=*/true, /*transparentAccess=*/false,
            DictionaryAttr{}));
      }
    }
    module->setAttr("stream.topology",
                    DeviceTopologyAttr::get(context, links));
  }
};

} // namespace
