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

struct ElideAsyncCopiesPass
    : public fleet::stream::impl::ElideAsyncCopiesPassBase<
          ElideAsyncCopiesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DeviceTopology topology(module);

    module.walk([&](AsyncTransferOp transfer) {
      if (transfer.getSource().getType() != transfer.getResult().getType()) {
        LLVM_DEBUG(llvm::dbgs() << "kept (changes lifetime): " << transfer
                                << "\n");
        return;
      }
      Attribute source = transfer.getSourceAffinityAttr();
      Attribute target = transfer.getTargetAffinityAttr();
      if (getAffinityDeviceName(source).empty() ||
          getAffinityDeviceName(target).empty()) {
        LLVM_DEBUG(llvm::dbgs() << "kept (affinity not a device): "
                                << transfer << "\n");
        return;
      }
      if (!topology.hasDirectAccess(target, source)) {
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
