//===- StreamAsm.h - custom<...> directives of the stream ops ---*- C++ -*-===//
//
// Parsers and printers for the stream-specific parts of the op syntax in
// docs/ir-reference.md section "stream" (the generic sized/tied
// type lists live in Util/IR/AsmDirectives.h). Each pair implements one
// grammar rule, quoted above its declaration.
//
// All functions are stateless. Parsers report errors through the parser
// with a location and return failure; printers never read past the end of
// a value list, so a malformed op (caught by its verifier) cannot crash
// them.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_STREAM_IR_STREAMASM_H
#define FLEET_DIALECT_STREAM_IR_STREAMASM_H

#include "fleet/Dialect/Util/IR/AsmDirectives.h"
#include "mlir/IR/OpImplementation.h"

namespace fleet::stream {

using mlir::ArrayAttr;
using mlir::Region;
using mlir::StringAttr;
using mlir::Value;

/// `@exe::@export` or `{@ex::@a, @ex::@b}`.
ParseResult parseDispatchEntryPoints(OpAsmParser &parser,
                                     ArrayAttr &entryPoints);
void printDispatchEntryPoints(OpAsmPrinter &p, Operation *op,
                              ArrayAttr entryPoints);

/// `(%r[%offset to %end for %length], %n, ...)`: every operand with a
/// `[...]` range contributes one offset, end and length.
ParseResult parseDispatchOperands(
    OpAsmParser &parser, llvm::SmallVectorImpl<UnresolvedOperand> &operands,
    llvm::SmallVectorImpl<UnresolvedOperand> &offsets,
    llvm::SmallVectorImpl<UnresolvedOperand> &ends,
    llvm::SmallVectorImpl<UnresolvedOperand> &lengths);
void printDispatchOperands(OpAsmPrinter &p, Operation *op, ValueRange operands,
                           ValueRange offsets, ValueRange ends,
                           ValueRange lengths);

/// stream.tensor.dispatch signature:
/// `(enc{%d} in T{%sz}, i32) -> (enc in %operand{%sz}, enc in T{%sz})`.
/// Operand encodings hold the `enc` of resource operands and the type of
/// primitive operands; result encodings the `enc` of each result.
ParseResult parseEncodedShapedFunctionType(
    OpAsmParser &parser, llvm::ArrayRef<UnresolvedOperand> operands,
    llvm::SmallVectorImpl<Type> &operandTypes, ArrayAttr &operandEncodings,
    llvm::SmallVectorImpl<UnresolvedOperand> &operandEncodingDims,
    llvm::SmallVectorImpl<UnresolvedOperand> &operandSizes,
    llvm::SmallVectorImpl<Type> &resultTypes, ArrayAttr &resultEncodings,
    llvm::SmallVectorImpl<UnresolvedOperand> &resultEncodingDims,
    llvm::SmallVectorImpl<UnresolvedOperand> &resultSizes,
    ArrayAttr &tiedOperands);
void printEncodedShapedFunctionType(
    OpAsmPrinter &p, Operation *op, ValueRange operands,
    TypeRange operandTypes, ArrayAttr operandEncodings,
    ValueRange operandEncodingDims, ValueRange operandSizes,
    TypeRange resultTypes, ArrayAttr resultEncodings,
    ValueRange resultEncodingDims, ValueRange resultSizes,
    ArrayAttr tiedOperands);

/// async.execute / async.concurrent:
/// `(%outer as %inner: T{%sz}, ...) (-> results)? { body }`. One result is
/// printed without parentheses (both forms parse); results may be tied to a
/// capture by its outer name. The body is parsed as written (its
/// `stream.yield` is required and printed).
ParseResult parseResourceRegion(
    OpAsmParser &parser, llvm::SmallVectorImpl<UnresolvedOperand> &operands,
    llvm::SmallVectorImpl<Type> &operandTypes,
    llvm::SmallVectorImpl<UnresolvedOperand> &operandSizes,
    llvm::SmallVectorImpl<Type> &resultTypes,
    llvm::SmallVectorImpl<UnresolvedOperand> &resultSizes,
    ArrayAttr &tiedOperands, Region &body);
void printResourceRegion(OpAsmPrinter &p, Operation *op, ValueRange operands,
                         TypeRange operandTypes, ValueRange operandSizes,
                         TypeRange resultTypes, ValueRange resultSizes,
                         ArrayAttr tiedOperands, Region &body);

/// cmd.execute: `(%outer as %inner: T{%sz}, ...) { body }` with an implicit
/// (unprinted) `stream.yield`.
ParseResult parseExplicitResourceRegion(
    OpAsmParser &parser, llvm::SmallVectorImpl<UnresolvedOperand> &operands,
    llvm::SmallVectorImpl<Type> &operandTypes,
    llvm::SmallVectorImpl<UnresolvedOperand> &operandSizes, Region &body);
void printExplicitResourceRegion(OpAsmPrinter &p, Operation *op,
                                 ValueRange operands, TypeRange operandTypes,
                                 ValueRange operandSizes, Region &body);

/// cmd.serial / cmd.concurrent: `{ body }` whose `stream.yield` is
/// implicit (added on parse, never printed).
ParseResult parseImplicitYieldRegion(OpAsmParser &parser, Region &body);
void printImplicitYieldRegion(OpAsmPrinter &p, Operation *op, Region &body);

/// resource.pack: `{ [start, end] = %size, ... }`, one slice per line; a
/// trailing comma and an empty list parse. One `index` offset result per
/// slice.
ParseResult parsePackSliceRanges(
    OpAsmParser &parser, ArrayAttr &lifetimeIntervals,
    llvm::SmallVectorImpl<UnresolvedOperand> &sizes,
    llvm::SmallVectorImpl<Type> &offsetTypes);
void printPackSliceRanges(OpAsmPrinter &p, Operation *op,
                          ArrayAttr lifetimeIntervals, ValueRange sizes,
                          TypeRange offsetTypes);

/// cmd.dispatch: `{ access %r[%offset for %length] : T{%sz}, ... }` with
/// `access` one of `ro`, `wo`, `rw`; one resource per line.
ParseResult parseDispatchResources(
    OpAsmParser &parser, llvm::SmallVectorImpl<UnresolvedOperand> &resources,
    llvm::SmallVectorImpl<Type> &resourceTypes,
    llvm::SmallVectorImpl<UnresolvedOperand> &resourceSizes,
    llvm::SmallVectorImpl<UnresolvedOperand> &offsets,
    llvm::SmallVectorImpl<UnresolvedOperand> &lengths, ArrayAttr &accesses);
void printDispatchResources(OpAsmPrinter &p, Operation *op,
                            ValueRange resources, TypeRange resourceTypes,
                            ValueRange resourceSizes, ValueRange offsets,
                            ValueRange lengths, ArrayAttr accesses);

/// cmd.call: `(ro %r[%offset for %length], %k, ...)`: resource operands
/// carry an access and a range, other operands are bare.
ParseResult parseCmdCallOperands(
    OpAsmParser &parser, llvm::SmallVectorImpl<UnresolvedOperand> &operands,
    llvm::SmallVectorImpl<UnresolvedOperand> &offsets,
    llvm::SmallVectorImpl<UnresolvedOperand> &lengths, ArrayAttr &accesses);
void printCmdCallOperands(OpAsmPrinter &p, Operation *op, ValueRange operands,
                          ValueRange offsets, ValueRange lengths,
                          ArrayAttr accesses);

/// executable.export: `@func` or `@func as("exportName")`; the export's
/// symbol is the string after `as`, else the function name.
ParseResult parseSymbolAlias(OpAsmParser &parser, StringAttr &symName,
                             mlir::FlatSymbolRefAttr &functionRef);
void printSymbolAlias(OpAsmPrinter &p, Operation *op, StringAttr symName,
                      mlir::FlatSymbolRefAttr functionRef);

/// executable.export: optional
/// `workgroups(%x: index, ...) -> (index, index, index) { ... }`.
ParseResult parseWorkgroupCountRegion(OpAsmParser &parser, Region &body);
void printWorkgroupCountRegion(OpAsmPrinter &p, Operation *op, Region &body);

/// tensor.sizeof's `enc{%d...}` followed by its attribute dictionary: after
/// a static `enc`, `{` opens the dictionary, not a dims list.
ParseResult parseEncodingDimsAndAttrDict(
    OpAsmParser &parser, Type &encoding,
    llvm::SmallVectorImpl<UnresolvedOperand> &dims,
    mlir::NamedAttrList &attrs);

/// `ro` / `wo` / `rw`.
ParseResult parseResourceAccess(OpAsmParser &parser, Attribute &access);
void printResourceAccess(OpAsmPrinter &p, Attribute access);

} // namespace fleet::stream

#endif // FLEET_DIALECT_STREAM_IR_STREAMASM_H
