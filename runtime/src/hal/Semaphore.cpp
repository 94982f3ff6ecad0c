//===- Semaphore.cpp - timeline semaphores and host waits -----------------===//
//
// Waiters are intrusive Timepoints in a per-semaphore list. Signal and fail
// unlink the satisfied timepoints under the lock and run their callbacks after
// dropping it, so a callback may touch other semaphores (a queue op arming or
// cancelling its next waits) without lock-order problems. Host waits park on a
// condition variable that the callbacks notify: no polling.
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/hal/Semaphore.h"

#include "fleet/runtime/hal/Device.h"
#include "fleet/runtime/hal/Trace.h"

#include <condition_variable>
#include <cstdio>
#include <memory>
#include <vector>

namespace fleet::runtime::hal {

Ref<Semaphore> Semaphore::create(uint64_t initialValue, Device *owner) {
  return Ref<Semaphore>::adopt(new Semaphore(initialValue, owner));
}

Semaphore::Semaphore(uint64_t initialValue, Device *owner)
    : payload_(initialValue), owner_(owner) {}

Semaphore::~Semaphore() {
  // Enqueued timepoints belong to owners that hold a reference (queue ops
  // retain their fences; host waiters borrow the semaphore for the wait).
  assert(head_ == nullptr && "semaphore destroyed with waiters");
}

std::string Semaphore::describe() const {
  char address[32];
  std::snprintf(address, sizeof(address), "%p", static_cast<const void *>(this));
  std::string text = "semaphore ";
  text += address;
  if (owner_) {
    text += " of device '";
    text += owner_->name();
    text += "'";
  }
  return text;
}

StatusOr<uint64_t> Semaphore::query() const {
  uint64_t value = payload_.load(std::memory_order_acquire);
  if (value == kFailedValue)
    return failureStatus();
  return value;
}

Status Semaphore::failureStatus() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

Timepoint *Semaphore::takeSatisfiedLocked() {
  uint64_t value = payload_.load(std::memory_order_relaxed);
  Timepoint *taken = nullptr;
  Timepoint **takenTail = &taken;
  for (Timepoint *timepoint = head_; timepoint;) {
    Timepoint *next = timepoint->next;
    if (timepoint->value <= value) {
      // Unlink from the doubly linked wait list...
      if (timepoint->previous)
        timepoint->previous->next = next;
      else
        head_ = next;
      if (next)
        next->previous = timepoint->previous;
      else
        tail_ = timepoint->previous;
      timepoint->enqueued = false;
      // ...and append to the singly linked fire list.
      timepoint->next = nullptr;
      *takenTail = timepoint;
      takenTail = &timepoint->next;
    }
    timepoint = next;
  }
  return taken;
}

void Semaphore::fire(Timepoint *list, const Status &status) {
  uint64_t signaler = lastSignalerSlice();
  while (list) {
    // The callback may free the timepoint: read the link first.
    Timepoint *next = list->next;
    list->signalerSlice = signaler;
    list->callback(*list, status);
    list = next;
  }
}

Status Semaphore::signal(uint64_t value) {
  StatusOr<Timepoint *> satisfied = signalDeferred(value);
  if (!satisfied.ok())
    return satisfied.status();
  fire(*satisfied, Status());
  return Status();
}

StatusOr<Timepoint *> Semaphore::signalDeferred(uint64_t value) {
  if (value == kFailedValue)
    return makeStatus(StatusCode::InvalidArgument, "signal of ", describe(),
                      " to the reserved failure value");
  Timepoint *satisfied;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t current = payload_.load(std::memory_order_relaxed);
    if (current == kFailedValue)
      return failure_;
    if (value <= current)
      return makeStatus(StatusCode::InvalidArgument, "signal of ", describe(),
                        " to ", value, ": the payload is already ", current,
                        " (timeline values must increase)");
    payload_.store(value, std::memory_order_release);
    satisfied = takeSatisfiedLocked();
  }
  return satisfied;
}

