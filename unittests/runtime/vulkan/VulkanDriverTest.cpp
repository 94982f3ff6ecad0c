//===- VulkanDriverTest.cpp - the vulkan driver on hand-written SPIR-V ------===//
//
// Runs on whatever ICD VK_ICD_FILENAMES names (lit pins Mesa's lavapipe and
// turns the validation layer on, test/Unit/vulkan/lit.local.cfg). Every test
// but the misuse test checks that the validation layer reported nothing
// while it ran. Without a Vulkan device the tests are skipped with the
// reason, except under CI=true, where that is a failure.
//
//===----------------------------------------------------------------------===//

#include "../TestUtil.h"

#include "drivers/vulkan/VulkanDevice.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace fleet::runtime::hal {
namespace {
using namespace testing;

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// The abs kernel (abs.spvasm): binding 0 in, binding 1 out, constant n.
ExecutableSource absSource(const std::vector<uint8_t> &bytes,
                           const std::string &symbol = "abs_kernel") {
  ExecutableSource source;
  source.name = "abs_spirv";
  source.format = kSpirvExecutableFormat;
  source.bytes = Span<const uint8_t>(bytes.data(), bytes.size());
  source.exportNames = {"abs"};
  source.symbols = {symbol};
  source.layouts = {ExportLayout{2, 1}};
  return source;
}

class VulkanDriverTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto device = createDevice("vulkan");
    if (!device.ok()) {
      const char *ci = std::getenv("CI");
      if (ci && std::string(ci) == "true") {
        FAIL() << "CI=true and no Vulkan device: "
               << device.status().toString();
      }
      GTEST_SKIP() << "no Vulkan device: " << device.status().toString();
    }
    device_ = *device;
    messagesBefore_ = vulkan::validationMessageCount();
  }
  void TearDown() override {
    if (device_ && !expectValidationMessages_) {
      EXPECT_EQ(vulkan::validationMessageCount(), messagesBefore_)
          << "the validation layer reported problems (stderr)";
    }
  }

  Ref<Buffer> deviceBuffer(Device &device, uint64_t size) {
    auto buffer = device.allocator().allocate(
        MemoryType::DeviceLocal | MemoryType::HostVisible,
        BufferUsage::Transfer | BufferUsage::DispatchStorage |
            BufferUsage::MappingScoped,
        size);
    EXPECT_TRUE(buffer.ok()) << buffer.status().toString();
    return buffer.ok() ? *buffer : Ref<Buffer>();
  }

  Ref<Executable> loadAbs(Device &device) {
    static std::vector<uint8_t> bytes = readFile(FLEET_TEST_ABS_SPV);
    EXPECT_FALSE(bytes.empty()) << FLEET_TEST_ABS_SPV;
    auto executable = device.loadExecutable(absSource(bytes));
    EXPECT_TRUE(executable.ok()) << executable.status().toString();
    return executable.ok() ? *executable : Ref<Executable>();
  }

  Ref<CommandBuffer> recordAbs(Device &device, Executable &executable,
                               Buffer &in, Buffer &out, uint32_t n) {
    auto commands = CommandBuffer::create(device, CommandBufferMode::OneShot,
                                          CommandCategory::Any,
                                          kQueueAffinityAny);
    EXPECT_TRUE(commands.ok()) << commands.status().toString();
    uint32_t counts[3] = {(n + 63) / 64, 1, 1};
    uint32_t constants[] = {n};
    BindingRef bindings[] = {BindingRef::of(in), BindingRef::of(out)};
    FLEET_EXPECT_OK((*commands)->dispatch(executable, 0, counts, constants,
                                          bindings));
    FLEET_EXPECT_OK((*commands)->finalize());
    return *commands;
  }

  Ref<Device> device_;
  uint64_t messagesBefore_ = 0;
  bool expectValidationMessages_ = false;
};

