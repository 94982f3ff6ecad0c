//===- BufferTest.cpp - memory bits, allocator refusals, mapping, views ----===//

#include "TestUtil.h"

#include <unistd.h>

#include "fleet/runtime/hal/Transfer.h"

#include <algorithm>
#include <cstring>

namespace fleet::runtime::hal {
namespace {
using namespace testing;

// The values of docs/ir-reference.md ("hal.memory_type bits", "hal.buffer_usage
// bits"): the executor passes the IR's i32 constants straight through.
static_assert(uint32_t(MemoryType::HostVisible) == 0x2);
static_assert(uint32_t(MemoryType::HostLocal) == 0x46);
static_assert(uint32_t(MemoryType::DeviceLocal) == 0x30);
static_assert(uint32_t(BufferUsage::Transfer) == 0x3);
static_assert(uint32_t(BufferUsage::DispatchStorage) == 0xC00);
static_assert(uint32_t(BufferUsage::SharingExport) == 0x10000);
static_assert(uint32_t(BufferUsage::Mapping) == 0x9000000);
static_assert(element_type::kF32 == 0x21000020);

TEST(BufferTest, BitNamesFollowTheIR) {
  EXPECT_EQ(toString(MemoryType::HostLocal | MemoryType::DeviceVisible),
            "HostLocal|DeviceVisible");
  EXPECT_EQ(toString(MemoryType::DeviceLocal | MemoryType::HostVisible),
            "DeviceLocal|HostVisible");
  EXPECT_EQ(toString(MemoryType::None), "None");
  EXPECT_EQ(toString(BufferUsage::Transfer | BufferUsage::DispatchStorage),
            "Transfer|DispatchStorage");
  EXPECT_EQ(toString(BufferUsage::TransferSource | BufferUsage::Mapping |
                     BufferUsage::SharingExport),
            "Mapping|TransferSource|SharingExport");
  MemoryType type;
  ASSERT_TRUE(parseMemoryType("HostVisible|HostCoherent", type));
  EXPECT_EQ(uint32_t(type), 0x6u);
  BufferUsage usage;
  ASSERT_TRUE(parseBufferUsage("Transfer|DispatchStorage", usage));
  EXPECT_EQ(uint32_t(usage), 0xC03u);
  EXPECT_FALSE(parseBufferUsage("Transfer|Teleport", usage));
  EXPECT_EQ(elementTypeName(element_type::kF32), "f32");
  EXPECT_EQ(elementTypeName(element_type::kI1), "i1");
  EXPECT_EQ(elementTypeName(element_type::make(0x11, 16)), "si16");
  EXPECT_EQ(element_type::byteSize(element_type::kI1), 1u);
}

TEST(BufferTest, MappingNeedsHostVisibleAndMappingUsage) {
  Ref<Device> device = makeDevice("local-sync");
  // DeviceLocal without HostVisible: the host cannot address it.
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> deviceOnly,
      device->allocator().allocate(MemoryType::DeviceLocal,
                                   BufferUsage::Transfer, 64));
  auto mapped = deviceOnly->map(0, 64);
  ASSERT_FALSE(mapped.ok());
  EXPECT_EQ(mapped.status().code(), StatusCode::PermissionDenied);
  EXPECT_TRUE(contains(mapped.status().message(), "lacks HostVisible"));
  EXPECT_TRUE(contains(mapped.status().message(), device->name()));

  // HostVisible but allocated without a Mapping bit.
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> unmappable,
      device->allocator().allocate(kHostMemory, BufferUsage::Transfer, 64));
  mapped = unmappable->map(0, kWholeBuffer);
  ASSERT_FALSE(mapped.ok());
  EXPECT_TRUE(contains(mapped.status().message(), "lacks a Mapping bit"));
  uint32_t word = 0;
  EXPECT_FALSE(unmappable->read(0, &word, 4).ok());

  // Both: mappable, zero-filled, in range only.
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> mappable,
      device->allocator().allocate(kHostMemory,
                                   BufferUsage::Transfer |
                                       BufferUsage::MappingPersistent,
                                   64));
  FLEET_ASSERT_OK_AND_ASSIGN(uint8_t * data, mappable->map(8, 8));
  EXPECT_EQ(data[0], 0);
  EXPECT_EQ(mappable->map(60, 8).status().code(), StatusCode::OutOfRange);
}

