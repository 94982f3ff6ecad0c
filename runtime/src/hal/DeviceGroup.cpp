//===- DeviceGroup.cpp - runtime topology ----------------------------------===//

#include "fleet/runtime/hal/DeviceGroup.h"

#include <algorithm>

namespace fleet::runtime::hal {

StatusOr<Ref<DeviceGroup>>
DeviceGroup::create(std::vector<Ref<Device>> devices) {
  if (devices.empty())
    return Status(StatusCode::InvalidArgument,
                  "device group: no devices given");
  if (devices.size() > 64)
    return makeStatus(StatusCode::InvalidArgument, "device group: ",
                      devices.size(),
                      " devices given, at most 64 are supported");
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!devices[i])
      return makeStatus(StatusCode::InvalidArgument, "device group: device ",
                        i, " is null");
    if (devices[i]->group())
      return makeStatus(StatusCode::FailedPrecondition,
                        "device group: device '", devices[i]->name(),
                        "' already belongs to a device group");
    for (size_t j = 0; j < i; ++j)
      if (devices[j] == devices[i])
        return makeStatus(StatusCode::InvalidArgument,
                          "device group: device '", devices[i]->name(),
                          "' is listed twice");
  }
  Ref<DeviceGroup> group = Ref<DeviceGroup>::adopt(new DeviceGroup());
  group->devices_ = std::move(devices);
  size_t count = group->devices_.size();
  for (size_t i = 0; i < count; ++i) {
    group->devices_[i]->group_ = group.get();
    group->devices_[i]->groupIndex_ = uint32_t(i);
  }
  // The N x N topology is fixed for the group's life; queue ops read it
  // without locks.
  group->links_.resize(count * count);
  for (size_t from = 0; from < count; ++from)
    for (size_t to = 0; to < count; ++to)
      group->links_[from * count + to] =
          deriveLink(*group->devices_[from], *group->devices_[to]);
  return group;
}

DeviceGroup::~DeviceGroup() {
  for (const Ref<Device> &device : devices_)
    device->group_ = nullptr;
}

Link DeviceGroup::deriveLink(const Device &from, const Device &to) {
  Link link;
  if (&from == &to) {
    link.unifiedMemory = true;
    return link;
  }
  const DeviceCapabilities &a = from.capabilities();
  const DeviceCapabilities &b = to.capabilities();
  // A remote device (mpi) reaches this process's memory, and another
  // remote device's, by messages in its copies: as export + import, so an
  // allocation shared with it lives here or on the other remote device
  // (docs/distributed.md). Nothing else reaches a remote device's memory.
  if (a.remote && (b.remote || b.hostAddressable)) {
    link.exportImport = true;
    return link;
  }
  // Only memory of this process is shareable between the drivers we have.
  if (!a.hostAddressable || !b.hostAddressable)
    return link;
  if (a.backend == "local" && b.backend == "vulkan") {
    // A Vulkan device's buffers are mapped host memory (VulkanDevice.h): a
    // local device touches them directly unless the device is discrete.
    link.transparentAccess = !b.discrete;
    return link;
  }
  if (a.backend == "vulkan" && b.backend == "local") {
    // Vulkan commands reach a local device's buffers by importing the host
    // allocation (VK_EXT_external_memory_host), when the device can and the
    // allocator's export alignment satisfies it.
    link.exportImport = a.hostImportAlignment != 0 &&
                        kExportAlignment % a.hostImportAlignment == 0;
    return link;
  }
  if (a.backend != "local" || b.backend != "local")
    return link; // Vulkan commands reach only the device's own buffers.
  // docs/design.md §3: plain local devices share host memory both ways; a
  // discrete one shares only by export + import, in both directions. These
  // are the links MaterializeTopology writes for the same targets.
  if (!a.discrete && !b.discrete)
    link.unifiedMemory = true;
  else
    link.exportImport = true;
  return link;
}

LinkAnswer DeviceGroup::queryLink(const Device &from, const Device &to,
                                  std::string_view key) const {
  linkQueries_.fetch_add(1, std::memory_order_relaxed);
  if (!contains(from) || !contains(to))
    return LinkAnswer{};
  Link answer = link(from, to);
  if (key == "unified_memory")
    return LinkAnswer{true, answer.unifiedMemory};
  if (key == "transparent_access")
    return LinkAnswer{true, answer.transparentAccess};
  if (key == "export_import")
    return LinkAnswer{true, answer.exportImport};
  return LinkAnswer{};
}

StatusOr<DeviceCandidate>
DeviceGroup::select(Span<const DeviceCandidate> candidates, MemoryType type,
                    BufferUsage usage) const {
  static constexpr const char *kOperation = "hal.allocator.select";
  if (candidates.empty())
    return makeStatus(StatusCode::InvalidArgument, kOperation,
                      ": no candidate devices");
  std::string names;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Device *device = candidates[i].device;
    if (!device)
      return makeStatus(StatusCode::InvalidArgument, kOperation,
                        ": candidate ", i, " is null");
    if (!contains(*device))
      return makeStatus(StatusCode::InvalidArgument, kOperation,
                        ": candidate device '", device->name(),
                        "' is not in the device group");
    names += (i ? ", '" : "'") + device->name() + "'";
  }
  // docs/design.md §3: the allocating device is the first member every other
  // member reaches; type and usage only filter who may allocate.
  std::string reasons;
  for (const DeviceCandidate &candidate : candidates) {
    Device &allocating = *candidate.device;
    Status compatible =
        allocating.allocator().checkCompatibility({}, type, usage);
    if (!compatible.ok()) {
      reasons += "; " + compatible.message();
      continue;
    }
    const Device *unreached = nullptr;
    for (const DeviceCandidate &other : candidates) {
      if (other.device == &allocating)
        continue;
      if (!link(*other.device, allocating).reaches()) {
        unreached = other.device;
        break;
      }
    }
    if (!unreached)
      return candidate;
    reasons += concat("; '", unreached->name(), "' does not reach memory of '",
                      allocating.name(), "'");
  }
  return makeStatus(StatusCode::FailedPrecondition, kOperation,
                    ": no candidate among [", names,
                    "] is reached by all the others for memory type ",
                    toString(type), " and usage ", toString(usage), reasons);
}

std::string DeviceGroup::describeTopology() const {
  std::string text;
  for (const Ref<Device> &from : devices_) {
    for (const Ref<Device> &to : devices_) {
      if (from == to)
        continue;
      Link l = link(*from, *to);
      std::string flags;
      if (l.unifiedMemory)
        flags += "unified_memory = true";
      if (l.transparentAccess)
        flags += std::string(flags.empty() ? "" : ", ") +
                 "transparent_access = true";
      text += concat(from->name(), " -> ", to->name(), " = {", flags, "}",
                     l.exportImport ? ", {export_import = true}" : "", "\n");
    }
  }
  return text;
}

} // namespace fleet::runtime::hal