TEST_F(VulkanDriverTest, DispatchesHandWrittenSpirv) {
  constexpr uint32_t n = 1000; // Not a multiple of the workgroup size.
  Ref<Executable> executable = loadAbs(*device_);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->device(), device_.get());
  Ref<Buffer> in = deviceBuffer(*device_, n * 4);
  Ref<Buffer> out = deviceBuffer(*device_, n * 4 + 64);
  std::vector<float> input(n);
  for (uint32_t i = 0; i < n; ++i)
    input[i] = (i % 3 ? -1.0f : 1.0f) * float(i) * 0.5f;
  FLEET_ASSERT_OK(in->write(0, input.data(), n * 4));
  // The word past n stays as filled: the kernel's bound check works.
  Ref<Fence> filled = device_->createFence();
  FLEET_ASSERT_OK(device_->queueFill(kQueueAffinityAny, nullptr, filled.get(),
                                     *out, 0, n * 4 + 64, 0x7fc00001u, 4));
  Ref<CommandBuffer> commands = recordAbs(*device_, *executable, *in, *out, n);
  Ref<Fence> done = device_->createFence();
  CommandBuffer *list[] = {commands.get()};
  FLEET_ASSERT_OK(
      device_->queueExecute(kQueueAffinityAny, filled.get(), done.get(), list));
  FLEET_ASSERT_OK(done->wait(testTimeout()));
  std::vector<float> output(n + 16);
  FLEET_ASSERT_OK(out->read(0, output.data(), output.size() * 4));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(output[i], std::fabs(input[i])) << "element " << i;
  uint32_t guard;
  std::memcpy(&guard, &output[n], 4);
  EXPECT_EQ(guard, 0x7fc00001u);
  EXPECT_EQ(device_->statistics().dispatches, 1u);
}

TEST_F(VulkanDriverTest, CopiesFillsAndUpdatesOnTheDevice) {
  Ref<Buffer> a = deviceBuffer(*device_, 256);
  Ref<Buffer> b = deviceBuffer(*device_, 256);
  std::vector<uint32_t> words(64);
  for (uint32_t i = 0; i < 64; ++i)
    words[i] = i * 7 + 1;
  Ref<Fence> updated = device_->createFence();
  FLEET_ASSERT_OK(device_->queueUpdate(kQueueAffinityAny, nullptr,
                                       updated.get(), words.data(), *a, 0,
                                       256));
  Ref<Fence> filled = device_->createFence();
  FLEET_ASSERT_OK(device_->queueFill(kQueueAffinityAny, updated.get(),
                                     filled.get(), *b, 0, 256, 0xAB, 1));
  Ref<Fence> copied = device_->createFence();
  FLEET_ASSERT_OK(device_->queueCopy(kQueueAffinityAny, filled.get(),
                                     copied.get(), *a, 16, *b, 32, 64));
  FLEET_ASSERT_OK(copied->wait(testTimeout()));
  std::vector<uint32_t> result = readWords(*b);
  for (uint32_t i = 0; i < 64; ++i) {
    uint32_t expected = (i >= 8 && i < 24) ? words[i - 8 + 4] : 0xABABABABu;
    ASSERT_EQ(result[i], expected) << "word " << i;
  }
}

TEST_F(VulkanDriverTest, TwoLogicalDevicesOnOnePhysicalDevice) {
  // The same physical device opened twice: two Fleet devices, each with its
  // own VkDevice; an executable loaded by one does not run on the other.
  Ref<Device> second = makeDevice("vulkan://0?name=second");
  ASSERT_TRUE(second);
  Ref<Executable> executable = loadAbs(*device_);
  ASSERT_TRUE(executable);
  auto commands = CommandBuffer::create(*second, CommandBufferMode::OneShot,
                                        CommandCategory::Any,
                                        kQueueAffinityAny);
  ASSERT_TRUE(commands.ok());
  Ref<Buffer> buffer = deviceBuffer(*second, 64);
  uint32_t counts[3] = {1, 1, 1};
  uint32_t constants[] = {16};
  BindingRef bindings[] = {BindingRef::of(*buffer), BindingRef::of(*buffer)};
  Status status =
      (*commands)->dispatch(*executable, 0, counts, constants, bindings);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(status.message(), "runs only there"));
}

