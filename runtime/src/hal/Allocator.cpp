//===- Allocator.cpp - device memory allocation ----------------------------===//
//
// Local devices allocate host memory, 64-byte aligned (cache line, and the
// widest vector loads kernels emit), or page-aligned in whole pages with
// SharingExport usage (kExportAlignment: a Vulkan device imports such
// memory in place); buffers of 2 MiB and more are 2 MiB
// aligned and asked to be backed by transparent huge pages (Linux
// madvise(MADV_HUGEPAGE), where THP is in `madvise` mode): a kernel walking
// rows of a 64 MiB matrix then misses the TLB once per 2 MiB, not once per
// 4 KiB page (docs/runtime.md "Memory"). The memory-type rules are enforced as if
// the device had its own memory, so a program that would break on a discrete
// accelerator breaks here too (docs/design.md §5).
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/hal/Allocator.h"

#include "fleet/runtime/hal/Device.h"

#include <cstdlib>
#include <cstring>

#include <sys/mman.h>
#include <unistd.h>

namespace fleet::runtime::hal {
namespace {

constexpr uint64_t kAlignment = 64;
/// Buffers this large get huge-page alignment and advice.
constexpr uint64_t kHugePageBytes = 2 << 20;

/// The alignment and rounded size of `buffer`'s host memory (never 0).
uint64_t getAlignment(const Buffer &buffer) {
  return anyBitSet(buffer.allowedUsage(), BufferUsage::SharingExport)
             ? kExportAlignment
             : kAlignment;
}
uint64_t getRoundedSize(const Buffer &buffer) {
  uint64_t alignment = getAlignment(buffer);
  uint64_t rounded =
      (buffer.byteSize() + alignment - 1) / alignment * alignment;
  return rounded ? rounded : alignment;
}

/// Fresh memory of `rounded` bytes (a multiple of `alignment`), zeroed when
/// `zeroed`.
void *allocateFresh(uint64_t rounded, uint64_t alignment, bool zeroed) {
  if (rounded < kHugePageBytes) {
    void *memory = std::aligned_alloc(alignment, rounded);
    if (memory && zeroed)
      std::memset(memory, 0, rounded);
    return memory;
  }
  uint64_t size = (rounded + kHugePageBytes - 1) / kHugePageBytes *
                  kHugePageBytes;
  void *memory = std::aligned_alloc(kHugePageBytes, size);
  if (!memory)
    return nullptr;
#ifdef MADV_HUGEPAGE
  // Advice only: without THP the pages stay 4 KiB.
  (void)madvise(memory, size, MADV_HUGEPAGE);
#endif
  if (zeroed)
    std::memset(memory, 0, rounded);
  return memory;
}
/// The bit DeviceLocal adds to DeviceVisible.
constexpr MemoryType kDeviceLocalOnlyBit = MemoryType(0x20);

} // namespace

Status Allocator::checkCompatibility(std::string_view operation,
                                     MemoryType type,
                                     BufferUsage usage) const {
  auto refuse = [&](const auto &...reason) {
    return makeStatus(StatusCode::InvalidArgument, operation,
                      operation.empty() ? "" : ": ", "device '",
                      device_.name(), "' cannot provide memory of type ",
                      toString(type), " for usage ", toString(usage), ": ",
                      reason...);
  };
  if (anyBitSet(type, ~kAllMemoryTypeBits))
    return refuse("unknown memory type bits");
  if (anyBitSet(usage, ~kAllBufferUsageBits))
    return refuse("unknown buffer usage bits");
  if (!anyBitSet(type, MemoryType::HostVisible | MemoryType::DeviceVisible))
    return refuse("the type is visible to neither host nor device");
  if (anyBitSet(usage, kMappingUsageBits) &&
      !allBitsSet(type, MemoryType::HostVisible))
    return refuse("mapping needs HostVisible memory");
  if (device_.capabilities().discrete &&
      allBitsSet(type, kDeviceLocalOnlyBit | MemoryType::HostVisible))
    return refuse("device-local memory of a discrete device is not "
                  "host-visible");
  return Status();
}

StatusOr<Ref<Buffer>> Allocator::createUncommitted(MemoryType type,
                                                   BufferUsage usage,
                                                   uint64_t byteSize) {
  return Ref<Buffer>::adopt(
      new Buffer(Ref<Device>(&device_), type, usage, byteSize));
}

void *Allocator::takeCached(uint64_t roundedSize) {
  std::lock_guard<std::mutex> lock(cacheMutex_);
  auto it = cache_.find(roundedSize);
  if (it == cache_.end() || it->second.empty())
    return nullptr;
  void *memory = it->second.back();
  it->second.pop_back();
  cachedBytes_ -= roundedSize & ~uint64_t(1); // Bit 0: the alignment mark.
  return memory;
}

bool Allocator::putCached(void *memory, uint64_t roundedSize) {
  std::lock_guard<std::mutex> lock(cacheMutex_);
  uint64_t bytes = roundedSize & ~uint64_t(1); // Bit 0: the alignment mark.
  if (cachedBytes_ + bytes > kMaxCachedBytes)
    return false;
  cache_[roundedSize].push_back(memory);
  cachedBytes_ += bytes;
  return true;
}

void Allocator::trimCache() {
  std::lock_guard<std::mutex> lock(cacheMutex_);
  for (auto &[size, blocks] : cache_)
    for (void *memory : blocks)
      std::free(memory);
  cache_.clear();
  cachedBytes_ = 0;
}

Allocator::~Allocator() { trimCache(); }

Status Allocator::commit(Buffer &buffer, bool zeroed) {
  // Sizes the host program computes may be anything: one whose rounding
  // would wrap must not turn into a tiny allocation behind a huge buffer.
  if (buffer.byteSize() > ~uint64_t(0) - kExportAlignment)
    return makeStatus(StatusCode::ResourceExhausted, "device '",
                      device_.name(), "' cannot allocate ", buffer.byteSize(),
                      " bytes");
  uint64_t rounded = getRoundedSize(buffer);
  uint64_t alignment = getAlignment(buffer);
  // A size no allocation can satisfy is refused before trying: more than
  // the host has (local devices allocate host memory), or than the device's
  // max_allocation.
  static const uint64_t physical = [] {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size)
                                 : ~uint64_t(0);
  }();
  uint64_t limit = device_.options().maxAllocation
                       ? device_.options().maxAllocation
                       : physical;
  if (buffer.byteSize() > limit || rounded > physical)
    return makeStatus(StatusCode::ResourceExhausted, "device '",
                      device_.name(), "' cannot allocate ", buffer.byteSize(),
                      " bytes: more than ",
                      device_.options().maxAllocation
                          ? "its max_allocation of "
                          : "the host's physical memory, ",
                      limit, " bytes");
  if (device_.providesMemory()) {
    // Driver memory (Vulkan): the driver checks its own heap sizes.
    FLEET_ASSIGN_OR_RETURN(DeviceMemory memory,
                           device_.allocateMemory(buffer.byteSize(), zeroed,
                                                  buffer.memoryType()));
    buffer.ownsStorage_ = true;
    buffer.driverHandle_.store(memory.handle, std::memory_order_release);
    buffer.storage_.store(memory.hostPointer, std::memory_order_release);
    noteCommitted(buffer.byteSize());
    return Status();
  }
  // The cache is keyed by size and alignment (sizes are multiples of 64,
  // so bit 0 marks page-aligned blocks).
  uint64_t key = rounded | (alignment == kExportAlignment ? 1 : 0);
  void *memory = takeCached(key);
  if (memory && zeroed)
    std::memset(memory, 0, rounded);
  else if (!memory)
    memory = allocateFresh(rounded, alignment, zeroed);
  if (!memory)
    return makeStatus(StatusCode::ResourceExhausted, "device '",
                      device_.name(), "' is out of memory allocating ",
                      buffer.byteSize(), " bytes");
  buffer.ownsStorage_ = true;
  buffer.storage_.store(static_cast<uint8_t *>(memory),
                        std::memory_order_release);
  noteCommitted(buffer.byteSize());
  return Status();
}

