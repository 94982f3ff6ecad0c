//===- HALAsm.cpp - custom<...> directives of hal op formats --------------===//
//
// Each pair implements one piece of hal op text from
// docs/ir-reference.md ("hal"); see HALAsm.h for the grammar.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALAsm.h"

#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace fleet::hal {

//===----------------------------------------------------------------------===//
// custom<DeviceQueueCandidates>
//===----------------------------------------------------------------------===//

ParseResult parseDeviceQueueCandidates(
    OpAsmParser &parser, SmallVectorImpl<UnresolvedOperand> &devices,
    SmallVectorImpl<Type> &deviceTypes,
    SmallVectorImpl<UnresolvedOperand> &queueAffinities,
    SmallVectorImpl<Type> &queueAffinityTypes) {
  // `(%dev, %queue : !hal.device, i64)`; the list is never empty (the op
  // would have nothing to choose from).
  auto parseCandidate = [&]() -> ParseResult {
    UnresolvedOperand device, queueAffinity;
    Type deviceType, queueAffinityType;
    if (failed(parser.parseLParen()) || failed(parser.parseOperand(device)) ||
        failed(parser.parseComma()) ||
        failed(parser.parseOperand(queueAffinity)) ||
        failed(parser.parseColon()) || failed(parser.parseType(deviceType)) ||
        failed(parser.parseComma()) ||
        failed(parser.parseType(queueAffinityType)) ||
        failed(parser.parseRParen()))
      return failure();
    devices.push_back(device);
    deviceTypes.push_back(deviceType);
    queueAffinities.push_back(queueAffinity);
    queueAffinityTypes.push_back(queueAffinityType);
    return success();
  };
  return parser.parseCommaSeparatedList(parseCandidate);
}

void printDeviceQueueCandidates(OpAsmPrinter &p, Operation *,
                                ValueRange devices, TypeRange deviceTypes,
                                ValueRange queueAffinities,
                                TypeRange queueAffinityTypes) {
  // The generic form can hold unequal counts (the verifier rejects them);
  // print what pairs up so printing a not-yet-verified op cannot crash.
  size_t count = std::min(devices.size(), queueAffinities.size());
  for (size_t i = 0; i < count; ++i) {
    if (i)
      p << ", ";
    p << "(";
    p.printOperand(devices[i]);
    p << ", ";
    p.printOperand(queueAffinities[i]);
    p << " : ";
    p.printType(deviceTypes[i]);
    p << ", ";
    p.printType(queueAffinityTypes[i]);
    p << ")";
  }
}

//===----------------------------------------------------------------------===//
// custom<DispatchBindings>
//===----------------------------------------------------------------------===//

ParseResult parseDispatchBindings(OpAsmParser &parser,
                                  SmallVectorImpl<UnresolvedOperand> &buffers,
                                  SmallVectorImpl<Type> &bufferTypes,
                                  SmallVectorImpl<UnresolvedOperand> &offsets,
                                  SmallVectorImpl<UnresolvedOperand> &lengths) {
  // `(%buffer : !hal.buffer)[%offset, %length]` or `(%slot : index)[...]`.
  auto parseBinding = [&]() -> ParseResult {
    UnresolvedOperand buffer, offset, length;
    Type bufferType;
    if (failed(parser.parseLParen()) || failed(parser.parseOperand(buffer)) ||
        failed(parser.parseColonType(bufferType)) ||
        failed(parser.parseRParen()) || failed(parser.parseLSquare()) ||
        failed(parser.parseOperand(offset)) || failed(parser.parseComma()) ||
        failed(parser.parseOperand(length)) || failed(parser.parseRSquare()))
      return failure();
    buffers.push_back(buffer);
    bufferTypes.push_back(bufferType);
    offsets.push_back(offset);
    lengths.push_back(length);
    return success();
  };
  return parser.parseCommaSeparatedList(parseBinding);
}

void printDispatchBindings(OpAsmPrinter &p, Operation *, ValueRange buffers,
                           TypeRange bufferTypes, ValueRange offsets,
                           ValueRange lengths) {
  // One binding per line, one level deeper than the op; the closing `])`
  // returns to the op's indentation (the layout of the reference and IREE).
  size_t count =
      std::min({buffers.size(), offsets.size(), lengths.size()});
  p.increaseIndent();
  for (size_t i = 0; i < count; ++i) {
    p.printNewline();
    p << "(";
    p.printOperand(buffers[i]);
    p << " : ";
    p.printType(bufferTypes[i]);
    p << ")[";
    p.printOperand(offsets[i]);
    p << ", ";
    p.printOperand(lengths[i]);
    p << "]";
    if (i + 1 < count)
      p << ",";
  }
  p.decreaseIndent();
  p.printNewline();
}

