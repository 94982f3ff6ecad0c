//===- MpiDriverTest.cpp - the mpi driver's copies across ranks ------------===//
//
// Runs as rank 0 of `mpirun -np 3` with `fleet-run --serve` as ranks 1 and 2
// (test/MPI/driver.test). Command buffers of a remote device that mix copies
// from rank 0's memory, copies from another server's memory and copies in
// place are split into a chain (docs/distributed.md "What crosses the
// network"); every copy must land where its command says, and the chain's
// signal fence holds its value once the device is idle. Allocated memory
// reads as zeros.
//
//===----------------------------------------------------------------------===//

#include "../TestUtil.h"

#include "drivers/mpi/MpiClient.h"
#include "drivers/mpi/MpiDevice.h"
#include "fleet/runtime/hal/Fence.h"
#include "fleet/runtime/hal/Semaphore.h"

#include <chrono>
#include <thread>

namespace fleet::runtime {
namespace {

using hal::BindingRef;
using hal::Buffer;
using hal::BufferUsage;
using hal::MemoryType;
using hal::Ref;
using namespace hal::testing;

constexpr uint64_t kBytes = 64;

class MpiDriverTest : public ::testing::Test {
protected:
  void SetUp() override {
    hal::registerRemoteDriver(&mpi::createMpiDevice);
    for (const char *uri :
         {"local-task", "mpi://1/local-task", "mpi://2/local-task"}) {
      devices.push_back(makeDevice(uri));
      ASSERT_TRUE(devices.back());
    }
    FLEET_ASSERT_OK_AND_ASSIGN(group, hal::DeviceGroup::create(devices));
  }

  /// Rank 0's memory holding `bytes` of `value`.
  Ref<Buffer> host(uint8_t value, uint64_t bytes = kBytes) {
    Ref<Buffer> buffer =
        makeHostBuffer(*devices[0], bytes, BufferUsage::SharingExport);
    if (buffer)
      std::memset(buffer->storage(), value, bytes);
    return buffer;
  }

  /// Server memory of device `index`.
  Ref<Buffer> remote(size_t index, uint64_t bytes) {
    hal::StatusOr<Ref<Buffer>> buffer = devices[index]->allocator().allocate(
        MemoryType::DeviceLocal,
        BufferUsage::Transfer | BufferUsage::SharingExport, bytes);
    EXPECT_TRUE(buffer.ok()) << buffer.status().toString();
    return buffer.ok() ? *buffer : Ref<Buffer>();
  }

  /// Runs `copies` (source, target offset) as one command buffer on device
  /// 2 after `wait`, into `target`, and returns the target's bytes.
  std::vector<uint8_t>
  run(std::vector<std::pair<Buffer *, uint64_t>> copies, Buffer &target,
      hal::Fence *wait) {
    hal::Device &device = *devices[2];
    auto created = hal::CommandBuffer::create(
        device, hal::CommandBufferMode::OneShot, hal::CommandCategory::Any, 1);
    EXPECT_TRUE(created.ok()) << created.status().toString();
    if (!created.ok())
      return {};
    Ref<hal::CommandBuffer> commands = *created;
    for (auto [source, offset] : copies) {
      hal::Status recorded = commands->copyBuffer(
          BindingRef::of(*source, 0, kBytes),
          BindingRef::of(target, offset, kBytes), kBytes);
      EXPECT_TRUE(recorded.ok()) << recorded.toString();
    }
    EXPECT_TRUE(commands->finalize().ok());
    Ref<hal::Semaphore> timeline = hal::Semaphore::create(0);
    Ref<hal::Fence> executed = hal::Fence::createAt(*timeline, 1);
    Ref<hal::Fence> read = hal::Fence::createAt(*timeline, 2);
    hal::CommandBuffer *list[] = {commands.get()};
    hal::Status status = device.queueExecute(1, wait, executed.get(), list);
    EXPECT_TRUE(status.ok()) << status.toString();
    Ref<Buffer> out = host(0, target.byteSize());
    status = device.queueCopy(1, executed.get(), read.get(), target, 0, *out,
                              0, target.byteSize());
    EXPECT_TRUE(status.ok()) << status.toString();
    status = read->wait(testTimeout());
    EXPECT_TRUE(status.ok()) << status.toString();
    return std::vector<uint8_t>(out->storage(),
                                out->storage() + target.byteSize());
  }

