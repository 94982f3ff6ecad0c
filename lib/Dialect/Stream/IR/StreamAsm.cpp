//===- StreamAsm.cpp - custom<...> directives of the stream ops -----------===//

#include "fleet/Dialect/Stream/IR/StreamAsm.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace fleet::stream {

/// Values [next, next + count) of `values`, clamped to its end.
static ValueRange takeValues(ValueRange values, unsigned &next,
                             unsigned count) {
  unsigned available = next < values.size() ? values.size() - next : 0;
  count = std::min(count, available);
  ValueRange taken = values.slice(next, count);
  next += count;
  return taken;
}

static bool isResource(Type type) { return isa<ResourceType>(type); }

//===----------------------------------------------------------------------===//
// Resource access: ro / wo / rw
//===----------------------------------------------------------------------===//

ParseResult parseResourceAccess(OpAsmParser &parser, Attribute &access) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (failed(parser.parseKeyword(&keyword)))
    return failure();
  ResourceAccessBitfield value;
  if (keyword == "ro")
    value = ResourceAccessBitfield::Read;
  else if (keyword == "wo")
    value = ResourceAccessBitfield::Write;
  else if (keyword == "rw")
    value = ResourceAccessBitfield::Read | ResourceAccessBitfield::Write;
  else
    return parser.emitError(loc, "expected resource access ro, wo or rw, got '")
           << keyword << "'";
  access = ResourceAccessBitfieldAttr::get(parser.getContext(), value);
  return success();
}

void printResourceAccess(OpAsmPrinter &p, Attribute access) {
  auto attr = dyn_cast_or_null<ResourceAccessBitfieldAttr>(access);
  uint32_t bits = attr ? static_cast<uint32_t>(attr.getValue()) : 0;
  // Only the three valid spellings exist; anything else is caught by the
  // op verifier and printed so that it does not parse back silently.
  switch (bits) {
  case 1:
    p << "ro";
    return;
  case 2:
    p << "wo";
    return;
  case 3:
    p << "rw";
    return;
  default:
    p << "\"invalid\"";
  }
}

//===----------------------------------------------------------------------===//
// custom<DispatchEntryPoints>
//===----------------------------------------------------------------------===//

ParseResult parseDispatchEntryPoints(OpAsmParser &parser,
                                     ArrayAttr &entryPoints) {
  SmallVector<Attribute> refs;
  auto parseOne = [&]() -> ParseResult {
    SymbolRefAttr ref;
    if (failed(parser.parseAttribute(ref)))
      return failure();
    refs.push_back(ref);
    return success();
  };
  if (succeeded(parser.parseOptionalLBrace())) {
    if (failed(parser.parseCommaSeparatedList(parseOne)) ||
        failed(parser.parseRBrace()))
      return failure();
  } else if (failed(parseOne())) {
    return failure();
  }
  entryPoints = parser.getBuilder().getArrayAttr(refs);
  return success();
}

void printDispatchEntryPoints(OpAsmPrinter &p, Operation *,
                              ArrayAttr entryPoints) {
  if (entryPoints && entryPoints.size() == 1) {
    p.printAttribute(entryPoints[0]);
    return;
  }
  p << "{";
  if (entryPoints)
    llvm::interleaveComma(entryPoints, p,
                          [&](Attribute ref) { p.printAttribute(ref); });
  p << "}";
}

//===----------------------------------------------------------------------===//
// custom<DispatchOperands>
//===----------------------------------------------------------------------===//

ParseResult parseDispatchOperands(OpAsmParser &parser,
                                  SmallVectorImpl<UnresolvedOperand> &operands,
                                  SmallVectorImpl<UnresolvedOperand> &offsets,
                                  SmallVectorImpl<UnresolvedOperand> &ends,
                                  SmallVectorImpl<UnresolvedOperand> &lengths) {
  auto parseOne = [&]() -> ParseResult {
    UnresolvedOperand operand;
    if (failed(parser.parseOperand(operand)))
      return failure();
    operands.push_back(operand);
    if (failed(parser.parseOptionalLSquare()))
      return success();
    UnresolvedOperand offset, end, length;
    if (failed(parser.parseOperand(offset)) ||
        failed(parser.parseKeyword("to")) ||
        failed(parser.parseOperand(end)) ||
        failed(parser.parseKeyword("for")) ||
        failed(parser.parseOperand(length)) || failed(parser.parseRSquare()))
      return failure();
    offsets.push_back(offset);
    ends.push_back(end);
    lengths.push_back(length);
    return success();
  };
  return parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                        parseOne);
}

