//===- Device.h - devices and their queue operations -------------*- C++ -*-===//
//
// A Device executes queue operations on its queues (docs/design.md §4, §5).
// Every queue op waits on a fence and signals a fence:
//   queueAlloca  (`hal.device.queue.alloca`)    queueDealloca (`...dealloca`)
//   queueExecute (`...execute`, command buffers) queueCopy    (`...copy`)
//   queueFill    (`...fill`)                   queueUpdate  (`...update`)
//   queueBarrier (`...barrier`)                queueFlush   (`...flush`)
// An op runs once its wait fence is reached. Queues are not in order (IREE's
// HAL rule): submission order alone orders nothing, so an op that must follow
// another waits on a fence the other signals; independent ops may run in any
// order or at the same time, allocas and deallocas too (the compiler bounds
// memory: an alloca waits for what the work using it waits for).
// When it is done it signals its signal fence. If it fails, or its wait fence
// fails, it fails every semaphore of its signal fence instead, with a status
// naming the op, its device and the cause, so the failure reaches all waiters,
// on every device, transitively.
//
// The queue is chosen from the affinity mask: the lowest set bit, modulo the
// device's queue count (kQueueAffinityAny = queue 0). A mask of 0 is an error.
//
// Submission checks what it can before queueing and returns the error (and
// fails the signal fence, so nobody waits forever): usage bits, ranges, and
// for buffers of other devices direct access or import (DeviceGroup.h) --
// "hal.device.queue.copy on device 'B': target buffer ... allocated on device
// 'A' is not accessible ...". The runtime never stages through host memory
// silently. Errors that only appear when the op runs (an injected failure,
// a kernel returning non-zero, a buffer without storage) fail the signal
// fence instead.
//
// Ownership: drivers create devices (Driver.h); the first reference goes to
// the caller. Buffers, command buffers and pending queue ops retain their
// device, so a device lives until its last pending op has completed or failed.
// A device's worker threads (local-task) stop when it dies.
// Thread safety: every method may be called from any thread.
// Failure behaviour: see above; waitIdle() is bounded by its timeout.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_DEVICE_H
#define FLEET_RUNTIME_HAL_DEVICE_H

#include "fleet/runtime/hal/Allocator.h"
#include "fleet/runtime/hal/CommandBuffer.h"
#include "fleet/runtime/hal/Fence.h"

#include <optional>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

