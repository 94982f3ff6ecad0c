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
  topology = module->getAttrOfType<DeviceTopologyAttr>("stream.topology");
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

//===----------------------------------------------------------------------===//
// Memory-property rules (docs/design.md §3)
//===----------------------------------------------------------------------===//

MemoryProperties
fleet::hal::getLifetimeBaseProperties(stream::Lifetime lifetime,
                                      const MemoryPropertyOptions &options) {
  MemoryProperties bits;
  // Every allocation may be copied and bound to dispatches.
  bits.bufferUsage = BufferUsage::Transfer | BufferUsage::DispatchStorage;
  switch (lifetime) {
  case stream::Lifetime::Constant:
    bits.memoryTypes = MemoryType::DeviceLocal;
    bits.bufferUsage = bits.bufferUsage | BufferUsage::SharingImmutable;
    break;
  case stream::Lifetime::Unknown:
  case stream::Lifetime::Transient:
  case stream::Lifetime::Variable:
    bits.memoryTypes = MemoryType::DeviceLocal;
    break;
  case stream::Lifetime::External:
    bits.memoryTypes = MemoryType::DeviceVisible | MemoryType::DeviceLocal;
    if (options.externalResourcesMappable) {
      bits.memoryTypes = bits.memoryTypes | MemoryType::HostVisible;
      bits.bufferUsage = bits.bufferUsage | BufferUsage::Mapping;
    }
    break;
  case stream::Lifetime::Staging:
    bits.memoryTypes = MemoryType::HostLocal | MemoryType::DeviceVisible;
    bits.bufferUsage =
        bits.bufferUsage | BufferUsage::Transfer | BufferUsage::Mapping;
    break;
  }
  return bits;
}

MemoryProperties fleet::hal::getPeerAccessProperties(PeerAccess access) {
  MemoryProperties bits;
  switch (access) {
  case PeerAccess::Unified:
  case PeerAccess::None:
    break;
  case PeerAccess::Transparent:
    // The peer loads/stores the owner's memory in place: it must be mappable
    // for the whole program.
    bits.memoryTypes = MemoryType::HostVisible;
    bits.bufferUsage = BufferUsage::Mapping | BufferUsage::MappingPersistent;
    break;
  case PeerAccess::ExportImport:
    bits.bufferUsage = BufferUsage::SharingExport;
    break;
  }
  return bits;
}

PeerAccess DeviceSet::getStaticPeerAccess(StringRef peer,
                                          StringRef owner) const {
  if (isSameDevice(peer, owner))
    return PeerAccess::Unified;
  if (!topology)
    return PeerAccess::None;
  DeviceLinkAttr forward = topology.lookup(peer, owner);
  DeviceLinkAttr backward = topology.lookup(owner, peer);
  // unified_memory holds in both directions even if written once.
  if ((forward && forward.getUnifiedMemory()) ||
      (backward && backward.getUnifiedMemory()))
    return PeerAccess::Unified;
  if (forward && forward.getTransparentAccess())
    return PeerAccess::Transparent;
  if (forward && forward.getExportImport())
    return PeerAccess::ExportImport;
  return PeerAccess::None;
}

FailureOr<SmallVector<AffinityMember>>
DeviceSet::getAffinityMembers(Attribute affinity, const DeviceSet *order) {
  SmallVector<AffinityMember> members;
  auto addMember = [&](Attribute attr) -> LogicalResult {
    auto single = dyn_cast_or_null<DeviceAffinityAttr>(attr);
    if (!single)
      return failure();
    members.push_back(
        {single.getDevice().getRootReference().getValue(),
         single.getQueueMask()});
    return success();
  };
  if (auto optimal = dyn_cast_or_null<DeviceOptimalAttr>(affinity)) {
    for (Attribute member : optimal.getAffinities())
      if (failed(addMember(member)))
        return failure();
    if (members.empty())
      return failure();
  } else if (failed(addMember(affinity))) {
    return failure();
  }
  if (order) {
    // List order is canonical: declaration order (docs/design.md §3).
    llvm::stable_sort(members, [&](const AffinityMember &a,
                                   const AffinityMember &b) {
      return order->getIndex(a.device) < order->getIndex(b.device);
    });
  }
  return members;
}

bool DeviceSet::areAllSameDevice(ArrayRef<AffinityMember> members) const {
  return llvm::all_of(members, [&](const AffinityMember &member) {
    return isSameDevice(members.front().device, member.device);
  });
}

std::optional<AllocationResolution>
DeviceSet::resolveAllocation(ArrayRef<AffinityMember> members,
                             stream::Lifetime lifetime,
                             const MemoryPropertyOptions &options) const {
  if (members.empty())
    return std::nullopt;
  AllocationResolution resolution;
  resolution.properties = getLifetimeBaseProperties(lifetime, options);
  if (members.size() == 1 || areAllSameDevice(members))
    return resolution;
  // X must be the first member (see the header): prove every other member
  // reaches it, collecting the bits each one adds.
  StringRef owner = members.front().device;
  for (const AffinityMember &peer : members.drop_front()) {
    PeerAccess access = getStaticPeerAccess(peer.device, owner);
    if (access == PeerAccess::None)
      return std::nullopt;
    resolution.properties |= getPeerAccessProperties(access);
  }
  return resolution;
}
