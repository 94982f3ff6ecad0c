//===- StreamOps.h - stream operations --------------------------*- C++ -*-===//
#ifndef FLEET_DIALECT_STREAM_IR_STREAMOPS_H
#define FLEET_DIALECT_STREAM_IR_STREAMOPS_H

#include "fleet/Dialect/Stream/IR/StreamDialect.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fleet/Dialect/Stream/IR/StreamInterfaces.h.inc"

#define GET_OP_CLASSES
#include "fleet/Dialect/Stream/IR/StreamOps.h.inc"

#endif // FLEET_DIALECT_STREAM_IR_STREAMOPS_H