TEST(BufferTest, AllocatorRefusesImpossibleMemory) {
  Ref<Device> plain = makeDevice("local-sync");
  Ref<Device> discrete = makeDevice("local-task?discrete=true");
  Allocator &allocator = discrete->allocator();

  // A discrete device's device-local memory is not host-visible.
  auto refused = allocator.allocate(
      MemoryType::DeviceLocal | MemoryType::HostVisible, BufferUsage::Transfer,
      16);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(refused.status().message(), "hal.allocator.allocate"));
  EXPECT_TRUE(contains(refused.status().message(), discrete->name()));
  EXPECT_TRUE(contains(refused.status().message(),
                       "device-local memory of a discrete device is not "
                       "host-visible"));
  // ... but a plain local device can provide it, and both provide the rest.
  FLEET_EXPECT_OK(plain->allocator()
                      .allocate(MemoryType::DeviceLocal |
                                    MemoryType::HostVisible,
                                BufferUsage::Transfer, 16)
                      .status());
  FLEET_EXPECT_OK(
      allocator.allocate(MemoryType::DeviceLocal, BufferUsage::Transfer, 16)
          .status());
  FLEET_EXPECT_OK(
      allocator.allocate(kHostMemory, kAllUsage, 16).status());

  // Mapping usage without HostVisible could never be mapped.
  auto unmappable = plain->allocator().allocate(
      MemoryType::DeviceLocal, BufferUsage::Transfer | BufferUsage::Mapping,
      16);
  ASSERT_FALSE(unmappable.ok());
  EXPECT_TRUE(contains(unmappable.status().message(),
                       "mapping needs HostVisible memory"));
  // Unknown bits and no visibility at all.
  EXPECT_FALSE(plain->allocator()
                   .allocate(MemoryType(0x100), BufferUsage::Transfer, 16)
                   .ok());
  EXPECT_FALSE(plain->allocator()
                   .allocate(MemoryType::DeviceLocal, BufferUsage(0x4), 16)
                   .ok());
  EXPECT_FALSE(
      plain->allocator().allocate(MemoryType::None, BufferUsage::Transfer, 16)
          .ok());
  EXPECT_FALSE(allocator.canAllocate(
      MemoryType::DeviceLocal | MemoryType::HostVisible, BufferUsage::None));
}

TEST(BufferTest, AllocatorCountsLiveBytes) {
  Ref<Device> device = makeDevice("local-sync");
  {
    Ref<Buffer> a = makeHostBuffer(*device, 100);
    Ref<Buffer> b = makeHostBuffer(*device, 28);
    EXPECT_EQ(device->allocator().statistics().bytesLive, 128u);
  }
  AllocatorStatistics statistics = device->allocator().statistics();
  EXPECT_EQ(statistics.bytesLive, 0u);
  EXPECT_EQ(statistics.bytesPeak, 128u);
  EXPECT_EQ(statistics.allocations, 2u);
  EXPECT_EQ(statistics.deallocations, 2u);
}

