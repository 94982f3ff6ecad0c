//===- DeviceSet.h - the devices a module declares --------------*- C++ -*-===//
//
// The `!hal.device` globals of a module in declaration order, with their
// targets, and the device identity rule of docs/design.md §3: two globals are
// the same device only when their targets have the same backend and the same
// ordinal (a missing ordinal means 0). Declaration order is the canonical
// order of devices (e.g. inside #hal.device.optimal).
//
// It also holds the static topology rules of docs/design.md §3
// (`stream.topology` links, the lifetime base bits, the allocating-device rule
// and the bits each peer adds), so every pass that reasons about memory
// properties — the static fold and the run-time lowering alike — applies one
// definition.
//
// Built once per module (cheap: one walk over top-level ops); read-only after
// construction, so it may be shared by threads.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_HAL_ANALYSIS_DEVICESET_H
#define FLEET_DIALECT_HAL_ANALYSIS_DEVICESET_H

#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace fleet::hal {

struct DeviceInfo {
  util::GlobalOp global;
  /// Null when the global's initial value is not a #hal.device.target
  /// (ordinal/fallback/select initializers are resolved at run time).
  DeviceTargetAttr target;
  /// Position in declaration order.
  unsigned index = 0;

  /// Symbol name of the global.
  llvm::StringRef name;

  llvm::StringRef getName() const { return name; }
};

/// Memory type and buffer usage bits of an allocation (docs/ir-reference.md bit
/// values; MemoryType / BufferUsage enums).
struct MemoryProperties {
  MemoryType memoryTypes = MemoryType::None;
  BufferUsage bufferUsage = BufferUsage::None;

  MemoryProperties &operator|=(const MemoryProperties &other) {
    memoryTypes = memoryTypes | other.memoryTypes;
    bufferUsage = bufferUsage | other.bufferUsage;
    return *this;
  }
  bool operator==(const MemoryProperties &other) const {
    return memoryTypes == other.memoryTypes && bufferUsage == other.bufferUsage;
  }
};

/// Options of the memory-property rules shared by the passes that apply them.
struct MemoryPropertyOptions {
  /// `--hal-external-resources-mappable`: external resources are also
  /// HostVisible with Mapping usage, so the host can map ABI buffers.
  bool externalResourcesMappable = false;
};

/// How a peer device Y reaches memory allocated on X (docs/design.md §3), in
/// the order the rule tries them.
enum class PeerAccess {
  /// Same device, or unified_memory in either direction: nothing to add.
  Unified,
  /// transparent_access(Y -> X): HostVisible + Mapping|MappingPersistent.
  Transparent,
  /// export_import(Y -> X): SharingExport, imported by Y at run time.
  ExportImport,
  /// No (known) way: Y does not reach X.
  None,
};

/// The bits of a lifetime alone (docs/design.md §3): constant → DeviceLocal +
/// SharingImmutable; transient/variable/`*` → DeviceLocal; external →
/// DeviceVisible|DeviceLocal; staging → HostLocal|DeviceVisible +
/// Transfer|Mapping; all get Transfer|DispatchStorage.
MemoryProperties getLifetimeBaseProperties(stream::Lifetime lifetime,
                                           const MemoryPropertyOptions &options);

/// The bits peer access of kind `access` adds to the allocation.
MemoryProperties getPeerAccessProperties(PeerAccess access);

/// A member of a #hal.device.optimal set: device global and queue mask.
struct AffinityMember {
  llvm::StringRef device;
  int64_t queueMask = -1;
};

/// Outcome of the static allocation rule for an affinity.
struct AllocationResolution {
  /// Index into the member list of the allocating device X.
  unsigned allocatingMember = 0;
  MemoryProperties properties;
};

class DeviceSet {
public:
  explicit DeviceSet(mlir::ModuleOp module);

  llvm::ArrayRef<DeviceInfo> getDevices() const { return devices; }
  bool empty() const { return devices.empty(); }

  /// The device global named `name`, or nullptr.
  const DeviceInfo *lookup(llvm::StringRef name) const;

  /// Same device per docs/design.md §3 (backend and ordinal). Unknown names or
  /// devices without a static target are only the same as themselves.
  bool isSameDevice(llvm::StringRef a, llvm::StringRef b) const;

  /// Declaration-order index of `name`, or UINT_MAX when undeclared.
  unsigned getIndex(llvm::StringRef name) const;

  //===--------------------------------------------------------------------===//
  // Static topology (module attribute `stream.topology`, docs/design.md §3)
  //===--------------------------------------------------------------------===//

  /// The module's topology, or null when it declares none.
  DeviceTopologyAttr getTopology() const { return topology; }

  /// How `peer` reaches memory allocated on `owner` according to the static
  /// topology. `None` means "not proven": a missing link (or one whose flags
  /// are all false) is unknown, not a refusal — MaterializeTopology leaves
  /// discrete devices unlinked so the runtime decides.
  PeerAccess getStaticPeerAccess(llvm::StringRef peer,
                                 llvm::StringRef owner) const;

  /// Members of an affinity attribute: one for #hal.device.affinity, the
  /// list of #hal.device.optimal sorted into declaration order (the canonical
  /// order, docs/design.md §3). Fails on other attributes (promises, null).
  static mlir::FailureOr<llvm::SmallVector<AffinityMember>>
  getAffinityMembers(mlir::Attribute affinity, const DeviceSet *order);

  /// True when every member names the same device (identity rule above).
  bool areAllSameDevice(llvm::ArrayRef<AffinityMember> members) const;

  /// The static rule of docs/design.md §3 for an allocation of `lifetime`
  /// shared by `members` (in declaration order). A single member, or members
  /// that are all the same device, get the base bits and the first member. Else
  /// the allocating device X is the first member that every other member
  /// reaches; because a missing link is unknown, an earlier member can never
  /// be ruled out statically, so the links prove X only when X is the first
  /// member. Returns std::nullopt when they do not: run time decides.
  std::optional<AllocationResolution>
  resolveAllocation(llvm::ArrayRef<AffinityMember> members,
                    stream::Lifetime lifetime,
                    const MemoryPropertyOptions &options) const;

private:
  llvm::SmallVector<DeviceInfo> devices;
  llvm::StringMap<unsigned> byName;
  DeviceTopologyAttr topology;
};

} // namespace fleet::hal

#endif // FLEET_DIALECT_HAL_ANALYSIS_DEVICESET_H
