//===- LocalTaskDevice.cpp - the local-task driver -------------------------===//
//
// Each device owns `task_topology_group_count` worker threads. Submission only
// links the op into its queue (and arms it when it is the head), so the host
// never blocks. A ready op is posted to the workers; a dispatch is split into
// chunks of workgroups that the executing worker and helper items on the other
// workers claim from a shared counter. The executing worker only sleeps for
// chunks already claimed and running, never for a helper that has not started,
// so busy workers (e.g. running another queue's op) cannot deadlock it.
//
//===----------------------------------------------------------------------===//

#include "drivers/local/LocalDevice.h"
#include "drivers/local/LocalDriver.h"

#include <algorithm>
#include <condition_variable>

namespace fleet::runtime::hal::local {
namespace {

/// One dispatch shared by its workers. Reference counted: helper items that
/// run after the dispatch finished still touch the counters.
struct DispatchJob {
  struct Helper : WorkItem {
    DispatchJob *job = nullptr;
  };

  std::atomic<uint32_t> references{1};
  fleet_kernel_fn_t function = nullptr;
  /// Lives on the dispatching worker's stack: only read after claiming a
  /// chunk, which is impossible once the dispatch has finished.
  const fleet_kernel_state_t *state = nullptr;
  uint32_t countX = 1;
  uint32_t countY = 1;
  uint64_t total = 0;
  uint64_t chunk = 1;
  std::atomic<uint64_t> nextWorkgroup{0};
  std::atomic<uint64_t> completed{0};
  std::atomic<int32_t> error{0};
  std::atomic<uint64_t> failedWorkgroup{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::vector<Helper> helpers;

  void release() {
    if (references.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }

  /// Claims and runs chunks until none are left.
  void work() {
    while (true) {
      uint64_t begin = nextWorkgroup.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= total)
        return;
      uint64_t end = std::min(total, begin + chunk);
      for (uint64_t index = begin; index < end; ++index) {
        // After a failure the remaining workgroups are skipped, not run.
        if (error.load(std::memory_order_relaxed) != 0)
          break;
        uint32_t x = uint32_t(index % countX);
        uint32_t y = uint32_t(index / countX % countY);
        uint32_t z = uint32_t(index / countX / countY);
        if (int32_t result = function(state, x, y, z)) {
          int32_t expected = 0;
          if (error.compare_exchange_strong(expected, result))
            failedWorkgroup.store(index, std::memory_order_relaxed);
        }
      }
      fleet_kernel_store_fence();
      if (completed.fetch_add(end - begin, std::memory_order_acq_rel) +
              (end - begin) ==
          total) {
        std::lock_guard<std::mutex> lock(mutex);
        finished.notify_all();
      }
    }
  }

  static void runHelper(WorkItem *item) {
    DispatchJob *job = static_cast<Helper *>(item)->job;
    job->work();
    job->release();
  }
};

class LocalTaskDevice final : public LocalDevice {
public:
  explicit LocalTaskDevice(const DeviceOptions &options)
      : LocalDevice("local-task", options),
        workers_(name(), std::max<uint32_t>(1, options.workerCount),
                 options.pinWorkers ? options.cpuIds
                                    : std::vector<uint32_t>{},
                 options.pinWorkers) {}

protected:
  bool runsInline() const override { return false; }

  void schedule(PendingOp *op) override {
    op->workItem.op = op;
    op->workItem.run = [](WorkItem *item) {
      PendingOp *pending = static_cast<OpWorkItem *>(item)->op;
      pending->device().run(pending);
    };
    workers_.post(&op->workItem);
  }

  int32_t runWorkgroups(fleet_kernel_fn_t function,
                        const fleet_kernel_state_t &state,
                        uint64_t &failedWorkgroup) override {
    uint64_t total = uint64_t(state.workgroup_count[0]) *
                     state.workgroup_count[1] * state.workgroup_count[2];
    uint32_t workers = workers_.size();
    if (workers == 1 || total == 1) {
      uint64_t index = 0;
      for (uint32_t z = 0; z < state.workgroup_count[2]; ++z)
        for (uint32_t y = 0; y < state.workgroup_count[1]; ++y)
          for (uint32_t x = 0; x < state.workgroup_count[0]; ++x, ++index)
            if (int32_t result = function(&state, x, y, z)) {
              failedWorkgroup = index;
              return result;
            }
      return 0;
    }
    DispatchJob *job = new DispatchJob();
    job->function = function;
    job->state = &state;
    job->countX = state.workgroup_count[0];
    job->countY = state.workgroup_count[1];
    job->total = total;
    // A few chunks per worker balance uneven workgroups without paying an
    // atomic per tiny workgroup.
    job->chunk = std::max<uint64_t>(1, total / (uint64_t(workers) * 4));
    uint32_t helperCount =
        uint32_t(std::min<uint64_t>(workers - 1, total - 1));
    job->helpers.resize(helperCount);
    std::vector<WorkItem *> items(helperCount);
    job->references.fetch_add(helperCount, std::memory_order_relaxed);
    for (uint32_t i = 0; i < helperCount; ++i) {
      job->helpers[i].job = job;
      job->helpers[i].run = DispatchJob::runHelper;
      items[i] = &job->helpers[i];
    }
    workers_.postMany(items.data(), items.size());
    job->work();
    {
      std::unique_lock<std::mutex> lock(job->mutex);
      job->finished.wait(lock, [&] {
        return job->completed.load(std::memory_order_acquire) == job->total;
      });
    }
    int32_t result = job->error.load(std::memory_order_relaxed);
    failedWorkgroup = job->failedWorkgroup.load(std::memory_order_relaxed);
    job->release();
    return result;
  }

private:
  WorkerPool workers_;
};

} // namespace

Ref<Device> createLocalTaskDevice(const DeviceOptions &options) {
  return Ref<Device>::adopt(new LocalTaskDevice(options));
}

} // namespace fleet::runtime::hal::local
