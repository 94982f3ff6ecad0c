//===- TopologyTest.cpp - link answers, select, access enforcement, import -===//

#include "TestUtil.h"

namespace fleet::runtime::hal {
namespace {
using namespace testing;

/// A device of another backend: no links to local devices. Never runs ops.
class ForeignDevice final : public Device {
public:
  ForeignDevice()
      : Device("foreign", DeviceOptions{"foreign", false, 0, 1, 1},
               DeviceCapabilities{"foreign", false, false}) {}

protected:
  void submit(QueueOp &) override { ADD_FAILURE() << "foreign device ran"; }
};

TEST(TopologyTest, PlainLocalDevicesAreUnifiedBothWays) {
  Devices d = makeDevices({"local-task", "local-sync"});
  DeviceGroup &group = *d.group;
  uint64_t before = group.linkQueryCount();
  for (auto [x, y] : {std::pair{0, 1}, std::pair{1, 0}}) {
    LinkAnswer unified = group.queryLink(d[x], d[y], "unified_memory");
    EXPECT_TRUE(unified.ok && unified.value);
    // The same link MaterializeTopology writes: {unified_memory = true}.
    LinkAnswer transparent = group.queryLink(d[x], d[y], "transparent_access");
    EXPECT_TRUE(transparent.ok && !transparent.value);
    LinkAnswer exportImport = group.queryLink(d[x], d[y], "export_import");
    EXPECT_TRUE(exportImport.ok && !exportImport.value);
  }
  EXPECT_EQ(group.linkQueryCount() - before, 6u);
  LinkAnswer self = group.queryLink(d[0], d[0], "unified_memory");
  EXPECT_TRUE(self.ok && self.value);
}

TEST(TopologyTest, DiscreteDeviceSharesOnlyByExportImport) {
  Devices d = makeDevices({"local-task?discrete=true", "local-sync",
                           "local-task?discrete=true"});
  DeviceGroup &group = *d.group;
  for (auto [x, y] : {std::pair{0, 1}, std::pair{1, 0}, std::pair{0, 2},
                      std::pair{2, 0}}) {
    EXPECT_FALSE(group.queryLink(d[x], d[y], "unified_memory").value);
    EXPECT_FALSE(group.queryLink(d[x], d[y], "transparent_access").value);
    LinkAnswer exportImport = group.queryLink(d[x], d[y], "export_import");
    EXPECT_TRUE(exportImport.ok && exportImport.value);
    EXPECT_TRUE(group.link(d[x], d[y]).reaches());
    EXPECT_FALSE(group.link(d[x], d[y]).directAccess());
  }
  EXPECT_TRUE(contains(group.describeTopology(),
                       d[0].name() + " -> " + d[1].name() +
                           " = {}, {export_import = true}"));
}

TEST(TopologyTest, UnknownKeysAndOutsidersAreNotAnswered) {
  Devices d = makeDevices({"local-sync", "local-sync"});
  Ref<Device> outsider = makeDevice("local-sync");
  EXPECT_FALSE(d.group->queryLink(d[0], d[1], "link_note").ok);
  EXPECT_FALSE(d.group->queryLink(d[0], *outsider, "unified_memory").ok);
}

TEST(TopologyTest, GroupCreationErrors) {
  Ref<Device> a = makeDevice("local-sync");
  EXPECT_FALSE(DeviceGroup::create({}).ok());
  auto twice = DeviceGroup::create({a, a});
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(contains(twice.status().message(), "listed twice"));
  FLEET_ASSERT_OK_AND_ASSIGN(Ref<DeviceGroup> group, DeviceGroup::create({a}));
  auto again = DeviceGroup::create({a});
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(contains(again.status().message(), "already belongs"));
  group.reset();
  // A device is free again once its group is gone.
  FLEET_EXPECT_OK(DeviceGroup::create({a}).status());
}

TEST(TopologyTest, SelectPicksFirstMemberReachedByAll) {
  Devices d = makeDevices({"local-task?discrete=true", "local-sync",
                           "local-task"});
  DeviceGroup &group = *d.group;
  BufferUsage usage = BufferUsage::Transfer | BufferUsage::DispatchStorage;
  // Everyone reaches the discrete device by export_import: it is first.
  DeviceCandidate all[] = {{&d[0], 1}, {&d[1], 2}, {&d[2], 4}};
  FLEET_ASSERT_OK_AND_ASSIGN(DeviceCandidate chosen,
                             group.select(all, MemoryType::DeviceLocal, usage));
  EXPECT_EQ(chosen.device, &d[0]);
  EXPECT_EQ(chosen.affinity, 1u);
  // Type only filters: the discrete device cannot provide host-visible
  // device-local memory, so the next member is chosen.
  FLEET_ASSERT_OK_AND_ASSIGN(
      chosen,
      group.select(all, MemoryType::DeviceLocal | MemoryType::HostVisible,
                   usage));
  EXPECT_EQ(chosen.device, &d[1]);
  EXPECT_EQ(chosen.affinity, 2u);
  // List order decides among equals.
  DeviceCandidate reversed[] = {{&d[2], 4}, {&d[1], 2}};
  FLEET_ASSERT_OK_AND_ASSIGN(
      chosen, group.select(reversed, MemoryType::DeviceLocal, usage));
  EXPECT_EQ(chosen.device, &d[2]);
}

TEST(TopologyTest, SelectFailsNamingTheDevices) {
  Ref<Device> local = makeDevice("local-sync?name=cpu");
  Ref<Device> foreign = Ref<Device>::adopt(new ForeignDevice());
  FLEET_ASSERT_OK_AND_ASSIGN(Ref<DeviceGroup> group,
                             DeviceGroup::create({local, foreign}));
  DeviceCandidate candidates[] = {{local.get(), kQueueAffinityAny},
                                  {foreign.get(), kQueueAffinityAny}};
  auto chosen = group->select(candidates, MemoryType::DeviceLocal,
                              BufferUsage::Transfer);
  ASSERT_FALSE(chosen.ok());
  const std::string &message = chosen.status().message();
  EXPECT_TRUE(contains(message, "hal.allocator.select: no candidate among "
                                "['cpu', 'foreign'] is reached by all"));
  EXPECT_TRUE(contains(message, "'foreign' does not reach memory of 'cpu'"));
  EXPECT_TRUE(contains(message, "'cpu' does not reach memory of 'foreign'"));

  // Every candidate filtered by type: also an error naming them.
  Devices d = makeDevices({"local-task?discrete=true&name=d0",
                           "local-task?discrete=true&name=d1"});
  DeviceCandidate discrete[] = {{&d[0], 1}, {&d[1], 1}};
  auto none = d.group->select(discrete,
                              MemoryType::DeviceLocal | MemoryType::HostVisible,
                              BufferUsage::Transfer);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(contains(none.status().message(), "['d0', 'd1']"));
}

TEST(TopologyTest, QueueOpsRefuseUnreachableBuffers) {
  Devices d = makeDevices({"local-task?discrete=true&name=gpu",
                           "local-sync?name=cpu"});
  Device &gpu = d[0];
  Device &cpu = d[1];
  // Device-local memory of the discrete device, not exportable.
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> private_,
      gpu.allocator().allocate(MemoryType::DeviceLocal,
                               BufferUsage::Transfer |
                                   BufferUsage::DispatchStorage,
                               64));
  Ref<Buffer> local = makeHostBuffer(cpu, 64);
  Ref<Fence> signal = cpu.createFence();

