//===- StreamOpsShard2.cpp - generated stream op definitions, shard 2 ----===//
//
// mlir-tblgen -op-shard-count splits StreamOps.cpp.inc into GET_OP_DEFS_<i>
// sections; each shard file compiles one (docs/build.md pitfall 9). The
// hand-written parts of the ops live in Stream*Ops.cpp.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/IR/StreamOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_DEFS_2
#include "fleet/Dialect/Stream/IR/StreamOps.cpp.inc"
