//===- Trace.h - execution traces and statistics -----------------*- C++ -*-===//
//
// Tracing records, per device queue, one slice per executed queue op (named
// after the dispatched export, or copy / fill / update / alloca / dealloca /
// barrier / execute), with its start and end time, the bytes a copy moved and
// whether it crossed devices; flow links from the op that signalled a
// semaphore to each op on another device (or host wait) that waited for it;
// and blocking host waits on a "host" track. toChromeJson() writes the
// Chrome/Perfetto JSON trace format (one track per device queue), which
// chrome://tracing and ui.perfetto.dev open.
//
// Statistics are always counted (DeviceStatistics in Device.h, link queries in
// DeviceGroup.h, host waits here) except times, which need clock reads and are
// measured only while a tracer is installed or setStatisticsTiming(true).
// With tracing off a queue op pays one relaxed atomic load to learn that.
//
// Ownership: the caller owns a Tracer; install() makes it the process-wide
// recorder until uninstall() or its destruction.
// Thread safety: recording methods may race (they take the tracer's lock);
// install/uninstall must not race with the tracer's destruction.
// Failure behaviour: writeChromeJson returns an error naming the file when it
// cannot be written; recording never fails.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_TRACE_H
#define FLEET_RUNTIME_HAL_TRACE_H

#include "fleet/runtime/hal/Ref.h"
#include "fleet/runtime/hal/Status.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace fleet::runtime::hal {

class Device;
class DeviceGroup;

/// Steady-clock nanoseconds.
uint64_t monotonicNanoseconds();

struct TraceSlice {
  uint64_t id = 0;
  uint32_t track = 0;
  std::string name;
  uint64_t startNanoseconds = 0;
  uint64_t endNanoseconds = 0;
  /// Bytes copied (copies, updates, fills); 0 otherwise.
  uint64_t bytes = 0;
  /// The part of `bytes` copied between buffers of different devices (a
  /// queue copy or an execute's copy commands).
  uint64_t crossDeviceBytes = 0;
  bool crossDevice = false;
  bool failed = false;
};

/// Another process's slices in this trace (a device server's, the mpi
/// driver: docs/distributed.md "Trace"): its own Perfetto process, slice
/// times already on this process's monotonic clock.
struct RemoteTrace {
  /// Perfetto process id (> 1; this process is 1).
  int pid = 2;
  std::string processName;
  /// Track names by TraceSlice::track.
  std::vector<std::string> tracks;
  std::vector<TraceSlice> slices;
  /// Arrows (from, to) by slice id; either end may be a slice of another
  /// process of the trace (a cross-rank wait).
  std::vector<std::pair<uint64_t, uint64_t>> flows;
};

class Tracer {
public:
  /// Slice ids start at `firstSliceId`: a device server's tracer starts
  /// at its rank << 48, so slice ids stay unique across the processes of
  /// one trace and arrows may join them (docs/distributed.md "Trace").
  explicit Tracer(uint64_t firstSliceId = 1);
  ~Tracer();
  Tracer(const Tracer &) = delete;
  Tracer &operator=(const Tracer &) = delete;

  void install();
  void uninstall();
  static Tracer *active() {
    return activeTracer_.load(std::memory_order_relaxed);
  }

  // ---- recording -----------------------------------------------------------
  uint64_t newSliceId() {
    return nextSliceId_.fetch_add(1, std::memory_order_relaxed);
  }
  /// Track "<device> queue <index>", created on first use; with
  /// `deviceTime` the track "<device> gpu queue <index>" of a driver with
  /// device timestamps (Vulkan).
  uint32_t queueTrack(const Device &device, uint32_t queue,
                      bool deviceTime = false);
  /// The "host" track.
  uint32_t hostTrack() const { return 0; }
  void addSlice(TraceSlice slice);
  /// An arrow from slice `from` to slice `to` (a semaphore wait); `from`
  /// may be another process's slice (added with addRemote).
  void addFlow(uint64_t from, uint64_t to);
  /// Adds another process's slices (written after this process's).
  void addRemote(RemoteTrace remote);

  // ---- output --------------------------------------------------------------
  std::string toChromeJson() const;
  Status writeChromeJson(const std::string &path) const;
  std::vector<TraceSlice> slices() const;
  std::vector<std::pair<uint64_t, uint64_t>> flows() const;
  std::vector<std::string> trackNames() const;

private:
  static std::atomic<Tracer *> activeTracer_;
  std::atomic<uint64_t> nextSliceId_{1};
  uint64_t epochNanoseconds_;
  mutable std::mutex mutex_;
  std::vector<std::string> tracks_;
  /// By (device, 2 x queue + deviceTime).
  std::map<std::pair<const Device *, uint64_t>, uint32_t> queueTracks_;
  std::vector<TraceSlice> slices_;
  std::vector<RemoteTrace> remotes_;
  std::vector<std::pair<uint64_t, uint64_t>> flows_;
};

/// Measure queue-op and host-wait times without tracing.
void setStatisticsTiming(bool enabled);
/// True while a tracer is installed or statistics timing is on.
bool timingEnabled();

struct HostStatistics {
  /// Host waits on semaphores or fences (all calls).
  uint64_t waits = 0;
  /// Waits that had to block.
  uint64_t blockedWaits = 0;
  /// Time spent blocked (timing only).
  uint64_t waitNanoseconds = 0;
};
HostStatistics hostStatistics();
void resetHostStatistics();
/// For the wait implementation.
void noteHostWait(bool blocked, uint64_t nanoseconds);

/// The `--print_statistics` report: one block per device (queue ops,
/// failures, dispatches, busy time, bytes between devices, imports), host
/// waits, and the group's link queries (`group` may be null).
std::string formatStatistics(Span<Device *const> devices,
                             const DeviceGroup *group);

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_TRACE_H
