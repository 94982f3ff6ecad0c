//===- StreamOps.cpp - stream operations ----------------------------------===//

#include "fleet/Dialect/Stream/IR/StreamOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

#define GET_OP_CLASSES
#include "fleet/Dialect/Stream/IR/StreamOps.cpp.inc"
