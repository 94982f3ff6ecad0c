//===- RefineUsage.cpp - concrete lifetimes for every resource ------------===//
//
// Invariant established: no `!stream.resource<*>` remains in host code. A
// value whose only use is a same-affinity lifetime change to `external`
// (the export path), directly or through `stream.timepoint.barrier`s, is
// produced as `external` directly; every other unknown
// lifetime becomes `transient`. Transfers that then change nothing are gone.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-refine-usage"

namespace fleet::stream {
#define GEN_PASS_DEF_REFINEUSAGEPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

bool isUnknown(Type type) {
  auto resource = dyn_cast<ResourceType>(type);
  return resource && resource.getLifetime() == Lifetime::Unknown;
}

/// A transfer that only changes the lifetime on one affinity.
bool isLifetimeOnlyTransfer(AsyncTransferOp transfer) {
  if (transfer.getExecutionAffinityAttr())
    return false;
  Attribute from = transfer.getSourceAffinityAttr();
  Attribute to = transfer.getTargetAffinityAttr();
  return !from || !to || from == to;
}

struct RefineUsagePass
    : public fleet::stream::impl::RefineUsagePassBase<RefineUsagePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    SmallVector<Value> unknown;
    getOperation().walk([&](Operation *op) {
      if (op->getParentOfType<ExecutableOp>())
        return;
      for (Value result : op->getResults())
        if (isUnknown(result.getType()))
          unknown.push_back(result);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isUnknown(arg.getType()))
              unknown.push_back(arg);
    });

    for (Value value : unknown) {
      if (!isUnknown(value.getType()))
        continue; // refined with its producer
      // Produce exported values as external directly, also when a
      // `stream.timepoint.barrier` (a coarse-fences export's signal) stands
      // between the producer and the export.
      // Only values whose producer can pick any lifetime (not region
      // results, whose types must stay in sync with their regions).
      SmallVector<Value> chain = {value};
      while (chain.back().hasOneUse())
        if (auto barrier = dyn_cast<TimepointBarrierOp>(
                *chain.back().getUsers().begin()))
          chain.push_back(barrier.getResult());
        else
          break;
      Value last = chain.back();
      if (last.hasOneUse() &&
          isa_and_nonnull<StreamableOpInterface>(value.getDefiningOp())) {
        auto transfer = dyn_cast<AsyncTransferOp>(*last.getUsers().begin());
        if (transfer && isLifetimeOnlyTransfer(transfer)) {
          auto target = cast<ResourceType>(transfer.getResult().getType());
          if (target.getLifetime() == Lifetime::External) {
            for (Value link : chain)
              link.setType(target);
            // A value built in place (copies into an alloca, a splat then
            // copies) has the type of the storage it was written into: the
            // whole tied chain becomes external.
            Value built = value;
            while (auto tied = dyn_cast_or_null<util::TiedOpInterface>(
                       built.getDefiningOp())) {
              Value operand = tied.getTiedResultOperand(built);
              // Unknown, or refined to transient earlier in this walk.
              auto type = operand ? dyn_cast<ResourceType>(operand.getType())
                                  : ResourceType();
              if (!type || (type.getLifetime() != Lifetime::Unknown &&
                            type.getLifetime() != Lifetime::Transient))
                break;
              operand.setType(target);
              built = operand;
            }
            transfer.getResult().replaceAllUsesWith(last);
            transfer.erase();
            LLVM_DEBUG(llvm::dbgs() << "produced as external: " << value
                                    << "\n");
            continue;
          }
        }
      }
      value.setType(ResourceType::get(context, Lifetime::Transient));
    }

    // Function signatures follow their refined arguments and returns.
    getOperation().walk([&](FunctionOpInterface function) {
      if (function.isExternal() || function->getParentOfType<ExecutableOp>())
        return;
      Block &entry = function.getFunctionBody().front();
      SmallVector<Type> inputs(entry.getArgumentTypes());
      SmallVector<Type> results(function.getResultTypes());
      function.walk([&](Operation *op) {
        if (op->hasTrait<OpTrait::ReturnLike>() &&
            op->getParentOp() == function.getOperation())
          results.assign(op->getOperandTypes().begin(),
                         op->getOperandTypes().end());
      });
      auto type = FunctionType::get(context, inputs, results);
      if (type != function.getFunctionType()) {
        LLVM_DEBUG(llvm::dbgs() << "signature of @" << function.getName()
                                << " refined to " << type << "\n");
        function.setType(type);
      }
    });

    // Transfers that no longer change anything.
    getOperation().walk([&](AsyncTransferOp transfer) {
      if (transfer.getSource().getType() == transfer.getResult().getType() &&
          isLifetimeOnlyTransfer(transfer)) {
        transfer.getResult().replaceAllUsesWith(transfer.getSource());
        transfer.erase();
      }
    });
  }
};

} // namespace
