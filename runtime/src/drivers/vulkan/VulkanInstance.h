//===- VulkanInstance.h - the process's Vulkan instance -----------*- C++ -*-===//
//
// One VkInstance per process, created on the first `vulkan` device and kept
// while any device lives (shared ownership). With FLEET_VULKAN_VALIDATION=1
// in the environment the Khronos validation layer is enabled and every
// message it reports is printed to stderr ("fleet: vulkan validation: ...")
// and counted (validationMessageCount), so tests can require zero messages
// and prove that a misuse is reported. A missing layer is an error then,
// not a silent run without checks.
//
// Thread safety: all functions may race. Failure behaviour: no loader, no
// ICD, or no physical device give FailedPrecondition/NotFound errors that
// name what is missing and the environment that selects ICDs
// (VK_ICD_FILENAMES).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANINSTANCE_H
#define FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANINSTANCE_H

#include "fleet/runtime/hal/Status.h"

#include <vulkan/vulkan.h>

#include <memory>
#include <string>
#include <vector>

namespace fleet::runtime::hal::vulkan {

class VulkanInstance {
public:
  /// The process's instance, created on first use.
  static StatusOr<std::shared_ptr<VulkanInstance>> get();
  ~VulkanInstance();

  VkInstance handle() const { return instance_; }
  const std::vector<VkPhysicalDevice> &physicalDevices() const {
    return physicalDevices_;
  }
  bool validationEnabled() const { return messenger_ != VK_NULL_HANDLE; }

private:
  VulkanInstance() = default;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::vector<VkPhysicalDevice> physicalDevices_;
};

/// Messages the validation layer reported so far in this process.
uint64_t validationMessageCount();

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" for `result`.
const char *resultName(VkResult result);
/// A status for a failed Vulkan call: ResourceExhausted for out-of-memory
/// results, Unavailable for VK_ERROR_DEVICE_LOST, Internal otherwise.
Status vulkanError(VkResult result, const std::string &what);

} // namespace fleet::runtime::hal::vulkan

#endif // FLEET_RUNTIME_SRC_DRIVERS_VULKAN_VULKANINSTANCE_H