/// local-task + vulkan in one group: the links the drivers answer
/// (DeviceGroup.h), and a dispatch on vulkan binding a local device's
/// buffers in place (VK_EXT_external_memory_host import).
TEST_F(VulkanDriverTest, ImportsLocalBuffersInPlace) {
  Ref<Device> local = makeDevice("local-task");
  ASSERT_TRUE(local);
  auto group = DeviceGroup::create({local, device_});
  ASSERT_TRUE(group.ok()) << group.status().toString();
  Link toLocal = (*group)->link(*device_, *local);
  Link toVulkan = (*group)->link(*local, *device_);
  if (device_->capabilities().hostImportAlignment == 0)
    GTEST_SKIP() << "this Vulkan device lacks VK_EXT_external_memory_host";
  EXPECT_TRUE(toLocal.exportImport);
  EXPECT_FALSE(toLocal.directAccess());
  EXPECT_TRUE(toVulkan.transparentAccess);
  EXPECT_FALSE(toVulkan.unifiedMemory);
  EXPECT_EQ((*group)->queryLink(*device_, *local, "export_import").value,
            true);
  EXPECT_EQ((*group)->queryLink(*device_, *local, "unified_memory").value,
            false);

  constexpr uint32_t n = 1000;
  BufferUsage shared = BufferUsage::Transfer | BufferUsage::DispatchStorage |
                       BufferUsage::SharingExport | BufferUsage::Mapping;
  MemoryType host = MemoryType::HostLocal | MemoryType::DeviceVisible;
  auto in = local->allocator().allocate(host, shared, n * 4);
  auto out = local->allocator().allocate(host, shared, n * 4);
  ASSERT_TRUE(in.ok() && out.ok());
  // Page-aligned for the import (Allocator.cpp).
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*in)->storage()) % kExportAlignment,
            0u);
  std::vector<float> input(n);
  for (uint32_t i = 0; i < n; ++i)
    input[i] = (i % 2 ? -0.25f : 0.5f) * float(i);
  FLEET_ASSERT_OK((*in)->write(0, input.data(), n * 4));
  Ref<Executable> executable = loadAbs(*device_);
  ASSERT_TRUE(executable);
  for (int round = 0; round < 2; ++round) { // The second reuses the imports.
    Ref<CommandBuffer> commands =
        recordAbs(*device_, *executable, **in, **out, n);
    Ref<Fence> done = device_->createFence();
    CommandBuffer *list[] = {commands.get()};
    FLEET_ASSERT_OK(
        device_->queueExecute(kQueueAffinityAny, nullptr, done.get(), list));
    FLEET_ASSERT_OK(done->wait(testTimeout()));
  }
  std::vector<float> output(n);
  FLEET_ASSERT_OK((*out)->read(0, output.data(), n * 4));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(output[i], std::fabs(input[i])) << "element " << i;
  EXPECT_EQ(device_->statistics().imports, 2u);
  EXPECT_EQ(device_->statistics().bytesCrossDevice, 0u);
  // Freeing the local buffers releases the imports first (the validation
  // layer would report memory freed under a live VkDeviceMemory otherwise).
  in->reset();
  out->reset();

  // A local buffer without SharingExport cannot be imported.
  auto plain = local->allocator().allocate(
      host, BufferUsage::Transfer | BufferUsage::DispatchStorage, 64);
  ASSERT_TRUE(plain.ok());
  Ref<CommandBuffer> commands =
      recordAbs(*device_, *executable, **plain, **plain, 16);
  Ref<Fence> done = device_->createFence();
  CommandBuffer *list[] = {commands.get()};
  Status status =
      device_->queueExecute(kQueueAffinityAny, nullptr, done.get(), list);
  EXPECT_EQ(status.code(), StatusCode::PermissionDenied);
  EXPECT_TRUE(contains(status.message(), "lacks SharingExport usage"))
      << status.toString();
}

TEST_F(VulkanDriverTest, InjectedFailureFailsTheSignalFence) {
  Ref<Device> device = makeDevice("vulkan?fail_after=2");
  ASSERT_TRUE(device);
  Ref<Executable> executable = loadAbs(*device);
  Ref<Buffer> in = deviceBuffer(*device, 256);
  Ref<Buffer> out = deviceBuffer(*device, 256);
  Ref<Fence> first = device->createFence();
  FLEET_ASSERT_OK(
      device->queueFill(kQueueAffinityAny, nullptr, first.get(), *in, 0, 256,
                        0, 4));
  Ref<CommandBuffer> commands = recordAbs(*device, *executable, *in, *out, 64);
  Ref<Fence> second = device->createFence();
  CommandBuffer *list[] = {commands.get()};
  FLEET_ASSERT_OK(device->queueExecute(kQueueAffinityAny, first.get(),
                                       second.get(), list));
  Status status = second->wait(testTimeout());
  EXPECT_EQ(status.code(), StatusCode::Aborted);
  EXPECT_TRUE(contains(status.message(), "injected failure (fail_after=2)"));
  FLEET_EXPECT_OK(device->waitIdle(testTimeout()));
}

