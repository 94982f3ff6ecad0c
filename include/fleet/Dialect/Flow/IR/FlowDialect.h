//===- FlowDialect.h - flow dialect -----------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_FLOW_IR_FLOWDIALECT_H
#define FLEET_DIALECT_FLOW_IR_FLOWDIALECT_H

#include "fleet/Dialect/Util/IR/AsmDirectives.h"
#include "fleet/Dialect/Util/IR/UtilTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fleet/Dialect/Flow/IR/FlowDialect.h.inc"

#define GET_OP_CLASSES
#include "fleet/Dialect/Flow/IR/FlowOps.h.inc"

#endif // FLEET_DIALECT_FLOW_IR_FLOWDIALECT_H
