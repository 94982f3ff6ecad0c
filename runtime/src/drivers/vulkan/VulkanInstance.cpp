//===- VulkanInstance.cpp - the process's Vulkan instance ------------------===//

#include "drivers/vulkan/VulkanInstance.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace fleet::runtime::hal::vulkan {
namespace {

constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::atomic<uint64_t> validationMessages{0};

VKAPI_ATTR VkBool32 VKAPI_CALL
onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                    VkDebugUtilsMessageTypeFlagsEXT type,
                    const VkDebugUtilsMessengerCallbackDataEXT *data,
                    void *userData) {
  validationMessages.fetch_add(1, std::memory_order_relaxed);
  std::fprintf(stderr, "fleet: vulkan validation: %s\n",
               data && data->pMessage ? data->pMessage : "(no message)");
  return VK_FALSE;
}

bool validationRequested() {
  const char *value = std::getenv("FLEET_VULKAN_VALIDATION");
  return value && *value && std::strcmp(value, "0") != 0;
}

bool hasLayer(const char *name) {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const VkLayerProperties &layer : layers)
    if (std::strcmp(layer.layerName, name) == 0)
      return true;
  return false;
}

std::mutex instanceMutex;
std::weak_ptr<VulkanInstance> currentInstance;

} // namespace

uint64_t validationMessageCount() {
  return validationMessages.load(std::memory_order_relaxed);
}

const char *resultName(VkResult result) {
  switch (result) {
#define FLEET_VK_RESULT(name)                                                  \
  case name:                                                                   \
    return #name;
    FLEET_VK_RESULT(VK_SUCCESS)
    FLEET_VK_RESULT(VK_NOT_READY)
    FLEET_VK_RESULT(VK_TIMEOUT)
    FLEET_VK_RESULT(VK_INCOMPLETE)
    FLEET_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    FLEET_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    FLEET_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    FLEET_VK_RESULT(VK_ERROR_DEVICE_LOST)
    FLEET_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    FLEET_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    FLEET_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    FLEET_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    FLEET_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    FLEET_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    FLEET_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef FLEET_VK_RESULT
  default:
    return "VkResult";
  }
}

Status vulkanError(VkResult result, const std::string &what) {
  StatusCode code = StatusCode::Internal;
  if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
      result == VK_ERROR_OUT_OF_HOST_MEMORY)
    code = StatusCode::ResourceExhausted;
  else if (result == VK_ERROR_DEVICE_LOST)
    code = StatusCode::Unavailable;
  return makeStatus(code, what, " failed: ", resultName(result), " (",
                    int(result), ")");
}

StatusOr<std::shared_ptr<VulkanInstance>> VulkanInstance::get() {
  std::lock_guard<std::mutex> lock(instanceMutex);
  if (std::shared_ptr<VulkanInstance> existing = currentInstance.lock())
    return existing;

  bool validation = validationRequested();
  if (validation && !hasLayer(kValidationLayer))
    return makeStatus(StatusCode::FailedPrecondition,
                      "vulkan: FLEET_VULKAN_VALIDATION is set but the layer ",
                      kValidationLayer,
                      " is not installed (Debian: vulkan-validationlayers)");

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "fleet";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  std::vector<const char *> layers, extensions;
  VkDebugUtilsMessengerCreateInfoEXT messengerInfo{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  if (validation) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    messengerInfo.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messengerInfo.pfnUserCallback = onValidationMessage;
    // Also reports what vkCreateInstance/vkDestroyInstance get wrong.
    info.pNext = &messengerInfo;
  }
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();

  std::shared_ptr<VulkanInstance> instance(new VulkanInstance());
  VkResult result = vkCreateInstance(&info, nullptr, &instance->instance_);
  if (result != VK_SUCCESS)
    return Status(result == VK_ERROR_INCOMPATIBLE_DRIVER
                      ? StatusCode::FailedPrecondition
                      : StatusCode::Internal,
                  concat("vulkan: vkCreateInstance failed: ",
                         resultName(result),
                         " (no Vulkan 1.2 driver? VK_ICD_FILENAMES selects "
                         "the ICD, e.g. Mesa's lavapipe "
                         "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json)"));
  if (validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance->instance_,
                              "vkCreateDebugUtilsMessengerEXT"));
    if (!create || create(instance->instance_, &messengerInfo, nullptr,
                          &instance->messenger_) != VK_SUCCESS)
      return makeStatus(StatusCode::Internal,
                        "vulkan: cannot install the validation messenger");
  }
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance->instance_, &count, nullptr);
  instance->physicalDevices_.resize(count);
  vkEnumeratePhysicalDevices(instance->instance_, &count,
                             instance->physicalDevices_.data());
  instance->physicalDevices_.resize(count);
  currentInstance = instance;
  return instance;
}

VulkanInstance::~VulkanInstance() {
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy)
      destroy(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE)
    vkDestroyInstance(instance_, nullptr);
}

} // namespace fleet::runtime::hal::vulkan
