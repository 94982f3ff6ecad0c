//===- QueueTest.cpp - queue operations on both local drivers --------------===//

#include "TestUtil.h"

#include "fleet/runtime/hal/Trace.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

namespace fleet::runtime::hal {
namespace {
using namespace testing;

/// Runs each test on local-sync and on local-task.
class QueueTest : public ::testing::TestWithParam<const char *> {
protected:
  std::string uri(const std::string &parameters = "") const {
    return std::string(GetParam()) +
           (parameters.empty() ? "" : "?" + parameters);
  }
};

TEST_P(QueueTest, OpsOnOneQueueWaitOnlyForTheirFences) {
  Ref<Device> device = makeDevice(uri());
  Ref<Buffer> gated = makeHostBuffer(*device, 4);
  Ref<Buffer> free = makeHostBuffer(*device, 4);
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> first = device->createFence();
  Ref<Fence> last = device->createFence();
  // The first op waits on the host. The later ones, on the same queue, wait
  // on nothing: queues are not in order, so they run without it (issue 34).
  uint32_t one = 1;
  FLEET_ASSERT_OK(device->queueUpdate(kQueueAffinityAny, gate.get(),
                                      first.get(), &one, *gated, 0, 4));
  Ref<Fence> previous;
  for (uint32_t value = 2; value <= 100; ++value) {
    // Chained by fences, the later ones still run one after another.
    Ref<Fence> done = value == 100 ? last : device->createFence();
    FLEET_ASSERT_OK(device->queueUpdate(kQueueAffinityAny, previous.get(),
                                        done.get(), &value, *free, 0, 4));
    previous = done;
  }
  FLEET_ASSERT_OK(last->wait(testTimeout()));
  EXPECT_EQ(readWords(*free)[0], 100u);
  EXPECT_EQ(first->wait(Timeout::immediate()).code(),
            StatusCode::DeadlineExceeded);
  EXPECT_EQ(readWords(*gated)[0], 0u);
  FLEET_ASSERT_OK(gate->signal());
  FLEET_ASSERT_OK(first->wait(testTimeout()));
  EXPECT_EQ(readWords(*gated)[0], 1u);
  FLEET_EXPECT_OK(device->waitIdle(testTimeout()));
  EXPECT_EQ(device->statistics().queueOpsExecuted, 100u);
}

TEST_P(QueueTest, FencesOrderOpsAcrossQueues) {
  Ref<Device> device = makeDevice(uri("queue_count=2"));
  Ref<Buffer> buffer = makeHostBuffer(*device, 4);
  Ref<Fence> written = device->createFence();
  Ref<Fence> done = device->createFence();
  // Submitted first on queue 1, but waits for the op submitted later on
  // queue 0; the queues are independent, so this cannot deadlock.
  FLEET_ASSERT_OK(device->queueFill(0b10, written.get(), done.get(), *buffer,
                                    0, 4, 0x22222222, 4));
  FLEET_ASSERT_OK(device->queueFill(0b01, nullptr, written.get(), *buffer, 0,
                                    4, 0x11111111, 4));
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  EXPECT_EQ(readWords(*buffer)[0], 0x22222222u);
}

TEST_P(QueueTest, CopyFillUpdateAndBarrier) {
  Ref<Device> device = makeDevice(uri());
  Ref<Buffer> a = makeHostBuffer(*device, 16);
  Ref<Buffer> b = makeHostBuffer(*device, 16);
  Ref<Fence> done = device->createFence();
  std::vector<uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7, 8};
  // Queues are not in order: each op waits for the one before it.
  Ref<Fence> step[4] = {device->createFence(), device->createFence(),
                        device->createFence(), device->createFence()};
  FLEET_ASSERT_OK(
      device->queueFill(1, nullptr, step[0].get(), *a, 0, 16, 0xABCD, 2));
  FLEET_ASSERT_OK(device->queueUpdate(1, step[0].get(), step[1].get(),
                                      bytes.data(), *a, 4, 8));
  bytes.assign(8, 0); // captured at submission: this must not show
  FLEET_ASSERT_OK(
      device->queueCopy(1, step[1].get(), step[2].get(), *a, 2, *b, 0, 12));
  FLEET_ASSERT_OK(
      device->queueFill(1, step[2].get(), step[3].get(), *b, 12, 4, 0x7F, 1));
  FLEET_ASSERT_OK(device->queueBarrier(1, step[3].get(), done.get()));
  FLEET_ASSERT_OK(device->queueFlush(1));
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  std::vector<uint8_t> expected = {0xCD, 0xAB, 1, 2, 3, 4, 5, 6, 7,
                                   8,    0xCD, 0xAB, 0x7F, 0x7F, 0x7F, 0x7F};
  EXPECT_EQ(readAll(*b), expected);
}

/// Fills of 1-, 2- and 4-byte patterns, uniform and not, over lengths that
/// are no power of two, at an offset: every byte in range holds the
/// pattern in phase, the bytes around it are untouched.
TEST_P(QueueTest, FillPatternsOfEveryWidth) {
  Ref<Device> device = makeDevice(uri());
  struct Case {
    uint32_t pattern;
    uint8_t width;
  } cases[] = {{0x5A, 1},         {0xABCD, 2},     {0x0000, 2},
               {0x12345678, 4},   {0x00000000, 4}, {0x7F7F7F7F, 4}};
  for (const Case &c : cases) {
    for (uint64_t count : {1u, 3u, 37u, 1000u}) {
      SCOPED_TRACE(::testing::Message() << "pattern 0x" << std::hex
                                      << c.pattern << std::dec << " x "
                                      << count);
      uint64_t length = count * c.width;
      Ref<Buffer> buffer = makeHostBuffer(*device, length + 8);
      std::memset(buffer->storage(), 0xEE, length + 8);
      Ref<Fence> done = device->createFence();
      FLEET_ASSERT_OK(device->queueFill(1, nullptr, done.get(), *buffer, 4,
                                        length, c.pattern, c.width));
      FLEET_ASSERT_OK(done->wait(testTimeout()));
      const uint8_t *bytes = buffer->storage();
      for (uint64_t i = 0; i < length + 8; ++i) {
        uint8_t expected =
            i < 4 || i >= 4 + length
                ? 0xEE
                : uint8_t(c.pattern >> (8 * ((i - 4) % c.width)));
        ASSERT_EQ(bytes[i], expected) << "byte " << i;
      }
    }
  }
}

TEST_P(QueueTest, SubmissionValidatesOperands) {
  Ref<Device> device = makeDevice(uri());
  Ref<Buffer> buffer = makeHostBuffer(*device, 16);
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> noTransfer,
      device->allocator().allocate(kHostMemory, BufferUsage::DispatchStorage,
                                   16));
  Status status = device->queueCopy(1, nullptr, nullptr, *noTransfer, 0,
                                    *buffer, 0, 16);
  EXPECT_TRUE(contains(status.message(), "lacks usage TransferSource"));
  status = device->queueCopy(1, nullptr, nullptr, *buffer, 8, *buffer, 0, 16);
  EXPECT_EQ(status.code(), StatusCode::OutOfRange);
  EXPECT_TRUE(contains(status.message(), "source range [8, 24)"));
  status = device->queueFill(1, nullptr, nullptr, *buffer, 2, 8, 0, 4);
  EXPECT_TRUE(contains(status.message(), "multiples of the pattern length"));
  status = device->queueFill(1, nullptr, nullptr, *buffer, 0, 8, 0, 3);
  EXPECT_TRUE(contains(status.message(), "pattern length 3"));
  status = device->queueBarrier(0, nullptr, nullptr);
  EXPECT_TRUE(contains(status.message(), "affinity 0 selects no queue"));
  Ref<Fence> fence = device->createFence();
  status = device->queueBarrier(1, fence.get(), fence.get());
  EXPECT_TRUE(contains(status.message(), "the same fence"));
  EXPECT_EQ(device->statistics().queueOpsSubmitted, 0u);
}