void Allocator::noteCommitted(uint64_t byteSize) {
  allocations_.fetch_add(1, std::memory_order_relaxed);
  uint64_t live =
      bytesLive_.fetch_add(byteSize, std::memory_order_relaxed) + byteSize;
  uint64_t peak = bytesPeak_.load(std::memory_order_relaxed);
  while (live > peak &&
         !bytesPeak_.compare_exchange_weak(peak, live,
                                           std::memory_order_relaxed)) {
  }
}

void Allocator::decommit(Buffer &buffer) {
  buffer.releaseImports();
  uint8_t *memory = buffer.storage_.exchange(nullptr, std::memory_order_acq_rel);
  void *handle =
      buffer.driverHandle_.exchange(nullptr, std::memory_order_acq_rel);
  if ((!memory && !handle) || !buffer.ownsStorage_)
    return;
  if (handle) {
    device_.freeMemory(DeviceMemory{memory, handle});
    buffer.ownsStorage_ = false;
    deallocations_.fetch_add(1, std::memory_order_relaxed);
    bytesLive_.fetch_sub(buffer.byteSize(), std::memory_order_relaxed);
    return;
  }
  uint64_t rounded = getRoundedSize(buffer);
  uint64_t key =
      rounded | (getAlignment(buffer) == kExportAlignment ? 1 : 0);
  if (!putCached(memory, key))
    std::free(memory);
  buffer.ownsStorage_ = false;
  deallocations_.fetch_add(1, std::memory_order_relaxed);
  bytesLive_.fetch_sub(buffer.byteSize(), std::memory_order_relaxed);
}