//===----------------------------------------------------------------------===//
// custom<TypeAlias>
//===----------------------------------------------------------------------===//

ParseResult parseTypeAlias(OpAsmParser &parser, TypeAttr &encoding,
                           Type &type) {
  Type first;
  if (failed(parser.parseType(first)))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("as"))) {
    if (failed(parser.parseType(type)))
      return failure();
  } else {
    type = first;
  }
  encoding = TypeAttr::get(first);
  return success();
}

void printTypeAlias(OpAsmPrinter &p, Operation *, TypeAttr encoding,
                    Type type) {
  if (encoding && encoding.getValue() != type) {
    p.printType(encoding.getValue());
    p << " as ";
  }
  p.printType(type);
}

//===----------------------------------------------------------------------===//
// custom<DimsAndAttrDict>
//===----------------------------------------------------------------------===//

/// Parses the rest of an attribute dictionary whose `{` was already consumed
/// (`name (= value)?, ...}`); a name alone is a unit attribute, as in MLIR's
/// own attribute dictionaries.
static ParseResult parseAttrDictBody(OpAsmParser &parser,
                                     NamedAttrList &attrs) {
  do {
    std::string quoted;
    StringRef keyword;
    StringAttr name;
    if (succeeded(parser.parseOptionalKeyword(&keyword)))
      name = parser.getBuilder().getStringAttr(keyword);
    else if (succeeded(parser.parseOptionalString(&quoted)))
      name = parser.getBuilder().getStringAttr(quoted);
    else
      return parser.emitError(parser.getCurrentLocation(),
                              "expected a value (dynamic dimension) or an "
                              "attribute name after '{'");
    Attribute value = parser.getBuilder().getUnitAttr();
    if (succeeded(parser.parseOptionalEqual()) &&
        failed(parser.parseAttribute(value)))
      return failure();
    if (attrs.get(name))
      return parser.emitError(parser.getCurrentLocation(),
                              "duplicate key '")
             << name.getValue() << "' in dictionary attribute";
    attrs.append(name, value);
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRBrace();
}

ParseResult parseDimsAndAttrDict(OpAsmParser &parser,
                                 SmallVectorImpl<UnresolvedOperand> &dims,
                                 NamedAttrList &attrs) {
  if (failed(parser.parseOptionalLBrace()))
    return success();
  // `{}`: no dims (accepted like every `{...}` size list), attributes may
  // follow.
  if (succeeded(parser.parseOptionalRBrace()))
    return parser.parseOptionalAttrDict(attrs);
  UnresolvedOperand dim;
  OptionalParseResult hasDim = parser.parseOptionalOperand(dim);
  if (!hasDim.has_value())
    return parseAttrDictBody(parser, attrs);
  if (failed(*hasDim))
    return failure();
  dims.push_back(dim);
  while (succeeded(parser.parseOptionalComma())) {
    if (failed(parser.parseOperand(dim)))
      return failure();
    dims.push_back(dim);
  }
  if (failed(parser.parseRBrace()))
    return failure();
  return parser.parseOptionalAttrDict(attrs);
}

void printDimsAndAttrDict(OpAsmPrinter &p, Operation *op, ValueRange dims,
                          DictionaryAttr) {
  if (!dims.empty()) {
    p << "{";
    p.printOperands(dims);
    p << "}";
  }
  // Only discardable attributes: inherent ones are printed by the format.
  p.printOptionalAttrDict(op->getDiscardableAttrDictionary().getValue());
}

//===----------------------------------------------------------------------===//
// custom<ExecutableTarget>
//===----------------------------------------------------------------------===//

ParseResult parseExecutableTarget(OpAsmParser &parser,
                                  ExecutableTargetAttr &target) {
  // Full form `#hal.executable.target<...>` or an alias `#name`.
  Attribute attr;
  SMLoc loc = parser.getCurrentLocation();
  OptionalParseResult full = parser.parseOptionalAttribute(attr);
  if (full.has_value()) {
    if (failed(*full))
      return failure();
    target = dyn_cast<ExecutableTargetAttr>(attr);
    if (!target)
      return parser.emitError(loc, "expected an executable target "
                                   "(#hal.executable.target<...>), got ")
             << attr;
    return success();
  }
  // Stripped form `<"backend", "format"(, {config})?>`.
  target = dyn_cast_or_null<ExecutableTargetAttr>(
      ExecutableTargetAttr::parse(parser, Type()));
  return success(static_cast<bool>(target));
}

void printExecutableTarget(OpAsmPrinter &p, Operation *,
                           ExecutableTargetAttr target) {
  p.printStrippedAttrOrType(target);
}

//===----------------------------------------------------------------------===//
// Region signatures: custom<ConditionRegion>, custom<WorkgroupCountRegion>
//===----------------------------------------------------------------------===//

/// `(%a: T, ...) -> results (attributes {...})? { body }` where the results
/// are fixed by the op: they are parsed, checked and not stored. The
/// attribute dictionary is parsed only when `attrs` is given (function-like
/// ops print it between signature and body, like func.func).
static ParseResult parseRegionWithSignature(OpAsmParser &parser, Region &body,
                                            ArrayRef<Type> expectedResults,
                                            StringRef what,
                                            NamedAttrList *attrs = nullptr) {
  SmallVector<OpAsmParser::Argument> arguments;
  if (failed(parser.parseArgumentList(arguments, AsmParser::Delimiter::Paren,
                                      /*allowType=*/true)) ||
      failed(parser.parseArrow()))
    return failure();
  SMLoc resultsLoc = parser.getCurrentLocation();
  SmallVector<Type> results;
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen()) &&
        (failed(parser.parseTypeList(results)) ||
         failed(parser.parseRParen())))
      return failure();
  } else {
    Type single;
    if (failed(parser.parseType(single)))
      return failure();
    results.push_back(single);
  }
  if (ArrayRef<Type>(results) != expectedResults) {
    std::string expected;
    llvm::raw_string_ostream os(expected);
    llvm::interleaveComma(expectedResults, os);
    return parser.emitError(resultsLoc)
           << what << " must return (" << expected << ")";
  }
  if (attrs && failed(parser.parseOptionalAttrDictWithKeyword(*attrs)))
    return failure();
  return parser.parseRegion(body, arguments);
}

