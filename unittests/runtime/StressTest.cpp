//===- StressTest.cpp - random DAGs of queue ops over four devices ---------===//
//
// A fixed-seed generator builds random dependency graphs of fills, copies,
// updates, dispatches and barriers over cells (small buffers) spread over four
// devices of both drivers, and submits them in generation order. Each op waits
// for the ops its cells depend on (read-after-write, write-after-read,
// write-after-write) plus a few random earlier ops (and, signalling a queue's
// timeline, for its previous value), so every interleaving the
// devices choose must produce the result of running the ops one by one. All
// host waits are bounded: a deadlock fails the test instead of hanging it.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <map>
#include <random>

namespace fleet::runtime::hal {
namespace {
using namespace testing;

constexpr int kDevices = 4;
constexpr int kCells = 16;
constexpr uint32_t kWords = 16;

const char *const kDeviceUris[kDevices] = {
    "local-task?task_topology_group_count=2&queue_count=2",
    "local-sync",
    "local-task?discrete=true",
    "local-sync?queue_count=2",
};

/// Where an op signals: a fence of its own, or the next value of its queue's
/// timeline semaphore.
struct Point {
  Ref<Semaphore> semaphore;
  uint64_t value = 0;
  /// Index of the op in generation order (-1: a host gate).
  int op = -1;
};

struct StressHarness {
  Devices devices;
  Ref<Executable> executable = makeTestExecutable();
  std::vector<Ref<Buffer>> cells;
  std::vector<std::vector<uint32_t>> reference;
  // Dependency tracking per cell.
  std::vector<Point> lastWrite;
  std::vector<std::vector<Point>> readsSinceWrite;
  std::vector<Point> history;
  /// Per generated op: the ops it waits on.
  std::vector<std::vector<int>> waitedOps;
  int generated = 0;
  // One timeline per device queue.
  std::vector<std::vector<Ref<Semaphore>>> timelines;
  std::vector<std::vector<uint64_t>> timelineValues;
  std::mt19937 random;
  bool timelineSignals;

  StressHarness(uint32_t seed, bool useTimelines,
                std::vector<std::string> uris)
      : random(seed), timelineSignals(useTimelines) {
    devices = makeDevices(uris);
    for (int c = 0; c < kCells; ++c) {
      Device &owner = devices[c % kDevices];
      // Exportable so the discrete device and its peers can share cells.
      cells.push_back(makeHostBuffer(owner, kWords * 4,
                                     BufferUsage::SharingExport));
      reference.emplace_back(kWords, 0);
    }
    lastWrite.resize(kCells);
    readsSinceWrite.resize(kCells);
    for (int d = 0; d < kDevices; ++d) {
      timelines.emplace_back();
      timelineValues.emplace_back();
      for (uint32_t q = 0; q < devices[d].queueCount(); ++q) {
        timelines[d].push_back(devices[d].createSemaphore(0));
        timelineValues[d].push_back(0);
      }
    }
  }

  uint32_t pick(uint32_t bound) { return random() % bound; }

  Ref<Fence> waitFenceFor(const std::vector<int> &reads,
                          const std::vector<int> &writes) {
    Ref<Fence> fence = Fence::create();
    waitedOps.emplace_back();
    auto add = [&](const Point &point) {
      if (!point.semaphore)
        return;
      fence->insert(*point.semaphore, point.value);
      if (point.op >= 0)
        waitedOps.back().push_back(point.op);
    };
    for (int cell : reads)
      add(lastWrite[cell]);
    for (int cell : writes) {
      add(lastWrite[cell]);
      for (const Point &read : readsSinceWrite[cell])
        add(read);
    }
    // Random extra edges make the graph denser than the data needs.
    for (int extra = pick(3); extra > 0 && !history.empty(); --extra)
      add(history[pick(uint32_t(history.size()))]);
    return fence;
  }

  void record(const Point &signal, const std::vector<int> &reads,
              const std::vector<int> &writes) {
    for (int cell : reads)
      readsSinceWrite[cell].push_back(signal);
    for (int cell : writes) {
      lastWrite[cell] = signal;
      readsSinceWrite[cell].clear();
    }
    history.push_back(signal);
  }

  /// Generates and submits one op; returns false on a submission error.
  ::testing::AssertionResult step() {
    int d = int(pick(kDevices));
    Device &device = devices[d];
    uint32_t queue = pick(device.queueCount());
    QueueAffinity affinity = QueueAffinity(1) << queue;
    int kind = int(pick(5));
    int a = int(pick(kCells)), b = int(pick(kCells));
    std::vector<int> reads, writes;
    switch (kind) {
    case 0: // fill
    case 3: // update
      writes = {a};
      break;
    case 1: // copy a -> b
    case 2: // dispatch out(b) = in(a) + k
      reads = {a};
      writes = {b};
      break;
    default: // barrier
      break;
    }
    Ref<Fence> wait = waitFenceFor(reads, writes);
    Point signal;
    if (timelineSignals) {
      signal.semaphore = timelines[d][queue];
      // Queues are not in order: the op that signals value N of a timeline
      // waits for N - 1, so the payload only grows.
      if (uint64_t previous = timelineValues[d][queue])
        wait->insert(*signal.semaphore, previous);
      signal.value = ++timelineValues[d][queue];
    } else {
      signal.semaphore = device.createSemaphore(0);
      signal.value = 1;
    }
    signal.op = generated++;
    Ref<Fence> signalFence = Fence::createAt(*signal.semaphore, signal.value);

    Status status;
    uint32_t value = random();
    switch (kind) {
    case 0:
      status = device.queueFill(affinity, wait.get(), signalFence.get(),
                                *cells[a], 0, kWords * 4, value, 4);
      reference[a].assign(kWords, value);
      break;
    case 1:
      status = device.queueCopy(affinity, wait.get(), signalFence.get(),
                                *cells[a], 0, *cells[b], 0, kWords * 4);
      reference[b] = reference[a];
      break;
    case 2: {
      Ref<CommandBuffer> commands = recordAdd(
          device, *executable, BindingRef::of(*cells[a]),
          BindingRef::of(*cells[b]), kWords, value, 1 + pick(4));
      CommandBuffer *list[] = {commands.get()};
      status = device.queueExecute(affinity, wait.get(), signalFence.get(),
                                   list);
      std::vector<uint32_t> result = reference[a];
      for (uint32_t &word : result)
        word += value;
      reference[b] = result;
      break;
    }
    case 3: {
      std::vector<uint32_t> words(kWords);
      for (uint32_t &word : words)
        word = random();
      status = device.queueUpdate(affinity, wait.get(), signalFence.get(),
                                  words.data(), *cells[a], 0, kWords * 4);
      reference[a] = words;
      break;
    }
    default:
      status = device.queueBarrier(affinity, wait.get(), signalFence.get());
      break;
    }
    if (!status.ok())
      return ::testing::AssertionFailure() << status.toString();
    record(signal, reads, writes);
    return ::testing::AssertionSuccess();
  }

