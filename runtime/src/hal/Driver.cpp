//===- Driver.cpp - device URIs and binding --------------------------------===//

#include "fleet/runtime/hal/Driver.h"

#include "drivers/local/LocalDriver.h"
#ifdef FLEET_HAVE_VULKAN
#include "drivers/vulkan/VulkanDriver.h"
#endif

#include <charconv>

namespace fleet::runtime::hal {
namespace {

#ifdef FLEET_HAVE_VULKAN
constexpr const char *kKnownDrivers = "local-sync, local-task, vulkan";
#else
constexpr const char *kKnownDrivers = "local-sync, local-task";
#endif
constexpr const char *kKnownParameters =
    "discrete, fail_after, task_topology_group_count, task_topology_cpu_ids, "
    "queue_count, name, max_workgroups, max_allocation";

RemoteDeviceFactory remoteFactory = nullptr;

bool parseUnsigned(std::string_view text, uint64_t &value) {
  if (text.empty())
    return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(),
                                      value);
  return error == std::errc() && end == text.data() + text.size();
}

} // namespace

void registerRemoteDriver(RemoteDeviceFactory factory) {
  remoteFactory = factory;
}

std::vector<std::string> driverNames() {
#ifdef FLEET_HAVE_VULKAN
  return {"local-sync", "local-task", "vulkan"};
#else
  return {"local-sync", "local-task"};
#endif
}

std::string backendOfDriver(std::string_view driver) {
  if (driver == "local-sync" || driver == "local-task")
    return "local";
#ifdef FLEET_HAVE_VULKAN
  if (driver == "vulkan")
    return "vulkan";
#endif
  return "";
}

StatusOr<DeviceSpec> parseDeviceUri(std::string_view uri) {
  DeviceSpec spec;
  // mpi://RANK/<URI>: the parameters belong to <URI>.
  if (uri.substr(0, 6) == "mpi://") {
    if (!remoteFactory)
      return makeStatus(StatusCode::InvalidArgument, "device URI '", uri,
                        "': this program was built without the mpi driver "
                        "(FLEET_ENABLE_MPI, docs/distributed.md)");
    std::string_view rest = uri.substr(6);
    size_t slash = rest.find('/');
    uint64_t rank = 0;
    if (slash == std::string_view::npos ||
        !parseUnsigned(rest.substr(0, slash), rank) || rank > 65535)
      return makeStatus(StatusCode::InvalidArgument, "device URI '", uri,
                        "': expected mpi://RANK/<device URI>, e.g. "
                        "mpi://1/local-task");
    FLEET_ASSIGN_OR_RETURN(DeviceSpec inner,
                           parseDeviceUri(rest.substr(slash + 1)));
    if (inner.driver == "mpi")
      return makeStatus(StatusCode::InvalidArgument, "device URI '", uri,
                        "': an mpi device cannot name another mpi device");
    spec.driver = "mpi";
    spec.remoteRank = int(rank);
    spec.remoteUri = std::string(rest.substr(slash + 1));
    spec.options.queueCount = inner.options.queueCount;
    spec.options.workerCount = inner.options.workerCount;
    return spec;
  }
  size_t question = uri.find('?');
  spec.driver = std::string(uri.substr(0, question));
  auto error = [&](const auto &...pieces) {
    return makeStatus(StatusCode::InvalidArgument, "device URI '", uri,
                      "': ", pieces...);
  };
  // `vulkan://N`: the N-th Vulkan physical device.
  if (size_t scheme = spec.driver.find("://"); scheme != std::string::npos) {
    std::string_view path = std::string_view(spec.driver).substr(scheme + 3);
    uint64_t index = 0;
    if (!parseUnsigned(path, index) || index > 255)
      return error("'", path, "' after '://' is not a physical device "
                   "number");
    spec.options.physicalDevice = uint32_t(index);
    spec.driver.resize(scheme);
  }
  if (backendOfDriver(spec.driver).empty())
    return error("unknown driver '", spec.driver, "' (known drivers: ",
                 kKnownDrivers, ")");
  if (question == std::string_view::npos)
    return spec;

  std::string_view parameters = uri.substr(question + 1);
  std::vector<std::string_view> seen;
  while (true) {
    size_t amp = parameters.find('&');
    std::string_view parameter = parameters.substr(0, amp);
    size_t equals = parameter.find('=');
    if (parameter.empty() || equals == std::string_view::npos || equals == 0)
      return error("malformed parameter '", parameter,
                   "' (expected key=value, several joined by '&')");
    std::string_view key = parameter.substr(0, equals);
    std::string_view value = parameter.substr(equals + 1);
    for (std::string_view previous : seen)
      if (previous == key)
        return error("parameter '", key, "' is given twice");
    seen.push_back(key);

    uint64_t number = 0;
    if (key == "discrete") {
      if (value == "true" || value == "1")
        spec.options.discrete = true;
      else if (value == "false" || value == "0")
        spec.options.discrete = false;
      else
        return error("discrete=", value, " is not true or false");
    } else if (key == "fail_after") {
      if (!parseUnsigned(value, number) || number == 0)
        return error("fail_after=", value,
                     " is not a positive queue-op number");
      spec.options.failAfter = number;
    } else if (key == "task_topology_group_count") {
      if (spec.driver != "local-task")
        return error("parameter 'task_topology_group_count' applies to "
                     "local-task only");
      if (!parseUnsigned(value, number) || number == 0 || number > 256)
        return error("task_topology_group_count=", value,
                     " is not a worker count in 1..256");
      spec.options.workerCount = uint32_t(number);
    } else if (key == "task_topology_cpu_ids") {
      if (spec.driver != "local-task")
        return error("parameter 'task_topology_cpu_ids' applies to "
                     "local-task only");
      if (value == "any") {
        spec.options.pinWorkers = false;
      } else {
        // A list of CPU numbers separated by ':' or ',' ('&' separates
        // parameters).
        std::string_view list = value;
        while (true) {
          size_t end = list.find_first_of(",:");
          std::string_view item = list.substr(0, end);
          if (!parseUnsigned(item, number) || number >= 1024)
            return error("task_topology_cpu_ids=", value,
                         " is not 'any' or a list of CPU numbers below 1024 (e.g. 0,1)");
          spec.options.cpuIds.push_back(uint32_t(number));
          if (end == std::string_view::npos)
            break;
          list.remove_prefix(end + 1);
        }
      }
    } else if (key == "queue_count") {
      if (!parseUnsigned(value, number) || number == 0 || number > 64)
        return error("queue_count=", value, " is not in 1..64");
      spec.options.queueCount = uint32_t(number);
    } else if (key == "max_workgroups") {
      if (!parseUnsigned(value, number) || number == 0)
        return error("max_workgroups=", value,
                     " is not a positive workgroup count");
      spec.options.maxWorkgroups = number;
    } else if (key == "max_allocation") {
      if (!parseUnsigned(value, number) || number == 0)
        return error("max_allocation=", value,
                     " is not a positive byte count");
      spec.options.maxAllocation = number;
    } else if (key == "name") {
      if (value.empty())
        return error("name= needs a value");
      spec.options.name = std::string(value);
    } else {
      return error("unknown parameter '", key, "' (known parameters: ",
                   kKnownParameters, ")");
    }
    if (amp == std::string_view::npos)
      break;
    parameters.remove_prefix(amp + 1);
  }
  return spec;
}

