//===- WorkerPool.cpp - worker threads of a local-task device --------------===//

#include "drivers/local/WorkerPool.h"

#include <atomic>

#include <pthread.h>
#include <sched.h>

namespace fleet::runtime::hal::local {
namespace {

/// The next CPU of the process's affinity mask, round robin over every
/// worker of the process, starting after the CPU the first caller runs on:
/// processes started side by side, which the OS spread over the CPUs, do
/// not all pin their first worker to CPU 0, and the first device's worker
/// does not start beside the host thread that created it (which goes on
/// submitting while that device starts work); -1 when the mask cannot be
/// read.
int nextProcessCpu() {
  static const std::vector<int> allowed = [] {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
          cpus.push_back(cpu);
    return cpus;
  }();
  static std::atomic<uint32_t> next{[] {
    int current = sched_getcpu();
    for (size_t i = 0; i < allowed.size(); ++i)
      if (allowed[i] == current)
        return uint32_t(i + 1);
    return 0u;
  }()};
  if (allowed.empty())
    return -1;
  return allowed[next.fetch_add(1, std::memory_order_relaxed) %
                 allowed.size()];
}

} // namespace

WorkerPool::WorkerPool(const std::string &name, uint32_t threadCount,
                       const std::vector<uint32_t> &cpuIds, bool pin)
    : state_(std::make_shared<State>()) {
  threads_.reserve(threadCount);
  for (uint32_t i = 0; i < threadCount; ++i) {
    int cpu = -1;
    if (pin)
      cpu = cpuIds.empty() ? nextProcessCpu()
                           : int(cpuIds[i % cpuIds.size()]);
    threads_.emplace_back(workerMain, state_, name + "/" + std::to_string(i),
                          cpu);
  }
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

void WorkerPool::workerMain(std::shared_ptr<State> state, std::string name,
                            int cpu) {
  // Linux limits thread names to 15 characters; keep the tail (the index).
  std::string shortName =
      name.size() > 15 ? name.substr(name.size() - 15) : name;
  pthread_setname_np(pthread_self(), shortName.c_str());
  if (cpu >= 0 && cpu < CPU_SETSIZE) {
    // Best effort: a CPU outside the process's mask (or offline) leaves the
    // thread unpinned.
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }
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