TEST_P(QueueTest, AllocaDoesNotWaitForEarlierDeallocas) {
  // Queues are not in order, allocas included: an alloca submitted after a
  // dealloca that waits on an unsignalled fence runs at once (the compiler
  // bounds memory through wait fences; an earlier call's pending frees must
  // not hold a later call back, issue 34.4). The dealloca still runs when
  // its fence is reached.
  Ref<Device> device = makeDevice(uri());
  const BufferUsage usage = BufferUsage::Transfer;
  Ref<Fence> first = device->createFence();
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> old, device->queueAlloca(1, nullptr, first.get(), 0,
                                           MemoryType::DeviceLocal, usage, 64));
  FLEET_ASSERT_OK(first->wait(testTimeout()));
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> freed = device->createFence();
  FLEET_ASSERT_OK(device->queueDealloca(1, gate.get(), freed.get(), *old));
  Ref<Fence> next = device->createFence();
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> fresh, device->queueAlloca(1, nullptr, next.get(), 0,
                                             MemoryType::DeviceLocal, usage,
                                             64));
  FLEET_ASSERT_OK(next->wait(testTimeout()));
  EXPECT_TRUE(fresh->hasStorage());
  EXPECT_EQ(freed->wait(Timeout::immediate()).code(),
            StatusCode::DeadlineExceeded);
  EXPECT_TRUE(old->hasStorage());
  FLEET_ASSERT_OK(gate->signal());
  FLEET_ASSERT_OK(freed->wait(testTimeout()));
  EXPECT_FALSE(old->hasStorage());
}

