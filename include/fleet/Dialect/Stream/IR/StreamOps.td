//===- StreamOps.td - stream operations ---------------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMOPS_TD
#define FLEET_DIALECT_STREAM_IR_STREAMOPS_TD

include "fleet/Dialect/Stream/IR/StreamBase.td"

#endif // FLEET_DIALECT_STREAM_IR_STREAMOPS_TD
