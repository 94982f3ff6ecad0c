//===- ResolveDevicePromises.cpp - promises become affinities -------------===//
//
// Invariant established: no #hal.device.promise remains; every device an
// affinity names is a declared `!hal.device` global.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"
#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-resolve-device-promises"

namespace fleet::hal {
#define GEN_PASS_DEF_RESOLVEDEVICEPROMISESPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

struct ResolveDevicePromisesPass
    : public fleet::hal::impl::ResolveDevicePromisesPassBase<
          ResolveDevicePromisesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DeviceSet devices(module);
    bool failedAny = false;
    // An undeclared device is reported once per source location, however
    // many attributes or ops there name it (an entry point and its ABI
    // wrapper carry the same result affinity).
    llvm::DenseSet<std::pair<Location, StringRef>> reported;
    auto check = [&](Operation *op, Attribute attr) {
      // Undeclared devices named by promises or affinities are errors.
      attr.walk([&](Attribute nested) {
        StringRef name;
        if (auto promise = dyn_cast<DevicePromiseAttr>(nested))
          name = promise.getDevice().getValue();
        else if (auto affinity = dyn_cast<DeviceAffinityAttr>(nested))
          name = affinity.getDevice().getRootReference().getValue();
        else
          return;
        if (!devices.lookup(name)) {
          failedAny = true;
          if (!reported.insert({op->getLoc(), name}).second)
            return;
          op->emitError() << "names device @" << name
                          << ", which is not declared (declare a !hal.device "
                             "global or pass --hal-target-device="
                          << name << "=local)";
        }
      });
    };
    module.walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs())
        check(op, attr.getValue());
    });
    if (failedAny)
      return signalPassFailure();

    AttrTypeReplacer replacer;
    replacer.addReplacement([&](DevicePromiseAttr promise) -> Attribute {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << promise
                              << " -> affinity of @"
                              << promise.getDevice().getValue() << "\n");
      return DeviceAffinityAttr::get(
          promise.getContext(),
          FlatSymbolRefAttr::get(promise.getContext(),
                                 promise.getDevice().getValue()),
          promise.getQueueMask());
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/false);
  }
};

} // namespace