TEST_P(QueueTest, DeallocaRunsAfterLastUse) {
  Ref<Device> device = makeDevice(uri());
  Ref<Buffer> host = makeHostBuffer(*device, 64);
  Ref<Fence> allocated = device->createFence();
  Ref<Fence> filled = device->createFence();
  Ref<Fence> copied = device->createFence();
  Ref<Fence> freed = device->createFence();
  Ref<Semaphore> gateSemaphore = Semaphore::create(0);
  Ref<Fence> gate = Fence::createAt(*gateSemaphore, 1);
  uint64_t liveBefore = device->allocator().statistics().bytesLive;

  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> transient,
      device->queueAlloca(kQueueAffinityAny, nullptr, allocated.get(), 0,
                          MemoryType::DeviceLocal,
                          BufferUsage::Transfer | BufferUsage::DispatchStorage,
                          64));
  FLEET_ASSERT_OK(allocated->wait(testTimeout()));
  EXPECT_TRUE(transient->hasStorage());
  // The last use waits on the host gate; the dealloca waits on the last use.
  Ref<Fence> fillWait = Fence::join(
      std::vector<Fence *>{allocated.get(), gate.get()});
  FLEET_ASSERT_OK(device->queueFill(kQueueAffinityAny, fillWait.get(),
                                    filled.get(), *transient, 0, 64, 0x5A, 1));
  FLEET_ASSERT_OK(device->queueCopy(kQueueAffinityAny, filled.get(),
                                    copied.get(), *transient, 0, *host, 0, 64));
  FLEET_ASSERT_OK(device->queueDealloca(kQueueAffinityAny, copied.get(),
                                        freed.get(), *transient));
  EXPECT_EQ(freed->wait(Timeout::milliseconds(20)).code(),
            StatusCode::DeadlineExceeded);
  EXPECT_TRUE(transient->hasStorage());
  EXPECT_EQ(device->allocator().statistics().bytesLive, liveBefore + 64);

  FLEET_ASSERT_OK(gate->signal());
  FLEET_ASSERT_OK(freed->wait(testTimeout()));
  EXPECT_FALSE(transient->hasStorage());
  EXPECT_EQ(device->allocator().statistics().bytesLive, liveBefore);
  EXPECT_EQ(readAll(*host), std::vector<uint8_t>(64, 0x5A));

  // A use after the dealloca fails its op (and its signal fence).
  Ref<Fence> late = device->createFence();
  FLEET_ASSERT_OK(device->queueFill(kQueueAffinityAny, nullptr, late.get(),
                                    *transient, 0, 4, 0, 1));
  Status status = late->wait(testTimeout());
  EXPECT_EQ(status.code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(contains(status.message(), "has no storage"));
}

