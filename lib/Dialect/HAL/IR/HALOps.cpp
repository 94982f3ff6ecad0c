//===- HALOps.cpp - hal operations ----------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

#define GET_OP_CLASSES
#include "fleet/Dialect/HAL/IR/HALOps.cpp.inc"
