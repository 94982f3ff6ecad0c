//===- UtilOps.h - util operations ------------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_UTIL_IR_UTILOPS_H
#define FLEET_DIALECT_UTIL_IR_UTILOPS_H

#include "fleet/Dialect/Util/IR/AsmDirectives.h"
#include "fleet/Dialect/Util/IR/UtilDialect.h"
#include "fleet/Dialect/Util/IR/UtilTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "fleet/Dialect/Util/IR/UtilOps.h.inc"

#endif // FLEET_DIALECT_UTIL_IR_UTILOPS_H
