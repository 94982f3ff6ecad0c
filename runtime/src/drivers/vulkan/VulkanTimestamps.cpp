//===- VulkanTimestamps.cpp - device time of Vulkan submissions -----------===//
//
// With `fleet-run --trace`, a Vulkan device's queue ops appear twice: on
// "<device> queue <n>" as the host sees them (the bridge: recording,
// submission, the wait for the timeline), and, when the device has
// timestamp queries and VK_EXT_calibrated_timestamps with a CLOCK_MONOTONIC
// time domain, on "<device> gpu queue <n>" as the device executed them: two
// timestamps around the submission's commands, converted to the trace's
// clock through one calibration taken when the device is created
// (vkGetCalibratedTimestampsEXT; the drift over a run is not corrected).
// lavapipe has both, with 1 ns ticks.
//
//===----------------------------------------------------------------------===//

#include "drivers/vulkan/VulkanDevice.h"

#include "fleet/runtime/hal/Trace.h"

namespace fleet::runtime::hal::vulkan {

void VulkanDevice::probeTimestamps(bool calibrated,
                                   std::vector<const char *> &extensions) {
  if (!limits_.timestampComputeAndGraphics || !calibrated)
    return;
  auto domainsOf =
      reinterpret_cast<PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT>(
          vkGetInstanceProcAddr(
              instance_->handle(),
              "vkGetPhysicalDeviceCalibrateableTimeDomainsEXT"));
  if (!domainsOf)
    return;
  uint32_t domainCount = 0;
  domainsOf(physical_, &domainCount, nullptr);
  std::vector<VkTimeDomainEXT> domains(domainCount);
  domainsOf(physical_, &domainCount, domains.data());
  bool device = false, monotonic = false;
  for (VkTimeDomainEXT domain : domains) {
    device |= domain == VK_TIME_DOMAIN_DEVICE_EXT;
    monotonic |= domain == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
  }
  if (!device || !monotonic)
    return;
  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &familyCount,
                                           families.data());
  uint32_t bits = families[queueFamily_].timestampValidBits;
  if (bits == 0)
    return;
  timestampMask_ = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  timestampPeriod_ = limits_.timestampPeriod;
  extensions.push_back(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
  timestampsProbed_ = true;
}

void VulkanDevice::calibrateTimestamps() {
  if (!timestampsProbed_)
    return;
  auto calibrate = reinterpret_cast<PFN_vkGetCalibratedTimestampsEXT>(
      vkGetDeviceProcAddr(device_, "vkGetCalibratedTimestampsEXT"));
  if (!calibrate)
    return;
  VkCalibratedTimestampInfoEXT infos[2] = {
      {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr,
       VK_TIME_DOMAIN_DEVICE_EXT},
      {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr,
       VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}};
  uint64_t values[2] = {0, 0};
  uint64_t deviation = 0;
  if (calibrate(device_, 2, infos, values, &deviation) != VK_SUCCESS)
    return;
  timestampOffset_ =
      double(values[1]) - double(values[0] & timestampMask_) *
                              timestampPeriod_;
  timestampsCalibrated_ = true;
}

Status VulkanDevice::createTimestampQueries(SubmitContext &context) {
  if (!timestampsCalibrated_)
    return Status();
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 2;
  if (VkResult result =
          vkCreateQueryPool(device_, &info, nullptr, &context.queries))
    return vulkanError(result, "vkCreateQueryPool (timestamps)");
  return Status();
}

void VulkanDevice::writeTimestamp(SubmitContext &context, uint32_t query) {
  vkCmdWriteTimestamp(context.commands,
                      query == 0 ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT
                                 : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                      context.queries, query);
}

void VulkanDevice::traceDeviceTime(SubmitContext &context, const QueueOp &op,
                                   const ExecutionInfo &info) {
  uint64_t ticks[2] = {0, 0};
  if (vkGetQueryPoolResults(device_, context.queries, 0, 2, sizeof(ticks),
                            ticks, sizeof(uint64_t),
                            VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
    return; // The submission finished: results are there, or none are.
  auto toTrace = [&](uint64_t tick) {
    double nanoseconds =
        double(tick & timestampMask_) * timestampPeriod_ + timestampOffset_;
    return nanoseconds > 0 ? uint64_t(nanoseconds) : uint64_t(0);
  };
  TraceSlice slice;
  slice.id = info.tracer->newSliceId();
  slice.track = info.tracer->queueTrack(*this, op.queueIndex,
                                          /*deviceTime=*/true);
  slice.name = info.exportName ? *info.exportName
                               : std::string(queueOpShortName(op.kind));
  slice.startNanoseconds = toTrace(ticks[0]);
  slice.endNanoseconds = std::max(slice.startNanoseconds, toTrace(ticks[1]));
  info.tracer->addSlice(std::move(slice));
}

} // namespace fleet::runtime::hal::vulkan
