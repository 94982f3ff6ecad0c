//===- AsmDirectives.cpp - custom<...> directives shared by all dialects --===//

#include "fleet/Dialect/Util/IR/AsmDirectives.h"

#include "fleet/Dialect/Util/IR/UtilTypes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace fleet {

//===----------------------------------------------------------------------===//
// custom<SymbolVisibility>
//===----------------------------------------------------------------------===//

ParseResult parseSymbolVisibility(OpAsmParser &parser, StringAttr &vis) {
  StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(
          &keyword, {"public", "private", "nested"}))) {
    if (keyword != "public")
      vis = parser.getBuilder().getStringAttr(keyword);
  }
  return success();
}

void printSymbolVisibility(OpAsmPrinter &p, Operation *, StringAttr vis) {
  p << (vis ? vis.getValue() : StringRef("public"));
}

//===----------------------------------------------------------------------===//
// custom<TypeOrAttr>
//===----------------------------------------------------------------------===//

ParseResult parseTypeOrAttr(OpAsmParser &parser, TypeAttr &type,
                            Attribute &value) {
  if (succeeded(parser.parseOptionalEqual())) {
    // `= attr`: the attribute carries its own type (`64 : index`).
    SMLoc loc = parser.getCurrentLocation();
    if (failed(parser.parseAttribute(value)))
      return failure();
    auto typed = dyn_cast<TypedAttr>(value);
    if (!typed)
      return parser.emitError(loc, "initial value must be a typed attribute "
                                   "when no `: type` precedes it");
    type = TypeAttr::get(typed.getType());
    return success();
  }
  Type parsedType;
  if (failed(parser.parseColonType(parsedType)))
    return failure();
  type = TypeAttr::get(parsedType);
  if (succeeded(parser.parseOptionalEqual())) {
    if (failed(parser.parseAttribute(value)))
      return failure();
  }
  return success();
}

void printTypeOrAttr(OpAsmPrinter &p, Operation *, TypeAttr type,
                     Attribute value) {
  if (auto typed = dyn_cast_or_null<TypedAttr>(value)) {
    if (typed.getType() == type.getValue()) {
      p << "= ";
      p.printAttribute(value);
      return;
    }
  }
  p << ": ";
  p.printType(type.getValue());
  if (value) {
    p << " = ";
    p.printAttribute(value);
  }
}

//===----------------------------------------------------------------------===//
// custom<ShapelessOperandTypeList>
//===----------------------------------------------------------------------===//

ParseResult parseShapelessOperandTypeList(OpAsmParser &parser,
                                          SmallVectorImpl<Type> &types) {
  if (failed(parser.parseLParen()))
    return failure();
  if (succeeded(parser.parseOptionalRParen()))
    return success();
  if (failed(parser.parseTypeList(types)) || failed(parser.parseRParen()))
    return failure();
  return success();
}

void printShapelessOperandTypeList(OpAsmPrinter &p, Operation *,
                                   TypeRange types) {
  p << "(";
  llvm::interleaveComma(types, p, [&](Type t) { p.printType(t); });
  p << ")";
}

//===----------------------------------------------------------------------===//
// Tied results
//===----------------------------------------------------------------------===//

ArrayAttr buildTiedOperandsAttr(Builder &builder, ArrayRef<int64_t> indices) {
  if (llvm::all_of(indices, [](int64_t i) { return i < 0; }))
    return {};
  SmallVector<Attribute> attrs;
  for (int64_t index : indices)
    attrs.push_back(builder.getIndexAttr(index));
  return builder.getArrayAttr(attrs);
}

int64_t getTiedIndex(ArrayAttr tiedOperands, unsigned resultIndex) {
  if (!tiedOperands || resultIndex >= tiedOperands.size())
    return -1;
  auto attr = dyn_cast<IntegerAttr>(tiedOperands[resultIndex]);
  return attr ? attr.getInt() : -1;
}

