//===- UtilTypes.h - util types and interfaces ------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_UTIL_IR_UTILTYPES_H
#define FLEET_DIALECT_UTIL_IR_UTILTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Types.h"

namespace fleet::util::detail {
/// Default TiedOpInterface lookup: reads the `tied_operands` attribute.
std::optional<unsigned> getTiedResultOperandIndex(mlir::Operation *op,
                                                  unsigned resultIndex);
} // namespace fleet::util::detail

#include "fleet/Dialect/Util/IR/UtilInterfaces.h.inc"
#include "fleet/Dialect/Util/IR/UtilTypeInterfaces.h.inc"
#include "fleet/Dialect/Util/IR/UtilAttrInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fleet/Dialect/Util/IR/UtilTypes.h.inc"

namespace fleet::util {
/// True when a value of type `a` may initialize or be loaded from a global
/// of type `b`: equal types, or shaped types of one kind (tensor, memref,
/// vector) with compatible shapes. Element types are not compared, as in
/// IREE; the stream phase rejects tensor globals whose element types differ
/// (docs/ir-reference.md "util"). Stores need equal types.
bool isGlobalTypeCompatible(mlir::Type a, mlir::Type b);
} // namespace fleet::util

#endif // FLEET_DIALECT_UTIL_IR_UTILTYPES_H
