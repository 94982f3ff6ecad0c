//===- HALExternalModels.cpp - hal behaviour attached to other dialects ---===//

#include "fleet/Dialect/HAL/IR/HALExternalModels.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace fleet;

namespace {

/// A coarse-fences call: wait fence and signal fence are its last operands.
struct CallTimelineAwareModel
    : public stream::TimelineAwareOpInterface::ExternalModel<
          CallTimelineAwareModel, util::CallOp> {
  bool isTimelineAware(Operation *op) const {
    auto convention = op->getAttrOfType<hal::ABIConventionAttr>(
        "hal.abi.convention");
    if (!convention ||
        convention.getValue() != hal::ABIConvention::CoarseFences)
      return false;
    unsigned n = op->getNumOperands();
    return n >= 2 && isa<hal::FenceType>(op->getOperand(n - 2).getType()) &&
           isa<hal::FenceType>(op->getOperand(n - 1).getType());
  }

  SmallVector<Value> getWaitFences(Operation *op) const {
    return {op->getOperand(op->getNumOperands() - 2)};
  }

  Value getSignalFence(Operation *op) const {
    return op->getOperand(op->getNumOperands() - 1);
  }

  void joinTimepoint(Operation *op, Value timepoint, OpBuilder &builder,
                     Attribute affinity) const {
    // The wait fence is signalled by exactly one chain: extend the existing
    // one (from the ABI shim's barrier) or create it.
    Value fence = getWaitFences(op).front();
    for (Operation *user : fence.getUsers()) {
      auto chain = dyn_cast<stream::TimepointChainExternalOp>(user);
      if (!chain)
        continue;
      Value current = chain.getAwaitTimepoint();
      if (current == timepoint)
        return;
      // The new timepoint may be defined after the chain (a region placed
      // later): signal the fence right before the call instead, which is
      // after both.
      chain->moveBefore(op);
      OpBuilder b(chain);
      Value joined = stream::TimepointJoinOp::create(
          b, chain.getLoc(), stream::TimepointType::get(op->getContext()),
          ValueRange{current, timepoint});
      chain.getAwaitTimepointMutable().assign(joined);
      return;
    }
    stream::TimepointChainExternalOp::create(builder, op->getLoc(), timepoint,
                                             ValueRange{fence}, affinity);
  }

  Value importSignalTimepoint(Operation *op, OpBuilder &builder,
                              Attribute affinity) const {
    return stream::TimepointImportOp::create(
        builder, op->getLoc(), stream::TimepointType::get(op->getContext()),
        ValueRange{getSignalFence(op)}, affinity);
  }
};

} // namespace

void fleet::hal::registerExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, util::UtilDialect *) {
    context->loadDialect<stream::StreamDialect, hal::HALDialect>();
    util::CallOp::attachInterface<CallTimelineAwareModel>(*context);
  });
}
