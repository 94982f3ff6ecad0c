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
// A transfer touching a remote device (`remote = true`, docs/distributed.md)
// executes on a remote side, pinned or not: on the target when it is remote
// (a pull), else on the source (a push). Only a remote device moves bytes
// between its memory and another's, so every dispatch touches only its own
// device's memory and the value crosses once.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/Analysis/AffinityAnalysis.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
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

  /// True when `affinity` is one device whose global's target says
  /// `remote = true` (read from the target's configuration dictionary, so
  /// the stream phase needs no device dialect).
  bool isRemote(Attribute affinity) {
    auto device = dyn_cast_or_null<AffinityAttrInterface>(affinity);
    if (!device || device.getDeviceName().empty())
      return false;
    auto global = dyn_cast_or_null<util::GlobalOp>(
        SymbolTable::lookupSymbolIn(getOperation(), device.getDeviceName()));
    if (!global || !global.getInitialValue())
      return false;
    bool remote = false;
    global.getInitialValue()->walk([&](DictionaryAttr config) {
      if (auto flag = config.getAs<BoolAttr>("remote"))
        remote |= flag.getValue();
    });
    return remote;
  }

  void place(AsyncTransferOp transfer, const AffinityAnalysis &analysis) {
    if (transfer.getExecutionAffinityAttr()) {
      LLVM_DEBUG(llvm::dbgs() << "skip (already placed): " << transfer << "\n");
      return;
    }
    Attribute to = transfer.getTargetAffinityAttr();
    Attribute from = transfer.getSourceAffinityAttr();
    if (!from)
      from = analysis.getValueAffinity(transfer.getSource());
    if (isRemote(to) || isRemote(from)) {
      LLVM_DEBUG(llvm::dbgs() << "on the remote side: " << transfer << "\n");
      transfer.setExecutionAffinityAttr(isRemote(to) ? to : from);
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