void Semaphore::fail(Status status) {
  if (status.ok())
    status = makeStatus(StatusCode::Unknown, describe(),
                        " failed with an OK status");
  Timepoint *all;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (payload_.load(std::memory_order_relaxed) == kFailedValue)
      return; // The first failure is the one waiters see.
    failure_ = std::move(status);
    payload_.store(kFailedValue, std::memory_order_release);
    all = takeSatisfiedLocked();
  }
  Status copy = failureStatus();
  fire(all, copy);
}

bool Semaphore::enqueueTimepoint(Timepoint &timepoint, Status &status) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t current = payload_.load(std::memory_order_relaxed);
  if (current == kFailedValue) {
    status = failure_;
    return false;
  }
  if (current >= timepoint.value) {
    status = Status();
    timepoint.signalerSlice = lastSignalerSlice();
    return false;
  }
  timepoint.semaphore = this;
  timepoint.enqueued = true;
  timepoint.next = nullptr;
  timepoint.previous = tail_;
  if (tail_)
    tail_->next = &timepoint;
  else
    head_ = &timepoint;
  tail_ = &timepoint;
  return true;
}

bool Semaphore::cancelTimepoint(Timepoint &timepoint) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!timepoint.enqueued)
    return false;
  if (timepoint.previous)
    timepoint.previous->next = timepoint.next;
  else
    head_ = timepoint.next;
  if (timepoint.next)
    timepoint.next->previous = timepoint.previous;
  else
    tail_ = timepoint.previous;
  timepoint.enqueued = false;
  timepoint.next = timepoint.previous = nullptr;
  return true;
}

Status Semaphore::wait(uint64_t value, Timeout timeout) {
  SemaphoreValue entry{this, value};
  return waitSemaphores(WaitMode::All, Span<const SemaphoreValue>(&entry, 1),
                        timeout);
}

//===----------------------------------------------------------------------===//
// Host waits
//===----------------------------------------------------------------------===//

namespace {

/// Shared by the timepoints of one blocking wait. Owned by the waiting
/// thread and, while they notify, by the callbacks: a callback notifies
/// after unlocking (a waiter woken under the lock would block on it at
/// once, and on a shared core need a second wake-up: ~5 us of each host
/// wait), so it must not depend on the waiter still being there.
struct HostWaiter : std::enable_shared_from_this<HostWaiter> {
  std::mutex mutex;
  std::condition_variable condition;
  size_t remaining = 0; // values still needed (1 for Any)
  size_t fired = 0;     // callbacks that ran
  bool done = false;
  Status failure;
};

void hostTimepointFired(Timepoint &timepoint, const Status &status) {
  // Taken before `fired` counts this callback: the waiter returns only
  // after that.
  std::shared_ptr<HostWaiter> waiter =
      static_cast<HostWaiter *>(timepoint.userData)->shared_from_this();
  {
    std::lock_guard<std::mutex> lock(waiter->mutex);
    ++waiter->fired;
    if (!status.ok()) {
      if (waiter->failure.ok())
        waiter->failure = status;
      waiter->done = true;
    } else if (waiter->remaining > 0 && --waiter->remaining == 0) {
      waiter->done = true;
    }
  }
  waiter->condition.notify_all();
}

std::string describePending(Span<const SemaphoreValue> semaphores) {
  std::string text;
  for (const SemaphoreValue &entry : semaphores) {
    if (entry.semaphore->reachedOrFailed(entry.value))
      continue;
    if (!text.empty())
      text += ", ";
    auto value = entry.semaphore->query();
    text += concat(entry.semaphore->describe(), " at ",
                   value.ok() ? *value : 0, " (waiting for ", entry.value,
                   ")");
  }
  return text;
}

void recordHostWait(uint64_t start, Span<const SemaphoreValue> semaphores,
                    bool failed) {
  Tracer *tracer = Tracer::active();
  if (!tracer)
    return;
  TraceSlice slice;
  slice.id = tracer->newSliceId();
  slice.track = tracer->hostTrack();
  slice.name = "wait";
  slice.startNanoseconds = start;
  slice.endNanoseconds = monotonicNanoseconds();
  slice.failed = failed;
  for (const SemaphoreValue &entry : semaphores)
    if (uint64_t from = entry.semaphore->lastSignalerSlice())
      tracer->addFlow(from, slice.id);
  tracer->addSlice(std::move(slice));
}

} // namespace

