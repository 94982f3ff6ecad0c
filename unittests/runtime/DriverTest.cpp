//===- DriverTest.cpp - device URIs, parameters and binding ----------------===//

#include "TestUtil.h"

namespace fleet::runtime::hal {
namespace {
using namespace testing;

TEST(DriverTest, ParsesParameters) {
  FLEET_ASSERT_OK_AND_ASSIGN(
      DeviceSpec spec,
      parseDeviceUri("local-task?discrete=true&fail_after=3&"
                     "task_topology_group_count=4&queue_count=2&name=gpu0"));
  EXPECT_EQ(spec.driver, "local-task");
  EXPECT_TRUE(spec.options.discrete);
  EXPECT_EQ(spec.options.failAfter, 3u);
  EXPECT_EQ(spec.options.workerCount, 4u);
  EXPECT_EQ(spec.options.queueCount, 2u);
  EXPECT_EQ(spec.options.name, "gpu0");

  FLEET_ASSERT_OK_AND_ASSIGN(DeviceSpec plain, parseDeviceUri("local-sync"));
  EXPECT_FALSE(plain.options.discrete);
  EXPECT_EQ(plain.options.failAfter, 0u);
  EXPECT_EQ(plain.options.workerCount, 1u);
  EXPECT_TRUE(plain.options.cpuIds.empty());
  EXPECT_TRUE(plain.options.pinWorkers);

  FLEET_ASSERT_OK_AND_ASSIGN(
      DeviceSpec pinned,
      parseDeviceUri("local-task?task_topology_cpu_ids=1,0:3"));
  EXPECT_EQ(pinned.options.cpuIds, (std::vector<uint32_t>{1, 0, 3}));
  EXPECT_TRUE(pinned.options.pinWorkers);
  FLEET_ASSERT_OK_AND_ASSIGN(
      DeviceSpec floating, parseDeviceUri("local-task?task_topology_cpu_ids=any"));
  EXPECT_FALSE(floating.options.pinWorkers);
}

TEST(DriverTest, RejectsBadUris) {
  struct Case {
    const char *uri;
    const char *message;
  } cases[] = {
      {"cuda", "unknown driver 'cuda' (known drivers: local-sync, local-task"},
      {"", "unknown driver ''"},
      {"local-sync?speed=fast", "unknown parameter 'speed' (known parameters: "
                                "discrete, fail_after"},
      {"local-sync?discrete=maybe", "discrete=maybe is not true or false"},
      {"local-sync?fail_after=0", "fail_after=0 is not a positive"},
      {"local-sync?fail_after=x", "fail_after=x is not a positive"},
      {"local-sync?discrete", "malformed parameter 'discrete'"},
      {"local-sync?", "malformed parameter ''"},
      {"local-sync?discrete=true&", "malformed parameter ''"},
      {"local-sync?discrete=true&discrete=false", "given twice"},
      {"local-sync?task_topology_group_count=2", "applies to local-task only"},
      {"local-task?task_topology_group_count=0", "is not a worker count"},
      {"local-task?queue_count=65", "queue_count=65 is not in 1..64"},
      {"local-sync?task_topology_cpu_ids=0", "applies to local-task only"},
      {"local-task?task_topology_cpu_ids=0,x",
       "task_topology_cpu_ids=0,x is not 'any' or a list of CPU numbers"},
      {"local-task?task_topology_cpu_ids=", "is not 'any' or a list"},
      {"local-task?task_topology_cpu_ids=1024", "CPU numbers below 1024"},
      {"local-sync?max_allocation=0", "max_allocation=0 is not a positive"},
      {"vulkan://x", "'x' after '://' is not a physical device number"},
  };
  for (const Case &c : cases) {
    auto spec = parseDeviceUri(c.uri);
    ASSERT_FALSE(spec.ok()) << c.uri;
    EXPECT_EQ(spec.status().code(), StatusCode::InvalidArgument);
    EXPECT_TRUE(contains(spec.status().message(), c.message)) << c.uri;
    EXPECT_TRUE(contains(spec.status().message(),
                         std::string("device URI '") + c.uri + "'"));
    EXPECT_FALSE(createDevice(c.uri).ok());
  }
}

TEST(DriverTest, DevicesReportDriverAndCapabilities) {
  Ref<Device> sync = makeDevice("local-sync?name=left");
  Ref<Device> task = makeDevice("local-task?discrete=true&queue_count=3");
  EXPECT_EQ(sync->name(), "left");
  EXPECT_EQ(sync->driverName(), "local-sync");
  EXPECT_EQ(task->driverName(), "local-task");
  EXPECT_EQ(task->name().rfind("local-task:", 0), 0u);
  EXPECT_EQ(sync->capabilities().backend, "local");
  EXPECT_FALSE(sync->capabilities().discrete);
  EXPECT_TRUE(task->capabilities().discrete);
  EXPECT_EQ(task->queueCount(), 3u);
  EXPECT_EQ(backendOfDriver("local-task"), "local");
  EXPECT_EQ(backendOfDriver("cuda"), "");
}

TEST(DriverTest, DeviceQueriesAnswerKnownKeys) {
  Ref<Device> task =
      makeDevice("local-task?discrete=true&task_topology_group_count=3");
  EXPECT_EQ(task->query("hal.device.id", "local*").value, 1);
  EXPECT_TRUE(task->query("hal.device.id", "local-task").ok);
  EXPECT_EQ(task->query("hal.device.id", "local-?ync").value, 0);
  EXPECT_EQ(task->query("hal.device.id", "cuda*").value, 0);
  EXPECT_EQ(task->query("hal.executable.format", "fleet-object-*").value, 1);
  EXPECT_EQ(task->query("hal.executable.format", "vmvx-bytecode-fb").value,
            0);
  EXPECT_EQ(task->query("hal.device", "discrete").value, 1);
  EXPECT_EQ(task->query("hal.device", "worker_count").value, 3);
  EXPECT_EQ(task->query("hal.device", "queue_count").value, 1);
  // Unknown categories and keys are not answered: the IR default applies.
  EXPECT_FALSE(task->query("hal.device", "color").ok);
  EXPECT_FALSE(task->query("hal.dispatch", "concurrency").ok);
}

TEST(DriverTest, QueueAffinitySelectsLowestQueue) {
  Ref<Device> device = makeDevice("local-task?queue_count=3");
  EXPECT_EQ(*device->selectQueue(kQueueAffinityAny), 0u);
  EXPECT_EQ(*device->selectQueue(0b100), 2u);
  EXPECT_EQ(*device->selectQueue(0b110), 1u);
  // Bits beyond the device's queues fold onto them.
  EXPECT_EQ(*device->selectQueue(uint64_t(1) << 4), 1u);
  auto none = device->selectQueue(0);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(contains(none.status().message(), "affinity 0 selects no queue"));
}

TEST(DriverTest, BindingCountsDevicesServingTheBackend) {
  Ref<Device> d0 = makeDevice("local-task");
  Ref<Device> d1 = makeDevice("local-sync");
  Ref<Device> d2 = makeDevice("local-task?discrete=true");
  Device *devices[] = {d0.get(), d1.get(), d2.get()};
  // docs/design.md §5: ordinal N of backend local is the N-th local device.
  EXPECT_EQ(*bindDevice(devices, "local", 0), d0.get());
  EXPECT_EQ(*bindDevice(devices, "local", 1), d1.get());
  EXPECT_EQ(*bindDevice(devices, "local", 2), d2.get());
  auto missing = bindDevice(devices, "local", 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::NotFound);
  EXPECT_TRUE(contains(missing.status().message(),
                       "no device for target backend 'local' ordinal 3: 3 "
                       "devices serve 'local'"));
  EXPECT_TRUE(contains(missing.status().message(), d2->name()));
  auto cuda = bindDevice(devices, "cuda", 0);
  ASSERT_FALSE(cuda.ok());
  EXPECT_TRUE(contains(cuda.status().message(), "0 devices serve 'cuda'"));
}

} // namespace
} // namespace fleet::runtime::hal
