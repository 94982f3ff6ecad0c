//===- VulkanHostImport.cpp - local buffers imported by a Vulkan device ---===//
//
// The export_import link from a vulkan device to a local device
// (DeviceGroup.h): a local buffer with SharingExport usage is page-aligned
// host memory in whole pages (Allocator.cpp), which a device with
// VK_EXT_external_memory_host imports as VkDeviceMemory without a copy. The
// import is made when a command first binds the buffer and released, through
// Buffer::addImportRelease, before the buffer's storage is freed.
//
//===----------------------------------------------------------------------===//

#include "drivers/vulkan/VulkanDevice.h"

#include "fleet/runtime/hal/DeviceGroup.h"

namespace fleet::runtime::hal::vulkan {

StatusOr<const VulkanBuffer *>
VulkanDevice::reachBuffer(Buffer &buffer, std::string_view operation,
                          std::string_view role) {
  if (const VulkanBuffer *own = ownBuffer(buffer))
    return own;
  auto refuse = [&](const auto &...why) {
    return makeStatus(StatusCode::FailedPrecondition, operation,
                      " on device '", name(), "': ", role, " ",
                      buffer.describe(), why...);
  };
  DeviceGroup *devices = group();
  if (buffer.driverHandle() || !devices || !buffer.device().group() ||
      !devices->link(*this, buffer.device()).exportImport)
    return refuse(" is not memory of this Vulkan device, which reaches only "
                  "its own buffers and imported local ones (copy it in with "
                  "a queue copy)");
  if (!anyBitSet(buffer.allowedUsage(), BufferUsage::SharingExport))
    return refuse(" lacks SharingExport usage, so this Vulkan device cannot "
                  "import it");

  std::lock_guard<std::mutex> lock(importMutex_);
  auto found = imports_.find(&buffer);
  if (found != imports_.end())
    return found->second.get();
  uint8_t *host = buffer.storage();
  uint64_t alignment = hostImportAlignment_;
  uint64_t size = (buffer.byteSize() + alignment - 1) / alignment * alignment;
  if (!host || reinterpret_cast<uintptr_t>(host) % alignment)
    return refuse(" is not ", alignment,
                  "-byte aligned host memory (VK_EXT_external_memory_host "
                  "imports whole pages; memory from "
                  "hal.allocator.import is not realigned)");
  size = std::max(size, alignment);

  auto record = std::make_unique<VulkanBuffer>();
  record->owner = nullptr; // Not this device's memory: never freed here.
  record->size = size;
  VkExternalMemoryBufferCreateInfo external{
      VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.pNext = &external;
  bufferInfo.size = size;
  bufferInfo.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                     VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  std::string what =
      concat(operation, " on device '", name(), "': importing ", role, " ",
             buffer.describe(), ": ");
  if (VkResult result =
          vkCreateBuffer(device_, &bufferInfo, nullptr, &record->buffer))
    return vulkanError(result, what + "vkCreateBuffer");
  auto destroy = [&](VkResult result, const char *call) {
    if (record->memory)
      vkFreeMemory(device_, record->memory, nullptr);
    vkDestroyBuffer(device_, record->buffer, nullptr);
    return vulkanError(result, what + call);
  };
  VkMemoryHostPointerPropertiesEXT pointerProperties{
      VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  if (VkResult result = hostPointerProperties_(
          device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
          host, &pointerProperties))
    return destroy(result, "vkGetMemoryHostPointerPropertiesEXT");
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device_, record->buffer, &requirements);
  uint32_t types =
      pointerProperties.memoryTypeBits & requirements.memoryTypeBits;
  if (!types || requirements.size > size)
    return destroy(VK_ERROR_FEATURE_NOT_PRESENT,
                   "no memory type imports this host allocation");
  VkImportMemoryHostPointerInfoEXT import{
      VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = host;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.pNext = &import;
  allocateInfo.allocationSize = size;
  allocateInfo.memoryTypeIndex = uint32_t(__builtin_ctz(types));
  if (VkResult result =
          vkAllocateMemory(device_, &allocateInfo, nullptr, &record->memory))
    return destroy(result, "vkAllocateMemory (host pointer import)");
  if (VkResult result =
          vkBindBufferMemory(device_, record->buffer, record->memory, 0))
    return destroy(result, "vkBindBufferMemory");

  const VulkanBuffer *imported = record.get();
  imports_.emplace(&buffer, std::move(record));
  // The release holds this device, so the VkDevice outlives the import.
  buffer.addImportRelease(
      [self = Ref<VulkanDevice>(this), key = &buffer] {
        self->releaseImport(key);
      });
  return imported;
}

void VulkanDevice::releaseImport(const Buffer *buffer) {
  std::unique_ptr<VulkanBuffer> record;
  {
    std::lock_guard<std::mutex> lock(importMutex_);
    auto found = imports_.find(buffer);
    if (found == imports_.end())
      return;
    record = std::move(found->second);
    imports_.erase(found);
  }
  vkDestroyBuffer(device_, record->buffer, nullptr);
  vkFreeMemory(device_, record->memory, nullptr);
}

} // namespace fleet::runtime::hal::vulkan
