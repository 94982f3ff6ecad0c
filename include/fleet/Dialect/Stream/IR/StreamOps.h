//===- StreamOps.h - stream operations --------------------------*- C++ -*-===//
//
// The ops of docs/ir-reference.md section "stream" and the stream
// op interfaces (AffinityOpInterface, TimelineOpInterface,
// StreamableOpInterface). Ops also implement util's TiedOpInterface and
// SizeAwareOpInterface where results reuse operand storage or values carry
// byte sizes.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_STREAM_IR_STREAMOPS_H
#define FLEET_DIALECT_STREAM_IR_STREAMOPS_H

#include "fleet/Dialect/Stream/IR/StreamAsm.h"
#include "fleet/Dialect/Stream/IR/StreamDialect.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fleet/Dialect/Stream/IR/StreamInterfaces.h.inc"

#define GET_OP_CLASSES
#include "fleet/Dialect/Stream/IR/StreamOps.h.inc"

namespace fleet::stream {

/// One timepoint standing for all of `timepoints`: null for none, the value
/// itself for one, else a new `stream.timepoint.join` built at `builder`.
/// The one owner of the rule (docs/contributing.md "Layering").
mlir::Value joinTimepoints(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::ValueRange timepoints);

} // namespace fleet::stream

#endif // FLEET_DIALECT_STREAM_IR_STREAMOPS_H
