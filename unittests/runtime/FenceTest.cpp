//===- FenceTest.cpp - fences: join, signal, fail, wait, query -------------===//

#include "TestUtil.h"

#include <thread>

namespace fleet::runtime::hal {
namespace {
using namespace testing;

TEST(FenceTest, EmptyFenceIsReached) {
  Ref<Fence> fence = Fence::create();
  EXPECT_TRUE(fence->empty());
  FLEET_EXPECT_OK(fence->query());
  FLEET_EXPECT_OK(fence->wait(Timeout::immediate()));
  FLEET_EXPECT_OK(fence->signal());
}

TEST(FenceTest, QueryIsDeferredUntilSignalled) {
  Ref<Device> device = makeDevice("local-sync");
  Ref<Fence> fence = device->createFence();
  ASSERT_EQ(fence->entries().size(), 1u);
  EXPECT_EQ(fence->entries()[0].value, 1u);
  // hal.fence.query: the deferred status (17) while pending, then OK.
  EXPECT_EQ(fence->query().code(), StatusCode::Deferred);
  EXPECT_EQ(int(fence->query().code()), 17);
  FLEET_ASSERT_OK(fence->signal());
  FLEET_EXPECT_OK(fence->query());
  FLEET_EXPECT_OK(fence->wait(Timeout::immediate()));
}

TEST(FenceTest, JoinKeepsLargestValuePerSemaphore) {
  Ref<Semaphore> s = Semaphore::create(0);
  Ref<Semaphore> t = Semaphore::create(0);
  Ref<Fence> a = Fence::createAt(*s, 1);
  Ref<Fence> b = Fence::createAt(*s, 3);
  Ref<Fence> c = Fence::createAt(*t, 2);
  Fence *inputs[] = {a.get(), nullptr, b.get(), c.get()};
  Ref<Fence> joined = Fence::join(inputs);
  ASSERT_EQ(joined->entries().size(), 2u);
  EXPECT_EQ(joined->entries()[0].semaphore.get(), s.get());
  EXPECT_EQ(joined->entries()[0].value, 3u);
  EXPECT_EQ(joined->entries()[1].value, 2u);
  // Reached only when every input is.
  FLEET_ASSERT_OK(s->signal(3));
  EXPECT_EQ(joined->query().code(), StatusCode::Deferred);
  FLEET_ASSERT_OK(t->signal(2));
  FLEET_EXPECT_OK(joined->query());
}

TEST(FenceTest, SignalRunsItsStepBeforeAnyWaiter) {
  // signal(beforeWaiters): every value is set when the step runs, and no
  // timepoint has fired yet.
  Ref<Semaphore> s = Semaphore::create(0);
  Ref<Semaphore> t = Semaphore::create(0);
  Ref<Fence> fence = Fence::createAt(*s, 1);
  Ref<Fence> other = Fence::createAt(*t, 2);
  Fence *both[] = {fence.get(), other.get()};
  fence = Fence::join(both);
  int fired = 0;
  Timepoint timepoints[2];
  for (int i = 0; i < 2; ++i) {
    timepoints[i].value = uint64_t(i + 1);
    timepoints[i].userData = &fired;
    timepoints[i].callback = [](Timepoint &tp, const Status &) {
      ++*static_cast<int *>(tp.userData);
    };
    Status immediate;
    ASSERT_TRUE((i ? t : s)->enqueueTimepoint(timepoints[i], immediate));
  }
  bool ran = false;
  FLEET_ASSERT_OK(fence->signal([&] {
    ran = true;
    EXPECT_TRUE(s->reachedOrFailed(1));
    EXPECT_TRUE(t->reachedOrFailed(2));
    EXPECT_EQ(fired, 0);
  }));
  EXPECT_TRUE(ran);
  EXPECT_EQ(fired, 2);
  // A value that does not rise is the first error; the step still runs.
  ran = false;
  EXPECT_EQ(fence->signal([&] { ran = true; }).code(),
            StatusCode::InvalidArgument);
  EXPECT_TRUE(ran);
}

TEST(FenceTest, SignalAndWaitFromAnotherThread) {
  Ref<Semaphore> s = Semaphore::create(0);
  Ref<Semaphore> t = Semaphore::create(5);
  Ref<Fence> fence = Fence::createAt(*s, 2);
  fence->insert(*t, 6);
  std::thread signaller([&] { (void)fence->signal(); });
  FLEET_EXPECT_OK(fence->wait(testTimeout()));
  signaller.join();
  EXPECT_EQ(*s->query(), 2u);
  EXPECT_EQ(*t->query(), 6u);
  // Signalling again cannot lower or repeat a value: an error, not silence.
  EXPECT_EQ(fence->signal().code(), StatusCode::InvalidArgument);
}

TEST(FenceTest, FailureIsQueriedAndAwaited) {
  Ref<Semaphore> s = Semaphore::create(0);
  Ref<Semaphore> t = Semaphore::create(0);
  Ref<Fence> fence = Fence::createAt(*s, 1);
  fence->insert(*t, 1);
  fence->fail(Status(StatusCode::Cancelled, "user gave up"));
  EXPECT_TRUE(s->isFailed());
  EXPECT_TRUE(t->isFailed());
  EXPECT_EQ(fence->query().code(), StatusCode::Cancelled);
  Status awaited = fence->wait(testTimeout());
  EXPECT_EQ(awaited.code(), StatusCode::Cancelled);
  EXPECT_EQ(awaited.message(), "user gave up");
}

TEST(FenceTest, WaitFencesIsBounded) {
  Ref<Semaphore> s = Semaphore::create(0);
  Ref<Fence> reached = Fence::create();
  Ref<Fence> pending = Fence::createAt(*s, 1);
  Fence *fences[] = {reached.get(), pending.get()};
  EXPECT_EQ(waitFences(fences, Timeout::milliseconds(10)).code(),
            StatusCode::DeadlineExceeded);
  FLEET_ASSERT_OK(s->signal(1));
  FLEET_EXPECT_OK(waitFences(fences, Timeout::milliseconds(10)));
}

} // namespace
} // namespace fleet::runtime::hal
