//===- StreamOpUtils.h - helpers shared by the stream op files --*- C++ -*-===//
//
// Verifier pieces that several stream ops share (the rules of
// docs/ir-reference.md "General syntax rules" and of the execution regions),
// and interface helpers. Private to lib/Dialect/Stream/IR.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_DIALECT_STREAM_IR_STREAMOPUTILS_H
#define FLEET_LIB_DIALECT_STREAM_IR_STREAMOPUTILS_H

#include "fleet/Dialect/Stream/IR/StreamOps.h"

namespace fleet::stream::detail {

/// True for `!stream.resource<...>`.
inline bool isResource(mlir::Type type) { return llvm::isa<ResourceType>(type); }

/// Number of resource types in `types`.
unsigned countResources(mlir::TypeRange types);

/// `encoding` (named `name` in messages) must be a ranked tensor type and
/// `dims` must hold one value per `?` dim.
mlir::LogicalResult verifyEncoding(mlir::Operation *op, llvm::StringRef name,
                                   mlir::Type encoding, mlir::ValueRange dims);

/// `tied` (may be null) must have one entry per result, each -1 or the
/// index of a resource in `tieable`; a tied result is a resource itself.
mlir::LogicalResult verifyTiedOperands(mlir::Operation *op, mlir::ArrayAttr tied,
                                       mlir::TypeRange results,
                                       mlir::TypeRange tieable);

/// Byte size of value `index` of a list whose size-aware values have their
/// sizes, in order, in `sizes`; null when it has none.
mlir::Value findValueSize(unsigned index, mlir::TypeRange types,
                          mlir::ValueRange sizes);

/// As findValueSize for op operand `operandIndex` when it lies in `values`
/// (a range of the op's operands); null otherwise.
mlir::Value findOperandSize(unsigned operandIndex, mlir::OperandRange values,
                            mlir::ValueRange sizes);

/// Resolves every entry point to its stream.executable.export, checks the
/// workload against the export's `workgroups` region arguments (count and
/// types) and runs `check` on each export.
mlir::LogicalResult verifyDispatchEntryPoints(
    mlir::Operation *op, mlir::ArrayAttr entryPoints, mlir::ValueRange workload,
    mlir::SymbolTableCollection &symbolTable,
    llvm::function_ref<mlir::LogicalResult(ExecutableExportOp)> check = {});

/// The region has one block whose arguments match the captured operands
/// one to one, by type.
mlir::LogicalResult verifyCaptures(mlir::Operation *op, mlir::Region &body,
                                   mlir::ValueRange operands);

/// Every resource used inside `body` is defined inside it (a capture or
/// produced there).
mlir::LogicalResult verifyCapturedResourceUses(mlir::Operation *op,
                                               mlir::Region &body);

/// The body ends in a stream.yield whose resources match `results` in count
/// and type and whose size values are the op's `resultSizes`.
mlir::LogicalResult verifyYield(mlir::Operation *op, mlir::Region &body,
                                mlir::TypeRange results,
                                mlir::ValueRange resultSizes);

/// Every op directly in the body is a StreamableOpInterface op or the
/// terminating stream.yield.
mlir::LogicalResult verifyStreamableBody(mlir::Operation *op,
                                         mlir::Region &body);

/// Replaces an optional single `await` operand with the join of
/// `timepoints` (removing it when empty).
void setOptionalAwait(mlir::Operation *op, mlir::MutableOperandRange await,
                      mlir::ValueRange timepoints, mlir::OpBuilder &builder);

} // namespace fleet::stream::detail

#endif // FLEET_LIB_DIALECT_STREAM_IR_STREAMOPUTILS_H
