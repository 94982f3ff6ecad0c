//===- WorkerPool.cpp - worker threads of a local-task device --------------===//

#include "drivers/local/WorkerPool.h"

#include <pthread.h>

namespace fleet::runtime::hal::local {

WorkerPool::WorkerPool(const std::string &name, uint32_t threadCount)
    : state_(std::make_shared<State>()) {
  threads_.reserve(threadCount);
  for (uint32_t i = 0; i < threadCount; ++i)
    threads_.emplace_back(workerMain, state_, name + "/" + std::to_string(i));
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->condition.notify_all();
  for (std::thread &thread : threads_) {
    // The last reference to a device can drop on one of its own workers.
    if (thread.get_id() == std::this_thread::get_id())
      thread.detach();
    else
      thread.join();
  }
}

void WorkerPool::postMany(WorkItem *const *items, size_t count) {
  if (!count)
    return;
  // Once the items are visible a worker may run them to completion and drop
  // the last reference to the device owning this pool, so from then on only
  // a local reference to the shared state may be touched.
  std::shared_ptr<State> state = state_;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    for (size_t i = 0; i < count; ++i) {
      WorkItem *item = items[i];
      item->next = nullptr;
      if (state->tail)
        state->tail->next = item;
      else
        state->head = item;
      state->tail = item;
    }
  }
  if (count == 1)
    state->condition.notify_one();
  else
    state->condition.notify_all();
}

void WorkerPool::workerMain(std::shared_ptr<State> state, std::string name) {
  // Linux limits thread names to 15 characters; keep the tail (the index).
  std::string shortName =
      name.size() > 15 ? name.substr(name.size() - 15) : name;
  pthread_setname_np(pthread_self(), shortName.c_str());
  while (true) {
    WorkItem *item;
    {
      std::unique_lock<std::mutex> lock(state->mutex);
      state->condition.wait(lock,
                            [&] { return state->head || state->stopping; });
      // Drain before stopping: leftover dispatch helpers release their jobs.
      if (!state->head)
        return;
      item = state->head;
      state->head = item->next;
      if (!state->head)
        state->tail = nullptr;
    }
    item->run(item);
  }
}

} // namespace fleet::runtime::hal::local
