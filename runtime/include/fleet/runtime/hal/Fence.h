//===- Fence.h - sets of timeline points -------------------------*- C++ -*-===//
//
// A fence is a set of (semaphore, value) pairs (docs/design.md §4). It is
// reached when every semaphore reaches its value, and failed as soon as one of
// them fails. Queue ops wait on one fence and signal another; `hal.fence.*` ops
// of the host program map to the methods below.
//
// Ownership: Fence::create* / join / Device::createFence return the first
// reference; a fence retains its semaphores. Queue ops retain the fences they
// are given.
// Thread safety: a fence's entry list may only be changed (insert) before it
// is handed to a queue op or another thread; signal/fail/wait/query may then
// race freely (they act on the semaphores, which are thread-safe).
// Failure behaviour: insert of a second value for the same semaphore keeps
// the larger one; signal() returns the first semaphore error; wait() returns
// OK, the failure status, or DeadlineExceeded; query() returns OK, Deferred
// (not yet reached) or the failure status.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_FENCE_H
#define FLEET_RUNTIME_HAL_FENCE_H

#include "fleet/runtime/hal/InlineVector.h"
#include "fleet/runtime/hal/Semaphore.h"

#include <functional>

namespace fleet::runtime::hal {

struct FenceEntry {
  Ref<Semaphore> semaphore;
  uint64_t value;
};

class Fence final : public RefCounted {
public:
  /// An empty fence: reached from the start (waiting on it never blocks,
  /// signalling it does nothing).
  static Ref<Fence> create();
  static Ref<Fence> createAt(Semaphore &semaphore, uint64_t value);
  /// `hal.fence.join`: reached when every input is. Null inputs are skipped.
  static Ref<Fence> join(Span<Fence *const> fences);

  void insert(Semaphore &semaphore, uint64_t value);

  Span<const FenceEntry> entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

  /// True when every entry is reached (or one failed). Lock-free.
  bool reachedOrFailed() const;
  /// The trace slice that last signalled one of its semaphores (the
  /// largest id; 0 when untraced). Tracing only.
  uint64_t lastSignalerSlice() const;
  /// Names `slice` (0: none, nothing changes) as the last signaller of
  /// every semaphore, for the arrows of what waits on them. Tracing only.
  void setLastSignalerSlice(uint64_t slice);

  /// `hal.fence.signal`: signals every semaphore to its value.
  Status signal() { return signal({}); }
  /// signal(), running `beforeWaiters` once every value is set and before
  /// anything waiting on them runs (Semaphore::signalDeferred): a device
  /// retires the op there, so a host thread woken by a value and then
  /// waiting for idle does not block again.
  Status signal(const std::function<void()> &beforeWaiters);
  /// `hal.fence.fail`: fails every semaphore.
  void fail(const Status &status);
  /// `hal.fence.await` on one fence.
  Status wait(Timeout timeout) const;
  /// `hal.fence.query`: OK, Deferred or the failure.
  Status query() const;

  std::string describe() const;

private:
  Fence() = default;
  /// Most fences name one or two semaphores: no heap allocation then.
  InlineVector<FenceEntry, 2> entries_;
};

/// `hal.fence.await until([...])`: waits until every fence is reached.
/// Null fences are skipped.
Status waitFences(Span<Fence *const> fences, Timeout timeout);

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_FENCE_H
