//===- DeviceGroup.h - runtime topology of a set of devices ------*- C++ -*-===//
//
// A DeviceGroup is the set of devices one program runs on. At creation it
// forms the N x N topology from the devices' capabilities and answers
//   * link queries (`hal.device.query.link<%x, %y> key(...)`): can device x
//     reach memory allocated on device y? Keys: unified_memory,
//     transparent_access, export_import; the answer is (ok, value);
//   * `hal.allocator.select`: the allocating device for memory shared by
//     several devices (the rule of docs/design.md §3);
//   * buffer access from queue ops: direct, by import on first use, or an
//     error naming the op and both devices.
//
// Answers for local devices (docs/design.md §3), the same links
// MaterializeTopology writes at compile time, so compile time and run time
// agree:
//   x == y:                               unified_memory
//   two plain local devices (both ways):  unified_memory
//   a discrete local device and any other local device (both ways):
//                                         export_import only
//   a local device to a vulkan device's memory: transparent_access (the
//   buffers are mapped host memory), none when the vulkan device is
//   discrete;
//   a vulkan device to a local device's memory: export_import when the
//   vulkan device imports host allocations (VK_EXT_external_memory_host;
//   DeviceCapabilities::hostImportAlignment), else none; to another vulkan
//   device's memory: none (docs/runtime.md "Vulkan")
// A device *directly accesses* y's memory when unified_memory or
// transparent_access holds, and *reaches* it when it directly accesses it or
// export_import holds. Unknown keys, and devices outside the group, answer
// ok = false (the IR's default then applies).
//
// Ownership: create() returns the first reference; the group retains its
// devices, and each device points back at its group until the group dies.
// A device belongs to at most one live group.
// Thread safety: all queries may race; the topology is immutable. Query and
// import counters are atomic.
// Failure behaviour: create() fails for empty lists, duplicates, more than 64
// devices and devices already in a group; select() fails naming the devices
// when no candidate is reached by all the others.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_DEVICEGROUP_H
#define FLEET_RUNTIME_HAL_DEVICEGROUP_H

#include "fleet/runtime/hal/Device.h"

#include <vector>

namespace fleet::runtime::hal {

/// The directed link "from can reach memory allocated on to".
struct Link {
  bool unifiedMemory = false;
  bool transparentAccess = false;
  bool exportImport = false;

  bool directAccess() const { return unifiedMemory || transparentAccess; }
  bool reaches() const { return directAccess() || exportImport; }
};

/// Result of a link query; `value` is meaningful only when `ok`.
struct LinkAnswer {
  bool ok = false;
  bool value = false;
};

/// One `(device, queue affinity)` of `hal.allocator.select from([...])`.
struct DeviceCandidate {
  Device *device = nullptr;
  QueueAffinity affinity = kQueueAffinityAny;
};

class DeviceGroup final : public RefCounted {
public:
  /// Up to 64 devices (import caches are 64-bit masks).
  static StatusOr<Ref<DeviceGroup>> create(std::vector<Ref<Device>> devices);

  size_t size() const { return devices_.size(); }
  Device &device(size_t index) const { return *devices_[index]; }
  bool contains(const Device &device) const {
    return device.group() == this;
  }

  /// The link between two members (not counted as a query).
  Link link(const Device &from, const Device &to) const {
    return links_[from.groupIndex() * devices_.size() + to.groupIndex()];
  }
  /// `hal.device.query.link`: counted in linkQueryCount().
  LinkAnswer queryLink(const Device &from, const Device &to,
                       std::string_view key) const;

  /// `hal.allocator.select`: the first candidate, in list order, whose
  /// allocator can provide `type`/`usage` and that every other candidate
  /// reaches (docs/design.md §3). Candidates naming the same device count once.
  StatusOr<DeviceCandidate> select(Span<const DeviceCandidate> candidates,
                                   MemoryType type, BufferUsage usage) const;

  uint64_t linkQueryCount() const {
    return linkQueries_.load(std::memory_order_relaxed);
  }

  /// One line per ordered pair of distinct members:
  /// "a -> b = {unified_memory = true}" in the IR's link spelling.
  std::string describeTopology() const;

private:
  DeviceGroup() = default;
  ~DeviceGroup() override;
  static Link deriveLink(const Device &from, const Device &to);

  std::vector<Ref<Device>> devices_;
  std::vector<Link> links_;
  mutable std::atomic<uint64_t> linkQueries_{0};
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_DEVICEGROUP_H
