//===- VulkanDriver.h - factory of the vulkan driver --------------*- C++ -*-===//
#ifndef FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANDRIVER_H
#define FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANDRIVER_H

#include "fleet/runtime/hal/Device.h"

namespace fleet::runtime::hal::vulkan {

/// A device on Vulkan physical device `options.physicalDevice`
/// (VulkanDevice.h). Errors name what the physical device lacks.
StatusOr<Ref<Device>> createVulkanDevice(const DeviceOptions &options);

} // namespace fleet::runtime::hal::vulkan

#endif // FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANDRIVER_H