  Status copy = cpu.queueCopy(kQueueAffinityAny, nullptr, signal.get(),
                              *private_, 0, *local, 0, 64);
  ASSERT_FALSE(copy.ok());
  EXPECT_EQ(copy.code(), StatusCode::PermissionDenied);
  EXPECT_TRUE(contains(copy.message(), "hal.device.queue.copy on device 'cpu'"));
  EXPECT_TRUE(contains(copy.message(), "has no direct access to source buffer"));
  EXPECT_TRUE(contains(copy.message(), "on device 'gpu' and cannot import it"));
  EXPECT_TRUE(contains(copy.message(), "lacks SharingExport"));
  // The rejected op failed its signal fence: nobody waits forever.
  EXPECT_EQ(signal->query().code(), StatusCode::PermissionDenied);

  Status fill = cpu.queueFill(kQueueAffinityAny, nullptr, nullptr, *private_,
                              0, 64, 0, 1);
  EXPECT_TRUE(contains(fill.message(), "hal.device.queue.fill on device 'cpu'"));
  EXPECT_TRUE(contains(fill.message(), "'gpu'"));
  uint32_t word = 1;
  Status update = cpu.queueUpdate(kQueueAffinityAny, nullptr, nullptr, &word,
                                  *private_, 0, 4);
  EXPECT_TRUE(
      contains(update.message(), "hal.device.queue.update on device 'cpu'"));
  Status dealloca =
      cpu.queueDealloca(kQueueAffinityAny, nullptr, nullptr, *private_);
  EXPECT_TRUE(
      contains(dealloca.message(), "hal.device.queue.dealloca on device 'cpu'"));

  // The other direction too: the discrete device cannot touch plain memory
  // that was not exported.
  Status reverse = gpu.queueCopy(kQueueAffinityAny, nullptr, nullptr, *local,
                                 0, *private_, 0, 64);
  EXPECT_TRUE(contains(reverse.message(), "hal.device.queue.copy on device 'gpu'"));
  EXPECT_TRUE(contains(reverse.message(), "on device 'cpu' and cannot import"));