namespace fleet::runtime::hal {

class DeviceGroup;
struct QueueOp;

/// What a device can do; the DeviceGroup derives the topology from these.
struct DeviceCapabilities {
  /// Target backend served ("local" for both local drivers, "vulkan").
  std::string backend;
  /// Device-local memory is not host-visible and peers cannot touch it
  /// (docs/design.md §3): sharing needs export + import.
  bool discrete = false;
  /// Device memory is ordinary memory of this process, so any local peer can
  /// import it without a copy.
  bool hostAddressable = true;
  /// The device can import host allocations of this process (a local
  /// device's buffers with SharingExport usage) whose address and size are
  /// multiples of this many bytes, without a copy (Vulkan's
  /// VK_EXT_external_memory_host, minImportedHostPointerAlignment); 0: it
  /// cannot. Gives the export_import link to local devices (DeviceGroup.h).
  uint64_t hostImportAlignment = 0;
  /// The device lives in another process (the mpi driver, docs/distributed.md):
  /// nothing here reaches its memory, and it moves bytes between its memory
  /// and this process's host-addressable memory itself, in queue copies.
  bool remote = false;
};

/// The alignment (address and size) the local allocator gives buffers with
/// SharingExport usage, so a device with a hostImportAlignment up to this
/// can import them: one 4 KiB page.
constexpr uint64_t kExportAlignment = 4096;

/// Options of one device; Driver.h fills them from the URI parameters.
struct DeviceOptions {
  /// Names the device in messages and traces; empty: "<driver>:<n>", n
  /// counting devices created in this process.
  std::string name;
  bool discrete = false;
  /// The N-th queue op submitted to the device fails when it runs
  /// (`?fail_after=N`, 1-based); 0 = never.
  uint64_t failAfter = 0;
  /// Worker threads of a local-task device (`task_topology_group_count`).
  uint32_t workerCount = 1;
  /// Number of queues; affinity bits map onto them modulo this count.
  uint32_t queueCount = 1;
  /// A dispatch of more workgroups than this fails (RESOURCE_EXHAUSTED)
  /// instead of running (`?max_workgroups=N`); 0 = no bound. For tools that
  /// run untrusted workgroup counts, such as the artifact fuzzer.
  uint64_t maxWorkgroups = 0;
  /// An allocation of more bytes than this fails (RESOURCE_EXHAUSTED)
  /// instead of being attempted (`?max_allocation=N`); 0 = the host's
  /// physical memory, which local devices allocate from.
  uint64_t maxAllocation = 0;
  /// CPUs the workers of a local-task device are pinned to, worker i to
  /// cpuIds[i % size] (`task_topology_cpu_ids=0,1`, IREE's flag name).
  /// Empty: each worker is pinned to the next CPU of the process's affinity
  /// mask, round robin over every local-task worker of the process, so two
  /// devices' workers start on different cores (an unpinned worker woken by
  /// another device's busy worker queued on that worker's core until it
  /// slept, which serialized pipelines, docs/runtime.md "Workers").
  std::vector<uint32_t> cpuIds;
  /// False with `task_topology_cpu_ids=any`: workers are not pinned.
  bool pinWorkers = true;
  /// vulkan: the physical device (`vulkan://N`, in the order the Vulkan
  /// loader enumerates them).
  uint32_t physicalDevice = 0;
};

/// Answer of Device::query: `value` is meaningful only when `ok`.
struct QueryAnswer {
  bool ok = false;
  int64_t value = 0;
};

/// The executable format local devices load (KernelABI.h).
constexpr const char *kLocalExecutableFormat = "fleet-object-x86_64";
/// The executable format Vulkan devices load: a SPIR-V module whose entry
/// points are the exports (docs/kernel-abi.md "SPIR-V executables").
constexpr const char *kSpirvExecutableFormat = "vulkan-spirv";

/// Storage a driver provides for a buffer (Device::allocateMemory).
struct DeviceMemory {
  /// Where the host reaches the bytes (the driver maps them persistently).
  uint8_t *hostPointer = nullptr;
  /// The driver's record of the allocation; Buffer::driverHandle().
  void *handle = nullptr;
};

/// An executable in a driver format (SPIR-V) before its device loads it.
struct ExecutableSource {
  std::string name;
  std::string format;
  Span<const uint8_t> bytes;
  /// Export i: its name, entry-point symbol and layout.
  std::vector<std::string> exportNames;
  std::vector<std::string> symbols;
  std::vector<std::optional<ExportLayout>> layouts;
  /// For host code (kLocalExecutableFormat) sent to a remote device: what
  /// the artifact records about the kernel library.
  KernelLibraryInfo library;
};

struct DeviceStatistics {
  uint64_t queueOpsSubmitted = 0;
  uint64_t queueOpsExecuted = 0;
  uint64_t queueOpsFailed = 0;
  uint64_t dispatches = 0;
  /// Sum of queue-op execution times; measured only while a tracer is
  /// installed or statistics timing is on (Trace.h).
  uint64_t busyNanoseconds = 0;
  /// Bytes copied where source and target live on different devices.
  uint64_t bytesCrossDevice = 0;
  /// Buffers of other devices this device imported (first uses).
  uint64_t imports = 0;
};

class Device : public RefCounted {
public:
  const std::string &name() const { return name_; }
  /// "local-sync", "local-task" or "vulkan".
  const std::string &driverName() const { return driverName_; }
  const DeviceCapabilities &capabilities() const { return capabilities_; }
  /// The executable format this device loads (kLocalExecutableFormat).
  virtual const char *executableFormat() const {
    return kLocalExecutableFormat;
  }
  /// True when executables reach this device through loadExecutable (a
  /// driver format, or host code a remote device loads in its process);
  /// false: host code the ExecutableLoader loads once for all local devices.
  virtual bool loadsOwnExecutables() const;
  const DeviceOptions &options() const { return options_; }
  uint32_t queueCount() const { return options_.queueCount; }
  Allocator &allocator() { return allocator_; }