TEST_P(QueueTest, AllocaStorageAppearsWhenTheOpRuns) {
  Ref<Device> device = makeDevice(uri());
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> allocated = device->createFence();
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> buffer,
      device->queueAlloca(kQueueAffinityAny, gate.get(), allocated.get(), 0,
                          kHostMemory, kAllUsage, 32));
  auto early = buffer->map(0, 32);
  ASSERT_FALSE(early.ok());
  EXPECT_TRUE(contains(early.status().message(), "has no storage"));
  FLEET_ASSERT_OK(gate->signal());
  FLEET_ASSERT_OK(allocated->wait(testTimeout()));
  FLEET_EXPECT_OK(buffer->map(0, 32).status());
  // Refused memory is refused at submission, like the allocator does.
  Ref<Device> discrete = makeDevice(uri("discrete=true"));
  Ref<Fence> signal = discrete->createFence();
  auto refused = discrete->queueAlloca(
      kQueueAffinityAny, nullptr, signal.get(), 0,
      MemoryType::DeviceLocal | MemoryType::HostVisible, BufferUsage::Transfer,
      16);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(contains(refused.status().message(),
                       "hal.device.queue.alloca on device '" +
                           discrete->name() + "'"));
  EXPECT_FALSE(signal->query().ok());
}

TEST_P(QueueTest, DispatchRunsEveryWorkgroup) {
  // Several workers on local-task, so the workgroups are shared.
  bool task = std::string(GetParam()) == "local-task";
  Ref<Device> device =
      makeDevice(uri(task ? "task_topology_group_count=3" : ""));
  Ref<Executable> executable = makeTestExecutable();
  constexpr uint32_t kWords = 1000;
  Ref<Buffer> in = makeHostBuffer(*device, kWords * 4);
  Ref<Buffer> out = makeHostBuffer(*device, kWords * 4);
  std::vector<uint32_t> values(kWords);
  for (uint32_t i = 0; i < kWords; ++i)
    values[i] = i * 3;
  FLEET_ASSERT_OK(in->write(0, values.data(), kWords * 4));
  Ref<CommandBuffer> commands =
      recordAdd(*device, *executable, BindingRef::of(*in), BindingRef::of(*out),
                kWords, 7, 13);
  Ref<Fence> done = device->createFence();
  CommandBuffer *list[] = {commands.get()};
  FLEET_ASSERT_OK(device->queueExecute(kQueueAffinityAny, nullptr, done.get(),
                                       list));
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  std::vector<uint32_t> result = readWords(*out);
  for (uint32_t i = 0; i < kWords; ++i)
    ASSERT_EQ(result[i], i * 3 + 7) << i;
  EXPECT_EQ(device->statistics().dispatches, 1u);
}

TEST_P(QueueTest, BindingTableSlotsResolveAtSubmission) {
  Ref<Device> device = makeDevice(uri());
  Ref<Executable> executable = makeTestExecutable();
  Ref<Buffer> in = makeHostBuffer(*device, 64);
  Ref<Buffer> out = makeHostBuffer(*device, 64);
  std::vector<uint32_t> ones(16, 1);
  FLEET_ASSERT_OK(in->write(0, ones.data(), 64));
  Ref<CommandBuffer> commands = recordAdd(
      *device, *executable, BindingRef::ofSlot(0), BindingRef::ofSlot(1, 32),
      8, 41, 2, /*bindingCapacity=*/2);
  CommandBuffer *list[] = {commands.get()};
  BindingRef table[] = {BindingRef::of(*in), BindingRef::of(*out)};
  Ref<Fence> done = device->createFence();
  FLEET_ASSERT_OK(device->queueExecute(kQueueAffinityAny, nullptr, done.get(),
                                       list, table));
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  std::vector<uint32_t> result = readWords(*out);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(result[i], 0u);
  for (int i = 8; i < 16; ++i)
    EXPECT_EQ(result[i], 42u);
  // Too small a table is refused at submission.
  BindingRef shortTable[] = {BindingRef::of(*in)};
  Status status = device->queueExecute(kQueueAffinityAny, nullptr, nullptr,
                                       list, shortTable);
  EXPECT_TRUE(contains(status.message(), "binding table has 1 entries"));
}

