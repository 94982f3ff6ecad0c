//===- Semaphore.h - timeline semaphores -------------------------*- C++ -*-===//
//
// A timeline semaphore holds a uint64 payload that only grows. Each device
// queue is a timeline; a queue op waits until semaphores reach given values
// and signals semaphores to new values when it is done (docs/design.md §4).
// A semaphore can instead *fail*: it then carries the failure Status for good,
// every current and future waiter receives that Status, and every queue op
// that waits on it fails the semaphores it would have signalled, so the
// failure travels along the whole dependency graph, across devices.
//
// Ownership: Semaphore::create (or Device::createSemaphore) returns the first
// reference; a semaphore retains its owning device. Fences and queue ops waiting on or signalling a semaphore retain
// it. Timepoints are owned by whoever enqueues them.
// Thread safety: every method may be called from any thread concurrently.
// Timepoint callbacks run on the thread that signals or fails the semaphore,
// after the semaphore's lock is dropped; they must not block.
// Failure behaviour: signal() to a value not above the current one, or to the
// reserved kFailedValue, is InvalidArgument; signal() after fail() returns
// the failure (the payload is not changed). wait() returns OK, the failure
// status, or DeadlineExceeded. There are no busy waits: blocking waits sleep
// on a condition variable until a timepoint callback wakes them.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_SEMAPHORE_H
#define FLEET_RUNTIME_HAL_SEMAPHORE_H

#include "fleet/runtime/hal/InlineVector.h"
#include "fleet/runtime/hal/Ref.h"
#include "fleet/runtime/hal/Status.h"
#include "fleet/runtime/hal/Timeout.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace fleet::runtime::hal {

class Device;
class Semaphore;

/// A request to be told when a semaphore reaches a value (or fails).
/// The owner allocates it, fills `value` and `callback`, passes it to
/// Semaphore::enqueueTimepoint and keeps it alive until the callback has run
/// or cancelTimepoint returned true.
struct Timepoint {
  using Callback = void (*)(Timepoint &timepoint, const Status &status);
  uint64_t value = 0;
  Callback callback = nullptr;
  /// Free for the owner (e.g. the queue op being armed).
  void *userData = nullptr;
  /// Trace slice that signalled the value (0 when tracing is off); set
  /// before the callback runs.
  uint64_t signalerSlice = 0;

  // Managed by the semaphore.
  Semaphore *semaphore = nullptr;
  Timepoint *next = nullptr;
  Timepoint *previous = nullptr;
  bool enqueued = false;
};

class Semaphore final : public RefCounted {
public:
  /// Payload value that marks a failed semaphore (IREE reserves the same
  /// top value); never a valid signal value.
  static constexpr uint64_t kFailedValue = ~uint64_t(0);

  /// `owner` may be null (a host timeline); it names the semaphore in
  /// messages and traces and is retained.
  static Ref<Semaphore> create(uint64_t initialValue, Device *owner = nullptr);

  /// The payload, or the failure status.
  StatusOr<uint64_t> query() const;
  /// True once the payload is >= value or the semaphore failed (then the
  /// waiter must look at failureStatus()). Lock-free.
  bool reachedOrFailed(uint64_t value) const {
    return payload_.load(std::memory_order_acquire) >= value;
  }
  bool isFailed() const {
    return payload_.load(std::memory_order_acquire) == kFailedValue;
  }
  /// OK when not failed.
  Status failureStatus() const;

  Status signal(uint64_t value);
  /// signal() in two steps, for a signaller that publishes more before
  /// anything waiting on the value runs (a device retiring the op first: a
  /// host thread woken by the value and then waiting for idle need not
  /// block again): sets the payload and returns the timepoints it
  /// satisfied (null when none), which the caller then passes to
  /// fireSignalled() of this semaphore. Errors as signal()'s.
  StatusOr<Timepoint *> signalDeferred(uint64_t value);
  void fireSignalled(Timepoint *satisfied) { fire(satisfied, Status()); }
  /// Fails the semaphore with a non-OK status (the first failure sticks).
  void fail(Status status);
  /// Blocks until the payload reaches `value`, the semaphore fails, or the
  /// timeout passes.
  Status wait(uint64_t value, Timeout timeout);

  /// Returns false when the value is already reached or the semaphore failed:
  /// then `timepoint` is not enqueued and `status` tells which (OK or the
  /// failure). Otherwise the callback will run exactly once, unless
  /// cancelTimepoint removes the timepoint first.
  bool enqueueTimepoint(Timepoint &timepoint, Status &status);
  /// True when the timepoint was removed before its callback was taken;
  /// false when the callback has run or is running on another thread.
  bool cancelTimepoint(Timepoint &timepoint);

  Device *owner() const { return owner_.get(); }
  /// "semaphore@0x... of device 'local-task:0'".
  std::string describe() const;

  /// Trace slice of the op that last signalled this semaphore (tracing only).
  void setLastSignalerSlice(uint64_t slice) {
    lastSignalerSlice_.store(slice, std::memory_order_relaxed);
  }
  uint64_t lastSignalerSlice() const {
    return lastSignalerSlice_.load(std::memory_order_relaxed);
  }

private:
  Semaphore(uint64_t initialValue, Device *owner);
  ~Semaphore() override;

  /// Unlinks the timepoints satisfied by the current state (all of them on
  /// failure) into a list the caller fires after unlocking.
  Timepoint *takeSatisfiedLocked();
  void fire(Timepoint *list, const Status &status);

  std::atomic<uint64_t> payload_;
  std::atomic<uint64_t> lastSignalerSlice_{0};
  Ref<Device> owner_;
  mutable std::mutex mutex_;
  Status failure_;          // guarded by mutex_
  Timepoint *head_ = nullptr; // guarded by mutex_
  Timepoint *tail_ = nullptr; // guarded by mutex_
};

/// Signals several semaphores, then runs what waits on them: values set
/// with add() hold at once; fire() runs the satisfied timepoints (on the
/// calling thread). A device retires its op in between, so a host thread
/// woken by a value finds the device idle. The semaphores must outlive
/// fire() (the signaller's fence holds them). Not thread-safe.
class DeferredSignals {
public:
  /// Semaphore::signalDeferred(value); its error, if any.
  Status add(Semaphore &semaphore, uint64_t value) {
    StatusOr<Timepoint *> taken = semaphore.signalDeferred(value);
    if (!taken.ok())
      return taken.status();
    if (*taken)
      satisfied_.emplace_back(&semaphore, *taken);
    return Status();
  }
  /// Runs the timepoints the added values satisfied (once).
  void fire() {
    for (auto [semaphore, timepoints] : satisfied_)
      semaphore->fireSignalled(timepoints);
    satisfied_.clear();
  }

private:
  InlineVector<std::pair<Semaphore *, Timepoint *>, 2> satisfied_;
};

/// A (semaphore, value) pair borrowed for one call.
struct SemaphoreValue {
  Semaphore *semaphore;
  uint64_t value;
};

enum class WaitMode {
  /// Every semaphore must reach its value.
  All,
  /// One reached value is enough.
  Any,
};

/// Blocks the calling (host) thread on several semaphores, possibly of
/// different devices. Returns OK, the first failure seen (a failure ends an
/// Any wait too), or DeadlineExceeded naming the semaphores still pending.
/// Records a host-wait slice when a tracer is installed and counts host waits.
Status waitSemaphores(WaitMode mode, Span<const SemaphoreValue> semaphores,
                      Timeout timeout);

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_SEMAPHORE_H