/// Parses one entry of a tied result list: `%name (as T)?` or `T`.
static ParseResult parseTiedResult(OpAsmParser &parser,
                                   ArrayRef<UnresolvedOperand> operands,
                                   ArrayRef<Type> operandTypes, Type &type,
                                   int64_t &tiedIndex) {
  tiedIndex = -1;
  UnresolvedOperand operand;
  SMLoc loc = parser.getCurrentLocation();
  OptionalParseResult hasOperand = parser.parseOptionalOperand(operand);
  if (hasOperand.has_value()) {
    if (failed(*hasOperand))
      return failure();
    for (auto [index, candidate] : llvm::enumerate(operands)) {
      if (candidate.name == operand.name &&
          candidate.number == operand.number) {
        tiedIndex = index;
        break;
      }
    }
    if (tiedIndex < 0)
      return parser.emitError(loc, "tied result names '")
             << operand.name << "', which is not an operand of this op";
    if (succeeded(parser.parseOptionalKeyword("as")))
      return parser.parseType(type);
    if (static_cast<size_t>(tiedIndex) >= operandTypes.size())
      return parser.emitError(loc, "tied operand has no known type");
    type = operandTypes[tiedIndex];
    return success();
  }
  return parser.parseType(type);
}

ParseResult parseTiedFunctionResultList(OpAsmParser &parser,
                                        ArrayRef<UnresolvedOperand> operands,
                                        ArrayRef<Type> operandTypes,
                                        SmallVectorImpl<Type> &resultTypes,
                                        ArrayAttr &tiedOperands) {
  SmallVector<int64_t> tied;
  auto parseOne = [&]() -> ParseResult {
    Type type;
    int64_t index;
    if (failed(parseTiedResult(parser, operands, operandTypes, type, index)))
      return failure();
    resultTypes.push_back(type);
    tied.push_back(index);
    return success();
  };
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen())) {
      if (failed(parser.parseCommaSeparatedList(parseOne)) ||
          failed(parser.parseRParen()))
        return failure();
    }
  } else if (failed(parseOne())) {
    return failure();
  }
  tiedOperands = buildTiedOperandsAttr(parser.getBuilder(), tied);
  return success();
}

void printTiedFunctionResultList(OpAsmPrinter &p, Operation *,
                                 ValueRange operands, TypeRange operandTypes,
                                 TypeRange resultTypes,
                                 ArrayAttr tiedOperands) {
  bool parens = resultTypes.size() != 1;
  if (parens)
    p << "(";
  for (auto [i, type] : llvm::enumerate(resultTypes)) {
    if (i)
      p << ", ";
    int64_t index = getTiedIndex(tiedOperands, i);
    if (index >= 0 && static_cast<size_t>(index) < operands.size()) {
      p.printOperand(operands[index]);
      if (operandTypes[index] != type) {
        p << " as ";
        p.printType(type);
      }
    } else {
      p.printType(type);
    }
  }
  if (parens)
    p << ")";
}

//===----------------------------------------------------------------------===//
// custom<SizedType>
//===----------------------------------------------------------------------===//

ParseResult
parseOptionalBracedOperands(OpAsmParser &parser,
                            SmallVectorImpl<UnresolvedOperand> &values) {
  if (failed(parser.parseOptionalLBrace()))
    return success();
  if (succeeded(parser.parseOptionalRBrace()))
    return success();
  if (failed(parser.parseOperandList(values)) || failed(parser.parseRBrace()))
    return failure();
  return success();
}

void printBracedOperands(OpAsmPrinter &p, ValueRange values) {
  if (values.empty())
    return;
  p << "{";
  p.printOperands(values);
  p << "}";
}

ParseResult parseSizedType(OpAsmParser &parser, Type &type,
                           SmallVectorImpl<UnresolvedOperand> &dims) {
  if (failed(parser.parseType(type)))
    return failure();
  return parseOptionalBracedOperands(parser, dims);
}

void printSizedType(OpAsmPrinter &p, Operation *, Type type, ValueRange dims) {
  p.printType(type);
  printBracedOperands(p, dims);
}

ParseResult parseSizeAwareType(OpAsmParser &parser, Type &type,
                               UnresolvedOperand &size) {
  if (failed(parser.parseType(type)) || failed(parser.parseLBrace()) ||
      failed(parser.parseOperand(size)) || failed(parser.parseRBrace()))
    return failure();
  return success();
}

void printSizeAwareType(OpAsmPrinter &p, Operation *, Type type, Value size) {
  p.printType(type);
  p << "{";
  p.printOperand(size);
  p << "}";
}

unsigned getDynamicDimCount(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.hasRank() ? shaped.getNumDynamicDims() : 0;
  return 0;
}

