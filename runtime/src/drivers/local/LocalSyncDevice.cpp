//===- LocalSyncDevice.cpp - the local-sync driver -------------------------===//
//
// No threads of its own: a queue op runs on the thread that submits it when
// its wait fence is already reached, otherwise on the thread that reaches it
// (the host signalling a fence, or another device's op completing). Ops that
// become ready while this thread is already running local-sync ops are
// queued on a per-thread list and run by the outermost loop, so long chains
// of dependent ops do not grow the stack.
//
//===----------------------------------------------------------------------===//

#include "drivers/local/LocalDevice.h"
#include "drivers/local/LocalDriver.h"

namespace fleet::runtime::hal::local {
namespace {

struct ReadyList {
  bool draining = false;
  PendingOp *head = nullptr;
  PendingOp *tail = nullptr;
};
thread_local ReadyList readyList;

class LocalSyncDevice final : public LocalDevice {
public:
  explicit LocalSyncDevice(const DeviceOptions &options)
      : LocalDevice("local-sync", options) {}

protected:
  bool runsInline() const override { return true; }

  void schedule(PendingOp *op) override {
    ReadyList &list = readyList;
    if (list.draining) {
      op->readyNext = nullptr;
      if (list.tail)
        list.tail->readyNext = op;
      else
        list.head = op;
      list.tail = op;
      return;
    }
    list.draining = true;
    op->device().run(op);
    while (PendingOp *next = list.head) {
      list.head = next->readyNext;
      if (!list.head)
        list.tail = nullptr;
      next->device().run(next);
    }
    list.draining = false;
  }

  int32_t runWorkgroups(fleet_kernel_fn_t function,
                        const fleet_kernel_state_t &state,
                        uint64_t &failedWorkgroup) override {
    uint64_t index = 0;
    for (uint32_t z = 0; z < state.workgroup_count[2]; ++z)
      for (uint32_t y = 0; y < state.workgroup_count[1]; ++y)
        for (uint32_t x = 0; x < state.workgroup_count[0]; ++x, ++index)
          if (int32_t result = function(&state, x, y, z)) {
            failedWorkgroup = index;
            return result;
          }
    return 0;
  }
};

} // namespace

Ref<Device> createLocalSyncDevice(const DeviceOptions &options) {
  return Ref<Device>::adopt(new LocalSyncDevice(options));
}

} // namespace fleet::runtime::hal::local
