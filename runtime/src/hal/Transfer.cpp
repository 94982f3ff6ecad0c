//===- Transfer.cpp - host <-> device copies for tools ---------------------===//

#include "fleet/runtime/hal/Transfer.h"

namespace fleet::runtime::hal {

Status transferToHost(Device &device, Buffer &source, uint64_t offset,
                      void *target, uint64_t length, Timeout timeout) {
  FLEET_ASSIGN_OR_RETURN(
      Ref<Buffer> staging,
      device.allocator().allocate(
          MemoryType::HostLocal | MemoryType::DeviceVisible,
          BufferUsage::TransferTarget | BufferUsage::MappingScoped |
              BufferUsage::MappingAccessRandom,
          length));
  Ref<Fence> done = device.createFence();
  FLEET_RETURN_IF_ERROR(device.queueCopy(kQueueAffinityAny, nullptr,
                                         done.get(), source, offset, *staging,
                                         0, length));
  FLEET_RETURN_IF_ERROR(done->wait(timeout));
  return staging->read(0, target, length);
}

Status transferFromHost(Device &device, const void *source, Buffer &target,
                        uint64_t offset, uint64_t length, Timeout timeout) {
  Ref<Fence> done = device.createFence();
  FLEET_RETURN_IF_ERROR(device.queueUpdate(kQueueAffinityAny, nullptr,
                                           done.get(), source, target, offset,
                                           length));
  return done->wait(timeout);
}

} // namespace fleet::runtime::hal