TEST_P(QueueTest, CommandBufferRecordingIsValidated) {
  Ref<Device> device = makeDevice(uri());
  Ref<Executable> executable = makeTestExecutable();
  Ref<Buffer> buffer = makeHostBuffer(*device, 64);
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> transferOnly,
      device->allocator().allocate(kHostMemory, BufferUsage::Transfer, 64));
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<CommandBuffer> commands,
      CommandBuffer::create(*device, CommandBufferMode::OneShot,
                            CommandCategory::Any, kQueueAffinityAny, 1));
  uint32_t counts[3] = {1, 1, 1};
  BindingRef wrongUsage[] = {BindingRef::of(*transferOnly)};
  Status status = commands->dispatch(*executable, 0, counts, {}, wrongUsage);
  EXPECT_TRUE(contains(status.message(),
                       "hal.command_buffer.dispatch: binding 0"));
  EXPECT_TRUE(contains(status.message(), "lacks usage DispatchStorage"));
  BindingRef ok[] = {BindingRef::of(*buffer)};
  status = commands->dispatch(*executable, 5, counts, {}, ok);
  EXPECT_TRUE(contains(status.message(), "export ordinal 5"));
  // An export with a layout takes exactly its bindings and constants.
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Executable> laidOut,
      Executable::create("laid_out", {{"add_constant", addConstantKernel,
                                       ExportLayout{2, 1}}}));
  status = commands->dispatch(*laidOut, 0, counts, {}, ok);
  EXPECT_TRUE(contains(status.message(),
                       "export 'add_constant' of executable 'laid_out' takes "
                       "2 bindings and 1 push constants (its layout), but the "
                       "dispatch passes 1 and 0"));
  BindingRef badSlot[] = {BindingRef::ofSlot(3)};
  status = commands->dispatch(*executable, 0, counts, {}, badSlot);
  EXPECT_TRUE(contains(status.message(), "slot 3"));
  status = commands->copyBuffer(BindingRef::of(*buffer, 60),
                                BindingRef::of(*buffer), 8);
  EXPECT_EQ(status.code(), StatusCode::OutOfRange);
  status = commands->fillBuffer(BindingRef::of(*buffer, 1), 4, 0, 2);
  EXPECT_TRUE(contains(status.message(), "not a multiple of 2"));
  EXPECT_TRUE(commands->commands().empty());
  EXPECT_TRUE(commands->directBuffers().empty());
  FLEET_ASSERT_OK(commands->executionBarrier());
  FLEET_ASSERT_OK(commands->finalize());
  EXPECT_EQ(commands->finalize().code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(commands->executionBarrier().code(),
            StatusCode::FailedPrecondition);
  // Unfinalized command buffers and other devices' are refused.
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<CommandBuffer> open,
      CommandBuffer::create(*device, CommandBufferMode::None,
                            CommandCategory::Transfer, 1));
  CommandBuffer *list[] = {open.get()};
  status = device->queueExecute(1, nullptr, nullptr, list);
  EXPECT_TRUE(contains(status.message(), "not finalized"));
  status = open->dispatch(*executable, 0, counts, {}, ok);
  EXPECT_TRUE(contains(status.message(), "without the Dispatch category"));
  Ref<Device> other = makeDevice(uri());
  CommandBuffer *foreign[] = {commands.get()};
  status = other->queueExecute(1, nullptr, nullptr, foreign);
  EXPECT_TRUE(contains(status.message(), "was recorded for device"));
}