  // A dispatch binding is checked when the command buffer is submitted.
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<CommandBuffer> commands,
      CommandBuffer::create(cpu, CommandBufferMode::OneShot,
                            CommandCategory::Any, kQueueAffinityAny));
  FLEET_ASSERT_OK(commands->fillBuffer(BindingRef::of(*private_), 64, 0, 1));
  FLEET_ASSERT_OK(commands->finalize());
  CommandBuffer *list[] = {commands.get()};
  Status execute = cpu.queueExecute(kQueueAffinityAny, nullptr, nullptr, list);
  EXPECT_TRUE(
      contains(execute.message(), "hal.device.queue.execute on device 'cpu'"));
  EXPECT_TRUE(contains(execute.message(), "'gpu'"));
  EXPECT_EQ(cpu.statistics().imports, 0u);
}

TEST(TopologyTest, BuffersNeedAGroupAndALink) {
  Ref<Device> a = makeDevice("local-sync?name=a");
  Ref<Device> b = makeDevice("local-sync?name=b");
  Ref<Buffer> onA = makeHostBuffer(*a, 16);
  Ref<Buffer> onB = makeHostBuffer(*b, 16);
  Status ungrouped = b->queueCopy(kQueueAffinityAny, nullptr, nullptr, *onA, 0,
                                  *onB, 0, 16);
  EXPECT_EQ(ungrouped.code(), StatusCode::FailedPrecondition);
  EXPECT_TRUE(contains(ungrouped.message(),
                       "devices 'a' and 'b' are not in one device group"));

  Ref<Device> foreign = Ref<Device>::adopt(new ForeignDevice());
  FLEET_ASSERT_OK_AND_ASSIGN(Ref<DeviceGroup> group,
                             DeviceGroup::create({a, b, foreign}));
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> foreignBuffer,
      foreign->allocator().allocate(MemoryType::DeviceLocal,
                                    BufferUsage::Transfer |
                                        BufferUsage::SharingExport,
                                    16));
  Status unlinked = a->queueCopy(kQueueAffinityAny, nullptr, nullptr,
                                 *foreignBuffer, 0, *onA, 0, 16);
  EXPECT_TRUE(contains(unlinked.message(),
                       "hal.device.queue.copy on device 'a': device 'a' "
                       "cannot reach source"));
  EXPECT_TRUE(contains(unlinked.message(),
                       "no unified_memory, transparent_access or "
                       "export_import link from 'a' to 'foreign'"));
}

TEST(TopologyTest, ImportHappensOnFirstUseOnly) {
  Devices d = makeDevices({"local-task?discrete=true&name=gpu",
                           "local-sync?name=cpu", "local-sync?name=cpu2"});
  Device &gpu = d[0];
  Device &cpu = d[1];
  Device &cpu2 = d[2];
  FLEET_ASSERT_OK_AND_ASSIGN(
      Ref<Buffer> shared,
      gpu.allocator().allocate(MemoryType::DeviceLocal,
                               BufferUsage::Transfer |
                                   BufferUsage::SharingExport,
                               64));
  Ref<Buffer> local = makeHostBuffer(cpu, 64);
  Ref<Buffer> local2 = makeHostBuffer(cpu2, 64);
  EXPECT_EQ(shared->importedByMask(), 0u);
  for (int i = 0; i < 3; ++i)
    FLEET_ASSERT_OK(cpu.queueFill(kQueueAffinityAny, nullptr, nullptr,
                                  *shared, 0, 64, 0x11, 1));
  FLEET_ASSERT_OK(cpu.queueCopy(kQueueAffinityAny, nullptr, nullptr, *shared,
                                0, *local, 0, 64));
  EXPECT_EQ(cpu.statistics().imports, 1u);
  EXPECT_EQ(shared->importedByMask(), uint64_t(1) << cpu.groupIndex());
  EXPECT_EQ(readAll(*local), std::vector<uint8_t>(64, 0x11));
  // Imports are per device: cpu2 imports on its own first use.
  FLEET_ASSERT_OK(cpu2.queueCopy(kQueueAffinityAny, nullptr, nullptr, *shared,
                                 0, *local2, 0, 64));
  EXPECT_EQ(cpu2.statistics().imports, 1u);
  EXPECT_EQ(cpu.statistics().imports, 1u);
  // The owner never imports its own buffer; unified peers never import.
  EXPECT_EQ(gpu.statistics().imports, 0u);
  FLEET_ASSERT_OK(cpu2.queueCopy(kQueueAffinityAny, nullptr, nullptr, *local,
                                 0, *local2, 0, 64));
  EXPECT_EQ(cpu2.statistics().imports, 1u);
  // Copies between buffers of different devices count as moved bytes.
  EXPECT_EQ(cpu.statistics().bytesCrossDevice, 64u);
  EXPECT_EQ(cpu2.statistics().bytesCrossDevice, 128u);
}

} // namespace
} // namespace fleet::runtime::hal
