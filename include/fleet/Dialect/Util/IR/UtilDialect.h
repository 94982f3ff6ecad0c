//===- UtilDialect.h - util dialect -----------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_UTIL_IR_UTILDIALECT_H
#define FLEET_DIALECT_UTIL_IR_UTILDIALECT_H

#include "mlir/IR/Dialect.h"

#include "fleet/Dialect/Util/IR/UtilDialect.h.inc"

#endif // FLEET_DIALECT_UTIL_IR_UTILDIALECT_H
