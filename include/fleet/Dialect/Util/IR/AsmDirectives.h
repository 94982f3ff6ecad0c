//===- AsmDirectives.h - custom<...> directives shared by all dialects ----===//
//
// Parsers and printers for the `custom<Name>(...)` directives used in the
// assembly formats of the util, flow, stream and hal ops. Each pair
// implements one grammar rule of docs/ir-reference.md ("General
// syntax rules"); the rule is quoted above each declaration.
//
// All functions are stateless and thread-compatible. Parsers report errors
// through the parser (with a location) and return failure; they never assert
// on malformed text.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_UTIL_IR_ASMDIRECTIVES_H
#define FLEET_DIALECT_UTIL_IR_ASMDIRECTIVES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

#include <cctype>
#include <string>
#include <type_traits>

namespace fleet {

using mlir::ArrayAttr;
using mlir::failure;
using mlir::success;
using mlir::Attribute;
using mlir::OpAsmParser;
using mlir::OpAsmPrinter;
using mlir::Operation;
using mlir::ParseResult;
using mlir::Type;
using mlir::TypeAttr;
using mlir::TypeRange;
using mlir::ValueRange;
using UnresolvedOperand = mlir::OpAsmParser::UnresolvedOperand;

/// `(public|private|nested)?`; always printed (`public` when absent). A parsed
/// `public` is not stored, matching MLIR's "absent means public".
ParseResult parseSymbolVisibility(OpAsmParser &parser, mlir::StringAttr &vis);
void printSymbolVisibility(OpAsmPrinter &p, Operation *op,
                           mlir::StringAttr vis);

/// util.global's `: T | = attr | : T = attr`. `: T` is left out when the
/// initial value is a typed attribute of exactly type T.
ParseResult parseTypeOrAttr(OpAsmParser &parser, TypeAttr &type,
                            Attribute &value);
void printTypeOrAttr(OpAsmPrinter &p, Operation *op, TypeAttr type,
                     Attribute value);

/// `(T, T, ...)`: an operand type list in parentheses.
ParseResult parseShapelessOperandTypeList(
    OpAsmParser &parser, llvm::SmallVectorImpl<Type> &types);
void printShapelessOperandTypeList(OpAsmPrinter &p, Operation *op,
                                   TypeRange types);

/// Function-style result list whose entries may be tied to operands:
/// `T`, `%operand` (same type) or `%operand as T`; several in parentheses,
/// `()` for none. A `%name` that is not one of `operands` is a parse error.
/// `tiedOperands` holds one index per result (into `operands`, -1 if untied)
/// and is left null when nothing is tied.
ParseResult parseTiedFunctionResultList(
    OpAsmParser &parser, llvm::ArrayRef<UnresolvedOperand> operands,
    llvm::ArrayRef<Type> operandTypes, llvm::SmallVectorImpl<Type> &resultTypes,
    ArrayAttr &tiedOperands);
void printTiedFunctionResultList(OpAsmPrinter &p, Operation *op,
                                 ValueRange operands, TypeRange operandTypes,
                                 TypeRange resultTypes, ArrayAttr tiedOperands);

/// `T` followed by `{%d0, ...}` listing the dynamic dims (shaped types) or
/// the byte size (size-aware types). The braces are printed only when the
/// list is non-empty; parsing accepts them anyway and the verifier checks the
/// count.
ParseResult parseSizedType(OpAsmParser &parser, Type &type,
                           llvm::SmallVectorImpl<UnresolvedOperand> &dims);
void printSizedType(OpAsmPrinter &p, Operation *op, Type type,
                    ValueRange dims);

/// `T{%size}` for a size-aware type with exactly one byte size
/// (docs/ir-reference.md, "Sizes in braces"): the braces are always printed and
/// required on parse, with no space before `{`.
ParseResult parseSizeAwareType(OpAsmParser &parser, Type &type,
                               UnresolvedOperand &size);
void printSizeAwareType(OpAsmPrinter &p, Operation *op, Type type,
                        mlir::Value size);

/// `{%a, %b}`, optional, printed only when non-empty.
ParseResult parseOptionalBracedOperands(
    OpAsmParser &parser, llvm::SmallVectorImpl<UnresolvedOperand> &values);
void printBracedOperands(OpAsmPrinter &p, ValueRange values);

/// Tied-operand helpers shared by ops with a `tied_operands` attribute.
/// Builds the attribute from per-result indices (-1 = untied); null if none.
ArrayAttr buildTiedOperandsAttr(mlir::Builder &builder,
                                llvm::ArrayRef<int64_t> indices);
/// Index tied to result `resultIndex`, or -1.
int64_t getTiedIndex(ArrayAttr tiedOperands, unsigned resultIndex);

/// Number of `?` dims of `type` if it is shaped, else 0.
unsigned getDynamicDimCount(Type type);

/// Verifies that `values` holds exactly `expected` entries; otherwise emits
/// "<what> count mismatch: expected N, got M" on `op`.
mlir::LogicalResult verifyValueCount(Operation *op, llvm::StringRef what,
                                     size_t expected, size_t actual);

//===----------------------------------------------------------------------===//
// Sized type lists (docs/ir-reference.md, "Sizes in braces" and "Tied results")
//
// A "sized" type is followed by the values that give its dynamic extent: a
// size-aware type (SizeAwareTypeInterface) by its byte size `{%size}`, a
// ranked shaped type by its `?` dims `{%d0, %d1}`. Parsers accept braces
// after any type and collect their values in order; verifiers compare the
// count (verifySizedValueCount), so a mismatch names both counts instead of
// failing to parse. Printers hand out one value per size-aware type and one
// per `?` dim, and never read past the end of the value list.
//===----------------------------------------------------------------------===//

/// Number of sized values that follow `type`: 1 for a size-aware type, the
/// `?` count for a ranked shaped type, else 0.
unsigned getSizedValueCount(Type type);

/// Sum of getSizedValueCount over `types`.
unsigned getSizedValueCount(TypeRange types);

/// Verifies that `values` holds exactly one entry per sized value of `types`
/// ("<what> count mismatch: expected N, got M").
mlir::LogicalResult verifySizedValueCount(Operation *op, llvm::StringRef what,
                                          TypeRange types, ValueRange values);

/// Prints `type` followed by its sized values taken from `values` starting
/// at `*next` (advanced past them).
void printSizedTypeFrom(OpAsmPrinter &p, Type type, ValueRange values,
                        unsigned &next);

/// custom<SizeAwareTypeList>: `T{%size}, T, ...` (yield, ...).
ParseResult parseSizeAwareTypeList(OpAsmParser &parser,
                                   llvm::SmallVectorImpl<Type> &types,
                                   llvm::SmallVectorImpl<UnresolvedOperand> &sizes);
void printSizeAwareTypeList(OpAsmPrinter &p, Operation *op, TypeRange types,
                            ValueRange sizes);

/// custom<ShapedTypeList>: as SizeAwareTypeList, for ops whose results have
/// the operands' types (the parsed types fill both lists).
ParseResult parseShapedTypeList(OpAsmParser &parser,
                                llvm::SmallVectorImpl<Type> &types,
                                llvm::SmallVectorImpl<Type> &resultTypes,
                                llvm::SmallVectorImpl<UnresolvedOperand> &sizes);
void printShapedTypeList(OpAsmPrinter &p, Operation *op, TypeRange types,
                         TypeRange resultTypes, ValueRange sizes);

/// One entry of a sized tied result list: `T{...}`, `%operand{...}` or
/// `%operand as T{...}`. Appends the type and sizes, and to `tied` the index
/// of the named operand in `operands` (-1 when untied).
ParseResult parseSizedTiedResult(
    OpAsmParser &parser, llvm::ArrayRef<UnresolvedOperand> operands,
    llvm::ArrayRef<Type> operandTypes, llvm::SmallVectorImpl<Type> &resultTypes,
    llvm::SmallVectorImpl<UnresolvedOperand> &resultSizes,
    llvm::SmallVectorImpl<int64_t> &tied);

/// Prints result `resultIndex` of a sized tied result list (the inverse of
/// parseSizedTiedResult), taking its sizes from `resultSizes` at `*next`.
void printSizedTiedResult(OpAsmPrinter &p, unsigned resultIndex, Type type,
                          ValueRange operands, TypeRange operandTypes,
                          ValueRange resultSizes, ArrayAttr tiedOperands,
                          unsigned &next);

/// custom<ShapedFunctionType>: `(T{%s}, index) -> R` where R is one result
/// or a parenthesized list (`()` for none). A result is `T{%s}`,
/// `%operand{%s}` (tied, the operand's type) or `%operand as T{%s}`; a
/// `%name` that is not one of `operands` is a parse error. `tiedOperands`
/// indexes into `operands` (-1 = untied) and is null when nothing is tied.
ParseResult parseShapedFunctionType(
    OpAsmParser &parser, llvm::ArrayRef<UnresolvedOperand> operands,
    llvm::SmallVectorImpl<Type> &operandTypes,
    llvm::SmallVectorImpl<UnresolvedOperand> &operandSizes,
    llvm::SmallVectorImpl<Type> &resultTypes,
    llvm::SmallVectorImpl<UnresolvedOperand> &resultSizes,
    ArrayAttr &tiedOperands);
void printShapedFunctionType(OpAsmPrinter &p, Operation *op,
                             ValueRange operands, TypeRange operandTypes,
                             ValueRange operandSizes, TypeRange resultTypes,
                             ValueRange resultSizes, ArrayAttr tiedOperands);

/// custom<ShapedTiedResult>: the result of an op whose single result always
/// reuses one operand's storage (TiedOpInterface). Printed
/// `%target as T{%size}`; on parse the `%name as` prefix may be left out and
/// its name is not checked.
ParseResult parseShapedTiedResult(OpAsmParser &parser, Type &type,
                                  UnresolvedOperand &size);
void printShapedTiedResult(OpAsmPrinter &p, Operation *op, Type type,
                           mlir::Value size);

//===----------------------------------------------------------------------===//
// Enum spelling (docs/ir-reference.md, "Enum spelling inside op syntax")
//===----------------------------------------------------------------------===//

namespace detail {
template <typename EnumT>
constexpr bool isBitEnum() {
  return std::is_same_v<decltype(stringifyEnum(std::declval<EnumT>())),
                        std::string>;
}
} // namespace detail

/// Parses a bare keyword or a quoted string naming an enum case; for bit
/// enums `A|B` is the OR of the named cases. Errors name the bad spelling.
template <typename EnumT>
ParseResult parseEnumValue(mlir::AsmParser &parser, EnumT &value) {
  // `*` is a valid plain-enum spelling (lifetime) that is not a keyword.
  if (succeeded(parser.parseOptionalStar())) {
    auto unknown = static_cast<EnumT>(0);
    if (llvm::StringRef(stringifyEnum(unknown)) != "*")
      return parser.emitError(parser.getCurrentLocation(),
                              "'*' is not a valid spelling here");
    value = unknown;
    return success();
  }
  // Keyword or quoted string; bit enums accept `A|B` (OR of the cases).
  mlir::FailureOr<EnumT> parsed = mlir::FieldParser<EnumT>::parse(parser);
  if (failed(parsed))
    return failure();
  value = *parsed;
  return success();
}

/// Prints an enum value: a bit enum as a bare keyword when it is exactly one
/// single-bit case, else as a quoted `A|B|...` string of every case whose
/// bits are all set (`"None"` for 0); a plain enum bare when its spelling is
/// a keyword, else quoted (`"*"`).
template <typename EnumT>
void printEnumValue(mlir::AsmPrinter &printer, EnumT value) {
  std::string spelling(stringifyEnum(value));
  bool bare;
  if constexpr (detail::isBitEnum<EnumT>()) {
    auto bits = static_cast<uint64_t>(value);
    bare = bits != 0 && llvm::isPowerOf2_64(bits);
  } else {
    bare = !spelling.empty() &&
           (std::isalpha(spelling[0]) || spelling[0] == '_') &&
           llvm::all_of(spelling, [](char c) {
             return std::isalnum(c) || c == '_' || c == '$' || c == '.';
           });
  }
  if (bare)
    printer << spelling;
  else
    printer << '"' << spelling << '"';
}

/// custom<EnumAttr>($attr) for op formats: the enum attribute's value spelled
/// as above (no `#dialect.x<...>` wrapper).
template <typename AttrT>
ParseResult parseEnumAttr(mlir::OpAsmParser &parser, AttrT &attr) {
  decltype(std::declval<AttrT>().getValue()) value;
  if (failed(parseEnumValue(parser, value)))
    return failure();
  attr = AttrT::get(parser.getContext(), value);
  return success();
}
template <typename AttrT>
void printEnumAttr(mlir::OpAsmPrinter &printer, Operation *, AttrT attr) {
  printEnumValue(printer, attr.getValue());
}

} // namespace fleet

#endif // FLEET_DIALECT_UTIL_IR_ASMDIRECTIVES_H