LogicalResult verifyValueCount(Operation *op, StringRef what, size_t expected,
                               size_t actual) {
  if (expected == actual)
    return success();
  return op->emitOpError() << what << " count mismatch: expected " << expected
                           << ", got " << actual;
}

//===----------------------------------------------------------------------===//
// Sized type lists
//===----------------------------------------------------------------------===//

unsigned getSizedValueCount(Type type) {
  if (isa<util::SizeAwareTypeInterface>(type))
    return 1;
  return getDynamicDimCount(type);
}

unsigned getSizedValueCount(TypeRange types) {
  unsigned count = 0;
  for (Type type : types)
    count += getSizedValueCount(type);
  return count;
}

LogicalResult verifySizedValueCount(Operation *op, StringRef what,
                                    TypeRange types, ValueRange values) {
  return verifyValueCount(op, what, getSizedValueCount(types), values.size());
}

void printSizedTypeFrom(OpAsmPrinter &p, Type type, ValueRange values,
                        unsigned &next) {
  p.printType(type);
  unsigned count = getSizedValueCount(type);
  // Malformed ops (count mismatch) print what there is, never past the end.
  unsigned available = next < values.size() ? values.size() - next : 0;
  count = std::min(count, available);
  printBracedOperands(p, values.slice(next, count));
  next += count;
}

/// Parses `T` then an optional `{%v, ...}`, appending to the outputs.
static ParseResult parseSizedTypeInto(OpAsmParser &parser,
                                      SmallVectorImpl<Type> &types,
                                      SmallVectorImpl<UnresolvedOperand> &sizes) {
  Type type;
  if (failed(parser.parseType(type)) ||
      failed(parseOptionalBracedOperands(parser, sizes)))
    return failure();
  types.push_back(type);
  return success();
}

ParseResult parseSizeAwareTypeList(OpAsmParser &parser,
                                   SmallVectorImpl<Type> &types,
                                   SmallVectorImpl<UnresolvedOperand> &sizes) {
  return parser.parseCommaSeparatedList(
      [&]() { return parseSizedTypeInto(parser, types, sizes); });
}

void printSizeAwareTypeList(OpAsmPrinter &p, Operation *, TypeRange types,
                            ValueRange sizes) {
  unsigned next = 0;
  llvm::interleaveComma(types, p,
                        [&](Type type) { printSizedTypeFrom(p, type, sizes, next); });
}

ParseResult parseShapedTypeList(OpAsmParser &parser,
                                SmallVectorImpl<Type> &types,
                                SmallVectorImpl<Type> &resultTypes,
                                SmallVectorImpl<UnresolvedOperand> &sizes) {
  if (failed(parseSizeAwareTypeList(parser, types, sizes)))
    return failure();
  resultTypes.append(types.begin(), types.end());
  return success();
}

void printShapedTypeList(OpAsmPrinter &p, Operation *op, TypeRange types,
                         TypeRange, ValueRange sizes) {
  printSizeAwareTypeList(p, op, types, sizes);
}

ParseResult parseSizedTiedResult(
    OpAsmParser &parser, ArrayRef<UnresolvedOperand> operands,
    ArrayRef<Type> operandTypes, SmallVectorImpl<Type> &resultTypes,
    SmallVectorImpl<UnresolvedOperand> &resultSizes,
    SmallVectorImpl<int64_t> &tied) {
  UnresolvedOperand operand;
  SMLoc loc = parser.getCurrentLocation();
  OptionalParseResult hasOperand = parser.parseOptionalOperand(operand);
  if (!hasOperand.has_value()) {
    tied.push_back(-1);
    return parseSizedTypeInto(parser, resultTypes, resultSizes);
  }
  if (failed(*hasOperand))
    return failure();
  int64_t index = -1;
  for (auto [i, candidate] : llvm::enumerate(operands)) {
    if (candidate.name == operand.name && candidate.number == operand.number) {
      index = i;
      break;
    }
  }
  if (index < 0)
    return parser.emitError(loc, "tied result names '")
           << operand.name << "', which is not an operand of this op";
  tied.push_back(index);
  if (succeeded(parser.parseOptionalKeyword("as")))
    return parseSizedTypeInto(parser, resultTypes, resultSizes);
  if (static_cast<size_t>(index) >= operandTypes.size())
    return parser.emitError(loc, "tied operand has no known type");
  resultTypes.push_back(operandTypes[index]);
  return parseOptionalBracedOperands(parser, resultSizes);
}

