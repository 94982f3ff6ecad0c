//===- HALDialect.cpp - hal dialect registration and types ----------------===//

#include "fleet/Dialect/HAL/IR/HALDialect.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

#include "fleet/Dialect/HAL/IR/HALDialect.cpp.inc"
#include "fleet/Dialect/HAL/IR/HALEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fleet/Dialect/HAL/IR/HALTypes.cpp.inc"

namespace {
/// Host code with hal ops (ABI shims) may be inlined into its callers.
struct HALInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *op, Region *dest, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
};
} // namespace

void HALDialect::initialize() {
  addInterfaces<HALInlinerInterface>();
  registerAttributes();
  registerTypes();
  // The op definitions are sharded (HALOpsShard*.cpp); this calls each
  // shard's registration hook.
  registerHALDialectOperations(this);
}

void HALDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fleet/Dialect/HAL/IR/HALTypes.cpp.inc"
      >();
}

Operation *HALDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  // hal.memory_type / hal.buffer_usage fold to plain i32 values; a consumer
  // that folds to such a value gets an arith.constant.
  if (arith::ConstantOp::isBuildableWith(value, type))
    return arith::ConstantOp::create(builder, loc, type,
                                     cast<TypedAttr>(value));
  return nullptr;
}
