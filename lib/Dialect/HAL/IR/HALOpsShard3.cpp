//===- HALOpsShard3.cpp - generated hal op definitions, shard 3 -----------===//
//
// The hal op definitions are split into 4 sections (mlir-tblgen
// -op-shard-count, see cmake/FleetMacros.cmake) so they compile in parallel
// and in smaller pieces (docs/build.md pitfall 9). Hand-written op logic
// lives in HAL*Ops.cpp by group; this file only instantiates section 3.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_DEFS_3
#include "fleet/Dialect/HAL/IR/HALOps.cpp.inc"