  std::vector<Ref<hal::Device>> devices;
  Ref<hal::DeviceGroup> group;
};

/// Bytes `value` at [offset, offset + kBytes) of `bytes`.
::testing::AssertionResult holds(const std::vector<uint8_t> &bytes,
                                 uint64_t offset, uint8_t value) {
  if (bytes.size() < offset + kBytes)
    return ::testing::AssertionFailure() << "only " << bytes.size()
                                         << " bytes";
  for (uint64_t i = offset; i < offset + kBytes; ++i)
    if (bytes[i] != value)
      return ::testing::AssertionFailure()
             << "byte " << i << " is " << int(bytes[i]) << ", expected "
             << int(value);
  return ::testing::AssertionSuccess();
}

TEST_F(MpiDriverTest, PeerCopyBeforeAndAfterCopiesFromRankZero) {
  // Rank 1's memory, filled there.
  Ref<Buffer> peer = remote(1, kBytes);
  ASSERT_TRUE(peer);
  Ref<hal::Semaphore> filled = hal::Semaphore::create(0);
  Ref<hal::Fence> fill = hal::Fence::createAt(*filled, 1);
  FLEET_ASSERT_OK(devices[1]->queueFill(1, nullptr, fill.get(), *peer, 0, kBytes,
                                  0x11, 1));
  Ref<Buffer> first = host(0x22), second = host(0x33);
  Ref<Buffer> target = remote(2, 3 * kBytes);
  ASSERT_TRUE(first && second && target);
  // A copy from rank 1 between copies from rank 0 (it once joined their
  // row and held it up for ever).
  std::vector<uint8_t> bytes = run({{peer.get(), 0},
                                    {first.get(), kBytes},
                                    {second.get(), 2 * kBytes}},
                                   *target, fill.get());
  EXPECT_TRUE(holds(bytes, 0, 0x11));
  EXPECT_TRUE(holds(bytes, kBytes, 0x22));
  EXPECT_TRUE(holds(bytes, 2 * kBytes, 0x33));
  bytes = run({{second.get(), 0},
               {peer.get(), kBytes},
               {first.get(), 2 * kBytes}},
              *target, nullptr);
  EXPECT_TRUE(holds(bytes, 0, 0x33));
  EXPECT_TRUE(holds(bytes, kBytes, 0x11));
  EXPECT_TRUE(holds(bytes, 2 * kBytes, 0x22));
}

TEST_F(MpiDriverTest, RowsOfCopiesFromRankZeroAllLand) {
  // Copies from rank 0's memory in a row leave together (one wait, sent in
  // row order); each must land, for every row length.
  for (int length = 1; length <= 6; ++length) {
    Ref<Buffer> target = remote(2, uint64_t(length) * kBytes);
    ASSERT_TRUE(target);
    std::vector<Ref<Buffer>> sources;
    std::vector<std::pair<Buffer *, uint64_t>> copies;
    for (int i = 0; i < length; ++i) {
      sources.push_back(host(uint8_t(0x40 + i)));
      copies.push_back({sources.back().get(), uint64_t(i) * kBytes});
    }
    std::vector<uint8_t> bytes = run(copies, *target, nullptr);
    for (int i = 0; i < length; ++i)
      EXPECT_TRUE(holds(bytes, uint64_t(i) * kBytes, uint8_t(0x40 + i)))
          << "copy " << i << " of a row of " << length;
  }
}

TEST_F(MpiDriverTest, AllocatedMemoryReadsZerosWhenItsBlockIsReused) {
  // hal.allocator.allocate's memory reads as zeros on a server too, also
  // when the server hands out a block a freed buffer left behind (a queue
  // alloca's block is handed out as it was left: that Allocate says so).
  {
    Ref<Buffer> used = remote(2, 3 * kBytes);
    ASSERT_TRUE(used);
    Ref<Buffer> filled = host(0x55);
    ASSERT_TRUE(filled);
    std::vector<uint8_t> bytes =
        run({{filled.get(), 0}, {filled.get(), kBytes}}, *used, nullptr);
    ASSERT_TRUE(holds(bytes, kBytes, 0x55));
  } // Freed: the server keeps its block for the next buffer of that size.
  Ref<Buffer> fresh = remote(2, 3 * kBytes);
  ASSERT_TRUE(fresh);
  std::vector<uint8_t> bytes = run({}, *fresh, nullptr);
  for (uint64_t offset = 0; offset < 3 * kBytes; offset += kBytes)
    EXPECT_TRUE(holds(bytes, offset, 0)) << "at " << offset;
}

TEST_F(MpiDriverTest, SplitExecuteIsSignalledWhenTheDeviceIsIdle) {
  // A command buffer with copies from rank 0's memory runs as a chain of
  // ops; its own signal fence follows the chain's last step. Once the
  // device is idle that fence holds its value (it once retired when the
  // last step did, before the step's waiters ran).
  hal::Device &device = *devices[2];
  Ref<Buffer> source = host(0x66);
  Ref<Buffer> target = remote(2, 2 * kBytes);
  ASSERT_TRUE(source && target);
  for (int round = 0; round < 200; ++round) {
    auto created = hal::CommandBuffer::create(
        device, hal::CommandBufferMode::OneShot, hal::CommandCategory::Any, 1);
    FLEET_ASSERT_OK(created.status());
    Ref<hal::CommandBuffer> commands = *created;
    for (uint64_t offset : {uint64_t(0), kBytes})
      FLEET_ASSERT_OK(commands->copyBuffer(BindingRef::of(*source, 0, kBytes),
                                           BindingRef::of(*target, offset,
                                                          kBytes),
                                           kBytes));
    FLEET_ASSERT_OK(commands->finalize());
    Ref<hal::Semaphore> timeline = hal::Semaphore::create(0);
    Ref<hal::Fence> executed = hal::Fence::createAt(*timeline, 1);
    hal::CommandBuffer *list[] = {commands.get()};
    FLEET_ASSERT_OK(device.queueExecute(1, nullptr, executed.get(), list));
    FLEET_ASSERT_OK(device.waitIdle(testTimeout()));
    ASSERT_TRUE(timeline->reachedOrFailed(1)) << "round " << round;
  }
}

TEST_F(MpiDriverTest, MegabyteCopiesToAndFromAServerLandAndSignal) {
  // A 1 MiB copy from rank 0's memory moves by rendezvous: the submitting
  // thread drives its bytes and may handle the server's Done itself
  // (Transport::awaitAnswer); a copy back follows on the same timeline.
  // Every round's bytes arrive and both fences hold their values.
  constexpr uint64_t kMegabyte = 1 << 20;
  hal::Device &device = *devices[1];
  Ref<Buffer> target = remote(1, kMegabyte);
  Ref<Buffer> back = host(0, kMegabyte);
  ASSERT_TRUE(target && back);
  for (int round = 0; round < 20; ++round) {
    Ref<Buffer> source = host(uint8_t(round + 1), kMegabyte);
    ASSERT_TRUE(source);
    source->storage()[kMegabyte - 1] = uint8_t(round + 100);
    Ref<hal::Semaphore> timeline = hal::Semaphore::create(0);
    Ref<hal::Fence> written = hal::Fence::createAt(*timeline, 1);
    Ref<hal::Fence> read = hal::Fence::createAt(*timeline, 2);
    FLEET_ASSERT_OK(device.queueCopy(1, nullptr, written.get(), *source, 0,
                                     *target, 0, kMegabyte));
    FLEET_ASSERT_OK(device.queueCopy(1, written.get(), read.get(), *target,
                                     0, *back, 0, kMegabyte));
    FLEET_ASSERT_OK(read->wait(testTimeout()));
    ASSERT_TRUE(timeline->reachedOrFailed(2)) << "round " << round;
    ASSERT_EQ(back->storage()[0], uint8_t(round + 1)) << "round " << round;
    ASSERT_EQ(back->storage()[kMegabyte / 2], uint8_t(round + 1));
    ASSERT_EQ(back->storage()[kMegabyte - 1], uint8_t(round + 100));
  }
}

TEST_F(MpiDriverTest, SemaphoresAreForgottenOnceOnlyTheClientHoldsThem) {
  // Each round's semaphore is named to rank 1 by the barrier that signals
  // it; once the caller lets go of it, the progress thread sweeps it when
  // idle and tells the server to drop its mirror. The first rounds' are
  // held until all ran, so one sweep forgets more names than one eager
  // message holds (the Forget is split).
  hal::Device &device = *devices[1];
  mpi::Client *client = mpi::currentClient();
  ASSERT_NE(client, nullptr);
  constexpr int kRounds = 700, kHeld = 600;
  std::vector<Ref<hal::Semaphore>> held;
  for (int round = 0; round < kRounds; ++round) {
    Ref<hal::Semaphore> timeline = hal::Semaphore::create(0);
    Ref<hal::Fence> done = hal::Fence::createAt(*timeline, 1);
    FLEET_ASSERT_OK(device.queueBarrier(1, nullptr, done.get()));
    FLEET_ASSERT_OK(done->wait(testTimeout()));
    if (round < kHeld)
      held.push_back(timeline);
    if (round == kRounds - 2) {
      EXPECT_GE(client->namedSemaphores(), size_t(kHeld)) << "swept while held";
      held.clear();
    }
  }
  size_t named = client->namedSemaphores();
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (named > 1 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    named = client->namedSemaphores();
  }
  // The last round's semaphore may stay until another op completes.
  EXPECT_LE(named, 1u) << "of " << kRounds << " rounds' semaphores";
}

} // namespace
} // namespace fleet::runtime
