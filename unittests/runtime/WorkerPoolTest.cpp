//===- WorkerPoolTest.cpp - local-task workers and their CPUs -------------===//
//
// Workers are pinned: given CPUs, or the process's CPUs round robin over
// every pool, so two single-worker devices run on different cores (an
// unpinned worker woken by another device's busy worker waited on that
// core, and two-device pipelines ran one device at a time).
//
//===----------------------------------------------------------------------===//

#include "drivers/local/WorkerPool.h"

#include <gtest/gtest.h>

#include <future>
#include <pthread.h>
#include <sched.h>

namespace fleet::runtime::hal::local {
namespace {

/// The CPUs the worker running the item may use.
struct AffinityProbe : WorkItem {
  std::promise<std::vector<int>> cpus;
  AffinityProbe() {
    run = [](WorkItem *item) {
      cpu_set_t set;
      CPU_ZERO(&set);
      std::vector<int> allowed;
      if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
          if (CPU_ISSET(cpu, &set))
            allowed.push_back(cpu);
      static_cast<AffinityProbe *>(item)->cpus.set_value(allowed);
    };
  }
};

std::vector<int> workerCpus(WorkerPool &pool) {
  AffinityProbe probe;
  std::future<std::vector<int>> result = probe.cpus.get_future();
  pool.post(&probe);
  return result.get();
}

std::vector<int> processCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set))
        cpus.push_back(cpu);
  return cpus;
}

TEST(WorkerPoolTest, TwoPoolsGetDifferentCpus) {
  std::vector<int> process = processCpus();
  if (process.size() < 2)
    GTEST_SKIP() << "the process may use " << process.size() << " CPU";
  WorkerPool first("a", 1), second("b", 1);
  std::vector<int> a = workerCpus(first), b = workerCpus(second);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_NE(a[0], b[0]);
}

TEST(WorkerPoolTest, GivenCpusAndUnpinned) {
  std::vector<int> process = processCpus();
  ASSERT_FALSE(process.empty());
  WorkerPool given("given", 1, {uint32_t(process.back())});
  EXPECT_EQ(workerCpus(given), std::vector<int>{process.back()});
  WorkerPool floating("floating", 1, {}, /*pin=*/false);
  EXPECT_EQ(workerCpus(floating), process);
}

} // namespace
} // namespace fleet::runtime::hal::local