TEST(BufferTest, FreedStorageIsReusedZeroFilledAndSurvivesTrim) {
  // A freed block is reused by the next buffer of its size, comes back
  // zero-filled, and trimming the cache leaves later allocations working.
  Ref<Device> device = makeDevice("local-sync");
  for (uint64_t size : {uint64_t(4096), uint64_t(128) << 10,
                        uint64_t(3) << 20}) {
    SCOPED_TRACE(size);
    uint8_t *first;
    {
      Ref<Buffer> a = makeHostBuffer(*device, size);
      first = a->storage();
      ASSERT_NE(first, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
      EXPECT_TRUE(std::all_of(first, first + size,
                              [](uint8_t b) { return b == 0; }));
      std::memset(first, 0xAB, size);
    }
    Ref<Buffer> b = makeHostBuffer(*device, size);
    EXPECT_EQ(b->storage(), first);
    EXPECT_TRUE(std::all_of(b->storage(), b->storage() + size,
                            [](uint8_t x) { return x == 0; }));
    b.reset();
    device->allocator().trimCache();
    // 16 MiB of buffers of this size, distinct and writable.
    size_t count = size_t((16ull << 20) / size + 1);
    std::vector<Ref<Buffer>> many;
    for (size_t i = 0; i < count; ++i) {
      many.push_back(makeHostBuffer(*device, size));
      std::memset(many.back()->storage(), int(i), size);
    }
    for (size_t i = 0; i < count; ++i)
      EXPECT_EQ(many[i]->storage()[size - 1], uint8_t(i));
  }
}

TEST(BufferTest, HugeSizesFailInsteadOfWrapping) {
  // Host programs compute sizes; 2^64 - 1 must not round to a small block.
  Ref<Device> device = makeDevice("local-sync");
  for (uint64_t size : {~uint64_t(0), ~uint64_t(0) - 3, uint64_t(1) << 62}) {
    auto buffer = device->allocator().allocate(
        MemoryType::HostLocal, BufferUsage::Transfer, size);
    ASSERT_FALSE(buffer.ok()) << size;
    EXPECT_EQ(buffer.status().code(), StatusCode::ResourceExhausted);
  }
}

TEST(BufferTest, SizesBeyondTheLimitFailBeforeAllocating) {
  // More than the host's physical memory (256 GiB here for any test
  // machine with less) or than max_allocation is refused with a message,
  // never attempted (an attempt aborts under ASan; a fuzzed artifact asked
  // for 256 GiB).
  Ref<Device> device = makeDevice("local-sync");
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  ASSERT_GT(pages, 0);
  uint64_t physical = uint64_t(pages) * uint64_t(page);
  auto beyond = device->allocator().allocate(
      MemoryType::HostLocal, BufferUsage::Transfer, physical + 4096);
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.status().code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(contains(beyond.status().message(),
                       "more than the host's physical memory"));

  Ref<Device> bounded = makeDevice("local-sync?max_allocation=4096");
  FLEET_EXPECT_OK(bounded->allocator()
                      .allocate(MemoryType::HostLocal, BufferUsage::Transfer,
                                4096)
                      .status());
  // The limit is on the size asked for, not the 64-byte rounding.
  Ref<Device> odd = makeDevice("local-sync?max_allocation=100");
  FLEET_EXPECT_OK(odd->allocator()
                      .allocate(MemoryType::HostLocal, BufferUsage::Transfer,
                                100)
                      .status());
  auto large = bounded->allocator().allocate(
      MemoryType::HostLocal, BufferUsage::Transfer, 4097);
  ASSERT_FALSE(large.ok());
  EXPECT_TRUE(contains(large.status().message(),
                       "cannot allocate 4097 bytes: more than its "
                       "max_allocation of 4096 bytes"));
}

TEST(BufferTest, ImportedHostMemoryIsReleasedByCallback) {
  Ref<Device> device = makeDevice("local-sync");
  std::vector<uint32_t> memory = {1, 2, 3, 4};
  bool released = false;
  {
    FLEET_ASSERT_OK_AND_ASSIGN(
        Ref<Buffer> buffer,
        device->allocator().importHostMemory(
            memory.data(), 16, kHostMemory, kAllUsage,
            [&] { released = true; }));
    EXPECT_EQ(readWords(*buffer), memory);
    uint32_t word = 9;
    FLEET_ASSERT_OK(buffer->write(4, &word, 4));
    EXPECT_EQ(memory[1], 9u);
  }
  EXPECT_TRUE(released);
  EXPECT_FALSE(device->allocator()
                   .importHostMemory(nullptr, 16, kHostMemory, kAllUsage)
                   .ok());
}

TEST(BufferTest, BufferViewChecksShapeTypeAndEncoding) {
  Ref<Device> device = makeDevice("local-sync");
  Ref<Buffer> buffer = makeHostBuffer(*device, 64);
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<BufferView> view,
      BufferView::create(buffer, 16, 32, {2, 4}, element_type::kF32));
  EXPECT_EQ(view->typeString(), "2x4xf32");
  EXPECT_EQ(view->elementCount(), 8u);
  EXPECT_EQ(view->byteOffset(), 16u);
  FLEET_EXPECT_OK(view->check("input0", {2, 4}, element_type::kF32,
                              kEncodingDenseRowMajor));
  Status shape = view->check("input0", {4, 2}, element_type::kF32,
                             kEncodingDenseRowMajor);
  EXPECT_TRUE(contains(shape.message(), "'input0': shape [2, 4]"));
  EXPECT_FALSE(
      view->check("input0", {2, 4}, element_type::kI32, kEncodingDenseRowMajor)
          .ok());
  EXPECT_FALSE(view->check("input0", {2, 4}, element_type::kF32, 7).ok());
  // The shape must fit the range, and the range the buffer.
  EXPECT_FALSE(
      BufferView::create(buffer, 0, 16, {2, 4}, element_type::kF32).ok());
  EXPECT_FALSE(
      BufferView::create(buffer, 48, 32, {2}, element_type::kF32).ok());
}

TEST(BufferTest, TransfersStageThroughQueueOps) {
  // A discrete device's device-local buffer cannot be mapped; tools move
  // bytes through queue ops instead.
  Ref<Device> device = makeDevice("local-task?discrete=true");
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> buffer,
      device->allocator().allocate(MemoryType::DeviceLocal,
                                   BufferUsage::Transfer, 16));
  EXPECT_FALSE(buffer->map(0, 16).ok());
  uint32_t in[4] = {1, 2, 3, 4}, out[4] = {};
  FLEET_ASSERT_OK(
      transferFromHost(*device, in, *buffer, 0, 16, testTimeout()));
  FLEET_ASSERT_OK(transferToHost(*device, *buffer, 4, out, 12, testTimeout()));
  EXPECT_EQ(out[0], 2u);
  EXPECT_EQ(out[2], 4u);
  // The queue ops' own checks apply.
  Status status = transferToHost(*device, *buffer, 8, out, 16, testTimeout());
  EXPECT_EQ(status.code(), StatusCode::OutOfRange);
}

} // namespace
} // namespace fleet::runtime::hal
