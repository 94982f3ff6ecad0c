//===- HALAsm.h - custom<...> directives of hal op formats ------*- C++ -*-===//
//
// Parsers and printers for the hal-specific parts of the op syntax in
// docs/ir-reference.md ("hal"). Generic directives (enum spelling,
// sized types, visibility) live in Util/IR/AsmDirectives.h.
//
// Parsers report errors through the parser and return failure; they never
// assert on malformed text (the robustness test feeds them mutated IR).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_HAL_IR_HALASM_H
#define FLEET_DIALECT_HAL_IR_HALASM_H

#include "mlir/IR/OpImplementation.h"

namespace fleet::hal {

class ExecutableTargetAttr;
using UnresolvedOperand = mlir::OpAsmParser::UnresolvedOperand;

/// hal.allocator.select: `(%dev, %queue : !hal.device, i64), ...` — one or
/// more candidates, each a device and its queue affinity with their types.
mlir::ParseResult parseDeviceQueueCandidates(
    mlir::OpAsmParser &parser,
    llvm::SmallVectorImpl<UnresolvedOperand> &devices,
    llvm::SmallVectorImpl<mlir::Type> &deviceTypes,
    llvm::SmallVectorImpl<UnresolvedOperand> &queueAffinities,
    llvm::SmallVectorImpl<mlir::Type> &queueAffinityTypes);
void printDeviceQueueCandidates(mlir::OpAsmPrinter &p, mlir::Operation *op,
                                mlir::ValueRange devices,
                                mlir::TypeRange deviceTypes,
                                mlir::ValueRange queueAffinities,
                                mlir::TypeRange queueAffinityTypes);

/// hal.command_buffer.dispatch: `(%buffer : T)[%offset, %length], ...`, at
/// least one binding; printed one per line.
mlir::ParseResult
parseDispatchBindings(mlir::OpAsmParser &parser,
                      llvm::SmallVectorImpl<UnresolvedOperand> &buffers,
                      llvm::SmallVectorImpl<mlir::Type> &bufferTypes,
                      llvm::SmallVectorImpl<UnresolvedOperand> &offsets,
                      llvm::SmallVectorImpl<UnresolvedOperand> &lengths);
void printDispatchBindings(mlir::OpAsmPrinter &p, mlir::Operation *op,
                           mlir::ValueRange buffers, mlir::TypeRange bufferTypes,
                           mlir::ValueRange offsets, mlir::ValueRange lengths);

/// hal.tensor.import/export: `T` or `enc as T` — the ABI-facing encoding type
/// and the tensor type. Without `as` both are `T`.
mlir::ParseResult parseTypeAlias(mlir::OpAsmParser &parser,
                                 mlir::TypeAttr &encoding, mlir::Type &type);
void printTypeAlias(mlir::OpAsmPrinter &p, mlir::Operation *op,
                    mlir::TypeAttr encoding, mlir::Type type);

/// hal.tensor.import's tail: `{%d0, ...}` dims (only when non-empty) then the
/// bare attribute dictionary. IREE's text is ambiguous when a static tensor
/// is followed by attributes (`tensor<4xf32> {a = 1}`); the parser tells
/// them apart by what follows `{` (a value means dims).
mlir::ParseResult parseDimsAndAttrDict(
    mlir::OpAsmParser &parser, llvm::SmallVectorImpl<UnresolvedOperand> &dims,
    mlir::NamedAttrList &attrs);
void printDimsAndAttrDict(mlir::OpAsmPrinter &p, mlir::Operation *op,
                          mlir::ValueRange dims, mlir::DictionaryAttr attrs);

/// hal.executable.variant: `target(...)` printed stripped
/// (`<"backend", "format">`, or its alias); the full
/// `#hal.executable.target<...>` form also parses.
mlir::ParseResult parseExecutableTarget(mlir::OpAsmParser &parser,
                                        ExecutableTargetAttr &target);
void printExecutableTarget(mlir::OpAsmPrinter &p, mlir::Operation *op,
                           ExecutableTargetAttr target);

/// `(%dev: !hal.device, %w: index, ...) -> i1 { ... }`: the condition of
/// hal.executable.export.
mlir::ParseResult parseConditionRegion(mlir::OpAsmParser &parser,
                                       mlir::Region &body);
void printConditionRegion(mlir::OpAsmPrinter &p, mlir::Operation *op,
                          mlir::Region &body);

/// hal.executable.condition: `(%dev: !hal.device) -> i1 attributes {...}
/// { ... }`, the attribute dictionary between signature and body as in
/// IREE's function-like form.
mlir::ParseResult parseConditionFunction(mlir::OpAsmParser &parser,
                                         mlir::Region &body,
                                         mlir::NamedAttrList &attrs);
void printConditionFunction(mlir::OpAsmPrinter &p, mlir::Operation *op,
                            mlir::Region &body, mlir::DictionaryAttr attrs);

/// `(%dev: !hal.device, %w: index, ...) -> (index, index, index) { ... }`:
/// the workgroup count region of hal.executable.export.
mlir::ParseResult parseWorkgroupCountRegion(mlir::OpAsmParser &parser,
                                            mlir::Region &body);
void printWorkgroupCountRegion(mlir::OpAsmPrinter &p, mlir::Operation *op,
                               mlir::Region &body);

} // namespace fleet::hal

#endif // FLEET_DIALECT_HAL_IR_HALASM_H