void printDispatchOperands(OpAsmPrinter &p, Operation *, ValueRange operands,
                           ValueRange offsets, ValueRange ends,
                           ValueRange lengths) {
  p << "(";
  unsigned range = 0;
  llvm::interleaveComma(operands, p, [&](Value operand) {
    p.printOperand(operand);
    if (!isResource(operand.getType()) || range >= offsets.size() ||
        range >= ends.size() || range >= lengths.size())
      return;
    p << "[";
    p.printOperand(offsets[range]);
    p << " to ";
    p.printOperand(ends[range]);
    p << " for ";
    p.printOperand(lengths[range]);
    p << "]";
    ++range;
  });
  p << ")";
}

//===----------------------------------------------------------------------===//
// custom<EncodedShapedFunctionType>
//===----------------------------------------------------------------------===//

ParseResult parseEncodedShapedFunctionType(
    OpAsmParser &parser, ArrayRef<UnresolvedOperand> operands,
    SmallVectorImpl<Type> &operandTypes, ArrayAttr &operandEncodings,
    SmallVectorImpl<UnresolvedOperand> &operandEncodingDims,
    SmallVectorImpl<UnresolvedOperand> &operandSizes,
    SmallVectorImpl<Type> &resultTypes, ArrayAttr &resultEncodings,
    SmallVectorImpl<UnresolvedOperand> &resultEncodingDims,
    SmallVectorImpl<UnresolvedOperand> &resultSizes, ArrayAttr &tiedOperands) {
  SmallVector<Attribute> operandEncodingAttrs;
  auto parseOperandType = [&]() -> ParseResult {
    Type first;
    SMLoc loc = parser.getCurrentLocation();
    SmallVector<UnresolvedOperand> dims;
    if (failed(parser.parseType(first)) ||
        failed(parseOptionalBracedOperands(parser, dims)))
      return failure();
    operandEncodingAttrs.push_back(TypeAttr::get(first));
    if (failed(parser.parseOptionalKeyword("in"))) {
      // A primitive operand: its type stands for its encoding.
      if (!dims.empty())
        return parser.emitError(loc, "expected 'in' and a resource type "
                                     "after an encoding with dims");
      operandTypes.push_back(first);
      return success();
    }
    operandEncodingDims.append(dims.begin(), dims.end());
    Type type;
    if (failed(parser.parseType(type)) ||
        failed(parseOptionalBracedOperands(parser, operandSizes)))
      return failure();
    operandTypes.push_back(type);
    return success();
  };
  if (failed(parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                            parseOperandType)) ||
      failed(parser.parseArrow()))
    return failure();

  SmallVector<Attribute> resultEncodingAttrs;
  SmallVector<int64_t> tied;
  auto parseResult = [&]() -> ParseResult {
    Type encoding;
    if (failed(parser.parseType(encoding)) ||
        failed(parseOptionalBracedOperands(parser, resultEncodingDims)) ||
        failed(parser.parseKeyword("in")))
      return failure();
    resultEncodingAttrs.push_back(TypeAttr::get(encoding));
    return parseSizedTiedResult(parser, operands, operandTypes, resultTypes,
                                resultSizes, tied);
  };
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen()) &&
        (failed(parser.parseCommaSeparatedList(parseResult)) ||
         failed(parser.parseRParen())))
      return failure();
  } else if (failed(parseResult())) {
    return failure();
  }
  Builder &builder = parser.getBuilder();
  operandEncodings = builder.getArrayAttr(operandEncodingAttrs);
  resultEncodings = builder.getArrayAttr(resultEncodingAttrs);
  tiedOperands = buildTiedOperandsAttr(builder, tied);
  return success();
}

/// Prints `enc{%d...}` taking the dims from `dims` at `next`.
static void printEncoding(OpAsmPrinter &p, ArrayAttr encodings, unsigned index,
                          ValueRange dims, unsigned &dimIndex) {
  Type encoding;
  if (encodings && index < encodings.size())
    if (auto typeAttr = dyn_cast<TypeAttr>(encodings[index]))
      encoding = typeAttr.getValue();
  if (!encoding) {
    // Only reachable for ops the verifier rejects.
    p << "<<missing encoding>>";
    return;
  }
  p.printType(encoding);
  printBracedOperands(
      p, takeValues(dims, dimIndex, getDynamicDimCount(encoding)));
}

