//===- SemaphoreTest.cpp - timeline semaphores and host waits --------------===//

#include "TestUtil.h"

#include "fleet/runtime/hal/Semaphore.h"
#include "fleet/runtime/hal/Trace.h"

#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>

namespace fleet::runtime::hal {
namespace {
using namespace testing;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(SemaphoreTest, SignalRaisesPayload) {
  Ref<Semaphore> semaphore = Semaphore::create(2);
  EXPECT_EQ(*semaphore->query(), 2u);
  FLEET_EXPECT_OK(semaphore->signal(5));
  EXPECT_EQ(*semaphore->query(), 5u);
  EXPECT_TRUE(semaphore->reachedOrFailed(5));
  EXPECT_FALSE(semaphore->reachedOrFailed(6));
}

TEST(SemaphoreTest, PayloadMustIncrease) {
  Ref<Semaphore> semaphore = Semaphore::create(3);
  Status same = semaphore->signal(3);
  EXPECT_EQ(same.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(same.message(), "already 3"));
  EXPECT_EQ(semaphore->signal(1).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(semaphore->signal(Semaphore::kFailedValue).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(*semaphore->query(), 3u);
}

TEST(SemaphoreTest, WaitSeesValuesInOrder) {
  // A waiter for value v must wake only once the payload reached v, even
  // when signals arrive one by one from another thread.
  Ref<Semaphore> semaphore = Semaphore::create(0);
  std::atomic<uint64_t> published{0};
  std::thread signaller([&] {
    for (uint64_t v = 1; v <= 50; ++v) {
      published.store(v);
      (void)semaphore->signal(v);
    }
  });
  for (uint64_t v = 1; v <= 50; v += 7) {
    FLEET_EXPECT_OK(semaphore->wait(v, testTimeout()));
    EXPECT_GE(published.load(), v);
    EXPECT_GE(*semaphore->query(), v);
  }
  signaller.join();
}

TEST(SemaphoreTest, WaitTimesOut) {
  Ref<Semaphore> semaphore = Semaphore::create(0);
  auto start = Clock::now();
  Status status = semaphore->wait(1, Timeout::milliseconds(30));
  auto elapsed = Clock::now() - start;
  EXPECT_EQ(status.code(), StatusCode::DeadlineExceeded);
  EXPECT_TRUE(contains(status.message(), "waiting for 1"));
  EXPECT_GE(elapsed, milliseconds(30));
  EXPECT_LT(elapsed, milliseconds(5000));
}

TEST(SemaphoreTest, ImmediateTimeoutPolls) {
  Ref<Semaphore> semaphore = Semaphore::create(0);
  EXPECT_EQ(semaphore->wait(1, Timeout::immediate()).code(),
            StatusCode::DeadlineExceeded);
  FLEET_EXPECT_OK(semaphore->wait(0, Timeout::immediate()));
}

TEST(SemaphoreTest, BlockedWaitDoesNotSpin) {
  // The waiting thread sleeps on a condition variable: over 200 ms of
  // waiting it must use almost no CPU time.
  Ref<Semaphore> semaphore = Semaphore::create(0);
  double cpuMilliseconds = 0;
  std::thread waiter([&] {
    timespec before, after;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &before);
    FLEET_EXPECT_OK(semaphore->wait(1, testTimeout()));
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &after);
    cpuMilliseconds = (after.tv_sec - before.tv_sec) * 1e3 +
                      (after.tv_nsec - before.tv_nsec) / 1e6;
  });
  std::this_thread::sleep_for(milliseconds(200));
  FLEET_ASSERT_OK(semaphore->signal(1));
  waiter.join();
  EXPECT_LT(cpuMilliseconds, 50.0);
}

TEST(SemaphoreTest, FailureReachesEveryWaiter) {
  Ref<Semaphore> semaphore = Semaphore::create(0);
  constexpr int kWaiters = 6;
  std::vector<Status> results(kWaiters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWaiters; ++i)
    threads.emplace_back([&, i] {
      results[i] = semaphore->wait(uint64_t(i + 1), testTimeout());
    });
  std::this_thread::sleep_for(milliseconds(20));
  semaphore->fail(Status(StatusCode::DataLoss, "disk on fire"));
  for (std::thread &thread : threads)
    thread.join();
  for (const Status &status : results) {
    EXPECT_EQ(status.code(), StatusCode::DataLoss);
    EXPECT_EQ(status.message(), "disk on fire");
  }
  // Later waiters and queries see the same failure; signals are refused.
  EXPECT_EQ(semaphore->wait(100, testTimeout()).code(), StatusCode::DataLoss);
  EXPECT_EQ(semaphore->query().status().code(), StatusCode::DataLoss);
  EXPECT_EQ(semaphore->signal(7).code(), StatusCode::DataLoss);
  EXPECT_TRUE(semaphore->isFailed());
}

TEST(SemaphoreTest, FirstFailureSticks) {
  Ref<Semaphore> semaphore = Semaphore::create(0);
  semaphore->fail(Status(StatusCode::Aborted, "first"));
  semaphore->fail(Status(StatusCode::Internal, "second"));
  EXPECT_EQ(semaphore->failureStatus().message(), "first");
  // Failing with OK is itself a failure, never a silent success.
  Ref<Semaphore> other = Semaphore::create(0);
  other->fail(Status());
  EXPECT_EQ(other->failureStatus().code(), StatusCode::Unknown);
}

TEST(SemaphoreTest, TimepointsFireOnceAndCancel) {
  Ref<Semaphore> semaphore = Semaphore::create(0);
  struct Record {
    int fired = 0;
    std::thread::id thread;
  } record;
  Timepoint timepoint;
  timepoint.value = 2;
  timepoint.userData = &record;
  timepoint.callback = [](Timepoint &tp, const Status &status) {
    auto &r = *static_cast<Record *>(tp.userData);
    ++r.fired;
    r.thread = std::this_thread::get_id();
    EXPECT_TRUE(status.ok());
  };
  Status immediate;
  ASSERT_TRUE(semaphore->enqueueTimepoint(timepoint, immediate));
  FLEET_ASSERT_OK(semaphore->signal(1));
  EXPECT_EQ(record.fired, 0);
  std::thread signaller([&] { (void)semaphore->signal(3); });
  std::thread::id signallerId = signaller.get_id();
  signaller.join();
  EXPECT_EQ(record.fired, 1);
  EXPECT_EQ(record.thread, signallerId);
  EXPECT_FALSE(semaphore->cancelTimepoint(timepoint));

  // A reached value is reported at once instead of enqueueing.
  Timepoint reached;
  reached.value = 3;
  EXPECT_FALSE(semaphore->enqueueTimepoint(reached, immediate));
  EXPECT_TRUE(immediate.ok());

  // Cancelled timepoints never fire.
  Timepoint cancelled = timepoint;
  cancelled.value = 10;
  ASSERT_TRUE(semaphore->enqueueTimepoint(cancelled, immediate));
  EXPECT_TRUE(semaphore->cancelTimepoint(cancelled));
  FLEET_ASSERT_OK(semaphore->signal(11));
  EXPECT_EQ(record.fired, 1);
}

TEST(SemaphoreTest, DeferredSignalPublishesBeforeWaitersRun) {
  // signalDeferred sets the payload at once; what waits on the value runs
  // only in fireSignalled (a device retires its op in between).
  Ref<Semaphore> semaphore = Semaphore::create(0);
  int fired = 0;
  Timepoint timepoint;
  timepoint.value = 2;
  timepoint.userData = &fired;
  timepoint.callback = [](Timepoint &tp, const Status &status) {
    ++*static_cast<int *>(tp.userData);
    EXPECT_TRUE(status.ok());
  };
  Status immediate;
  ASSERT_TRUE(semaphore->enqueueTimepoint(timepoint, immediate));
  StatusOr<Timepoint *> none = semaphore->signalDeferred(1);
  FLEET_ASSERT_OK(none.status());
  EXPECT_EQ(*none, nullptr);
  StatusOr<Timepoint *> satisfied = semaphore->signalDeferred(2);
  FLEET_ASSERT_OK(satisfied.status());
  EXPECT_EQ(*satisfied, &timepoint);
  EXPECT_EQ(*semaphore->query(), 2u);
  EXPECT_EQ(fired, 0);
  // A host wait for the published value returns without blocking.
  FLEET_EXPECT_OK(semaphore->wait(2, Timeout::immediate()));
  semaphore->fireSignalled(*satisfied);
  EXPECT_EQ(fired, 1);
  EXPECT_FALSE(semaphore->cancelTimepoint(timepoint));
  // Errors as signal()'s.
  EXPECT_EQ(semaphore->signalDeferred(2).status().code(),
            StatusCode::InvalidArgument);
}

TEST(SemaphoreTest, WaitAllAcrossDevices) {
  Ref<Device> a = makeDevice("local-sync");
  Ref<Device> b = makeDevice("local-task");
  Ref<Semaphore> sa = a->createSemaphore(0);
  Ref<Semaphore> sb = b->createSemaphore(0);
  EXPECT_EQ(sa->owner(), a.get());
  std::thread signaller([&] {
    std::this_thread::sleep_for(milliseconds(10));
    (void)sa->signal(1);
    std::this_thread::sleep_for(milliseconds(10));
    (void)sb->signal(4);
  });
  SemaphoreValue both[] = {{sa.get(), 1}, {sb.get(), 4}};
  FLEET_EXPECT_OK(waitSemaphores(WaitMode::All, both, testTimeout()));
  EXPECT_EQ(*sb->query(), 4u);
  signaller.join();
}

TEST(SemaphoreTest, WaitAnyReturnsOnFirst) {
  Ref<Device> a = makeDevice("local-sync");
  Ref<Device> b = makeDevice("local-task");
  Ref<Semaphore> sa = a->createSemaphore(0);
  Ref<Semaphore> sb = b->createSemaphore(0);
  std::thread signaller([&] {
    std::this_thread::sleep_for(milliseconds(10));
    (void)sb->signal(1);
  });
  SemaphoreValue either[] = {{sa.get(), 1}, {sb.get(), 1}};
  FLEET_EXPECT_OK(waitSemaphores(WaitMode::Any, either, testTimeout()));
  EXPECT_EQ(*sa->query(), 0u);
  signaller.join();
  // Nothing reaches 2: a bounded wait-any times out and names both.
  SemaphoreValue neither[] = {{sa.get(), 2}, {sb.get(), 2}};
  Status status =
      waitSemaphores(WaitMode::Any, neither, Timeout::milliseconds(20));
  EXPECT_EQ(status.code(), StatusCode::DeadlineExceeded);
  EXPECT_TRUE(contains(status.message(), a->name()));
  EXPECT_TRUE(contains(status.message(), b->name()));
}

TEST(SemaphoreTest, WaitAllEndsAtFirstFailure) {
  // One failed semaphore ends the wait even though the other never signals.
  Ref<Semaphore> never = Semaphore::create(0);
  Ref<Semaphore> failing = Semaphore::create(0);
  std::thread failer([&] {
    std::this_thread::sleep_for(milliseconds(10));
    failing->fail(Status(StatusCode::Aborted, "broken"));
  });
  SemaphoreValue both[] = {{never.get(), 1}, {failing.get(), 1}};
  auto start = Clock::now();
  Status status = waitSemaphores(WaitMode::All, both, testTimeout());
  EXPECT_LT(Clock::now() - start, milliseconds(10000));
  EXPECT_EQ(status.code(), StatusCode::Aborted);
  failer.join();
}

TEST(SemaphoreTest, HostWaitsAreCounted) {
  resetHostStatistics();
  Ref<Semaphore> semaphore = Semaphore::create(1);
  // Reached: decided without blocking.
  FLEET_EXPECT_OK(semaphore->wait(1, testTimeout()));
  // Never reached: blocks until the deadline.
  EXPECT_EQ(semaphore->wait(2, Timeout::milliseconds(10)).code(),
            StatusCode::DeadlineExceeded);
  HostStatistics statistics = hostStatistics();
  EXPECT_EQ(statistics.waits, 2u);
  EXPECT_EQ(statistics.blockedWaits, 1u);
}

} // namespace
} // namespace fleet::runtime::hal