TEST_P(QueueTest, WaitIdleCoversPendingOps) {
  Ref<Device> device = makeDevice(uri());
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  FLEET_ASSERT_OK(device->queueBarrier(1, gate.get(), nullptr));
  EXPECT_EQ(device->waitIdle(Timeout::milliseconds(20)).code(),
            StatusCode::DeadlineExceeded);
  std::thread opener([&] { (void)gate->signal(); });
  FLEET_EXPECT_OK(device->waitIdle(testTimeout()));
  opener.join();
}

TEST_P(QueueTest, PendingOpsKeepTheirDeviceAlive) {
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> done = Fence::createAt(*Semaphore::create(0), 1);
  {
    Ref<Device> device = makeDevice(uri());
    FLEET_ASSERT_OK(device->queueBarrier(1, gate.get(), done.get()));
  }
  FLEET_ASSERT_OK(gate->signal());
  FLEET_EXPECT_OK(done->wait(testTimeout()));
}

INSTANTIATE_TEST_SUITE_P(LocalDrivers, QueueTest,
                         ::testing::Values("local-sync", "local-task"),
                         [](const auto &info) {
                           return std::string(info.param) == "local-sync"
                                      ? "sync"
                                      : "task";
                         });

//===----------------------------------------------------------------------===//
// Driver-specific behaviour
//===----------------------------------------------------------------------===//

TEST(LocalSyncTest, ReadyOpsRunOnTheSubmittingOrSignallingThread) {
  Ref<Device> device = makeDevice("local-sync");
  Ref<Buffer> buffer = makeHostBuffer(*device, 4);
  // Wait fence reached: runs before queueFill returns.
  FLEET_ASSERT_OK(device->queueFill(1, nullptr, nullptr, *buffer, 0, 4, 1, 4));
  EXPECT_EQ(readWords(*buffer)[0], 1u);
  // Not reached: submission returns at once; the op runs on the thread that
  // signals the gate.
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> done = device->createFence();
  FLEET_ASSERT_OK(
      device->queueFill(1, gate.get(), done.get(), *buffer, 0, 4, 2, 4));
  EXPECT_EQ(readWords(*buffer)[0], 1u);
  std::thread opener([&] { (void)gate->signal(); });
  opener.join();
  FLEET_EXPECT_OK(done->query());
  EXPECT_EQ(readWords(*buffer)[0], 2u);
}

TEST(LocalTaskTest, CrossDeviceWaitsNeedNoHostWait) {
  Devices d = makeDevices({"local-task", "local-task", "local-task"});
  Ref<Buffer> a = makeHostBuffer(d[0], 4096);
  Ref<Buffer> b = makeHostBuffer(d[1], 4096);
  Ref<Buffer> c = makeHostBuffer(d[2], 4096);
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> onA = d[0].createFence();
  Ref<Fence> onB = d[1].createFence();
  Ref<Fence> onC = d[2].createFence();
  resetHostStatistics();
  // A chain A -> B -> C submitted back to front; nothing runs until the gate.
  FLEET_ASSERT_OK(d[2].queueCopy(1, onB.get(), onC.get(), *b, 0, *c, 0, 4096));
  FLEET_ASSERT_OK(d[1].queueCopy(1, onA.get(), onB.get(), *a, 0, *b, 0, 4096));
  FLEET_ASSERT_OK(
      d[0].queueFill(1, gate.get(), onA.get(), *a, 0, 4096, 0x3C, 1));
  EXPECT_EQ(onC->query().code(), StatusCode::Deferred);
  EXPECT_EQ(hostStatistics().blockedWaits, 0u);
  FLEET_ASSERT_OK(gate->signal());
  FLEET_ASSERT_OK(onC->wait(testTimeout()));
  // Only the final wait was a host wait.
  EXPECT_LE(hostStatistics().waits, 1u);
  EXPECT_EQ(readAll(*c), std::vector<uint8_t>(4096, 0x3C));
  EXPECT_EQ(d[2].statistics().bytesCrossDevice, 4096u);
}