  /// Waits (bounded) for everything submitted and compares with the model.
  ::testing::AssertionResult drainAndCheck() {
    Ref<Fence> all = Fence::create();
    for (const Point &point : history)
      all->insert(*point.semaphore, point.value);
    Status status = all->wait(testTimeout());
    if (!status.ok())
      return ::testing::AssertionFailure() << status.toString();
    for (int c = 0; c < kCells; ++c) {
      std::vector<uint32_t> actual(kWords);
      Status read = cells[c]->read(0, actual.data(), kWords * 4);
      if (!read.ok())
        return ::testing::AssertionFailure() << read.toString();
      if (actual != reference[c])
        return ::testing::AssertionFailure() << "cell " << c << " differs";
    }
    history.clear();
    return ::testing::AssertionSuccess();
  }
};

TEST(StressTest, RandomDagsMatchSequentialReference) {
  StressHarness harness(/*seed=*/20240611, /*useTimelines=*/true,
                        std::vector<std::string>(kDeviceUris, kDeviceUris + kDevices));
  constexpr int kRounds = 25;
  constexpr int kOpsPerRound = 440;
  int submitted = 0;
  for (int round = 0; round < kRounds; ++round) {
    // Hold every op of the round behind a host gate half of the time, so
    // queues fill up before anything runs.
    Ref<Semaphore> gate = Semaphore::create(0);
    bool gated = round % 2 == 0;
    if (gated)
      harness.history.push_back(Point{gate, 1});
    for (int i = 0; i < kOpsPerRound; ++i, ++submitted)
      ASSERT_TRUE(harness.step()) << "round " << round << " op " << i;
    if (gated) {
      // The gate is in the history only as an extra edge target.
      FLEET_ASSERT_OK(gate->signal(1));
    }
    ASSERT_TRUE(harness.drainAndCheck()) << "round " << round;
  }
  EXPECT_GE(submitted, 10000);
  uint64_t executed = 0;
  for (int d = 0; d < kDevices; ++d) {
    FLEET_EXPECT_OK(harness.devices[d].waitIdle(testTimeout()));
    executed += harness.devices[d].statistics().queueOpsExecuted;
    EXPECT_EQ(harness.devices[d].statistics().queueOpsFailed, 0u);
  }
  EXPECT_EQ(executed, uint64_t(submitted));
}

TEST(StressTest, InjectedFailurePoisonsExactlyItsDependents) {
  // Fresh fences per op, so a failure reaches exactly the ops that depend on
  // the failed one, transitively (a shared timeline semaphore would poison
  // every later waiter of that timeline, by design).
  std::vector<std::string> uris = {
      "local-task?task_topology_group_count=2&fail_after=150", "local-sync",
      "local-task?discrete=true", "local-sync?queue_count=2"};
  StressHarness harness(/*seed=*/7, /*useTimelines=*/false, uris);
  constexpr int kOps = 2000;
  std::vector<bool> poisoned;
  uint64_t onFailingDevice = 0;
  for (int i = 0; i < kOps; ++i) {
    ASSERT_TRUE(harness.step());
    const Point &signal = harness.history.back();
    bool injected = signal.semaphore->owner() == &harness.devices[0] &&
                    ++onFailingDevice == 150;
    bool inherited = false;
    for (int op : harness.waitedOps[size_t(i)])
      inherited = inherited || poisoned[size_t(op)];
    poisoned.push_back(injected || inherited);
  }
  std::vector<Point> ops = harness.history;
  Ref<Fence> all = Fence::create();
  for (const Point &point : ops)
    all->insert(*point.semaphore, point.value);
  EXPECT_EQ(all->wait(testTimeout()).code(), StatusCode::Aborted);
  for (int d = 0; d < kDevices; ++d)
    FLEET_EXPECT_OK(harness.devices[d].waitIdle(testTimeout()));
  int failedOps = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    Status status = ops[i].semaphore->query().status();
    ASSERT_EQ(!status.ok(), bool(poisoned[i])) << "op " << i;
    if (status.ok())
      continue;
    ++failedOps;
    EXPECT_TRUE(
        contains(status.message(), "injected failure (fail_after=150)"));
  }
  EXPECT_GT(failedOps, 1);
  EXPECT_LT(failedOps, kOps);
}

} // namespace
} // namespace fleet::runtime::hal
