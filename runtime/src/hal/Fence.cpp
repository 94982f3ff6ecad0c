//===- Fence.cpp - sets of timeline points ---------------------------------===//

#include "fleet/runtime/hal/Fence.h"

#include <algorithm>

namespace fleet::runtime::hal {

Ref<Fence> Fence::create() { return Ref<Fence>::adopt(new Fence()); }

Ref<Fence> Fence::createAt(Semaphore &semaphore, uint64_t value) {
  Ref<Fence> fence = create();
  fence->entries_.push_back(FenceEntry{Ref<Semaphore>(&semaphore), value});
  return fence;
}

Ref<Fence> Fence::join(Span<Fence *const> fences) {
  Ref<Fence> joined = create();
  for (Fence *fence : fences) {
    if (!fence)
      continue;
    for (const FenceEntry &entry : fence->entries_)
      joined->insert(*entry.semaphore, entry.value);
  }
  return joined;
}

void Fence::insert(Semaphore &semaphore, uint64_t value) {
  // One entry per semaphore: waiting for the larger value covers the smaller.
  for (FenceEntry &entry : entries_) {
    if (entry.semaphore.get() == &semaphore) {
      if (value > entry.value)
        entry.value = value;
      return;
    }
  }
  entries_.push_back(FenceEntry{Ref<Semaphore>(&semaphore), value});
}

uint64_t Fence::lastSignalerSlice() const {
  uint64_t slice = 0;
  for (const FenceEntry &entry : entries_)
    slice = std::max(slice, entry.semaphore->lastSignalerSlice());
  return slice;
}

void Fence::setLastSignalerSlice(uint64_t slice) {
  if (slice)
    for (const FenceEntry &entry : entries_)
      entry.semaphore->setLastSignalerSlice(slice);
}

bool Fence::reachedOrFailed() const {
  for (const FenceEntry &entry : entries_)
    if (!entry.semaphore->reachedOrFailed(entry.value))
      return false;
  return true;
}

Status Fence::signal(const std::function<void()> &beforeWaiters) {
  Status first;
  DeferredSignals signals;
  for (const FenceEntry &entry : entries_) {
    Status status = signals.add(*entry.semaphore, entry.value);
    if (!status.ok() && first.ok())
      first = status.withContext("hal.fence.signal");
  }
  if (beforeWaiters)
    beforeWaiters();
  signals.fire();
  return first;
}

void Fence::fail(const Status &status) {
  for (const FenceEntry &entry : entries_)
    entry.semaphore->fail(status);
}

Status Fence::wait(Timeout timeout) const {
  Fence *self = const_cast<Fence *>(this);
  return waitFences(Span<Fence *const>(&self, 1), timeout);
}

Status Fence::query() const {
  bool pending = false;
  for (const FenceEntry &entry : entries_) {
    if (!entry.semaphore->reachedOrFailed(entry.value)) {
      pending = true;
      continue;
    }
    if (entry.semaphore->isFailed())
      return entry.semaphore->failureStatus();
  }
  if (pending)
    return Status(StatusCode::Deferred, "fence not yet reached");
  return Status();
}

std::string Fence::describe() const {
  std::string text = "fence [";
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (i)
      text += ", ";
    text += concat(entries_[i].semaphore->describe(), " = ",
                   entries_[i].value);
  }
  return text + "]";
}

Status waitFences(Span<Fence *const> fences, Timeout timeout) {
  // Most waits name one or two semaphores: keep them on the stack.
  constexpr size_t kInline = 8;
  SemaphoreValue inlineEntries[kInline];
  std::vector<SemaphoreValue> heapEntries;
  size_t count = 0;
  for (Fence *fence : fences)
    if (fence)
      count += fence->entries().size();
  SemaphoreValue *entries = inlineEntries;
  if (count > kInline) {
    heapEntries.resize(count);
    entries = heapEntries.data();
  }
  size_t i = 0;
  for (Fence *fence : fences)
    if (fence)
      for (const FenceEntry &entry : fence->entries())
        entries[i++] = SemaphoreValue{entry.semaphore.get(), entry.value};
  return waitSemaphores(WaitMode::All,
                        Span<const SemaphoreValue>(entries, count), timeout);
}

} // namespace fleet::runtime::hal