TEST(LocalTaskTest, WorkgroupsAreSpreadAcrossWorkers) {
  Ref<Device> device = makeDevice("local-task?task_topology_group_count=4");
  struct Record {
    std::mutex mutex;
    std::set<std::thread::id> threads;
    std::vector<int> runs = std::vector<int>(64, 0);
  };
  static Record *record = nullptr;
  Record local;
  record = &local;
  auto kernel = [](const fleet_kernel_state_t *, uint32_t x, uint32_t y,
                   uint32_t) -> int32_t {
    // Long enough that idle workers join in before the first one finishes.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(record->mutex);
    record->threads.insert(std::this_thread::get_id());
    ++record->runs[y * 8 + x];
    return 0;
  };
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Executable> executable,
      Executable::create("spread", {{"record", +kernel}}));
  Ref<Buffer> buffer = makeHostBuffer(*device, 16);
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<CommandBuffer> commands,
      CommandBuffer::create(*device, CommandBufferMode::OneShot,
                            CommandCategory::Dispatch, 1));
  uint32_t counts[3] = {8, 8, 1};
  BindingRef bindings[] = {BindingRef::of(*buffer)};
  FLEET_ASSERT_OK(commands->dispatch(*executable, 0, counts, {}, bindings));
  FLEET_ASSERT_OK(commands->finalize());
  CommandBuffer *list[] = {commands.get()};
  Ref<Fence> done = device->createFence();
  FLEET_ASSERT_OK(device->queueExecute(1, nullptr, done.get(), list));
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  EXPECT_GE(local.threads.size(), 2u);
  EXPECT_LE(local.threads.size(), 4u);
  for (int runs : local.runs)
    EXPECT_EQ(runs, 1);
  EXPECT_EQ(local.threads.count(std::this_thread::get_id()), 0u);
  record = nullptr;
}

TEST(LocalTaskTest, SubmissionDoesNotBlockTheHost) {
  Ref<Device> device = makeDevice("local-task");
  Ref<Buffer> buffer = makeHostBuffer(*device, 4);
  Ref<Fence> gate = Fence::createAt(*Semaphore::create(0), 1);
  Ref<Fence> done = device->createFence();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i)
    FLEET_ASSERT_OK(device->queueFill(1, gate.get(),
                                      i == 99 ? done.get() : nullptr, *buffer,
                                      0, 4, uint32_t(i), 4));
  EXPECT_LT(std::chrono::steady_clock::now() - start,
            std::chrono::seconds(5));
  EXPECT_EQ(done->query().code(), StatusCode::Deferred);
  FLEET_ASSERT_OK(gate->signal());
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  EXPECT_EQ(readWords(*buffer)[0], 99u);
}

TEST(DeviceThreadHoldTest, ExitWaitsForAWorkerStillHoldingADevice) {
  // A local-task device dropped by the host right after waitIdle may be
  // torn down by the worker that retired its last op; waitForThreadHolds
  // returns once no worker holds one.
  for (int round = 0; round < 50; ++round) {
    Ref<Device> device = makeDevice("local-task");
    ASSERT_TRUE(device);
    Ref<Semaphore> timeline = Semaphore::create(0);
    Ref<Fence> done = Fence::createAt(*timeline, 1);
    FLEET_ASSERT_OK(device->queueBarrier(1, nullptr, done.get()));
    FLEET_ASSERT_OK(device->waitIdle(testTimeout()));
    device = Ref<Device>();
    EXPECT_TRUE(Device::waitForThreadHolds(testTimeout()));
  }
  // A hold not yet ended keeps the wait waiting until it ends.
  Device::beginThreadHold();
  EXPECT_FALSE(Device::waitForThreadHolds(Timeout::milliseconds(20)));
  std::thread ender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Device::endThreadHold();
  });
  EXPECT_TRUE(Device::waitForThreadHolds(testTimeout()));
  ender.join();
}

} // namespace
} // namespace fleet::runtime::hal
