//===- HALOps.td - hal operations ---------------------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_HAL_IR_HALOPS_TD
#define FLEET_DIALECT_HAL_IR_HALOPS_TD

include "fleet/Dialect/HAL/IR/HALBase.td"
include "fleet/Dialect/HAL/IR/HALAttrs.td"

#endif // FLEET_DIALECT_HAL_IR_HALOPS_TD
