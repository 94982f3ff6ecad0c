//===- TestUtil.h - helpers shared by the runtime unit tests ----*- C++ -*-===//
#ifndef FLEET_UNITTESTS_RUNTIME_TESTUTIL_H
#define FLEET_UNITTESTS_RUNTIME_TESTUTIL_H

#include "fleet/runtime/hal/CommandBuffer.h"
#include "fleet/runtime/hal/Device.h"
#include "fleet/runtime/hal/DeviceGroup.h"
#include "fleet/runtime/hal/Driver.h"

#include "gtest/gtest.h"

#include <cstring>
#include <vector>

namespace fleet::runtime::hal::testing {

#define FLEET_ASSERT_OK(expr)                                                  \
  do {                                                                         \
    auto fleetTestStatus_ = (expr);                                            \
    ASSERT_TRUE(fleetTestStatus_.ok()) << fleetTestStatus_.toString();         \
  } while (false)
#define FLEET_EXPECT_OK(expr)                                                  \
  do {                                                                         \
    auto fleetTestStatus_ = (expr);                                            \
    EXPECT_TRUE(fleetTestStatus_.ok()) << fleetTestStatus_.toString();         \
  } while (false)
#define FLEET_TEST_CONCAT_INNER(a, b) a##b
#define FLEET_TEST_CONCAT(a, b) FLEET_TEST_CONCAT_INNER(a, b)
#define FLEET_ASSERT_OK_AND_ASSIGN(lhs, expr)                                  \
  auto FLEET_TEST_CONCAT(fleetOr_, __LINE__) = (expr);                         \
  ASSERT_TRUE(FLEET_TEST_CONCAT(fleetOr_, __LINE__).ok())                      \
      << FLEET_TEST_CONCAT(fleetOr_, __LINE__).status().toString();            \
  lhs = std::move(FLEET_TEST_CONCAT(fleetOr_, __LINE__)).value()

/// Every wait in the tests is bounded: a bug shows as a failure, not a hang.
inline Timeout testTimeout() { return Timeout::milliseconds(20000); }

inline Ref<Device> makeDevice(const std::string &uri) {
  auto device = createDevice(uri);
  EXPECT_TRUE(device.ok()) << device.status().toString();
  return device.ok() ? *device : Ref<Device>();
}

/// Host-visible, mappable memory every test can read back.
constexpr MemoryType kHostMemory = MemoryType::HostLocal |
                                   MemoryType::DeviceVisible;
constexpr BufferUsage kAllUsage = BufferUsage::Transfer |
                                  BufferUsage::DispatchStorage |
                                  BufferUsage::MappingScoped |
                                  BufferUsage::MappingAccessRandom;

inline Ref<Buffer> makeHostBuffer(Device &device, uint64_t size,
                                  BufferUsage extra = BufferUsage::None) {
  auto buffer =
      device.allocator().allocate(kHostMemory, kAllUsage | extra, size);
  EXPECT_TRUE(buffer.ok()) << buffer.status().toString();
  return buffer.ok() ? *buffer : Ref<Buffer>();
}

inline std::vector<uint8_t> readAll(const Buffer &buffer) {
  std::vector<uint8_t> bytes(buffer.byteSize());
  Status status = buffer.read(0, bytes.data(), bytes.size());
  EXPECT_TRUE(status.ok()) << status.toString();
  return bytes;
}

inline std::vector<uint32_t> readWords(const Buffer &buffer) {
  std::vector<uint32_t> words(buffer.byteSize() / 4);
  Status status = buffer.read(0, words.data(), words.size() * 4);
  EXPECT_TRUE(status.ok()) << status.toString();
  return words;
}

inline ::testing::AssertionResult contains(const std::string &text,
                                           const std::string &piece) {
  if (text.find(piece) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "'" << text << "' does not contain '" << piece << "'";
}

/// Builds a DeviceGroup of freshly created devices.
struct Devices {
  std::vector<Ref<Device>> devices;
  Ref<DeviceGroup> group;
  Device &operator[](size_t i) const { return *devices[i]; }
};

inline Devices makeDevices(const std::vector<std::string> &uris) {
  Devices result;
  for (const std::string &uri : uris)
    result.devices.push_back(makeDevice(uri));
  auto group = DeviceGroup::create(result.devices);
  EXPECT_TRUE(group.ok()) << group.status().toString();
  if (group.ok())
    result.group = *group;
  return result;
}

/// Kernel: out[i] = in[i] + constants[0] for the `constants[1]` words of
/// workgroup x (binding 0 = in, binding 1 = out, both uint32).
inline int32_t addConstantKernel(const fleet_kernel_state_t *state,
                                 uint32_t x, uint32_t, uint32_t) {
  const uint32_t *in = static_cast<const uint32_t *>(state->binding_ptrs[0]);
  uint32_t *out = static_cast<uint32_t *>(state->binding_ptrs[1]);
  uint32_t chunk = state->constants[1];
  uint64_t words = state->binding_lengths[1] / 4;
  for (uint64_t i = uint64_t(x) * chunk; i < uint64_t(x + 1) * chunk; ++i)
    if (i < words)
      out[i] = in[i] + state->constants[0];
  return 0;
}

/// Kernel that fails on workgroup (constants[0], 0, 0) with code 7.
inline int32_t failingKernel(const fleet_kernel_state_t *state, uint32_t x,
                             uint32_t, uint32_t) {
  return x == state->constants[0] ? 7 : 0;
}

inline Ref<Executable> makeTestExecutable() {
  auto executable = Executable::create(
      "test_kernels", {{"add_constant", addConstantKernel},
                       {"failing", failingKernel}});
  EXPECT_TRUE(executable.ok()) << executable.status().toString();
  return executable.ok() ? *executable : Ref<Executable>();
}

/// Records `out = in + addend` over `words` uint32 words as one dispatch with
/// `workgroups` workgroups.
inline Ref<CommandBuffer> recordAdd(Device &device, Executable &executable,
                                    BindingRef in, BindingRef out,
                                    uint32_t words, uint32_t addend,
                                    uint32_t workgroups,
                                    uint32_t bindingCapacity = 0) {
  auto commands =
      CommandBuffer::create(device, CommandBufferMode::OneShot,
                            CommandCategory::Any, kQueueAffinityAny,
                            bindingCapacity);
  EXPECT_TRUE(commands.ok()) << commands.status().toString();
  uint32_t chunk = (words + workgroups - 1) / workgroups;
  uint32_t counts[3] = {workgroups, 1, 1};
  uint32_t constants[] = {addend, chunk};
  BindingRef bindings[] = {in, out};
  Status status = (*commands)->dispatch(executable, 0, counts, constants,
                                        bindings);
  EXPECT_TRUE(status.ok()) << status.toString();
  status = (*commands)->finalize();
  EXPECT_TRUE(status.ok()) << status.toString();
  return *commands;
}

} // namespace fleet::runtime::hal::testing

#endif // FLEET_UNITTESTS_RUNTIME_TESTUTIL_H
