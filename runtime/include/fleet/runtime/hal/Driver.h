//===- Driver.h - creating devices from URIs ---------------------*- C++ -*-===//
//
// Devices are named by URIs (docs/design.md §5): a driver name and optional
// parameters, the same for both local drivers, combined with `&`:
//   local-sync                       work runs on the submitting thread (or the
//                                    thread that reaches its wait fence)
//   local-task?discrete=true         worker threads; discrete memory
//   local-sync?fail_after=3          the 3rd queue op of the device fails
//   local-task?task_topology_group_count=4&queue_count=2
// Parameters: discrete=true|false, fail_after=N (N >= 1),
// task_topology_group_count=N (worker threads, N >= 1; local-task only),
// queue_count=N (1..64), name=TEXT (names the device in messages/traces).
// Both drivers serve target backend "local". With the mpi driver registered
// (registerRemoteDriver; fleet-run built with MPI), `mpi://RANK/<URI>` is
// the device <URI> created in MPI rank RANK (docs/distributed.md); it serves
// <URI>'s backend. Binding (bindDevice): ordinal N
// of a backend is the N-th device, in the order given, whose driver serves it.
//
// Ownership: createDevice returns the first reference to the device.
// Thread safety: all functions may race.
// Failure behaviour: unknown drivers, unknown parameters and bad values are
// InvalidArgument errors quoting the URI and listing what is accepted;
// bindDevice returns NotFound naming the backend, the ordinal and the devices.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_DRIVER_H
#define FLEET_RUNTIME_HAL_DRIVER_H

#include "fleet/runtime/hal/Device.h"

#include <string>
#include <vector>

namespace fleet::runtime::hal {

struct DeviceSpec {
  std::string driver;
  DeviceOptions options;
  /// mpi: the rank and the device URI it creates there.
  int remoteRank = 0;
  std::string remoteUri;
};

/// Creates a device `uri` in rank `rank` (the mpi driver).
using RemoteDeviceFactory = StatusOr<Ref<Device>> (*)(int rank,
                                                      const std::string &uri,
                                                      DeviceOptions options);
/// Makes `mpi://` URIs known (the mpi driver lives in its own library so
/// that programs without it link no MPI).
void registerRemoteDriver(RemoteDeviceFactory factory);

StatusOr<DeviceSpec> parseDeviceUri(std::string_view uri);
StatusOr<Ref<Device>> createDevice(const DeviceSpec &spec);
StatusOr<Ref<Device>> createDevice(std::string_view uri);

/// {"local-sync", "local-task"}.
std::vector<std::string> driverNames();
/// The target backend a driver serves ("local"), or empty if unknown.
std::string backendOfDriver(std::string_view driver);

/// Device for `#hal.device.target<"backend", {ordinal = N}>`.
StatusOr<Device *> bindDevice(Span<Device *const> devices,
                              std::string_view backend, uint64_t ordinal);

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_DRIVER_H