void printEncodedShapedFunctionType(
    OpAsmPrinter &p, Operation *, ValueRange operands, TypeRange operandTypes,
    ArrayAttr operandEncodings, ValueRange operandEncodingDims,
    ValueRange operandSizes, TypeRange resultTypes, ArrayAttr resultEncodings,
    ValueRange resultEncodingDims, ValueRange resultSizes,
    ArrayAttr tiedOperands) {
  p << "(";
  unsigned dimIndex = 0, sizeIndex = 0;
  for (auto [i, type] : llvm::enumerate(operandTypes)) {
    if (i)
      p << ", ";
    if (!isResource(type)) {
      p.printType(type);
      continue;
    }
    printEncoding(p, operandEncodings, i, operandEncodingDims, dimIndex);
    p << " in ";
    printSizedTypeFrom(p, type, operandSizes, sizeIndex);
  }
  p << ") -> ";
  bool parens = resultTypes.size() != 1;
  if (parens)
    p << "(";
  unsigned resultDimIndex = 0, resultSizeIndex = 0;
  for (auto [i, type] : llvm::enumerate(resultTypes)) {
    if (i)
      p << ", ";
    printEncoding(p, resultEncodings, i, resultEncodingDims, resultDimIndex);
    p << " in ";
    printSizedTiedResult(p, i, type, operands, operandTypes, resultSizes,
                         tiedOperands, resultSizeIndex);
  }
  if (parens)
    p << ")";
}

//===----------------------------------------------------------------------===//
// custom<ResourceRegion> / custom<ExplicitResourceRegion>
//===----------------------------------------------------------------------===//

/// `(%outer as %inner: T{%sz}, ...)`, filling the block arguments.
static ParseResult
parseCaptures(OpAsmParser &parser, SmallVectorImpl<UnresolvedOperand> &operands,
              SmallVectorImpl<Type> &operandTypes,
              SmallVectorImpl<UnresolvedOperand> &operandSizes,
              SmallVectorImpl<OpAsmParser::Argument> &arguments) {
  auto parseOne = [&]() -> ParseResult {
    UnresolvedOperand outer;
    OpAsmParser::Argument inner;
    if (failed(parser.parseOperand(outer)) ||
        failed(parser.parseKeyword("as")) ||
        failed(parser.parseArgument(inner)) || failed(parser.parseColon()) ||
        failed(parser.parseType(inner.type)) ||
        failed(parseOptionalBracedOperands(parser, operandSizes)))
      return failure();
    operands.push_back(outer);
    operandTypes.push_back(inner.type);
    arguments.push_back(inner);
    return success();
  };
  return parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                        parseOne);
}

static void printCaptures(OpAsmPrinter &p, ValueRange operands,
                          TypeRange operandTypes, ValueRange operandSizes,
                          Region &body) {
  p << "(";
  unsigned sizeIndex = 0;
  Block *entry = body.empty() ? nullptr : &body.front();
  for (auto [i, operand] : llvm::enumerate(operands)) {
    if (i)
      p << ", ";
    p.printOperand(operand);
    if (entry && i < entry->getNumArguments()) {
      p << " as ";
      p.printOperand(entry->getArgument(i));
    }
    p << ": ";
    printSizedTypeFrom(p, operandTypes[i], operandSizes, sizeIndex);
  }
  p << ")";
}

ParseResult parseResourceRegion(OpAsmParser &parser,
                                SmallVectorImpl<UnresolvedOperand> &operands,
                                SmallVectorImpl<Type> &operandTypes,
                                SmallVectorImpl<UnresolvedOperand> &operandSizes,
                                SmallVectorImpl<Type> &resultTypes,
                                SmallVectorImpl<UnresolvedOperand> &resultSizes,
                                ArrayAttr &tiedOperands, Region &body) {
  SmallVector<OpAsmParser::Argument> arguments;
  if (failed(parseCaptures(parser, operands, operandTypes, operandSizes,
                           arguments)))
    return failure();
  if (succeeded(parser.parseOptionalArrow())) {
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
  }
  return parser.parseRegion(body, arguments, /*enableNameShadowing=*/false);
}

