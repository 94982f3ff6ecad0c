//===- WorkerPool.h - worker threads of a local-task device -------*- C++ -*-===//
//
// A fixed set of threads draining one FIFO of work items, sleeping on a
// condition variable when it is empty (no spinning). Items are intrusive so
// posting does not allocate. Each thread is pinned to one CPU (given, or the
// next of the process's affinity mask, round robin over every pool of the
// process): Linux queues a woken thread on the waker's CPU first, so an
// unpinned worker woken by another device's busy worker waited for that
// worker to sleep (pipelines ran one device at a time).
//
// Ownership: owned by its device. The shared state lives as long as the last
// thread, so the pool may be destroyed from one of its own threads (the thread
// is then detached and exits after its current item).
// Thread safety: post() may race with everything, including the destruction
// its own items cause (the last op of a device may drop the device).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_DRIVERS_LOCAL_WORKERPOOL_H
#define FLEET_RUNTIME_SRC_DRIVERS_LOCAL_WORKERPOOL_H

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fleet::runtime::hal::local {

struct WorkItem {
  WorkItem *next = nullptr;
  void (*run)(WorkItem *item) = nullptr;
};

class WorkerPool {
public:
  /// `cpuIds`: thread i runs on cpuIds[i % size]; empty: the next CPUs of
  /// the process's affinity mask. `pin` false: threads are not pinned.
  WorkerPool(const std::string &name, uint32_t threadCount,
             const std::vector<uint32_t> &cpuIds = {}, bool pin = true);
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  void post(WorkItem *item) { postMany(&item, 1); }
  void postMany(WorkItem *const *items, size_t count);
  uint32_t size() const { return uint32_t(threads_.size()); }

private:
  struct State {
    std::mutex mutex;
    std::condition_variable condition;
    WorkItem *head = nullptr;
    WorkItem *tail = nullptr;
    bool stopping = false;
  };
  static void workerMain(std::shared_ptr<State> state, std::string name,
                         int cpu);

  std::shared_ptr<State> state_;
  std::vector<std::thread> threads_;
};

} // namespace fleet::runtime::hal::local

#endif // FLEET_RUNTIME_SRC_DRIVERS_LOCAL_WORKERPOOL_H
