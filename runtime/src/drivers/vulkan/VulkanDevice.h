//===- VulkanDevice.h - the vulkan driver --------------------------*- C++ -*-===//
//
// A Fleet device on one Vulkan physical device (docs/runtime.md "Vulkan").
//
// Queues and fences: Fleet's semaphores and fences are host objects shared
// by every driver, so a Vulkan device keeps the local drivers' pending-op
// lists (LocalDevice): an op is armed on its wait fence and becomes ready
// when the fence is reached. Then one of the device's submission threads
// (one per Fleet queue) records a Vulkan command buffer for it, submits it
// to the VkQueue signalling a timeline semaphore, waits for that value on
// the host, and signals the op's Fleet fence. This is the host-side bridge
// between Vulkan timelines and Fleet timelines; its cost per op is measured
// by `make bench` (row VKD, docs/runtime.md "Vulkan"). Failures (VkResult
// errors, an injected `fail_after`, a lost device, a wait that times out)
// fail the op's signal fence; nothing waits forever.
//
// Imports: a local device's buffer with SharingExport usage (page-aligned
// host memory, Allocator.cpp) is bound by commands through a VkBuffer over
// the imported host allocation (VK_EXT_external_memory_host), made on first
// use and destroyed before the buffer's storage goes: the export_import
// link from a vulkan device to local devices (DeviceGroup.h).
//
// Memory: every buffer is a VkBuffer bound to its own VkDeviceMemory of a
// HOST_VISIBLE | HOST_COHERENT memory type (DEVICE_LOCAL preferred), mapped
// for the buffer's lifetime: the host program's map(), the copies with
// other devices' memory and tools reach it without staging. Memory-type
// rules are Fleet's (Allocator.h): with `discrete=true` a DeviceLocal
// buffer is not host-visible to the program even though the driver maps it.
//
// Executables: SPIR-V modules (kSpirvExecutableFormat); each export is a
// compute pipeline whose bindings are storage buffers 0..n-1 of descriptor
// set 0 (pushed with VK_KHR_push_descriptor) and whose constants are push
// constants, 32-bit words from offset 0 (docs/kernel-abi.md "SPIR-V
// executables").
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANDEVICE_H
#define FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANDEVICE_H

#include "drivers/local/LocalDevice.h"
#include "drivers/vulkan/VulkanInstance.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace fleet::runtime::hal::vulkan {

/// Buffer::driverHandle() of a Vulkan buffer.
struct VulkanBuffer {
  const void *owner = nullptr; // the VulkanDevice
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;
};

/// ExecutableExport::driverEntry of a Vulkan export.
struct VulkanPipeline {
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t bindingCount = 0;
  uint32_t constantCount = 0;
};

/// One command pool, command buffer and timeline semaphore, used by one
/// submission at a time.
struct SubmitContext {
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkSemaphore timeline = VK_NULL_HANDLE;
  uint64_t value = 0;
  /// Two timestamp queries (start, end of the submission) when the device
  /// has calibrated timestamps (VulkanTimestamps.cpp); else null.
  VkQueryPool queries = VK_NULL_HANDLE;
};

class VulkanDevice final : public local::LocalDevice {
public:
  static StatusOr<Ref<Device>> create(const DeviceOptions &options,
                                      uint32_t physicalIndex);
  ~VulkanDevice() override;

  const char *executableFormat() const override {
    return kSpirvExecutableFormat;
  }
  bool providesMemory() const override { return true; }
  StatusOr<DeviceMemory> allocateMemory(uint64_t byteSize, bool zeroed,
                                        MemoryType type) override;
  void freeMemory(DeviceMemory memory) override;
  StatusOr<Ref<Executable>> loadExecutable(const ExecutableSource &) override;

