//===- AsmDirectives.cpp - custom<...> directives shared by all dialects --===//

#include "fleet/Dialect/Util/IR/AsmDirectives.h"

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

} // namespace fleet