  /// The group this device belongs to (null until a DeviceGroup is built).
  DeviceGroup *group() const { return group_; }
  uint32_t groupIndex() const { return groupIndex_; }

  Ref<Semaphore> createSemaphore(uint64_t initialValue = 0);
  /// `hal.fence.create`: a fresh semaphore at 0 and the fence (it, 1).
  Ref<Fence> createFence();

  /// `hal.device.query<%dev> key("category" :: "key")`. Categories:
  ///   "hal.device.id"          key is a pattern (`*`, `?`) matched against
  ///                            the driver name ("local*" matches both
  ///                            local drivers); value 0/1
  ///   "hal.executable.format"  key is a pattern matched against the format
  ///                            this device loads (kLocalExecutableFormat)
  ///   "hal.device"             keys "discrete", "queue_count",
  ///                            "worker_count"
  /// Anything else answers ok = false, so the IR's default applies.
  QueryAnswer query(std::string_view category, std::string_view key) const;

  /// Queue index for an affinity mask; InvalidArgument for 0.
  StatusOr<uint32_t> selectQueue(QueueAffinity affinity) const;

  /// The buffer exists at once; its storage appears when the op runs and is
  /// zero-filled. `pool` is accepted and ignored by local devices.
  StatusOr<Ref<Buffer>> queueAlloca(QueueAffinity affinity, Fence *wait,
                                    Fence *signal, uint64_t pool,
                                    MemoryType type, BufferUsage usage,
                                    uint64_t byteSize);
  /// Frees the storage when the op runs (after the uses its wait fence covers).
  Status queueDealloca(QueueAffinity affinity, Fence *wait, Fence *signal,
                       Buffer &buffer);
  /// Runs the command buffers in order. `bindingTable` resolves slot
  /// bindings; it must be large enough for every slot the commands use.
  Status queueExecute(QueueAffinity affinity, Fence *wait, Fence *signal,
                      Span<CommandBuffer *const> commandBuffers,
                      Span<const BindingRef> bindingTable = {});
  Status queueCopy(QueueAffinity affinity, Fence *wait, Fence *signal,
                   Buffer &source, uint64_t sourceOffset, Buffer &target,
                   uint64_t targetOffset, uint64_t length);
  /// `pattern` repeats every `patternLength` (1, 2 or 4) bytes.
  Status queueFill(QueueAffinity affinity, Fence *wait, Fence *signal,
                   Buffer &target, uint64_t targetOffset, uint64_t length,
                   uint32_t pattern, uint8_t patternLength);
  /// The host bytes are copied at submission.
  Status queueUpdate(QueueAffinity affinity, Fence *wait, Fence *signal,
                     const void *source, Buffer &target, uint64_t targetOffset,
                     uint64_t length);
  Status queueBarrier(QueueAffinity affinity, Fence *wait, Fence *signal);
  /// Local devices queue nothing locally, so flushing does nothing.
  Status queueFlush(QueueAffinity affinity);

  /// Blocks until every op submitted so far has completed or failed.
  Status waitIdle(Timeout timeout);

  /// A driver thread that holds a device a moment longer than the op it
  /// retires (to wake waitIdle callers) brackets that hold with these, the
  /// end after its reference is dropped: it may be the last, and the
  /// device's teardown then runs on that thread.
  static void beginThreadHold();
  static void endThreadHold();
  /// Blocks until no driver thread holds a device (above) or `timeout`
  /// passes; true when none does. A program that returns from main right
  /// after dropping its devices would otherwise let such a thread tear the
  /// last one down while the process exits (Vulkan's instance unloads its
  /// layers then: SIGSEGV in __cxa_finalize in about one run of 50 of
  /// test/Vulkan/distribution.test under load). Thread-safe.
  static bool waitForThreadHolds(Timeout timeout);