StatusOr<Ref<Device>> createDevice(const DeviceSpec &spec) {
  if (spec.driver == "mpi" && remoteFactory)
    return remoteFactory(spec.remoteRank, spec.remoteUri, spec.options);
  if (spec.driver == "local-sync")
    return local::createLocalSyncDevice(spec.options);
  if (spec.driver == "local-task")
    return local::createLocalTaskDevice(spec.options);
#ifdef FLEET_HAVE_VULKAN
  if (spec.driver == "vulkan")
    return vulkan::createVulkanDevice(spec.options);
#endif
  return makeStatus(StatusCode::InvalidArgument, "unknown driver '",
                    spec.driver, "' (known drivers: ", kKnownDrivers, ")");
}

StatusOr<Ref<Device>> createDevice(std::string_view uri) {
  FLEET_ASSIGN_OR_RETURN(DeviceSpec spec, parseDeviceUri(uri));
  return createDevice(spec);
}

StatusOr<Device *> bindDevice(Span<Device *const> devices,
                              std::string_view backend, uint64_t ordinal) {
  // docs/design.md §5: ordinal N of a backend is the N-th device serving it.
  uint64_t seen = 0;
  std::string serving;
  for (Device *device : devices) {
    if (!device || device->capabilities().backend != backend)
      continue;
    if (seen == ordinal)
      return device;
    serving += (seen ? ", '" : "'") + device->name() + "'";
    ++seen;
  }
  return makeStatus(StatusCode::NotFound, "no device for target backend '",
                    backend, "' ordinal ", ordinal, ": ", seen,
                    seen == 1 ? " device serves" : " devices serve", " '",
                    backend, "'", seen ? " (" + serving + ")" : std::string());
}

} // namespace fleet::runtime::hal
