//===- HALDialect.cpp - hal dialect registration and types ----------------===//

#include "fleet/Dialect/HAL/IR/HALDialect.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

#include "fleet/Dialect/HAL/IR/HALDialect.cpp.inc"
#include "fleet/Dialect/HAL/IR/HALEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fleet/Dialect/HAL/IR/HALTypes.cpp.inc"

void HALDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "fleet/Dialect/HAL/IR/HALOps.cpp.inc"
      >();
}

void HALDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fleet/Dialect/HAL/IR/HALTypes.cpp.inc"
      >();
}