  VkDevice handle() const { return device_; }
  /// Bytes of the memory heap buffers come from.
  uint64_t heapSize() const { return heapSize_; }
  const VkPhysicalDeviceLimits &limits() const { return limits_; }

protected:
  bool runsInline() const override { return false; }
  void schedule(local::PendingOp *op) override;
  int32_t runWorkgroups(fleet_kernel_fn_t, const fleet_kernel_state_t &,
                        uint64_t &) override {
    return -1; // Dispatches are Vulkan commands here (execute()).
  }
  Status execute(QueueOp &op, ExecutionInfo &info) override;

private:
  VulkanDevice(const DeviceOptions &options,
               std::shared_ptr<VulkanInstance> instance);
  Status initialize(uint32_t physicalIndex);

  /// The VulkanBuffer of `buffer` when it is memory of this device.
  const VulkanBuffer *ownBuffer(const Buffer &buffer) const;
  /// The VulkanBuffer commands use for `buffer`: its own, or the import of
  /// a local device's buffer (export_import link, SharingExport usage),
  /// made on first use and released before the buffer's storage goes
  /// (VulkanHostImport.cpp). Errors name `operation` and `role`.
  StatusOr<const VulkanBuffer *> reachBuffer(Buffer &buffer,
                                             std::string_view operation,
                                             std::string_view role);
  void releaseImport(const Buffer *buffer);
  StatusOr<SubmitContext *> takeContext();
  void returnContext(SubmitContext *context);
  /// Records `op` (a copy, fill or update of own buffers, or an execute)
  /// into `commands`.
  Status record(QueueOp &op, VkCommandBuffer commands, ExecutionInfo &info);
  Status recordCommandBuffer(const QueueOp &op, const CommandBuffer &commands,
                             VkCommandBuffer target, ExecutionInfo &info);
  Status submitAndWait(SubmitContext &context, const char *operation);

  // Device time in the trace (VulkanTimestamps.cpp): with timestamp queries
  // and VK_EXT_calibrated_timestamps (CLOCK_MONOTONIC), each traced
  // submission also gets a slice of its device execution on the track
  // "<device> gpu queue <n>".
  /// Before vkCreateDevice: whether the device can (`calibrated`: it has
  /// VK_EXT_calibrated_timestamps); adds the extension.
  void probeTimestamps(bool calibrated, std::vector<const char *> &extensions);
  /// After vkCreateDevice: the calibration.
  void calibrateTimestamps();
  Status createTimestampQueries(SubmitContext &context);
  bool tracesDeviceTime(const ExecutionInfo &info) const {
    return info.tracer && timestampsCalibrated_;
  }
  void writeTimestamp(SubmitContext &context, uint32_t query);
  void traceDeviceTime(SubmitContext &context, const QueueOp &op,
                       const ExecutionInfo &info);

  std::shared_ptr<VulkanInstance> instance_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queueFamily_ = 0;
  uint32_t memoryType_ = 0;
  uint64_t heapSize_ = 0;
  VkPhysicalDeviceLimits limits_{};
  PFN_vkCmdPushDescriptorSetKHR pushDescriptorSet_ = nullptr;
  PFN_vkGetMemoryHostPointerPropertiesEXT hostPointerProperties_ = nullptr;
  uint64_t hostImportAlignment_ = 0;
  bool timestampsProbed_ = false;
  bool timestampsCalibrated_ = false;
  double timestampPeriod_ = 1.0; // Nanoseconds per tick.
  uint64_t timestampMask_ = ~uint64_t(0);
  /// CLOCK_MONOTONIC nanoseconds at device tick 0.
  double timestampOffset_ = 0;
  /// Imported local buffers, by buffer (their storage does not change while
  /// imported: a decommit releases the import first).
  std::mutex importMutex_;
  std::unordered_map<const Buffer *, std::unique_ptr<VulkanBuffer>> imports_;
  /// vkQueueSubmit needs the queue externally synchronized.
  std::mutex queueMutex_;
  std::mutex contextMutex_;
  std::vector<std::unique_ptr<SubmitContext>> contexts_;
  std::vector<SubmitContext *> freeContexts_;
  std::unique_ptr<local::WorkerPool> submitters_;
};

} // namespace fleet::runtime::hal::vulkan

#endif // FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANDEVICE_H
