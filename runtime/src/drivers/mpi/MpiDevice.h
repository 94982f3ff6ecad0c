//===- MpiDevice.h - devices living in other MPI ranks -----------*- C++ -*-===//
//
// The mpi driver (docs/distributed.md). Under mpirun, rank 0 runs the host
// program and `--device=mpi://RANK/<local URI>` is a device created in rank
// RANK's process by its device server (`fleet-run --serve`). The MpiDevice
// in rank 0 is a proxy: every queue op is sent to the server as a message
// and runs there on the real device; executables are sent once, when the
// module loads (no shared file system is assumed).
//
// Memory: device-local buffers live in the server (rank 0 holds an id and
// a sentinel address that must never be dereferenced); host-visible
// buffers (staging) live in rank 0. The device is `remote`: no link reaches
// its memory from rank 0's devices, and it moves bytes between its memory
// and rank 0's host-addressable memory itself, by messages, in queue copies
// (docs/design.md §3). Copies between two remote devices go from server to
// server.
//
// Timelines: rank 0's semaphores are the truth. A server keeps a mirror per
// semaphore its ops wait on or signal, so ops on one server wait for each
// other without messages; rank 0 forwards a semaphore's value (or failure)
// to a server when an op sent there waits on it (and asks the server whose
// ops signal it, if another, to relay the value directly), and signals (or
// fails) an op's signal fence when the server reports the op done.
//
// Ownership, thread safety and failures follow Device.h. A failure on the
// server fails the op's signal fence in rank 0 with the server's message.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_DRIVERS_MPI_MPIDEVICE_H
#define FLEET_RUNTIME_DRIVERS_MPI_MPIDEVICE_H

#include "fleet/runtime/hal/Device.h"
#include "fleet/runtime/hal/Trace.h"

#include <string>

namespace fleet::runtime::mpi {

/// A device in rank `rank`, created there from `uri` (a local driver URI).
hal::StatusOr<hal::Ref<hal::Device>>
createMpiDevice(int rank, const std::string &uri, hal::DeviceOptions options);

/// Runs this process as a device server until rank 0 shuts it down;
/// returns the process's exit code. Error (exit 1) when not under mpirun
/// with rank > 0.
int runDeviceServer();

/// Ends the device servers and finalizes MPI (rank 0, at exit). Does
/// nothing when no mpi device was created.
void shutdownMpi();

/// Makes every device server record a trace of its devices' queue ops
/// (fleet-run --trace); estimates each server's clock offset when it runs
/// on another host. Nothing without mpi devices.
hal::Status startRemoteTracing();
/// Adds each server's slices to `tracer` as a process of its own ("rank
/// N"), on rank 0's clock (docs/distributed.md "Trace").
hal::Status collectRemoteTraces(hal::Tracer &tracer);

} // namespace fleet::runtime::mpi

#endif // FLEET_RUNTIME_DRIVERS_MPI_MPIDEVICE_H
