//===- HALOps.h - hal operations --------------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_HAL_IR_HALOPS_H
#define FLEET_DIALECT_HAL_IR_HALOPS_H

#include "fleet/Dialect/HAL/IR/HALAsm.h"
#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "fleet/Dialect/HAL/IR/HALTraits.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "fleet/Dialect/HAL/IR/HALOps.h.inc"

#endif // FLEET_DIALECT_HAL_IR_HALOPS_H