TEST_F(VulkanDriverTest, AllocationLargerThanTheHeapIsRefused) {
  uint64_t tooLarge =
      static_cast<vulkan::VulkanDevice *>(device_.get())->heapSize() + 4096;
  auto buffer = device_->allocator().allocate(
      MemoryType::DeviceLocal, BufferUsage::DispatchStorage, tooLarge);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(contains(buffer.status().message(), "memory heap"));
  // As a queue alloca: the signal fence fails, nothing hangs.
  Ref<Fence> done = device_->createFence();
  auto queued = device_->queueAlloca(kQueueAffinityAny, nullptr, done.get(),
                                     0, MemoryType::DeviceLocal,
                                     BufferUsage::DispatchStorage, tooLarge);
  ASSERT_TRUE(queued.ok());
  EXPECT_EQ(done->wait(testTimeout()).code(), StatusCode::ResourceExhausted);
}

TEST_F(VulkanDriverTest, BadSpirvIsALoadErrorNamingTheExecutable) {
  std::vector<uint8_t> garbage(64, 0x5A);
  auto result = device_->loadExecutable(absSource(garbage));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(contains(result.status().message(), "executable 'abs_spirv'"));
  EXPECT_TRUE(contains(result.status().message(), "not a SPIR-V module"));

  // Cut inside the last instructions: the header check sees it.
  std::vector<uint8_t> truncated = readFile(FLEET_TEST_ABS_SPV);
  truncated.resize(truncated.size() - 12);
  result = device_->loadExecutable(absSource(truncated));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(contains(result.status().message(), "runs past the end"));
  // Whole instructions missing (OpReturn, OpFunctionEnd): the validator.
  truncated = readFile(FLEET_TEST_ABS_SPV);
  truncated.resize(truncated.size() - 8);
  result = device_->loadExecutable(absSource(truncated));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(contains(result.status().message(), "invalid SPIR-V"))
      << result.status().toString();

  std::vector<uint8_t> bytes = readFile(FLEET_TEST_ABS_SPV);
  result = device_->loadExecutable(absSource(bytes, "no_such_entry"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::NotFound);
  EXPECT_TRUE(contains(result.status().message(), "no_such_entry"));
}

TEST_F(VulkanDriverTest, HostCodeDoesNotRunOnVulkan) {
  Ref<Executable> host = makeTestExecutable();
  auto commands = CommandBuffer::create(*device_, CommandBufferMode::OneShot,
                                        CommandCategory::Any,
                                        kQueueAffinityAny);
  ASSERT_TRUE(commands.ok());
  Ref<Buffer> buffer = deviceBuffer(*device_, 64);
  uint32_t counts[3] = {1, 1, 1};
  uint32_t constants[] = {1, 16};
  BindingRef bindings[] = {BindingRef::of(*buffer), BindingRef::of(*buffer)};
  Status status = (*commands)->dispatch(*host, 0, counts, constants, bindings);
  EXPECT_TRUE(contains(status.message(), "is host code"));
}

TEST_F(VulkanDriverTest, ValidationLayerReportsAMisuse) {
  auto *device = static_cast<vulkan::VulkanDevice *>(device_.get());
  if (!std::getenv("FLEET_VULKAN_VALIDATION"))
    GTEST_SKIP() << "FLEET_VULKAN_VALIDATION is not set";
  expectValidationMessages_ = true;
  // A zero-sized buffer is invalid usage (VUID-VkBufferCreateInfo-size-00912).
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 0;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkResult result = vkCreateBuffer(device->handle(), &info, nullptr, &buffer);
  if (result == VK_SUCCESS && buffer != VK_NULL_HANDLE)
    vkDestroyBuffer(device->handle(), buffer, nullptr);
  EXPECT_GT(vulkan::validationMessageCount(), messagesBefore_);
}

} // namespace
} // namespace fleet::runtime::hal