void printResourceRegion(OpAsmPrinter &p, Operation *, ValueRange operands,
                         TypeRange operandTypes, ValueRange operandSizes,
                         TypeRange resultTypes, ValueRange resultSizes,
                         ArrayAttr tiedOperands, Region &body) {
  printCaptures(p, operands, operandTypes, operandSizes, body);
  if (!resultTypes.empty()) {
    p << " -> ";
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
  p << " ";
  p.printRegion(body, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

ParseResult parseExplicitResourceRegion(
    OpAsmParser &parser, SmallVectorImpl<UnresolvedOperand> &operands,
    SmallVectorImpl<Type> &operandTypes,
    SmallVectorImpl<UnresolvedOperand> &operandSizes, Region &body) {
  SmallVector<OpAsmParser::Argument> arguments;
  SMLoc loc = parser.getCurrentLocation();
  if (failed(parseCaptures(parser, operands, operandTypes, operandSizes,
                           arguments)) ||
      failed(parser.parseRegion(body, arguments,
                                /*enableNameShadowing=*/false)))
    return failure();
  // The stream.yield of cmd regions is implicit (docs/ir-reference.md).
  OpBuilder builder(parser.getContext());
  CmdExecuteOp::ensureTerminator(body, builder,
                                 parser.getEncodedSourceLoc(loc));
  return success();
}

void printExplicitResourceRegion(OpAsmPrinter &p, Operation *,
                                 ValueRange operands, TypeRange operandTypes,
                                 ValueRange operandSizes, Region &body) {
  printCaptures(p, operands, operandTypes, operandSizes, body);
  p << " ";
  p.printRegion(body, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

ParseResult parseImplicitYieldRegion(OpAsmParser &parser, Region &body) {
  SMLoc loc = parser.getCurrentLocation();
  if (failed(parser.parseRegion(body)))
    return failure();
  OpBuilder builder(parser.getContext());
  CmdSerialOp::ensureTerminator(body, builder, parser.getEncodedSourceLoc(loc));
  return success();
}

void printImplicitYieldRegion(OpAsmPrinter &p, Operation *, Region &body) {
  p.printRegion(body, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

//===----------------------------------------------------------------------===//
// custom<PackSliceRanges>
//===----------------------------------------------------------------------===//

ParseResult parsePackSliceRanges(OpAsmParser &parser,
                                 ArrayAttr &lifetimeIntervals,
                                 SmallVectorImpl<UnresolvedOperand> &sizes,
                                 SmallVectorImpl<Type> &offsetTypes) {
  Builder &builder = parser.getBuilder();
  SmallVector<Attribute> bounds;
  if (failed(parser.parseLBrace()))
    return failure();
  // `[start, end] = %size` entries; a trailing comma is accepted.
  while (failed(parser.parseOptionalRBrace())) {
    int64_t start, end;
    UnresolvedOperand size;
    if (failed(parser.parseLSquare()) || failed(parser.parseInteger(start)) ||
        failed(parser.parseComma()) || failed(parser.parseInteger(end)) ||
        failed(parser.parseRSquare()) || failed(parser.parseEqual()) ||
        failed(parser.parseOperand(size)))
      return failure();
    bounds.push_back(builder.getI64IntegerAttr(start));
    bounds.push_back(builder.getI64IntegerAttr(end));
    sizes.push_back(size);
    offsetTypes.push_back(builder.getIndexType());
    if (failed(parser.parseOptionalComma())) {
      if (failed(parser.parseRBrace()))
        return failure();
      break;
    }
  }
  lifetimeIntervals = builder.getArrayAttr(bounds);
  return success();
}

void printPackSliceRanges(OpAsmPrinter &p, Operation *,
                          ArrayAttr lifetimeIntervals, ValueRange sizes,
                          TypeRange) {
  p << "{";
  unsigned numBounds = lifetimeIntervals ? lifetimeIntervals.size() : 0;
  if (!sizes.empty()) {
    p.increaseIndent();
    for (auto [i, size] : llvm::enumerate(sizes)) {
      p.printNewline();
      p << "[";
      for (unsigned b = 0; b < 2; ++b) {
        if (b)
          p << ", ";
        unsigned index = 2 * i + b;
        if (index < numBounds)
          p.printAttributeWithoutType(lifetimeIntervals[index]);
        else
          p << "?"; // malformed; the verifier reports it
      }
      p << "] = ";
      p.printOperand(size);
      if (i + 1 != sizes.size())
        p << ",";
    }
    p.decreaseIndent();
    p.printNewline();
  }
  p << "}";
}

//===----------------------------------------------------------------------===//
// custom<DispatchResources>
//===----------------------------------------------------------------------===//

ParseResult parseDispatchResources(
    OpAsmParser &parser, SmallVectorImpl<UnresolvedOperand> &resources,
    SmallVectorImpl<Type> &resourceTypes,
    SmallVectorImpl<UnresolvedOperand> &resourceSizes,
    SmallVectorImpl<UnresolvedOperand> &offsets,
    SmallVectorImpl<UnresolvedOperand> &lengths, ArrayAttr &accesses) {
  SmallVector<Attribute> accessAttrs;
  auto parseOne = [&]() -> ParseResult {
    Attribute access;
    UnresolvedOperand resource, offset, length;
    Type type;
    if (failed(parseResourceAccess(parser, access)) ||
        failed(parser.parseOperand(resource)) ||
        failed(parser.parseLSquare()) || failed(parser.parseOperand(offset)) ||
        failed(parser.parseKeyword("for")) ||
        failed(parser.parseOperand(length)) || failed(parser.parseRSquare()) ||
        failed(parser.parseColon()) || failed(parser.parseType(type)) ||
        failed(parseOptionalBracedOperands(parser, resourceSizes)))
      return failure();
    accessAttrs.push_back(access);
    resources.push_back(resource);
    resourceTypes.push_back(type);
    offsets.push_back(offset);
    lengths.push_back(length);
    return success();
  };
  if (failed(parser.parseLBrace()))
    return failure();
  if (failed(parser.parseOptionalRBrace()) &&
      (failed(parser.parseCommaSeparatedList(parseOne)) ||
       failed(parser.parseRBrace())))
    return failure();
  accesses = parser.getBuilder().getArrayAttr(accessAttrs);
  return success();
}

void printDispatchResources(OpAsmPrinter &p, Operation *, ValueRange resources,
                            TypeRange resourceTypes, ValueRange resourceSizes,
                            ValueRange offsets, ValueRange lengths,
                            ArrayAttr accesses) {
  p << " {";
  p.increaseIndent();
  unsigned sizeIndex = 0;
  for (auto [i, resource] : llvm::enumerate(resources)) {
    p.printNewline();
    printResourceAccess(p, accesses && i < accesses.size() ? accesses[i]
                                                           : Attribute());
    p << " ";
    p.printOperand(resource);
    p << "[";
    if (i < offsets.size() && i < lengths.size()) {
      p.printOperand(offsets[i]);
      p << " for ";
      p.printOperand(lengths[i]);
    }
    p << "] : ";
    printSizedTypeFrom(p, resourceTypes[i], resourceSizes, sizeIndex);
    if (i + 1 != resources.size())
      p << ",";
  }
  p.decreaseIndent();
  p.printNewline();
  p << "}";
}

//===----------------------------------------------------------------------===//
// custom<CmdCallOperands>
//===----------------------------------------------------------------------===//

ParseResult parseCmdCallOperands(OpAsmParser &parser,
                                 SmallVectorImpl<UnresolvedOperand> &operands,
                                 SmallVectorImpl<UnresolvedOperand> &offsets,
                                 SmallVectorImpl<UnresolvedOperand> &lengths,
                                 ArrayAttr &accesses) {
  SmallVector<Attribute> accessAttrs;
  auto parseOne = [&]() -> ParseResult {
    UnresolvedOperand operand;
    OptionalParseResult bare = parser.parseOptionalOperand(operand);
    if (bare.has_value()) {
      if (failed(*bare))
        return failure();
      operands.push_back(operand);
      return success();
    }
    Attribute access;
    UnresolvedOperand offset, length;
    if (failed(parseResourceAccess(parser, access)) ||
        failed(parser.parseOperand(operand)) ||
        failed(parser.parseLSquare()) || failed(parser.parseOperand(offset)) ||
        failed(parser.parseKeyword("for")) ||
        failed(parser.parseOperand(length)) || failed(parser.parseRSquare()))
      return failure();
    accessAttrs.push_back(access);
    operands.push_back(operand);
    offsets.push_back(offset);
    lengths.push_back(length);
    return success();
  };
  if (failed(parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                            parseOne)))
    return failure();
  accesses = parser.getBuilder().getArrayAttr(accessAttrs);
  return success();
}

void printCmdCallOperands(OpAsmPrinter &p, Operation *, ValueRange operands,
                          ValueRange offsets, ValueRange lengths,
                          ArrayAttr accesses) {
  p << "(";
  unsigned range = 0;
  llvm::interleaveComma(operands, p, [&](Value operand) {
    bool ranged = isResource(operand.getType()) && range < offsets.size() &&
                  range < lengths.size();
    if (!ranged) {
      p.printOperand(operand);
      return;
    }
    printResourceAccess(p, accesses && range < accesses.size()
                               ? accesses[range]
                               : Attribute());
    p << " ";
    p.printOperand(operand);
    p << "[";
    p.printOperand(offsets[range]);
    p << " for ";
    p.printOperand(lengths[range]);
    p << "]";
    ++range;
  });
  p << ")";
}

//===----------------------------------------------------------------------===//
// custom<SymbolAlias> / custom<WorkgroupCountRegion>
//===----------------------------------------------------------------------===//

ParseResult parseSymbolAlias(OpAsmParser &parser, StringAttr &symName,
                             FlatSymbolRefAttr &functionRef) {
  if (failed(parser.parseAttribute(functionRef)))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("as"))) {
    std::string name;
    if (failed(parser.parseLParen()) || failed(parser.parseString(&name)) ||
        failed(parser.parseRParen()))
      return failure();
    symName = parser.getBuilder().getStringAttr(name);
  } else {
    symName = functionRef.getAttr();
  }
  return success();
}

void printSymbolAlias(OpAsmPrinter &p, Operation *, StringAttr symName,
                      FlatSymbolRefAttr functionRef) {
  p.printAttribute(functionRef);
  if (symName && symName != functionRef.getAttr()) {
    p << " as(";
    p.printString(symName.getValue());
    p << ")";
  }
}

ParseResult parseWorkgroupCountRegion(OpAsmParser &parser, Region &body) {
  if (failed(parser.parseOptionalKeyword("workgroups")))
    return success();
  SmallVector<OpAsmParser::Argument> arguments;
  if (failed(parser.parseArgumentList(arguments, OpAsmParser::Delimiter::Paren,
                                      /*allowType=*/true)) ||
      failed(parser.parseArrow()))
    return failure();
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<Type> resultTypes;
  if (failed(parser.parseLParen()) || failed(parser.parseTypeList(resultTypes)) ||
      failed(parser.parseRParen()))
    return failure();
  // The workgroup count is always three index values (docs/ir-reference.md).
  if (resultTypes.size() != 3 ||
      !llvm::all_of(resultTypes, [](Type t) { return t.isIndex(); }))
    return parser.emitError(loc, "workgroups region must declare exactly "
                                 "three index results");
  return parser.parseRegion(body, arguments, /*enableNameShadowing=*/false);
}

void printWorkgroupCountRegion(OpAsmPrinter &p, Operation *, Region &body) {
  if (body.empty())
    return;
  p << " workgroups(";
  llvm::interleaveComma(body.getArguments(), p, [&](BlockArgument arg) {
    p.printRegionArgument(arg);
  });
  p << ") -> (index, index, index) ";
  p.printRegion(body, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

//===----------------------------------------------------------------------===//
// tensor.sizeof
//===----------------------------------------------------------------------===//

ParseResult parseEncodingDimsAndAttrDict(
    OpAsmParser &parser, Type &encoding,
    SmallVectorImpl<UnresolvedOperand> &dims, NamedAttrList &attrs) {
  if (failed(parser.parseType(encoding)))
    return failure();
  if (failed(parser.parseOptionalLBrace()))
    return success();
  if (succeeded(parser.parseOptionalRBrace()))
    return parser.parseOptionalAttrDict(attrs);
  UnresolvedOperand first;
  OptionalParseResult hasDim = parser.parseOptionalOperand(first);
  if (hasDim.has_value()) {
    if (failed(*hasDim))
      return failure();
    dims.push_back(first);
    while (succeeded(parser.parseOptionalComma())) {
      if (failed(parser.parseOperand(dims.emplace_back())))
        return failure();
    }
    if (failed(parser.parseRBrace()))
      return failure();
    return parser.parseOptionalAttrDict(attrs);
  }
  // No dims: the brace opened the attribute dictionary of a static `enc`.
  auto parseEntry = [&]() -> ParseResult {
    std::string name;
    StringRef keyword;
    SMLoc loc = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalKeyword(&keyword)))
      name = keyword.str();
    else if (failed(parser.parseOptionalString(&name)))
      return parser.emitError(loc, "expected attribute name");
    if (name.empty())
      return parser.emitError(loc, "expected valid attribute name");
    Attribute value = parser.getBuilder().getUnitAttr();
    if (succeeded(parser.parseOptionalEqual()) &&
        failed(parser.parseAttribute(value)))
      return failure();
    attrs.append(name, value);
    return success();
  };
  if (failed(parser.parseCommaSeparatedList(parseEntry)) ||
      failed(parser.parseRBrace()))
    return failure();
  return success();
}

} // namespace fleet::stream
