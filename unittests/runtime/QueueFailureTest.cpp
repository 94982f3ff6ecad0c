//===- QueueFailureTest.cpp - failures reach every waiter ------------------===//

#include "TestUtil.h"

#include <thread>

namespace fleet::runtime::hal {
namespace {
using namespace testing;

class QueueFailureTest : public ::testing::TestWithParam<const char *> {};

TEST_P(QueueFailureTest, FailAfterFailsExactlyTheNthOp) {
  Ref<Device> device =
      makeDevice(std::string(GetParam()) + "?fail_after=3&name=flaky");
  Ref<Buffer> buffer = makeHostBuffer(*device, 4);
  std::vector<Ref<Fence>> fences;
  for (uint32_t i = 1; i <= 5; ++i) {
    fences.push_back(device->createFence());
    FLEET_ASSERT_OK(device->queueFill(1, nullptr, fences.back().get(), *buffer,
                                      0, 4, i, 4));
  }
  for (uint32_t i = 1; i <= 5; ++i) {
    Status status = fences[i - 1]->wait(testTimeout());
    if (i != 3) {
      FLEET_EXPECT_OK(status);
      continue;
    }
    EXPECT_EQ(status.code(), StatusCode::Aborted);
    EXPECT_EQ(status.message(), "hal.device.queue.fill on device 'flaky' "
                                "failed: injected failure (fail_after=3)");
  }
  EXPECT_EQ(readWords(*buffer)[0], 5u);
  DeviceStatistics statistics = device->statistics();
  EXPECT_EQ(statistics.queueOpsExecuted, 5u);
  EXPECT_EQ(statistics.queueOpsFailed, 1u);
}

TEST_P(QueueFailureTest, FailedWaitCancelsTheOtherWaits) {
  // One failed wait decides the op at once, though its other wait is never
  // signalled.
  Ref<Device> device = makeDevice(GetParam());
  Ref<Semaphore> never = Semaphore::create(0);
  Ref<Semaphore> failing = Semaphore::create(0);
  Ref<Fence> wait = Fence::createAt(*never, 1);
  wait->insert(*failing, 1);
  Ref<Fence> done = device->createFence();
  FLEET_ASSERT_OK(device->queueBarrier(1, wait.get(), done.get()));
  std::thread failer([&] {
    failing->fail(Status(StatusCode::Unavailable, "link down"));
  });
  failer.join();
  Status status = done->wait(testTimeout());
  EXPECT_EQ(status.code(), StatusCode::Unavailable);
  EXPECT_TRUE(contains(status.message(),
                       "hal.device.queue.barrier on device '" +
                           device->name() +
                           "' did not run: its wait fence failed: link down"));
  // The withdrawn timepoint is gone: signalling later touches nothing.
  FLEET_EXPECT_OK(never->signal(1));
  FLEET_EXPECT_OK(device->waitIdle(testTimeout()));
}

TEST_P(QueueFailureTest, KernelErrorsFailTheSignalFence) {
  Ref<Device> device = makeDevice(std::string(GetParam()) + "?name=dev");
  Ref<Executable> executable = makeTestExecutable();
  Ref<Buffer> buffer = makeHostBuffer(*device, 16);
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<CommandBuffer> commands,
      CommandBuffer::create(*device, CommandBufferMode::OneShot,
                            CommandCategory::Dispatch, 1));
  uint32_t counts[3] = {2, 3, 1};
  uint32_t constants[] = {1};
  BindingRef bindings[] = {BindingRef::of(*buffer)};
  FLEET_ASSERT_OK(
      commands->dispatch(*executable, 1, counts, constants, bindings));
  FLEET_ASSERT_OK(commands->finalize());
  CommandBuffer *list[] = {commands.get()};
  Ref<Fence> done = device->createFence();
  FLEET_ASSERT_OK(device->queueExecute(1, nullptr, done.get(), list));
  Status status = done->wait(testTimeout());
  EXPECT_EQ(status.code(), StatusCode::Internal);
  EXPECT_TRUE(contains(status.message(),
                       "hal.command_buffer.dispatch of 'failing' (executable "
                       "'test_kernels') on device 'dev' failed: kernel "
                       "returned 7 at workgroup (1, "));
}

INSTANTIATE_TEST_SUITE_P(LocalDrivers, QueueFailureTest,
                         ::testing::Values("local-sync", "local-task"),
                         [](const auto &info) {
                           return std::string(info.param) == "local-sync"
                                      ? "sync"
                                      : "task";
                         });

TEST(QueueFailureTest, FailurePropagatesAcrossThreeDevices) {
  Devices d = makeDevices({"local-task?fail_after=1&name=first",
                           "local-sync?name=second", "local-task?name=third"});
  Ref<Buffer> a = makeHostBuffer(d[0], 64);
  Ref<Buffer> b = makeHostBuffer(d[1], 64);
  Ref<Buffer> c = makeHostBuffer(d[2], 64);
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> onFirst = d[0].createFence();
  Ref<Fence> onSecond = d[1].createFence();
  Ref<Fence> onThird = d[2].createFence();
  FLEET_ASSERT_OK(
      d[0].queueFill(1, gate.get(), onFirst.get(), *a, 0, 64, 1, 1));
  FLEET_ASSERT_OK(
      d[1].queueCopy(1, onFirst.get(), onSecond.get(), *a, 0, *b, 0, 64));
  FLEET_ASSERT_OK(
      d[2].queueCopy(1, onSecond.get(), onThird.get(), *b, 0, *c, 0, 64));
  FLEET_ASSERT_OK(gate->signal());
  Status status = onThird->wait(testTimeout());
  EXPECT_EQ(status.code(), StatusCode::Aborted);
  EXPECT_EQ(status.message(),
            "hal.device.queue.copy on device 'third' did not run: its wait "
            "fence failed: hal.device.queue.copy on device 'second' did not "
            "run: its wait fence failed: hal.device.queue.fill on device "
            "'first' failed: injected failure (fail_after=1)");
  // Every waiter on the chain sees a failure, and nothing was written.
  EXPECT_EQ(onFirst->query().code(), StatusCode::Aborted);
  EXPECT_EQ(onSecond->query().code(), StatusCode::Aborted);
  EXPECT_EQ(readAll(*c), std::vector<uint8_t>(64, 0));
  // A failure is not sticky: the devices keep working.
  Ref<Fence> later = d[1].createFence();
  FLEET_ASSERT_OK(
      d[1].queueCopy(1, nullptr, later.get(), *a, 0, *b, 0, 64));
  FLEET_EXPECT_OK(later->wait(testTimeout()));
}

TEST(QueueFailureTest, RejectedSubmissionFailsWaitersOnOtherDevices) {
  Devices d = makeDevices({"local-task?name=producer",
                           "local-task?name=consumer"});
  Ref<Buffer> buffer = makeHostBuffer(d[0], 16);
  Ref<Fence> produced = d[0].createFence();
  Ref<Fence> consumed = d[1].createFence();
  FLEET_ASSERT_OK(d[1].queueBarrier(1, produced.get(), consumed.get()));
  // Out of range: refused at submission, and the refusal fails `produced`.
  Status refused =
      d[0].queueFill(1, nullptr, produced.get(), *buffer, 0, 32, 0, 1);
  EXPECT_EQ(refused.code(), StatusCode::OutOfRange);
  Status status = consumed->wait(testTimeout());
  EXPECT_EQ(status.code(), StatusCode::OutOfRange);
  EXPECT_TRUE(contains(status.message(), "on device 'consumer' did not run"));
  EXPECT_TRUE(contains(status.message(),
                       "hal.device.queue.fill on device 'producer': target "
                       "range [0, 32) exceeds"));
}

} // namespace
} // namespace fleet::runtime::hal
