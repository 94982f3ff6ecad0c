//===- HALExternalModels.h - hal behaviour attached to other dialects -*- C++ -*-===//
#ifndef FLEET_DIALECT_HAL_IR_HALEXTERNALMODELS_H
#define FLEET_DIALECT_HAL_IR_HALEXTERNALMODELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace fleet::hal {

/// Attaches TimelineAwareOpInterface to `util.call`: a call carrying
/// `hal.abi.convention = #hal.abi.convention<coarse_fences>` whose last two
/// operands are `!hal.fence` (wait, signal) is timeline-aware
/// (docs/design.md §4).
void registerExternalModels(mlir::DialectRegistry &registry);

} // namespace fleet::hal

#endif // FLEET_DIALECT_HAL_IR_HALEXTERNALMODELS_H
