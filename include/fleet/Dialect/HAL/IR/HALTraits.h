//===- HALTraits.h - op traits of the hal dialect ---------------*- C++ -*-===//
//
// DeviceQueueOp marks the queue ops (hal.device.queue.*, except flush) and
// verifies their fence rule. Queue ops have getWaitFence()/getSignalFence().
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_HAL_IR_HALTRAITS_H
#define FLEET_DIALECT_HAL_IR_HALTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace fleet::hal {

/// A queue op waits on one fence and signals another; passing the same fence
/// value as both would deadlock (the op waits for its own completion), so
/// they must differ unless both are `util.null` ("no fence") —
/// docs/ir-reference.md, "Queue ops".
mlir::LogicalResult verifyQueueFences(mlir::Operation *op, mlir::Value wait,
                                      mlir::Value signal);

namespace OpTrait {
template <typename ConcreteType>
class DeviceQueueOp
    : public mlir::OpTrait::TraitBase<ConcreteType, DeviceQueueOp> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    auto queueOp = llvm::cast<ConcreteType>(op);
    return verifyQueueFences(op, queueOp.getWaitFence(),
                             queueOp.getSignalFence());
  }
};
} // namespace OpTrait

} // namespace fleet::hal

#endif // FLEET_DIALECT_HAL_IR_HALTRAITS_H
