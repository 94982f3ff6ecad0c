//===- VulkanExecutable.cpp - SPIR-V modules to compute pipelines ----------===//
//
// A SPIR-V executable (docs/kernel-abi.md §8) is checked before Vulkan sees
// it: SPIRV-Tools' validator for the Vulkan 1.2 environment (drivers may
// crash or hang on invalid SPIR-V; lavapipe did on a module missing its
// last OpFunctionEnd), then the GLCompute entry point of every export, so a
// corrupt or mismatched module is a load error naming the executable and
// the export, never a driver crash. Each export becomes one compute pipeline: a push-descriptor set 0
// of `bindings` storage buffers and `constants` 32-bit push constants.
//
//===----------------------------------------------------------------------===//

#include "drivers/vulkan/VulkanDevice.h"

#include <spirv-tools/libspirv.hpp>

#include <cstring>
#include <set>

namespace fleet::runtime::hal::vulkan {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kExecutionModelGLCompute = 5;

/// The GLCompute entry points of `words`, or an error naming the problem.
StatusOr<std::set<std::string>> computeEntryPoints(const uint32_t *words,
                                                   size_t count) {
  if (count < 5 || words[0] != kSpirvMagic)
    return makeStatus(StatusCode::InvalidArgument,
                      "not a SPIR-V module (no magic number 0x07230203)");
  std::set<std::string> names;
  for (size_t at = 5; at < count;) {
    uint32_t wordCount = words[at] >> 16;
    uint32_t opcode = words[at] & 0xFFFF;
    if (wordCount == 0 || at + wordCount > count)
      return makeStatus(StatusCode::InvalidArgument,
                        "malformed SPIR-V: instruction at word ", at,
                        " runs past the end of the module");
    if (opcode == kOpEntryPoint && wordCount >= 4 &&
        words[at + 1] == kExecutionModelGLCompute) {
      const char *name = reinterpret_cast<const char *>(&words[at + 3]);
      size_t limit = (wordCount - 3) * 4;
      names.insert(std::string(name, strnlen(name, limit)));
    }
    at += wordCount;
  }
  return names;
}

/// Owns the Vulkan objects of one executable (Executable's backing).
struct PipelineSet {
  /// Keeps the VkDevice alive as long as its pipelines (destroyed last).
  Ref<Device> owner;
  VkDevice device = VK_NULL_HANDLE;
  VkShaderModule module = VK_NULL_HANDLE;
  std::vector<VulkanPipeline> pipelines;
  ~PipelineSet() {
    for (VulkanPipeline &pipeline : pipelines) {
      if (pipeline.pipeline)
        vkDestroyPipeline(device, pipeline.pipeline, nullptr);
      if (pipeline.layout)
        vkDestroyPipelineLayout(device, pipeline.layout, nullptr);
      if (pipeline.setLayout)
        vkDestroyDescriptorSetLayout(device, pipeline.setLayout, nullptr);
    }
    if (module)
      vkDestroyShaderModule(device, module, nullptr);
  }
};

} // namespace

