//===- ElideAsyncCopies.cpp - drop transfers the topology makes free ------===//
//
// Invariant established: no `stream.async.transfer` remains between two
// places where the consumer can use the producer's memory directly.
//
// Direction rule (docs/design.md §3): a link `(@x -> @y = {...})` says device x
// can load/store memory allocated on device y. A transfer from S (where the
// value lives, its producer) to T (where it is consumed) is unnecessary when
// T reaches S's memory directly: the same device (same backend and ordinal),
// or link(T -> S) with `unified_memory` (which holds both ways even if
// written once) or `transparent_access`. `export_import` alone is not direct
// access: the copy stays. Transfers that change the lifetime always stay.
//
// S and T are the transfer's `from(...)` and `to(...)`. A missing `from` is
// where the producer puts the value: the target of a producing transfer,
// else the producer's own affinity (`on(...)` or `stream.affinity`). A
// missing `to` is where every consumer executes, when all name their
// affinity and agree on one device; a result that leaves (returned, yielded)
// or has a consumer without an affinity keeps its transfer. A promise
// (`#hal.device.promise<@d>`) stands for the device it promises, asked
// through stream::DeviceTopology (Stream knows no HAL).
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/Analysis/AffinityAnalysis.h"
#include "fleet/Dialect/Stream/IR/DeviceTopology.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-elide-async-copies"

namespace fleet::stream {
#define GEN_PASS_DEF_ELIDEASYNCCOPIESPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

/// Where the producer of `value` puts it, or null when it says nothing
/// (a block argument, an op without an affinity).
Attribute getProducerPlacement(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return {};
  if (auto transfer = dyn_cast<AsyncTransferOp>(producer)) {
    if (Attribute target = transfer.getTargetAffinityAttr())
      return target;
    return transfer.getAffinityAttr();
  }
  return getPinnedExecutionAffinity(producer);
}

/// The one device every consumer of `value` executes on, or null when a
/// consumer names no affinity or two consumers are different devices.
Attribute getConsumerPlacement(Value value, DeviceTopology &topology) {
  Attribute common;
  for (Operation *user : value.getUsers()) {
    Attribute affinity =
        topology.getPlacementDevice(getPinnedExecutionAffinity(user));
    if (!affinity)
      return {};
    if (common && !topology.isSameDevice(common, affinity))
      return {};
    common = affinity;
  }
  return common;
}

struct ElideAsyncCopiesPass
    : public fleet::stream::impl::ElideAsyncCopiesPassBase<
          ElideAsyncCopiesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DeviceTopology topology(module);

    SmallVector<AsyncTransferOp> transfers;
    module.walk([&](AsyncTransferOp transfer) { transfers.push_back(transfer); });
    for (AsyncTransferOp transfer : transfers) {
      if (transfer.getSource().getType() != transfer.getResult().getType()) {
        LLVM_DEBUG(llvm::dbgs() << "kept (changes lifetime): " << transfer
                                << "\n");
        continue;
      }
      Attribute source = transfer.getSourceAffinityAttr();
      if (!source) {
        source = getProducerPlacement(transfer.getSource());
        LLVM_DEBUG(llvm::dbgs() << "from(...) inferred from the producer: "
                                << source << "\n");
      }
      Attribute target = transfer.getTargetAffinityAttr();
      if (!target) {
        target = getConsumerPlacement(transfer.getResult(), topology);
        LLVM_DEBUG(llvm::dbgs() << "to(...) inferred from the consumers: "
                                << target << "\n");
      }
      Attribute sourceDevice = topology.getPlacementDevice(source);
      Attribute targetDevice = topology.getPlacementDevice(target);
      if (!sourceDevice || !targetDevice) {
        LLVM_DEBUG(llvm::dbgs() << "kept (no single device for "
                                << (sourceDevice ? "to" : "from")
                                << "): " << transfer << "\n");
        continue;
      }
      if (!topology.hasDirectAccess(targetDevice, sourceDevice)) {
        LLVM_DEBUG(llvm::dbgs() << "kept (no direct access " << targetDevice
                                << " -> " << sourceDevice << ")\n");
        continue;
      }
      LLVM_DEBUG(llvm::dbgs() << "elided (" << targetDevice << " reaches "
                              << sourceDevice << "): " << transfer << "\n");
      transfer.getResult().replaceAllUsesWith(transfer.getSource());
      transfer.erase();
    }
  }
};

} // namespace
