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
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (size_t i = 0; i < count; ++i) {
      WorkItem *item = items[i];
      item->next = nullptr;
      if (state_->tail)
        state_->tail->next = item;
      else
        state_->head = item;
      state_->tail = item;
    }
  }
  if (count == 1)
    state_->condition.notify_one();
  else
    state_->condition.notify_all();
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