  /// Gives up on queued work that waits for semaphore values nothing will
  /// signal (a program that deadlocked itself, or one abandoned after a
  /// timed-out waitIdle): fails each semaphore a waiting op is blocked on
  /// with `reason` (ABORTED if ok), so those ops fail their signal fences and
  /// release what they hold, and repeats until the device is idle or
  /// `timeout` passes. Failing a semaphore is permanent and reaches every
  /// other waiter of it (devices, the host). Call it only when no thread
  /// submits to this device any more; without it, a queue op that can never
  /// run keeps its fences, buffers and this device alive (a reference
  /// cycle through the semaphore it waits on). Returns waitIdle's status.
  Status abandonPending(Status reason, Timeout timeout);

  DeviceStatistics statistics() const;

  /// Checks that this device may touch `buffer` in `operation` and imports it
  /// on first use when that is how this device reaches it (DeviceGroup.h).
  /// `role` names the operand ("source", "binding 1"). Used at submission.
  Status prepareBufferUse(std::string_view operation, std::string_view role,
                          Buffer &buffer);

  // ---- for drivers ---------------------------------------------------------
  /// True when buffers of this device live in memory the driver allocates
  /// (allocateMemory/freeMemory); false: host memory (local devices).
  virtual bool providesMemory() const { return false; }
  /// `byteSize` bytes of this device's memory of `type`, zero-filled when
  /// `zeroed`; ResourceExhausted when the device cannot provide them.
  virtual StatusOr<DeviceMemory> allocateMemory(uint64_t byteSize,
                                                bool zeroed, MemoryType type) {
    return makeStatus(StatusCode::Unimplemented, "device '", name_,
                      "' allocates no memory of its own");
  }
  virtual void freeMemory(DeviceMemory memory) {}
  /// Loads an executable of this device's format (SPIR-V); the result runs
  /// only on this device. Local devices load kernel libraries through the
  /// ExecutableLoader instead.
  virtual StatusOr<Ref<Executable>> loadExecutable(const ExecutableSource &) {
    return makeStatus(StatusCode::Unimplemented, "device '", name_,
                      "' loads executables through the kernel-library "
                      "loader only");
  }
  /// Counts execution; the op's own result goes to its signal fence.
  void noteExecuted(bool failed, uint64_t busyNanoseconds);
  void noteBytesCrossDevice(uint64_t bytes) {
    bytesCrossDevice_.fetch_add(bytes, std::memory_order_relaxed);
  }
  void noteDispatches(uint64_t count) {
    dispatches_.fetch_add(count, std::memory_order_relaxed);
  }
  /// Marks one submitted op done (for waitIdle).
  void noteRetired();

protected:
  Device(std::string driverName, DeviceOptions options,
         DeviceCapabilities capabilities);
  ~Device() override;

  /// For a driver's initialization, before the device joins a group (the
  /// topology reads the capabilities once, DeviceGroup::create).
  DeviceCapabilities &initialCapabilities() { return capabilities_; }

  /// Takes the validated op (built on the caller's stack): run it now or move
  /// it to the heap and queue it. Must not fail: errors go to the op's
  /// signal fence.
  virtual void submit(QueueOp &op) = 0;
  /// The semaphores (with the values they wait for) that queued ops are
  /// blocked on now; for abandonPending. A driver that queues nothing adds
  /// none.
  virtual void blockedWaits(std::vector<FenceEntry> &out) {}

private:
  friend class DeviceGroup;

  /// Fills the common fields, validates fences/affinity, numbers the op.
  Status beginOp(QueueOp &op, QueueAffinity affinity, Fence *wait,
                 Fence *signal);
  /// Fails the signal fence with `status` (prefixed) and returns it.
  Status rejectOp(std::string_view operation, Fence *signal, Status status);
  Status finishSubmit(QueueOp &op);

  std::string driverName_;
  std::string name_;
  DeviceOptions options_;
  DeviceCapabilities capabilities_;
  Allocator allocator_;
  DeviceGroup *group_ = nullptr;
  uint32_t groupIndex_ = 0;

  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> retired_{0};
  std::atomic<uint64_t> executed_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<uint64_t> dispatches_{0};
  std::atomic<uint64_t> busyNanoseconds_{0};
  std::atomic<uint64_t> bytesCrossDevice_{0};
  std::atomic<uint64_t> imports_{0};
  std::atomic<uint32_t> idleWaiters_{0};
  std::mutex idleMutex_;
  std::condition_variable idleCondition_;
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_DEVICE_H
