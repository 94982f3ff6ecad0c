//===- DeviceTopologyModel.cpp - HAL's answers to stream::DeviceTopology ---===//

#include "fleet/Dialect/HAL/Analysis/DeviceTopologyModel.h"

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"
#include "fleet/Dialect/Stream/IR/DeviceTopology.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

StringRef getDeviceName(Attribute affinity) {
  return cast<stream::AffinityAttrInterface>(affinity).getDeviceName();
}

class HALDeviceTopologyModel : public stream::DeviceTopologyModel {
public:
  explicit HALDeviceTopologyModel(ModuleOp module)
      : devices(module),
        topology(module->getAttrOfType<DeviceTopologyAttr>("stream.topology")) {
  }

  bool isSameDevice(Attribute a, Attribute b) const override {
    return devices.isSameDevice(getDeviceName(a), getDeviceName(b));
  }

  bool hasDirectAccess(Attribute consumer, Attribute producer) const override {
    StringRef x = getDeviceName(consumer), y = getDeviceName(producer);
    if (devices.isSameDevice(x, y))
      return true;
    if (!topology)
      return false;
    if (DeviceLinkAttr link = topology.lookup(x, y))
      if (link.getUnifiedMemory() || link.getTransparentAccess())
        return true;
    // unified_memory holds both ways even when written once.
    if (DeviceLinkAttr reverse = topology.lookup(y, x))
      return reverse.getUnifiedMemory();
    return false;
  }

  Attribute getSetAffinity(ArrayRef<Attribute> set) const override {
    SmallVector<Attribute> ordered(set);
    llvm::stable_sort(ordered, [&](Attribute a, Attribute b) {
      return devices.getIndex(getDeviceName(a)) <
             devices.getIndex(getDeviceName(b));
    });
    return DeviceOptimalAttr::get(set.front().getContext(), ordered);
  }

  // The promised device need not be declared yet: its affinity then names
  // it, and only an equal name is the same device (DeviceSet::isSameDevice).
  Attribute getPromisedDevice(Attribute promise) const override {
    auto attr = dyn_cast<DevicePromiseAttr>(promise);
    if (!attr)
      return {};
    return DeviceAffinityAttr::get(
        attr.getContext(),
        FlatSymbolRefAttr::get(attr.getContext(), attr.getDevice().getValue()),
        attr.getQueueMask());
  }

private:
  DeviceSet devices;
  DeviceTopologyAttr topology;
};

class HALDeviceTopologyInterface : public stream::DeviceTopologyDialectInterface {
public:
  using DeviceTopologyDialectInterface::DeviceTopologyDialectInterface;
  std::unique_ptr<stream::DeviceTopologyModel>
  buildModel(ModuleOp module) const override {
    return std::make_unique<HALDeviceTopologyModel>(module);
  }
};

} // namespace

void fleet::hal::registerDeviceTopologyModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, HALDialect *dialect) {
    dialect->addInterfaces<HALDeviceTopologyInterface>();
  });
}
