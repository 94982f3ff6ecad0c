//===- DeviceSet.cpp - the devices a module declares ----------------------===//

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

DeviceSet::DeviceSet(ModuleOp module) {
  for (auto global : module.getOps<util::GlobalOp>()) {
    if (!isa<DeviceType>(global.getType()))
      continue;
    DeviceInfo info;
    info.global = global;
    info.name = global.getSymName();
    info.target =
        dyn_cast_or_null<DeviceTargetAttr>(global.getInitialValueAttr());
    info.index = devices.size();
    byName[global.getSymName()] = info.index;
    devices.push_back(info);
  }
}

const DeviceInfo *DeviceSet::lookup(StringRef name) const {
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : &devices[it->second];
}

unsigned DeviceSet::getIndex(StringRef name) const {
  auto it = byName.find(name);
  return it == byName.end() ? UINT_MAX : it->second;
}

bool DeviceSet::isSameDevice(StringRef a, StringRef b) const {
  if (a == b)
    return true;
  const DeviceInfo *x = lookup(a);
  const DeviceInfo *y = lookup(b);
  if (!x || !y || !x->target || !y->target)
    return false;
  return x->target.getDeviceID() == y->target.getDeviceID() &&
         x->target.getOrdinal() == y->target.getOrdinal();
}
