//===- ElideAsyncCopies.cpp - drop transfers the topology makes free ------===//
//
// Invariant established: no `stream.async.transfer` remains between two
// affinities where the consumer can use the producer's memory directly.
//
// Direction rule (docs/design.md §3): a link `(@x -> @y = {...})` says device x
// can load/store memory allocated on device y. A transfer from S (where the
// value lives, its producer) to T (where it is consumed) is unnecessary when
// T reaches S's memory directly: the same device (same backend and ordinal),
// or link(T -> S) with `unified_memory` (which holds both ways even if
// written once) or `transparent_access`. `export_import` alone is not direct
// access: the copy stays. Transfers that change the lifetime always stay.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"
#include "fleet/Dialect/HAL/IR/HALDialect.h"
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

struct ElideAsyncCopiesPass
    : public fleet::stream::impl::ElideAsyncCopiesPassBase<
          ElideAsyncCopiesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    hal::DeviceSet devices(module);
    auto topology =
        module->getAttrOfType<hal::DeviceTopologyAttr>("stream.topology");
    auto hasDirectAccess = [&](StringRef consumer, StringRef producer) {
      if (devices.isSameDevice(consumer, producer))
        return true;
      if (!topology)
        return false;
      if (auto link = topology.lookup(consumer, producer))
        if (link.getUnifiedMemory() || link.getTransparentAccess())
          return true;
      // unified_memory holds both ways even when written once.
      if (auto reverse = topology.lookup(producer, consumer))
        if (reverse.getUnifiedMemory())
          return true;
      return false;
    };

    module.walk([&](AsyncTransferOp transfer) {
      if (transfer.getSource().getType() != transfer.getResult().getType()) {
        LLVM_DEBUG(llvm::dbgs() << "kept (changes lifetime): " << transfer
                                << "\n");
        return;
      }
      StringRef source = getAffinityDeviceName(transfer.getSourceAffinityAttr());
      StringRef target = getAffinityDeviceName(transfer.getTargetAffinityAttr());
      if (source.empty() || target.empty()) {
        LLVM_DEBUG(llvm::dbgs() << "kept (affinity not a device): "
                                << transfer << "\n");
        return;
      }
      if (!hasDirectAccess(target, source)) {
        LLVM_DEBUG(llvm::dbgs() << "kept (no direct access " << target
                                << " -> " << source << ")\n");
        return;
      }
      transfer.getResult().replaceAllUsesWith(transfer.getSource());
      transfer.erase();
    });
  }
};

} // namespace