/// Prints `(%a: T, ...) -> results ` then the region, whose entry block
/// arguments are the ones in the signature.
static void printRegionWithSignature(OpAsmPrinter &p, Region &body,
                                     StringRef results,
                                     Operation *attrsOf = nullptr) {
  p << "(";
  if (!body.empty())
    llvm::interleaveComma(body.getArguments(), p, [&](BlockArgument arg) {
      p.printRegionArgument(arg);
    });
  p << ") -> " << results;
  if (attrsOf)
    p.printOptionalAttrDictWithKeyword(
        attrsOf->getDiscardableAttrDictionary().getValue());
  p << " ";
  p.printRegion(body, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

ParseResult parseConditionRegion(OpAsmParser &parser, Region &body) {
  Type i1 = parser.getBuilder().getI1Type();
  return parseRegionWithSignature(parser, body, {i1}, "a condition");
}

void printConditionRegion(OpAsmPrinter &p, Operation *, Region &body) {
  printRegionWithSignature(p, body, "i1");
}

ParseResult parseConditionFunction(OpAsmParser &parser, Region &body,
                                   NamedAttrList &attrs) {
  Type i1 = parser.getBuilder().getI1Type();
  return parseRegionWithSignature(parser, body, {i1}, "a condition", &attrs);
}

void printConditionFunction(OpAsmPrinter &p, Operation *op, Region &body,
                            DictionaryAttr) {
  printRegionWithSignature(p, body, "i1", op);
}

ParseResult parseWorkgroupCountRegion(OpAsmParser &parser, Region &body) {
  Type index = parser.getBuilder().getIndexType();
  return parseRegionWithSignature(parser, body, {index, index, index},
                                  "a workgroup count region");
}

void printWorkgroupCountRegion(OpAsmPrinter &p, Operation *, Region &body) {
  printRegionWithSignature(p, body, "(index, index, index)");
}

} // namespace fleet::hal
