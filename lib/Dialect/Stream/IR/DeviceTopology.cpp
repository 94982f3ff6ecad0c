//===- DeviceTopology.cpp - device questions routed to affinity dialects ---===//

#include "fleet/Dialect/Stream/IR/DeviceTopology.h"

#include "fleet/Dialect/Stream/IR/StreamDialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

DeviceTopologyModel::~DeviceTopologyModel() = default;

DeviceTopologyModel *DeviceTopology::getModel(Attribute affinity) {
  if (!affinity)
    return nullptr;
  Dialect *dialect = &affinity.getDialect();
  auto it = models.find(dialect);
  if (it != models.end())
    return it->second.get();
  std::unique_ptr<DeviceTopologyModel> model;
  if (auto *iface = dyn_cast<DeviceTopologyDialectInterface>(dialect))
    model = iface->buildModel(module);
  return models.try_emplace(dialect, std::move(model)).first->second.get();
}

static StringRef getDeviceName(Attribute affinity) {
  if (auto iface = dyn_cast_or_null<AffinityAttrInterface>(affinity))
    return iface.getDeviceName();
  return {};
}

bool DeviceTopology::isSameDevice(Attribute a, Attribute b) {
  if (a == b)
    return true;
  if (getDeviceName(a).empty() || getDeviceName(b).empty() ||
      &a.getDialect() != &b.getDialect())
    return false;
  DeviceTopologyModel *model = getModel(a);
  return model && model->isSameDevice(a, b);
}

bool DeviceTopology::hasDirectAccess(Attribute consumer, Attribute producer) {
  if (getDeviceName(consumer).empty() || getDeviceName(producer).empty())
    return false;
  if (isSameDevice(consumer, producer))
    return true;
  if (&consumer.getDialect() != &producer.getDialect())
    return false;
  DeviceTopologyModel *model = getModel(consumer);
  return model && model->hasDirectAccess(consumer, producer);
}

Attribute DeviceTopology::getJoinedAffinity(ArrayRef<Attribute> affinities) {
  SmallVector<Attribute> distinct;
  for (Attribute affinity : affinities)
    if (affinity && llvm::none_of(distinct, [&](Attribute other) {
          return isSameDevice(other, affinity);
        }))
      distinct.push_back(affinity);
  if (distinct.size() <= 1)
    return distinct.empty() ? Attribute() : distinct.front();
  Dialect *dialect = &distinct.front().getDialect();
  if (llvm::any_of(distinct,
                   [&](Attribute a) { return &a.getDialect() != dialect; }))
    return {};
  DeviceTopologyModel *model = getModel(distinct.front());
  return model ? model->getSetAffinity(distinct) : Attribute();
}

Attribute DeviceTopology::getPlacementDevice(Attribute affinity) {
  if (!affinity || !getDeviceName(affinity).empty())
    return affinity;
  DeviceTopologyModel *model = getModel(affinity);
  Attribute device = model ? model->getPromisedDevice(affinity) : Attribute();
  return getDeviceName(device).empty() ? Attribute() : device;
}

Attribute fleet::stream::getDefaultAffinity(Operation *op) {
  for (Operation *it = op; it; it = it->getParentOp()) {
    if (Attribute affinity = it->getAttr("stream.affinity"))
      return affinity;
    if (auto module = dyn_cast<ModuleOp>(it))
      if (Attribute affinity = module->getAttr("stream.affinity.default"))
        return affinity;
  }
  return {};
}

//===----------------------------------------------------------------------===//
// #stream.test.affinity
//===----------------------------------------------------------------------===//

LogicalResult
TestAffinityAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<StringAttr> devices) {
  if (devices.empty())
    return emitError() << "#stream.test.affinity names at least one device";
  return success();
}

StringRef TestAffinityAttr::getDeviceName() const {
  return getDevices().size() == 1 ? getDevices().front().getValue()
                                  : StringRef();
}

bool TestAffinityAttr::isExecutableWith(Attribute other) const {
  return !other || other == *this;
}

namespace {

/// Test devices: one per distinct name, no links between them; sets list
/// their devices in name order.
class TestDeviceTopologyModel : public DeviceTopologyModel {
public:
  bool isSameDevice(Attribute a, Attribute b) const override { return a == b; }
  bool hasDirectAccess(Attribute, Attribute) const override { return false; }
  Attribute getSetAffinity(ArrayRef<Attribute> devices) const override {
    SmallVector<StringAttr> names;
    for (Attribute device : devices)
      names.push_back(cast<TestAffinityAttr>(device).getDevices().front());
    llvm::sort(names, [](StringAttr a, StringAttr b) {
      return a.getValue() < b.getValue();
    });
    return TestAffinityAttr::get(devices.front().getContext(), names);
  }
};

class TestDeviceTopologyInterface : public DeviceTopologyDialectInterface {
public:
  using DeviceTopologyDialectInterface::DeviceTopologyDialectInterface;
  std::unique_ptr<DeviceTopologyModel> buildModel(ModuleOp) const override {
    return std::make_unique<TestDeviceTopologyModel>();
  }
};

} // namespace

void fleet::stream::registerTestDeviceTopology(Dialect *streamDialect) {
  streamDialect->addInterfaces<TestDeviceTopologyInterface>();
}