ParseResult parseShapedFunctionType(
    OpAsmParser &parser, ArrayRef<UnresolvedOperand> operands,
    SmallVectorImpl<Type> &operandTypes,
    SmallVectorImpl<UnresolvedOperand> &operandSizes,
    SmallVectorImpl<Type> &resultTypes,
    SmallVectorImpl<UnresolvedOperand> &resultSizes,
    ArrayAttr &tiedOperands) {
  if (failed(parser.parseLParen()))
    return failure();
  if (failed(parser.parseOptionalRParen())) {
    if (failed(parseSizeAwareTypeList(parser, operandTypes, operandSizes)) ||
        failed(parser.parseRParen()))
      return failure();
  }
  if (failed(parser.parseArrow()))
    return failure();
  SmallVector<int64_t> tied;
  auto parseOne = [&]() {
    return parseSizedTiedResult(parser, operands, operandTypes, resultTypes,
                                resultSizes, tied);
  };
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen()) &&
        (failed(parser.parseCommaSeparatedList(parseOne)) ||
         failed(parser.parseRParen())))
      return failure();
  } else if (failed(parseOne())) {
    return failure();
  }
  tiedOperands = buildTiedOperandsAttr(parser.getBuilder(), tied);
  return success();
}

void printSizedTiedResult(OpAsmPrinter &p, unsigned resultIndex, Type type,
                          ValueRange operands, TypeRange operandTypes,
                          ValueRange resultSizes, ArrayAttr tiedOperands,
                          unsigned &next) {
  int64_t index = getTiedIndex(tiedOperands, resultIndex);
  if (index < 0 || static_cast<size_t>(index) >= operands.size()) {
    printSizedTypeFrom(p, type, resultSizes, next);
    return;
  }
  p.printOperand(operands[index]);
  if (operandTypes[index] != type) {
    p << " as ";
    printSizedTypeFrom(p, type, resultSizes, next);
    return;
  }
  // `%operand{%size}`: the type is the operand's, only the sizes follow.
  unsigned available = next < resultSizes.size() ? resultSizes.size() - next : 0;
  unsigned count = std::min(getSizedValueCount(type), available);
  printBracedOperands(p, resultSizes.slice(next, count));
  next += count;
}

void printShapedFunctionType(OpAsmPrinter &p, Operation *op,
                             ValueRange operands, TypeRange operandTypes,
                             ValueRange operandSizes, TypeRange resultTypes,
                             ValueRange resultSizes, ArrayAttr tiedOperands) {
  p << "(";
  printSizeAwareTypeList(p, op, operandTypes, operandSizes);
  p << ") -> ";
  bool parens = resultTypes.size() != 1;
  if (parens)
    p << "(";
  unsigned next = 0;
  for (auto [i, type] : llvm::enumerate(resultTypes)) {
    if (i)
      p << ", ";
    printSizedTiedResult(p, i, type, operands, operandTypes, resultSizes,
                         tiedOperands, next);
  }
  if (parens)
    p << ")";
}

ParseResult parseShapedTiedResult(OpAsmParser &parser, Type &type,
                                  UnresolvedOperand &size) {
  UnresolvedOperand tiedName;
  OptionalParseResult hasName = parser.parseOptionalOperand(tiedName);
  if (hasName.has_value() &&
      (failed(*hasName) || failed(parser.parseKeyword("as"))))
    return failure();
  if (failed(parser.parseType(type)) || failed(parser.parseLBrace()) ||
      failed(parser.parseOperand(size)) || failed(parser.parseRBrace()))
    return failure();
  return success();
}

void printShapedTiedResult(OpAsmPrinter &p, Operation *op, Type type,
                           Value size) {
  if (auto tiedOp = dyn_cast<util::TiedOpInterface>(op)) {
    if (auto index = tiedOp.getTiedResultOperandIndex(0)) {
      p.printOperand(op->getOperand(*index));
      p << " as ";
    }
  }
  p.printType(type);
  p << "{";
  p.printOperand(size);
  p << "}";
}

} // namespace fleet
