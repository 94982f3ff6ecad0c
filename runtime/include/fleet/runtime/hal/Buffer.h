//===- Buffer.h - device buffers and buffer views ----------------*- C++ -*-===//
//
// A Buffer is a byte range of device memory with a memory type and the usage
// it was allocated for (Types.h; values of docs/ir-reference.md). The runtime
// enforces both (docs/design.md §3, §5):
//   * map() needs HostVisible memory and a Mapping usage bit (MappingScoped or
//     MappingPersistent);
//   * queue ops and commands check TransferSource/TransferTarget/
//     DispatchStorage usage and bounds;
//   * a queue op on another device needs direct access (unified memory or
//     transparent access) or an import, which needs SharingExport usage and an
//     export_import link (DeviceGroup.h).
// A buffer from Device::queueAlloca has no storage until the alloca runs, and
// none after its queue_dealloca runs; using it then fails the queue op.
//
// Ownership: Allocator::allocate/importHostMemory and Device::queueAlloca
// return the first reference. A buffer retains its device. Storage is freed by
// queue_dealloca or when the last reference goes, whichever comes first.
// Imported host memory is never freed by the runtime; its release callback
// runs when the buffer dies.
// Thread safety: the properties are immutable; storage comes and goes only
// through queue ops, which the caller orders with fences. map() may race with
// anything except a dealloca of the same buffer.
// Failure behaviour: map() and the data helpers return errors naming the
// buffer, the operation and the missing bit; nothing aborts.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_BUFFER_H
#define FLEET_RUNTIME_HAL_BUFFER_H

#include "fleet/runtime/hal/Ref.h"
#include "fleet/runtime/hal/Status.h"
#include "fleet/runtime/hal/Types.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace fleet::runtime::hal {

class Allocator;
class Device;

/// "Until the end of the buffer" for lengths (IREE's WHOLE_BUFFER).
constexpr uint64_t kWholeBuffer = ~uint64_t(0);

class Buffer final : public RefCounted {
public:
  Device &device() const { return *device_; }
  MemoryType memoryType() const { return memoryType_; }
  BufferUsage allowedUsage() const { return allowedUsage_; }
  uint64_t byteSize() const { return byteSize_; }
  /// False before its queue_alloca ran and after its queue_dealloca ran.
  bool hasStorage() const {
    return storage_.load(std::memory_order_acquire) != nullptr;
  }

  /// Host address of byte `offset`..`offset+length` for the host program.
  /// Errors: memory not HostVisible, usage without MappingScoped or
  /// MappingPersistent, no storage, or range outside the buffer.
  /// `length` may be kWholeBuffer.
  StatusOr<uint8_t *> map(uint64_t offset, uint64_t length) const;
  /// map() + memcpy, for tools and tests.
  Status read(uint64_t offset, void *target, uint64_t length) const;
  Status write(uint64_t offset, const void *source, uint64_t length);

  /// The storage address without the mapping check: for drivers and kernels
  /// only (a local device touches its memory directly). Null without storage.
  uint8_t *storage() const { return storage_.load(std::memory_order_acquire); }
  /// The driver's object for the storage (a Vulkan driver's VkBuffer
  /// record), or null: host memory of a local device, imported host memory.
  /// Set and cleared with the storage.
  void *driverHandle() const {
    return driverHandle_.load(std::memory_order_acquire);
  }

  /// "buffer of 64 bytes (DeviceLocal, Transfer|DispatchStorage) on device
  /// 'local-task:0'".
  std::string describe() const;

  /// Bit i set: the device with group index i imported this buffer.
  uint64_t importedByMask() const {
    return importedBy_.load(std::memory_order_acquire);
  }

  /// For drivers that import this buffer's storage into their own objects
  /// (a Vulkan device's VkBuffer over host memory): `release` runs once,
  /// before the storage goes (queue_dealloca, the last reference, or the
  /// allocator's teardown), so the import never outlives the memory.
  /// Thread-safe.
  void addImportRelease(std::function<void()> release);

  /// PERMISSION_DENIED "<operation>: <what> <describe()> lacks usage
  /// <usage>" unless one of `usage`'s bits is allowed; OK otherwise.
  Status requireUsage(std::string_view operation, std::string_view what,
                      BufferUsage usage) const;

  /// Resolves kWholeBuffer and checks `offset + length <= byteSize()`.
  /// `what` names the operand in the error ("source", "binding 2").
  StatusOr<uint64_t> resolveRange(std::string_view operation,
                                  std::string_view what, uint64_t offset,
                                  uint64_t length) const;

private:
  friend class Allocator;
  friend class Device;
  friend class DeviceGroup;

  Buffer(Ref<Device> device, MemoryType type, BufferUsage usage,
         uint64_t byteSize);
  ~Buffer() override;

  Ref<Device> device_;
  MemoryType memoryType_;
  BufferUsage allowedUsage_;
  uint64_t byteSize_;
  std::atomic<uint8_t *> storage_{nullptr};
  std::atomic<void *> driverHandle_{nullptr};
  /// Set for storage the allocator owns (counted in its statistics).
  bool ownsStorage_ = false;
  std::function<void()> releaseCallback_;
  std::atomic<uint64_t> importedBy_{0};
  std::mutex importMutex_;
  std::vector<std::function<void()>> importReleases_;
  /// Runs and clears the import releases (before the storage goes).
  void releaseImports();
};

/// A buffer range with a shape, element type and encoding
/// (`hal.buffer_view.create`).
/// Ownership: BufferView::create returns the first reference; the view
/// retains its buffer. Thread safety: immutable after creation.
/// Failure behaviour: create() fails when the range exceeds the buffer or
/// the shape needs more bytes than the range holds.
class BufferView final : public RefCounted {
public:
  static StatusOr<Ref<BufferView>>
  create(Ref<Buffer> buffer, uint64_t offset, uint64_t length,
         std::vector<int64_t> shape, ElementType elementType,
         EncodingType encoding = kEncodingDenseRowMajor);

  Buffer &buffer() const { return *buffer_; }
  const Ref<Buffer> &bufferRef() const { return buffer_; }
  uint64_t byteOffset() const { return byteOffset_; }
  uint64_t byteLength() const { return byteLength_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  int64_t dim(size_t i) const { return shape_[i]; }
  ElementType elementType() const { return elementType_; }
  EncodingType encoding() const { return encoding_; }
  uint64_t elementCount() const;

  /// `hal.buffer_view.assert`: OK when shape, element type and encoding
  /// match, else InvalidArgument naming `message` and what differs.
  Status check(std::string_view message, const std::vector<int64_t> &shape,
               ElementType elementType, EncodingType encoding) const;

  /// "4x2xf32" (iree-run-module's type spelling).
  std::string typeString() const;

private:
  BufferView() = default;
  Ref<Buffer> buffer_;
  uint64_t byteOffset_ = 0;
  uint64_t byteLength_ = 0;
  std::vector<int64_t> shape_;
  ElementType elementType_ = 0;
  EncodingType encoding_ = kEncodingDenseRowMajor;
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_BUFFER_H
