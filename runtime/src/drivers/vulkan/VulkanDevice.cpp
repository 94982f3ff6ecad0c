//===- VulkanDevice.cpp - device, memory and queue ops of the vulkan driver ===//

#include "drivers/vulkan/VulkanDevice.h"

#include "drivers/vulkan/VulkanDriver.h"

#include <algorithm>
#include <cstring>

namespace fleet::runtime::hal::vulkan {
namespace {

/// How long the bridge waits for one submission before failing it: work
/// that takes longer than this is treated as a hung device.
constexpr uint64_t kSubmitTimeoutNanoseconds = 120ull * 1000 * 1000 * 1000;

/// Every write of earlier commands (and earlier submissions on the queue)
/// before every access of later ones: Fleet orders queue ops through its
/// fences, so within a submission commands run one after another, as on the
/// local drivers.
void fullBarrier(VkCommandBuffer commands, VkPipelineStageFlags dstStages,
                 VkAccessFlags dstAccess) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT |
                          VK_ACCESS_TRANSFER_WRITE_BIT |
                          VK_ACCESS_HOST_WRITE_BIT;
  barrier.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(commands,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                           VK_PIPELINE_STAGE_TRANSFER_BIT |
                           VK_PIPELINE_STAGE_HOST_BIT,
                       dstStages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

constexpr VkPipelineStageFlags kDeviceStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kDeviceAccess =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;

bool hasExtension(VkPhysicalDevice physical, const char *name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count,
                                       extensions.data());
  for (const VkExtensionProperties &extension : extensions)
    if (std::strcmp(extension.extensionName, name) == 0)
      return true;
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

VulkanDevice::VulkanDevice(const DeviceOptions &options,
                           std::shared_ptr<VulkanInstance> instance)
    : LocalDevice("vulkan", options,
                  DeviceCapabilities{"vulkan", options.discrete, true}),
      instance_(std::move(instance)) {}

StatusOr<Ref<Device>> VulkanDevice::create(const DeviceOptions &options,
                                           uint32_t physicalIndex) {
  FLEET_ASSIGN_OR_RETURN(std::shared_ptr<VulkanInstance> instance,
                         VulkanInstance::get());
  Ref<VulkanDevice> device =
      Ref<VulkanDevice>::adopt(new VulkanDevice(options, std::move(instance)));
  FLEET_RETURN_IF_ERROR(device->initialize(physicalIndex));
  return Ref<Device>(device.get());
}

Status VulkanDevice::initialize(uint32_t physicalIndex) {
  const std::vector<VkPhysicalDevice> &physicals = instance_->physicalDevices();
  if (physicalIndex >= physicals.size()) {
    std::string names;
    for (VkPhysicalDevice physical : physicals) {
      VkPhysicalDeviceProperties properties;
      vkGetPhysicalDeviceProperties(physical, &properties);
      names += concat(names.empty() ? "" : ", ", "'", properties.deviceName,
                      "'");
    }
    return makeStatus(StatusCode::NotFound, "vulkan://", physicalIndex,
                      ": there are ", physicals.size(),
                      " Vulkan physical devices", names.empty() ? "" : " (",
                      names, names.empty() ? "" : ")",
                      "; VK_ICD_FILENAMES selects the drivers");
  }
  physical_ = physicals[physicalIndex];
  VkPhysicalDeviceProperties properties;
  vkGetPhysicalDeviceProperties(physical_, &properties);
  limits_ = properties.limits;
  auto refuse = [&](const auto &...why) {
    return makeStatus(StatusCode::FailedPrecondition, "vulkan://",
                      physicalIndex, " ('", properties.deviceName, "'): ",
                      why...);
  };
  if (properties.apiVersion < VK_API_VERSION_1_2)
    return refuse("Vulkan 1.2 is needed (timeline semaphores)");
  VkPhysicalDeviceVulkan12Features features12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &features12;
  vkGetPhysicalDeviceFeatures2(physical_, &features);
  if (!features12.timelineSemaphore)
    return refuse("timeline semaphores are not supported");
  if (!hasExtension(physical_, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME))
    return refuse(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, " is not supported");

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &familyCount,
                                           families.data());
  bool found = false;
  for (uint32_t i = 0; i < familyCount && !found; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queueFamily_ = i;
      found = true;
    }
  if (!found)
    return refuse("no queue family supports compute");

  // All buffers are mapped (VulkanDevice.h): host-visible coherent memory,
  // device-local when there is such a type.
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  int chosen = -1;
  const VkMemoryPropertyFlags needed = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((flags & needed) != needed)
      continue;
    if (chosen < 0 || (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
      chosen = int(i);
    if (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
      break;
  }
  if (chosen < 0)
    return refuse("no host-visible coherent memory type (this driver maps "
                  "every buffer; docs/runtime.md \"Vulkan\")");
  memoryType_ = uint32_t(chosen);
  heapSize_ = memory.memoryHeaps[memory.memoryTypes[chosen].heapIndex].size;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = queueFamily_;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features enable12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  enable12.timelineSemaphore = VK_TRUE;
  VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enable.pNext = &enable12;
  // Kernels index with 64-bit integers where the device allows it.
  enable.features.shaderInt64 = features.features.shaderInt64;
  std::vector<const char *> extensions = {
      VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  // Host allocations imported in place: the export_import link from this
  // device to local devices (VulkanHostImport.cpp).
  bool importsHost =
      hasExtension(physical_, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  if (importsHost) {
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT hostProperties{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 properties2{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    properties2.pNext = &hostProperties;
    vkGetPhysicalDeviceProperties2(physical_, &properties2);
    hostImportAlignment_ = hostProperties.minImportedHostPointerAlignment;
    extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  }
  probeTimestamps(
      hasExtension(physical_, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME),
      extensions);
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enable;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult result = vkCreateDevice(physical_, &info, nullptr, &device_))
    return vulkanError(result, concat("vulkan://", physicalIndex,
                                      ": vkCreateDevice"));
  vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);
  pushDescriptorSet_ = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(
      vkGetDeviceProcAddr(device_, "vkCmdPushDescriptorSetKHR"));
  if (!pushDescriptorSet_)
    return refuse("vkCmdPushDescriptorSetKHR is missing");
  calibrateTimestamps();
  if (importsHost) {
    hostPointerProperties_ =
        reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
            vkGetDeviceProcAddr(device_,
                                "vkGetMemoryHostPointerPropertiesEXT"));
    if (hostPointerProperties_ && hostImportAlignment_ &&
        kExportAlignment % hostImportAlignment_ == 0)
      initialCapabilities().hostImportAlignment = hostImportAlignment_;
  }
  // The submission threads mostly wait for the device: not pinned.
  submitters_ = std::make_unique<local::WorkerPool>(name(), queueCount(),
                                                    std::vector<uint32_t>{},
                                                    /*pin=*/false);
  return Status();
}

VulkanDevice::~VulkanDevice() {
  // Every op retained this device until it completed, so the queue is idle.
  submitters_.reset();
  allocator().trimCache();
  if (device_ == VK_NULL_HANDLE)
    return;
  for (const std::unique_ptr<SubmitContext> &context : contexts_) {
    if (context->timeline)
      vkDestroySemaphore(device_, context->timeline, nullptr);
    if (context->pool)
      vkDestroyCommandPool(device_, context->pool, nullptr);
    if (context->queries)
      vkDestroyQueryPool(device_, context->queries, nullptr);
  }
  vkDestroyDevice(device_, nullptr);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

StatusOr<DeviceMemory> VulkanDevice::allocateMemory(uint64_t byteSize,
                                                    bool zeroed,
                                                    MemoryType) {
  // Fill and update commands work on 4-byte words: round the VkBuffer up.
  uint64_t size = std::max<uint64_t>(4, (byteSize + 3) / 4 * 4);
  uint64_t limit = options().maxAllocation ? options().maxAllocation
                                           : heapSize_;
  if (byteSize > limit)
    return makeStatus(StatusCode::ResourceExhausted, "device '", name(),
                      "' cannot allocate ", byteSize, " bytes: more than ",
                      options().maxAllocation ? "its max_allocation of "
                                              : "its memory heap of ",
                      limit, " bytes");
  auto record = std::make_unique<VulkanBuffer>();
  record->owner = this;
  record->size = size;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = size;
  bufferInfo.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                     VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  std::string what = concat("device '", name(), "' allocating ", byteSize,
                            " bytes: ");
  if (VkResult result =
          vkCreateBuffer(device_, &bufferInfo, nullptr, &record->buffer))
    return vulkanError(result, what + "vkCreateBuffer");
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device_, record->buffer, &requirements);
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex = memoryType_;
  VkResult result =
      (requirements.memoryTypeBits & (1u << memoryType_))
          ? vkAllocateMemory(device_, &allocateInfo, nullptr, &record->memory)
          : VK_ERROR_FEATURE_NOT_PRESENT;
  void *mapped = nullptr;
  if (result == VK_SUCCESS)
    result = vkBindBufferMemory(device_, record->buffer, record->memory, 0);
  if (result == VK_SUCCESS)
    result = vkMapMemory(device_, record->memory, 0, VK_WHOLE_SIZE, 0, &mapped);
  if (result != VK_SUCCESS) {
    if (record->memory)
      vkFreeMemory(device_, record->memory, nullptr);
    vkDestroyBuffer(device_, record->buffer, nullptr);
    return vulkanError(result, what + "vkAllocateMemory");
  }
  if (zeroed)
    std::memset(mapped, 0, size);
  return DeviceMemory{static_cast<uint8_t *>(mapped), record.release()};
}

void VulkanDevice::freeMemory(DeviceMemory memory) {
  std::unique_ptr<VulkanBuffer> record(
      static_cast<VulkanBuffer *>(memory.handle));
  vkDestroyBuffer(device_, record->buffer, nullptr);
  vkFreeMemory(device_, record->memory, nullptr); // Unmaps it too.
}

const VulkanBuffer *VulkanDevice::ownBuffer(const Buffer &buffer) const {
  auto *record = static_cast<const VulkanBuffer *>(buffer.driverHandle());
  return record && record->owner == this ? record : nullptr;
}

//===----------------------------------------------------------------------===//
// Submission
//===----------------------------------------------------------------------===//

void VulkanDevice::schedule(local::PendingOp *op) {
  op->workItem.op = op;
  op->workItem.run = [](local::WorkItem *item) {
    local::PendingOp *pending = static_cast<local::OpWorkItem *>(item)->op;
    pending->device().run(pending);
  };
  submitters_->post(&op->workItem);
}

StatusOr<SubmitContext *> VulkanDevice::takeContext() {
  {
    std::lock_guard<std::mutex> lock(contextMutex_);
    if (!freeContexts_.empty()) {
      SubmitContext *context = freeContexts_.back();
      freeContexts_.pop_back();
      return context;
    }
  }
  auto context = std::make_unique<SubmitContext>();
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  poolInfo.queueFamilyIndex = queueFamily_;
  if (VkResult result =
          vkCreateCommandPool(device_, &poolInfo, nullptr, &context->pool))
    return vulkanError(result, "vkCreateCommandPool");
  VkCommandBufferAllocateInfo allocateInfo{
      VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocateInfo.commandPool = context->pool;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  VkResult result =
      vkAllocateCommandBuffers(device_, &allocateInfo, &context->commands);
  VkSemaphoreTypeCreateInfo typeInfo{
      VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  typeInfo.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  typeInfo.initialValue = 0;
  VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  semaphoreInfo.pNext = &typeInfo;
  if (result == VK_SUCCESS)
    result =
        vkCreateSemaphore(device_, &semaphoreInfo, nullptr, &context->timeline);
  Status queries = result == VK_SUCCESS ? createTimestampQueries(*context)
                                        : Status();
  std::lock_guard<std::mutex> lock(contextMutex_);
  contexts_.push_back(std::move(context));
  if (result != VK_SUCCESS)
    return vulkanError(result, "creating a submission context");
  if (!queries.ok())
    return queries;
  return contexts_.back().get();
}

void VulkanDevice::returnContext(SubmitContext *context) {
  std::lock_guard<std::mutex> lock(contextMutex_);
  freeContexts_.push_back(context);
}

Status VulkanDevice::submitAndWait(SubmitContext &context,
                                   const char *operation) {
  uint64_t value = ++context.value;
  VkTimelineSemaphoreSubmitInfo timelineInfo{
      VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timelineInfo.signalSemaphoreValueCount = 1;
  timelineInfo.pSignalSemaphoreValues = &value;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.pNext = &timelineInfo;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &context.commands;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &context.timeline;
  std::string what = concat(operation, " on device '", name(), "': ");
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    if (VkResult result = vkQueueSubmit(queue_, 1, &submit, VK_NULL_HANDLE)) {
      --context.value;
      return vulkanError(result, what + "vkQueueSubmit");
    }
  }
  // The bridge: the host waits for the Vulkan timeline, then the caller
  // signals the Fleet fence.
  VkSemaphoreWaitInfo waitInfo{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  waitInfo.semaphoreCount = 1;
  waitInfo.pSemaphores = &context.timeline;
  waitInfo.pValues = &value;
  VkResult result =
      vkWaitSemaphores(device_, &waitInfo, kSubmitTimeoutNanoseconds);
  if (result == VK_TIMEOUT)
    return makeStatus(StatusCode::DeadlineExceeded, what,
                      "the device did not finish the submission within ",
                      kSubmitTimeoutNanoseconds / 1000000000, " s");
  if (result != VK_SUCCESS)
    return vulkanError(result, what + "vkWaitSemaphores");
  return Status();
}

//===----------------------------------------------------------------------===//
// Executing
//===----------------------------------------------------------------------===//

Status VulkanDevice::execute(QueueOp &op, ExecutionInfo &info) {
  const char *operation = queueOpName(op.kind);
  switch (op.kind) {
  case QueueOpKind::Alloca:
  case QueueOpKind::Dealloca:
  case QueueOpKind::Barrier:
    // Memory is allocated by the host; nothing runs on the device.
    return LocalDevice::execute(op, info);
  case QueueOpKind::Copy:
    // Memory of another device (or imported host memory) is reached through
    // the mapping on the host: the bridge copies it.
    if (!ownBuffer(*op.source) || !ownBuffer(*op.target))
      return LocalDevice::execute(op, info);
    break;
  case QueueOpKind::Fill:
  case QueueOpKind::Update:
    if (!ownBuffer(*op.target) || op.targetOffset % 4 || op.length % 4 ||
        (op.kind == QueueOpKind::Update && op.length > 65536))
      return LocalDevice::execute(op, info);
    break;
  case QueueOpKind::Execute:
    break;
  }

  FLEET_ASSIGN_OR_RETURN(SubmitContext * context, takeContext());
  VkCommandBuffer commands = context->commands;
  vkResetCommandPool(device_, context->pool, 0);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(commands, &begin);
  bool deviceTime = tracesDeviceTime(info) && context->queries;
  if (deviceTime) {
    vkCmdResetQueryPool(commands, context->queries, 0, 2);
    writeTimestamp(*context, 0);
  }
  fullBarrier(commands, kDeviceStages, kDeviceAccess);
  Status status = record(op, commands, info);
  if (deviceTime)
    writeTimestamp(*context, 1);
  fullBarrier(commands, VK_PIPELINE_STAGE_HOST_BIT,
              VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT);
  VkResult ended = vkEndCommandBuffer(commands);
  if (status.ok() && ended != VK_SUCCESS)
    status = vulkanError(ended, concat(operation, " on device '", name(),
                                       "': vkEndCommandBuffer"));
  if (status.ok()) {
    status = submitAndWait(*context, operation);
    if (status.code() == StatusCode::DeadlineExceeded)
      return status; // The context may still be in use: never reuse it.
  }
  if (status.ok() && deviceTime)
    traceDeviceTime(*context, op, info);
  returnContext(context);
  return status;
}

Status VulkanDevice::record(QueueOp &op, VkCommandBuffer commands,
                            ExecutionInfo &info) {
  switch (op.kind) {
  case QueueOpKind::Copy: {
    VkBufferCopy region{op.sourceOffset, op.targetOffset, op.length};
    vkCmdCopyBuffer(commands, ownBuffer(*op.source)->buffer,
                    ownBuffer(*op.target)->buffer, 1, &region);
    info.bytes = op.length;
    break;
  }
  case QueueOpKind::Fill: {
    uint32_t word = op.pattern;
    if (op.patternLength == 1)
      word = (op.pattern & 0xFF) * 0x01010101u;
    else if (op.patternLength == 2)
      word = (op.pattern & 0xFFFF) * 0x00010001u;
    vkCmdFillBuffer(commands, ownBuffer(*op.target)->buffer, op.targetOffset,
                    op.length, word);
    info.bytes = op.length;
    break;
  }
  case QueueOpKind::Update:
    vkCmdUpdateBuffer(commands, ownBuffer(*op.target)->buffer,
                      op.targetOffset, op.length, op.updateBytes.data());
    info.bytes = op.length;
    break;
  case QueueOpKind::Execute: {
    if (info.tracer)
      info.exportName = singleDispatchName(op);
    Status status;
    op.forEachCommandBuffer([&](const CommandBuffer &buffer) {
      if (status.ok())
        status = recordCommandBuffer(op, buffer, commands, info);
    });
    return status;
  }
  default:
    break;
  }
  return Status();
}

Status VulkanDevice::recordCommandBuffer(const QueueOp &op,
                                         const CommandBuffer &recordedCommands,
                                         VkCommandBuffer target,
                                         ExecutionInfo &info) {
  const char *operation = queueOpName(op.kind);
  std::vector<VkDescriptorBufferInfo> infos;
  std::vector<VkWriteDescriptorSet> writes;
  bool first = true;
  for (const RecordedCommand &command : recordedCommands.commands()) {
    if (!first)
      fullBarrier(target, kDeviceStages, kDeviceAccess);
    first = false;
    // Resolve operands to this device's VkBuffers.
    infos.resize(command.bindingCount);
    for (uint32_t b = 0; b < command.bindingCount; ++b) {
      BindingRef resolved =
          op.resolve(recordedCommands.bindings()[command.firstBinding + b]);
      Buffer *buffer = resolved.buffer;
      uint64_t offset = resolved.offset;
      uint64_t length = resolved.length;
      if (length == kWholeBuffer)
        length = buffer->byteSize() - offset;
      std::string role = command.kind == CommandKind::Dispatch
                             ? concat("binding ", b)
                             : std::string(b == 0 && command.kind ==
                                                       CommandKind::Copy
                                               ? "source"
                                               : "target");
      if (!buffer->hasStorage())
        return makeStatus(StatusCode::FailedPrecondition, operation,
                          " on device '", name(), "': ", role, " ",
                          buffer->describe(),
                          " has no storage (its queue_alloca has not run, "
                          "or its queue_dealloca has)");
      FLEET_ASSIGN_OR_RETURN(const VulkanBuffer *own,
                             reachBuffer(*buffer, operation, role));
      if (command.kind == CommandKind::Dispatch) {
        if (offset % limits_.minStorageBufferOffsetAlignment)
          return makeStatus(StatusCode::InvalidArgument, operation,
                            " on device '", name(), "': ", role,
                            " starts at byte offset ", offset,
                            ", which is not a multiple of the device's "
                            "minStorageBufferOffsetAlignment (",
                            limits_.minStorageBufferOffsetAlignment, ")");
        if (length > limits_.maxStorageBufferRange)
          return makeStatus(StatusCode::OutOfRange, operation, " on device '",
                            name(), "': ", role, " spans ", length,
                            " bytes, more than the device's "
                            "maxStorageBufferRange of ",
                            limits_.maxStorageBufferRange,
                            " bytes a kernel may bind");
      }
      infos[b] = VkDescriptorBufferInfo{own->buffer, offset,
                                        std::max<uint64_t>(length, 4)};
    }
    switch (command.kind) {
    case CommandKind::Dispatch: {
      Executable &executable = recordedCommands.executable(command.executable);
      auto *pipeline = static_cast<const VulkanPipeline *>(
          executable.driverEntry(command.ordinal));
      for (int axis = 0; axis < 3; ++axis)
        if (command.workgroups[axis] > limits_.maxComputeWorkGroupCount[axis])
          return makeStatus(StatusCode::ResourceExhausted,
                            "hal.command_buffer.dispatch of '",
                            executable.exportName(command.ordinal),
                            "' (executable '", executable.name(),
                            "') on device '", name(), "': ",
                            command.workgroups[axis], " workgroups along ",
                            "xyz"[axis], " exceed the device's limit of ",
                            limits_.maxComputeWorkGroupCount[axis]);
      if (uint64_t(command.workgroups[0]) * command.workgroups[1] *
              command.workgroups[2] ==
          0)
        break;
      vkCmdBindPipeline(target, VK_PIPELINE_BIND_POINT_COMPUTE,
                        pipeline->pipeline);
      writes.assign(command.bindingCount,
                    VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET});
      for (uint32_t b = 0; b < command.bindingCount; ++b) {
        writes[b].dstBinding = b;
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = &infos[b];
      }
      if (!writes.empty())
        pushDescriptorSet_(target, VK_PIPELINE_BIND_POINT_COMPUTE,
                           pipeline->layout, 0, uint32_t(writes.size()),
                           writes.data());
      if (command.constantCount)
        vkCmdPushConstants(
            target, pipeline->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
            command.constantCount * 4,
            recordedCommands.constants().data() + command.firstConstant);
      vkCmdDispatch(target, command.workgroups[0], command.workgroups[1],
                    command.workgroups[2]);
      noteDispatches(1);
      break;
    }
    case CommandKind::Copy: {
      VkBufferCopy region{infos[0].offset, infos[1].offset, command.length};
      vkCmdCopyBuffer(target, infos[0].buffer, infos[1].buffer, 1, &region);
      info.bytes += command.length;
      break;
    }
    case CommandKind::Fill: {
      if (infos[0].offset % 4 || command.length % 4)
        return makeStatus(StatusCode::InvalidArgument,
                          "hal.command_buffer.fill_buffer on device '", name(),
                          "': Vulkan fills whole 4-byte words (offset ",
                          infos[0].offset, ", length ", command.length, ")");
      uint32_t word = command.pattern;
      if (command.patternLength == 1)
        word = (command.pattern & 0xFF) * 0x01010101u;
      else if (command.patternLength == 2)
        word = (command.pattern & 0xFFFF) * 0x00010001u;
      vkCmdFillBuffer(target, infos[0].buffer, infos[0].offset,
                      command.length, word);
      info.bytes += command.length;
      break;
    }
    case CommandKind::Update: {
      if (infos[0].offset % 4 || command.byteCount % 4 ||
          command.byteCount > 65536)
        return makeStatus(StatusCode::InvalidArgument,
                          "hal.command_buffer.update_buffer on device '",
                          name(), "': Vulkan updates whole 4-byte words, at "
                          "most 65536 bytes (offset ", infos[0].offset,
                          ", length ", command.byteCount, ")");
      vkCmdUpdateBuffer(target, infos[0].buffer, infos[0].offset,
                        command.byteCount,
                        recordedCommands.updateBytes().data() +
                            command.firstByte);
      info.bytes += command.byteCount;
      break;
    }
    case CommandKind::Barrier:
      break;
    }
  }
  return Status();
}

} // namespace fleet::runtime::hal::vulkan

namespace fleet::runtime::hal::vulkan {

StatusOr<Ref<Device>> createVulkanDevice(const DeviceOptions &options) {
  return VulkanDevice::create(options, options.physicalDevice);
}

} // namespace fleet::runtime::hal::vulkan