StatusOr<Ref<Buffer>> Allocator::allocate(MemoryType type, BufferUsage usage,
                                          uint64_t byteSize, bool zeroed) {
  FLEET_RETURN_IF_ERROR(
      checkCompatibility("hal.allocator.allocate", type, usage));
  FLEET_ASSIGN_OR_RETURN(Ref<Buffer> buffer,
                         createUncommitted(type, usage, byteSize));
  FLEET_RETURN_IF_ERROR(
      commit(*buffer, zeroed).withContext("hal.allocator.allocate"));
  return buffer;
}

StatusOr<Ref<Buffer>>
Allocator::importHostMemory(void *hostPointer, uint64_t byteSize,
                            MemoryType type, BufferUsage usage,
                            std::function<void()> release) {
  FLEET_RETURN_IF_ERROR(
      checkCompatibility("hal.allocator.import", type, usage));
  if (!hostPointer)
    return makeStatus(StatusCode::InvalidArgument,
                      "hal.allocator.import: null host pointer for device '",
                      device_.name(), "'");
  // A device with memory of its own (Vulkan) cannot use host bytes wrapped
  // as a buffer: refused, so the program uploads them instead (a program's
  // constants, a global's initial value).
  if (device_.providesMemory())
    return makeStatus(StatusCode::Unimplemented, "hal.allocator.import: ",
                      "device '", device_.name(),
                      "' does not import host memory");
  FLEET_ASSIGN_OR_RETURN(Ref<Buffer> buffer,
                         createUncommitted(type, usage, byteSize));
  buffer->storage_.store(static_cast<uint8_t *>(hostPointer),
                         std::memory_order_release);
  buffer->releaseCallback_ = std::move(release);
  return buffer;
}

AllocatorStatistics Allocator::statistics() const {
  AllocatorStatistics statistics;
  statistics.bytesLive = bytesLive_.load(std::memory_order_relaxed);
  statistics.bytesPeak = bytesPeak_.load(std::memory_order_relaxed);
  statistics.allocations = allocations_.load(std::memory_order_relaxed);
  statistics.deallocations = deallocations_.load(std::memory_order_relaxed);
  return statistics;
}

} // namespace fleet::runtime::hal