StatusOr<Ref<Executable>>
VulkanDevice::loadExecutable(const ExecutableSource &source) {
  uint64_t start = monotonicNanoseconds();
  auto error = [&](StatusCode code, const auto &...why) {
    return makeStatus(code, "executable '", source.name, "' on device '",
                      name(), "': ", why...);
  };
  if (source.format != kSpirvExecutableFormat)
    return error(StatusCode::InvalidArgument, "format '", source.format,
                 "' is not ", kSpirvExecutableFormat);
  if (source.bytes.size() % 4)
    return error(StatusCode::InvalidArgument, "SPIR-V of ",
                 source.bytes.size(), " bytes is not whole 32-bit words");
  std::vector<uint32_t> words(source.bytes.size() / 4);
  if (!words.empty())
    std::memcpy(words.data(), source.bytes.data(), source.bytes.size());
  StatusOr<std::set<std::string>> entryPoints =
      computeEntryPoints(words.data(), words.size());
  if (!entryPoints.ok())
    return error(StatusCode::InvalidArgument, entryPoints.status().message());
  {
    spvtools::SpirvTools validator(SPV_ENV_VULKAN_1_2);
    std::string problems;
    validator.SetMessageConsumer(
        [&](spv_message_level_t, const char *, const spv_position_t &position,
            const char *message) {
          if (problems.empty())
            problems = concat(message, " (word ", position.index, ")");
        });
    if (!validator.Validate(words))
      return error(StatusCode::InvalidArgument, "invalid SPIR-V: ",
                   problems.empty() ? std::string("rejected by the validator")
                                    : problems);
  }

  auto set = std::make_shared<PipelineSet>();
  set->owner = Ref<Device>(this);
  set->device = device_;
  VkShaderModuleCreateInfo moduleInfo{
      VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = words.size() * 4;
  moduleInfo.pCode = words.data();
  if (VkResult result =
          vkCreateShaderModule(device_, &moduleInfo, nullptr, &set->module))
    return vulkanError(result, concat("executable '", source.name,
                                      "': vkCreateShaderModule"));

  size_t exportCount = source.exportNames.size();
  set->pipelines.resize(exportCount);
  std::vector<ExecutableExport> exports(exportCount);
  for (size_t i = 0; i < exportCount; ++i) {
    const std::string &symbol = source.symbols[i];
    if (!entryPoints->count(symbol))
      return error(StatusCode::NotFound, "export '", source.exportNames[i],
                   "': the SPIR-V module has no GLCompute entry point '",
                   symbol, "'");
    ExportLayout layout = i < source.layouts.size() && source.layouts[i]
                              ? *source.layouts[i]
                              : ExportLayout{};
    if (layout.constantCount * 4 > limits_.maxPushConstantsSize)
      return error(StatusCode::ResourceExhausted, "export '",
                   source.exportNames[i], "' takes ", layout.constantCount,
                   " push constants; the device holds ",
                   limits_.maxPushConstantsSize / 4);
    if (layout.bindingCount > limits_.maxPerStageDescriptorStorageBuffers)
      return error(StatusCode::ResourceExhausted, "export '",
                   source.exportNames[i], "' takes ", layout.bindingCount,
                   " bindings; the device allows ",
                   limits_.maxPerStageDescriptorStorageBuffers);
    VulkanPipeline &pipeline = set->pipelines[i];
    pipeline.bindingCount = layout.bindingCount;
    pipeline.constantCount = layout.constantCount;
    std::vector<VkDescriptorSetLayoutBinding> bindings(layout.bindingCount);
    for (uint32_t b = 0; b < layout.bindingCount; ++b) {
      bindings[b].binding = b;
      bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[b].descriptorCount = 1;
      bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    setInfo.bindingCount = layout.bindingCount;
    setInfo.pBindings = bindings.data();
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              layout.constantCount * 4};
    VkPipelineLayoutCreateInfo layoutInfo{
        VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &pipeline.setLayout;
    layoutInfo.pushConstantRangeCount = layout.constantCount ? 1 : 0;
    layoutInfo.pPushConstantRanges = &range;
    VkComputePipelineCreateInfo pipelineInfo{
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipelineInfo.stage.sType =
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipelineInfo.stage.module = set->module;
    pipelineInfo.stage.pName = symbol.c_str();
    VkResult result = vkCreateDescriptorSetLayout(device_, &setInfo, nullptr,
                                                  &pipeline.setLayout);
    if (result == VK_SUCCESS)
      result = vkCreatePipelineLayout(device_, &layoutInfo, nullptr,
                                      &pipeline.layout);
    pipelineInfo.layout = pipeline.layout;
    if (result == VK_SUCCESS)
      result = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1,
                                        &pipelineInfo, nullptr,
                                        &pipeline.pipeline);
    if (result != VK_SUCCESS)
      return vulkanError(result, concat("executable '", source.name,
                                        "' export '", source.exportNames[i],
                                        "': creating its compute pipeline"));
    exports[i].name = source.exportNames[i];
    exports[i].driverEntry = &pipeline;
    exports[i].layout = layout;
  }
  FLEET_ASSIGN_OR_RETURN(
      Ref<Executable> executable,
      Executable::create(source.name, std::move(exports), std::move(set)));
  executable->setDevice(this);
  executable->setLoadNanoseconds(monotonicNanoseconds() - start);
  return executable;
}

} // namespace fleet::runtime::hal::vulkan
