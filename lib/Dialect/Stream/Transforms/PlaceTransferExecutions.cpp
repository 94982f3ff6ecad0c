//===- PlaceTransferExecutions.cpp - run pinned transfers on their pin ----===//
//
// Invariant established: a transfer whose result is pinned to one device
// executes on that device whenever its default placement could not execute
// with it; a transfer pinned to several devices became one transfer per pin.
//
// Why (IREE PR 24748, the seed of Fleet issue 7): a transfer has three
// affinities — where its input lives (`from`), where its result lives (`to`)
// and where it executes (`on`). By default it executes on the source side
// (push), or on the target for staging/external sources. When a value
// produced on B is transferred into a result pinned to A (exported on A),
// pushing from B would make B write A's memory and A's result would have to
// be shared; executing on A keeps the result on A and only the intermediate
// is shared (allocated `optimal<[A, B]>` later). Placement is never an error.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/Analysis/AffinityAnalysis.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-place-transfer-executions"

namespace fleet::stream {
#define GEN_PASS_DEF_PLACETRANSFEREXECUTIONSPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

struct PlaceTransferExecutionsPass
    : public fleet::stream::impl::PlaceTransferExecutionsPassBase<
          PlaceTransferExecutionsPass> {
  void runOnOperation() override {
    AffinityAnalysis analysis(getOperation());
    if (failed(analysis.run()))
      return signalPassFailure();
    SmallVector<AsyncTransferOp> transfers;
    getOperation().walk(
        [&](AsyncTransferOp transfer) { transfers.push_back(transfer); });
    for (AsyncTransferOp transfer : transfers)
      place(transfer, analysis);
  }

  void place(AsyncTransferOp transfer, const AffinityAnalysis &analysis) {
    if (transfer.getExecutionAffinityAttr()) {
      LLVM_DEBUG(llvm::dbgs() << "skip (already placed): " << transfer << "\n");
      return;
    }
    SmallVector<Attribute> pins =
        analysis.getPinnedAffinities(transfer.getResult());
    if (pins.empty()) {
      LLVM_DEBUG(llvm::dbgs() << "skip (result not pinned): " << transfer
                              << "\n");
      return;
    }
    if (pins.size() == 1) {
      Attribute pin = pins.front();
      // getAffinityAttr() is the default execution affinity when no `on` is
      // set (source side, or target side for staging/external sources).
      Attribute defaultExecution = transfer.getAffinityAttr();
      if (canExecuteTogether(defaultExecution, pin)) {
        LLVM_DEBUG(llvm::dbgs() << "skip (default placement runs on the pin): "
                                << transfer << "\n");
        return;
      }
      transfer.setExecutionAffinityAttr(pin);
      return;
    }
    // Several pins (Fleet extension): one transfer per pin, each feeding the
    // uses that pin fixes; unpinned uses keep the original.
    OpBuilder builder(transfer);
    for (Attribute pin : pins) {
      auto clone = cast<AsyncTransferOp>(builder.clone(*transfer));
      clone.setTargetAffinityAttr(pin);
      clone.setExecutionAffinityAttr(pin);
      transfer.getResult().replaceUsesWithIf(
          clone.getResult(),
          [&](OpOperand &use) { return getUsePin(use) == pin; });
    }
    if (transfer.getResult().use_empty())
      transfer.erase();
  }
};

} // namespace