Status waitSemaphores(WaitMode mode, Span<const SemaphoreValue> semaphores,
                      Timeout timeout) {
  // Fast path: decide without blocking. A traced run still gets a (short)
  // slice: the host synchronized with the devices even if nothing was left
  // to wait for.
  auto noteUnblocked = [&](bool failed) {
    noteHostWait(false, 0);
    if (Tracer::active())
      recordHostWait(monotonicNanoseconds(), semaphores, failed);
  };
  size_t reached = 0;
  for (const SemaphoreValue &entry : semaphores) {
    if (!entry.semaphore->reachedOrFailed(entry.value))
      continue;
    if (entry.semaphore->isFailed()) {
      noteUnblocked(true);
      return entry.semaphore->failureStatus();
    }
    ++reached;
  }
  if (reached == semaphores.size() || (mode == WaitMode::Any && reached > 0)) {
    noteUnblocked(false);
    return Status();
  }
  if (timeout.isImmediate() || timeout.expired()) {
    noteUnblocked(true);
    return makeStatus(StatusCode::DeadlineExceeded,
                      "wait timed out before ", describePending(semaphores),
                      " reached the value");
  }

  bool timing = timingEnabled();
  uint64_t start = timing ? monotonicNanoseconds() : 0;
  auto shared = std::make_shared<HostWaiter>();
  HostWaiter &waiter = *shared;
  std::vector<Timepoint> timepoints(semaphores.size());
  size_t enqueued = 0;
  {
    std::lock_guard<std::mutex> lock(waiter.mutex);
    waiter.remaining = mode == WaitMode::All ? semaphores.size() : 1;
  }
  for (size_t i = 0; i < semaphores.size(); ++i) {
    Timepoint &timepoint = timepoints[i];
    timepoint.value = semaphores[i].value;
    timepoint.callback = hostTimepointFired;
    timepoint.userData = &waiter;
    Status immediate;
    if (semaphores[i].semaphore->enqueueTimepoint(timepoint, immediate)) {
      ++enqueued;
      continue;
    }
    std::lock_guard<std::mutex> lock(waiter.mutex);
    if (!immediate.ok()) {
      if (waiter.failure.ok())
        waiter.failure = immediate;
      waiter.done = true;
    } else if (waiter.remaining > 0 && --waiter.remaining == 0) {
      waiter.done = true;
    }
  }

  {
    std::unique_lock<std::mutex> lock(waiter.mutex);
    if (timeout.isInfinite())
      waiter.condition.wait(lock, [&] { return waiter.done; });
    else
      waiter.condition.wait_until(lock, timeout.deadline(),
                                  [&] { return waiter.done; });
  }

  // Withdraw the timepoints that did not fire; wait (briefly, by condition
  // variable) for callbacks already taken by a signalling thread.
  size_t cancelled = 0;
  for (size_t i = 0; i < semaphores.size(); ++i)
    if (timepoints[i].semaphore &&
        semaphores[i].semaphore->cancelTimepoint(timepoints[i]))
      ++cancelled;
  Status result;
  bool done;
  {
    std::unique_lock<std::mutex> lock(waiter.mutex);
    waiter.condition.wait(lock,
                          [&] { return waiter.fired + cancelled == enqueued; });
    result = waiter.failure;
    done = waiter.done;
  }
  noteHostWait(true, timing ? monotonicNanoseconds() - start : 0);
  if (timing)
    recordHostWait(start, semaphores, !result.ok());
  if (!result.ok() || done)
    return result;
  return makeStatus(StatusCode::DeadlineExceeded, "wait timed out before ",
                    describePending(semaphores), " reached the value");
}

} // namespace fleet::runtime::hal
