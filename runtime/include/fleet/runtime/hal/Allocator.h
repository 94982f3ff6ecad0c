//===- Allocator.h - device memory allocation --------------------*- C++ -*-===//
//
// Each device owns one allocator (`hal.device.allocator`). It refuses memory
// the device cannot provide (docs/design.md §5) instead of handing out
// something else:
//   * unknown memory-type or usage bits;
//   * a Mapping usage bit (MappingScoped/MappingPersistent) without
//     HostVisible memory (such a buffer could never be mapped);
//   * on a discrete device, DeviceLocal memory that is also HostVisible
//     (a discrete device's own memory is not host-visible).
// On local devices every allocation is host memory underneath; the bits are
// enforced anyway so wrong bits fail in tests, not on real hardware. A driver
// with memory of its own (Vulkan; Device::providesMemory) supplies the
// storage instead, with the same rules.
//
// Ownership: the device creates and owns its allocator; the allocator lives as
// long as the device. Buffers retain the device, so they keep the allocator.
// Thread safety: all methods may race.
// Failure behaviour: InvalidArgument naming the device, the operation
// (`hal.allocator.allocate`, `hal.allocator.import`, ...) and the refused
// bits; ResourceExhausted when host memory runs out.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_ALLOCATOR_H
#define FLEET_RUNTIME_HAL_ALLOCATOR_H

#include "fleet/runtime/hal/Buffer.h"

#include <atomic>
#include <vector>
#include <unordered_map>
#include <mutex>
#include <functional>

namespace fleet::runtime::hal {

struct AllocatorStatistics {
  uint64_t bytesLive = 0;
  uint64_t bytesPeak = 0;
  uint64_t allocations = 0;
  uint64_t deallocations = 0;
};

class Allocator {
public:
  explicit Allocator(Device &device) : device_(device) {}
  Allocator(const Allocator &) = delete;
  Allocator &operator=(const Allocator &) = delete;

  Device &device() const { return device_; }

  /// OK when this device can provide memory of `type` for `usage`;
  /// otherwise the reason, prefixed with `operation`.
  Status checkCompatibility(std::string_view operation, MemoryType type,
                            BufferUsage usage) const;
  bool canAllocate(MemoryType type, BufferUsage usage) const {
    return checkCompatibility({}, type, usage).ok();
  }

  /// `hal.allocator.allocate`: synchronous allocation, zero-filled. With
  /// `zeroed` false the contents are undefined, as a queue_alloca's (a
  /// reused block is handed out as it was left): drivers that make a
  /// queue_alloca's memory at once (a device server) use it.
  StatusOr<Ref<Buffer>> allocate(MemoryType type, BufferUsage usage,
                                 uint64_t byteSize, bool zeroed = true);

  /// `hal.allocator.import`: wraps caller-owned host memory. `release` runs
  /// when the buffer dies (may be empty). The memory must stay valid until
  /// then. Unimplemented on a device that provides its own memory (Vulkan):
  /// its kernels cannot reach such a buffer, and the program uploads the
  /// bytes instead.
  StatusOr<Ref<Buffer>> importHostMemory(void *hostPointer, uint64_t byteSize,
                                         MemoryType type, BufferUsage usage,
                                         std::function<void()> release = {});

  AllocatorStatistics statistics() const;

  // For drivers: a buffer object without storage (queue_alloca), and
  // committing/releasing its storage when the queue op runs. `zeroed`:
  // the storage reads as zeros (allocate's buffers); a queue_alloca's
  // contents are undefined (IREE's and stream's `uninitialized`), so a
  // reused block is handed out as it was left (docs/runtime.md "Memory").
  StatusOr<Ref<Buffer>> createUncommitted(MemoryType type, BufferUsage usage,
                                          uint64_t byteSize);
  Status commit(Buffer &buffer, bool zeroed = true);
  void decommit(Buffer &buffer);

  /// Frees the storage blocks kept for reuse (the destructor does too).
  void trimCache();
  ~Allocator();

private:
  /// Freed storage is kept per rounded size and reused by the next commit of
  /// that size, up to kMaxCachedBytes in all: its pages are already faulted
  /// in, which made fresh allocations dominate pipelined runs (measured on
  /// the transformer sample: ~85% of device busy time in queue allocas).
  static constexpr uint64_t kMaxCachedBytes = 256ull << 20;
  void *takeCached(uint64_t roundedSize);
  void noteCommitted(uint64_t byteSize);
  bool putCached(void *memory, uint64_t roundedSize);

  Device &device_;
  std::mutex cacheMutex_;
  std::unordered_map<uint64_t, std::vector<void *>> cache_;
  uint64_t cachedBytes_ = 0;
  std::atomic<uint64_t> bytesLive_{0};
  std::atomic<uint64_t> bytesPeak_{0};
  std::atomic<uint64_t> allocations_{0};
  std::atomic<uint64_t> deallocations_{0};
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_ALLOCATOR_H
