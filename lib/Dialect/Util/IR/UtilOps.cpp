//===- UtilOps.cpp - util operations --------------------------------------===//

#include "fleet/Dialect/Util/IR/UtilOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::util;

//===----------------------------------------------------------------------===//
// Globals
//===----------------------------------------------------------------------===//

void GlobalOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     bool isMutable, Type type, Attribute initialValue) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getSymVisibilityAttrName(state.name),
                     builder.getStringAttr("private"));
  state.addAttribute(getTypeAttrName(state.name), TypeAttr::get(type));
  if (isMutable)
    state.addAttribute(getIsMutableAttrName(state.name), builder.getUnitAttr());
  if (initialValue)
    state.addAttribute(getInitialValueAttrName(state.name), initialValue);
}

LogicalResult GlobalOp::verify() {
  if (auto typed = dyn_cast_or_null<TypedAttr>(getInitialValueAttr())) {
    if (!isGlobalTypeCompatible(typed.getType(), getType()))
      return emitOpError() << "initial value type " << typed.getType()
                           << " is not compatible with global type "
                           << getType();
  }
  return success();
}

/// Looks up the util.global `symbol` names from `op`.
static FailureOr<GlobalOp> lookupGlobal(Operation *op, FlatSymbolRefAttr symbol,
                                        SymbolTableCollection &symbolTable) {
  auto global = symbolTable.lookupNearestSymbolFrom<GlobalOp>(op, symbol);
  if (!global)
    return op->emitOpError() << "references undefined global " << symbol;
  return global;
}

LogicalResult
GlobalLoadOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto global = lookupGlobal(*this, getGlobalAttr(), symbolTable);
  if (failed(global))
    return failure();
  if (!isGlobalTypeCompatible(getType(), global->getType()))
    return emitOpError() << "result type " << getType()
                         << " is not compatible with global type "
                         << global->getType();
  if (getIsImmutable() && global->getIsMutable())
    return emitOpError() << "marked immutable but global " << getGlobalAttr()
                         << " is mutable";
  return success();
}

void GlobalLoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Loads of immutable globals are pure; others read global state.
  if (!getIsImmutable())
    effects.emplace_back(MemoryEffects::Read::get());
}

LogicalResult
GlobalStoreOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto global = lookupGlobal(*this, getGlobalAttr(), symbolTable);
  if (failed(global))
    return failure();
  if (getValue().getType() != global->getType())
    return emitOpError() << "value type " << getValue().getType()
                         << " does not match global type "
                         << global->getType();
  return success();
}

LogicalResult
GlobalAddressOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto global = lookupGlobal(*this, getGlobalAttr(), symbolTable);
  if (failed(global))
    return failure();
  if (getIsImmutable() && global->getIsMutable())
    return emitOpError() << "marked immutable but global " << getGlobalAttr()
                         << " is mutable";
  return success();
}

LogicalResult GlobalLoadIndirectOp::verify() {
  Type pointee = getGlobal().getType().getTargetType();
  if (!isGlobalTypeCompatible(getType(), pointee))
    return emitOpError() << "result type " << getType()
                         << " is not compatible with pointee type " << pointee;
  return success();
}

LogicalResult GlobalStoreIndirectOp::verify() {
  Type pointee = getGlobal().getType().getTargetType();
  if (!isGlobalTypeCompatible(getValue().getType(), pointee))
    return emitOpError() << "value type " << getValue().getType()
                         << " is not compatible with pointee type " << pointee;
  return success();
}

//===----------------------------------------------------------------------===//
// util.func
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type, ArrayRef<int64_t> tiedOperands) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  if (auto tied = buildTiedOperandsAttr(builder, tiedOperands))
    state.addAttribute(getTiedOperandsAttrName(state.name), tied);
  state.addRegion();
}

int64_t FuncOp::getTiedResultIndex(unsigned resultIndex) {
  return getTiedIndex(getTiedOperandsAttr(), resultIndex);
}

std::pair<unsigned, unsigned> FuncOp::getTiedOperandsIndexAndLength() {
  return {0, static_cast<unsigned>(getArgumentTypes().size())};
}

std::optional<unsigned> FuncOp::getTiedResultOperandIndex(unsigned resultIndex) {
  int64_t index = getTiedResultIndex(resultIndex);
  if (index < 0)
    return std::nullopt;
  return static_cast<unsigned>(index);
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr visibility;
  if (failed(parseSymbolVisibility(parser, visibility)))
    return failure();
  if (visibility)
    result.addAttribute(getSymVisibilityAttrName(result.name), visibility);

  StringAttr nameAttr;
  if (failed(parser.parseSymbolName(nameAttr, SymbolTable::getSymbolAttrName(),
                                    result.attributes)))
    return failure();

  // Arguments are all named (`%a: T {attrs}`) or, for a declaration, all
  // types (`T {attrs}`), as IREE's util.func accepts.
  SmallVector<OpAsmParser::Argument> arguments;
  bool typesOnly = false;
  if (failed(parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            OpAsmParser::Argument argument;
            SMLoc loc = parser.getCurrentLocation();
            OptionalParseResult named = parser.parseOptionalArgument(
                argument, /*allowType=*/true, /*allowAttrs=*/true);
            if (named.has_value()) {
              if (failed(*named))
                return failure();
              if (typesOnly)
                return parser.emitError(loc, "expected a type: the earlier "
                                             "arguments are types only");
            } else {
              if (!arguments.empty() && !typesOnly)
                return parser.emitError(loc, "expected an SSA name: the "
                                             "earlier arguments are named");
              typesOnly = true;
              argument.ssaName.location = loc;
              NamedAttrList attrs;
              if (parser.parseType(argument.type) ||
                  parser.parseOptionalAttrDict(attrs))
                return failure();
              argument.attrs = attrs.getDictionary(parser.getContext());
            }
            arguments.push_back(argument);
            return success();
          })))
    return failure();
  SmallVector<Type> argTypes;
  SmallVector<UnresolvedOperand> argNames;
  for (auto &argument : arguments) {
    argTypes.push_back(argument.type);
    argNames.push_back(argument.ssaName);
  }

  // Results: each `T {attrs}?`, `%argN {attrs}?` or `%argN as T {attrs}?`.
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  SmallVector<int64_t> tied;
  if (succeeded(parser.parseOptionalArrow())) {
    // Result attributes need the parenthesized form (else `-> T {` would be
    // ambiguous with the body).
    bool inParens = false;
    auto parseOne = [&]() -> ParseResult {
      Type type;
      int64_t tiedIndex = -1;
      UnresolvedOperand operand;
      SMLoc loc = parser.getCurrentLocation();
      OptionalParseResult hasOperand = parser.parseOptionalOperand(operand);
      if (hasOperand.has_value()) {
        if (failed(*hasOperand))
          return failure();
        if (typesOnly)
          return parser.emitError(loc, "result tied to '")
                 << operand.name << "' in a declaration whose arguments are "
                 << "types only; name the arguments (%arg0: T) to tie results";
        for (auto [i, name] : llvm::enumerate(argNames))
          if (name.name == operand.name && name.number == operand.number)
            tiedIndex = i;
        if (tiedIndex < 0)
          return parser.emitError(loc, "tied result names '")
                 << operand.name << "', which is not an argument";
        type = argTypes[tiedIndex];
        if (succeeded(parser.parseOptionalKeyword("as")) &&
            failed(parser.parseType(type)))
          return failure();
      } else if (failed(parser.parseType(type))) {
        return failure();
      }
      NamedAttrList attrs;
      if (inParens && failed(parser.parseOptionalAttrDict(attrs)))
        return failure();
      resultTypes.push_back(type);
      resultAttrs.push_back(attrs.getDictionary(builder.getContext()));
      tied.push_back(tiedIndex);
      return success();
    };
    if (succeeded(parser.parseOptionalLParen())) {
      inParens = true;
      if (failed(parser.parseOptionalRParen()) &&
          (failed(parser.parseCommaSeparatedList(parseOne)) ||
           failed(parser.parseRParen())))
        return failure();
    } else if (failed(parseOne())) {
      return failure();
    }
  }

  result.addAttribute(getFunctionTypeAttrName(result.name),
                      TypeAttr::get(builder.getFunctionType(argTypes,
                                                            resultTypes)));
  if (auto tiedAttr = buildTiedOperandsAttr(builder, tied))
    result.addAttribute(getTiedOperandsAttrName(result.name), tiedAttr);

  SMLoc attrLoc = parser.getCurrentLocation();
  NamedAttrList extraAttrs;
  if (failed(parser.parseOptionalAttrDictWithKeyword(extraAttrs)))
    return failure();
  for (StringRef reserved : {"sym_name", "function_type", "sym_visibility"})
    if (extraAttrs.get(reserved))
      return parser.emitError(attrLoc)
             << "'" << reserved << "' may not appear in the attribute dict";
  result.attributes.append(extraAttrs);
  call_interface_impl::addArgAndResultAttrs(
      builder, result, arguments, resultAttrs,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));

  Region *body = result.addRegion();
  SMLoc bodyLoc = parser.getCurrentLocation();
  OptionalParseResult parsedBody =
      parser.parseOptionalRegion(*body, arguments, /*enableNameShadowing=*/false);
  if (parsedBody.has_value()) {
    if (failed(*parsedBody))
      return failure();
    if (typesOnly && !arguments.empty())
      return parser.emitError(bodyLoc, "a function with a body needs named "
                                       "arguments (%arg0: T), not types only");
    if (body->empty())
      return parser.emitError(bodyLoc, "expected non-empty function body");
  }
  return success();
}

void FuncOp::print(OpAsmPrinter &p) {
  p << ' ';
  printSymbolVisibility(p, *this, getSymVisibilityAttr());
  p << ' ';
  p.printSymbolName(getSymName());
  ArrayRef<Type> argTypes = getArgumentTypes();
  ArrayAttr argAttrs = getArgAttrsAttr();
  bool external = isExternal();
  auto printArgName = [&](unsigned i) {
    if (!external)
      p.printOperand(getBody().getArgument(i));
    else
      p << "%arg" << i;
  };
  p << '(';
  for (auto [i, type] : llvm::enumerate(argTypes)) {
    if (i)
      p << ", ";
    printArgName(i);
    p << ": ";
    p.printType(type);
    if (argAttrs) {
      if (auto dict = dyn_cast<DictionaryAttr>(argAttrs[i]))
        p.printOptionalAttrDict(dict.getValue());
    }
  }
  p << ')';

  ArrayRef<Type> resultTypes = getResultTypes();
  ArrayAttr resAttrs = getResAttrsAttr();
  if (!resultTypes.empty()) {
    p << " -> ";
    bool anyAttrs = resAttrs && llvm::any_of(resAttrs, [](Attribute a) {
                      auto dict = dyn_cast<DictionaryAttr>(a);
                      return dict && !dict.empty();
                    });
    bool parens = resultTypes.size() != 1 || anyAttrs ||
                  isa<FunctionType>(resultTypes.front());
    if (parens)
      p << '(';
    for (auto [i, type] : llvm::enumerate(resultTypes)) {
      if (i)
        p << ", ";
      int64_t tiedIndex = getTiedResultIndex(i);
      if (tiedIndex >= 0 && static_cast<size_t>(tiedIndex) < argTypes.size()) {
        printArgName(tiedIndex);
        if (argTypes[tiedIndex] != type) {
          p << " as ";
          p.printType(type);
        }
      } else {
        p.printType(type);
      }
      if (resAttrs) {
        if (auto dict = dyn_cast<DictionaryAttr>(resAttrs[i]))
          p.printOptionalAttrDict(dict.getValue());
      }
    }
    if (parens)
      p << ')';
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getFunctionTypeAttrName(),
       getSymVisibilityAttrName(), getTiedOperandsAttrName(),
       getArgAttrsAttrName(), getResAttrsAttrName()});
  if (!external) {
    p << ' ';
    p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                  /*printBlockTerminators=*/true);
  }
}

LogicalResult FuncOp::verify() {
  if (auto tied = getTiedOperandsAttr()) {
    if (tied.size() != getResultTypes().size())
      return emitOpError() << "tied_operands has " << tied.size()
                           << " entries but the function has "
                           << getResultTypes().size() << " results";
    for (unsigned i = 0; i < tied.size(); ++i) {
      int64_t index = getTiedResultIndex(i);
      if (index >= static_cast<int64_t>(getArgumentTypes().size()))
        return emitOpError() << "result " << i << " is tied to argument "
                             << index << ", which does not exist";
    }
  }
  if (!isExternal()) {
    Block &entry = getBody().front();
    if (entry.getNumArguments() != getArgumentTypes().size())
      return emitOpError() << "entry block has " << entry.getNumArguments()
                           << " arguments but the signature has "
                           << getArgumentTypes().size();
    for (auto [arg, type] : llvm::zip(entry.getArguments(), getArgumentTypes()))
      if (arg.getType() != type)
        return emitOpError() << "entry block argument type " << arg.getType()
                             << " does not match signature type " << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// util.initializer / util.return
//===----------------------------------------------------------------------===//

LogicalResult InitializerOp::verify() {
  if (getBody().empty())
    return emitOpError() << "requires a body";
  if (getBody().front().getNumArguments() != 0)
    return emitOpError() << "takes no arguments";
  return success();
}

LogicalResult ReturnOp::verify() {
  Operation *parent = (*this)->getParentOp();
  ArrayRef<Type> expected;
  if (auto func = dyn_cast<FuncOp>(parent))
    expected = func.getResultTypes();
  if (getOperands().size() != expected.size())
    return emitOpError() << "returns " << getOperands().size()
                         << " values but the enclosing function has "
                         << expected.size() << " results";
  for (auto [i, value, type] : llvm::enumerate(getOperands(), expected))
    if (value.getType() != type)
      return emitOpError() << "operand " << i << " has type "
                           << value.getType() << " but the function returns "
                           << type;
  return success();
}

//===----------------------------------------------------------------------===//
// util.call
//===----------------------------------------------------------------------===//

void CallOp::build(OpBuilder &builder, OperationState &state, FuncOp callee,
                   ValueRange arguments) {
  state.addOperands(arguments);
  state.addAttribute(getCalleeAttrName(state.name),
                     FlatSymbolRefAttr::get(callee.getSymNameAttr()));
  if (auto tied = callee.getTiedOperandsAttr())
    state.addAttribute(getTiedOperandsAttrName(state.name), tied);
  state.addTypes(callee.getResultTypes());
}

FunctionType CallOp::getCalleeType() {
  return FunctionType::get(getContext(), getArguments().getTypes(),
                           getResultTypes());
}

std::optional<unsigned> CallOp::getTiedResultOperandIndex(unsigned resultIndex) {
  int64_t index = getTiedIndex(getTiedOperandsAttr(), resultIndex);
  if (index < 0 || index >= static_cast<int64_t>(getNumOperands()))
    return std::nullopt;
  return static_cast<unsigned>(index);
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *symbol =
      symbolTable.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!symbol)
    return emitOpError() << "calls undefined function " << getCalleeAttr();
  auto callee = dyn_cast<FuncOp>(symbol);
  if (!callee)
    return emitOpError() << "callee " << getCalleeAttr()
                         << " is not a util.func";
  if (callee.getFunctionType() != getCalleeType())
    return emitOpError() << "call type " << getCalleeType()
                         << " does not match callee type "
                         << callee.getFunctionType();
  for (unsigned i = 0; i < getNumResults(); ++i) {
    if (getTiedIndex(getTiedOperandsAttr(), i) !=
        callee.getTiedResultIndex(i))
      return emitOpError() << "result " << i
                           << " tied operand does not match the callee";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// util.buffer.constant
//===----------------------------------------------------------------------===//

int64_t BufferConstantOp::getByteLength() {
  if (auto dense = dyn_cast<DenseElementsAttr>(getValue())) {
    auto type = cast<ShapedType>(dense.getType());
    int64_t bits = type.getElementTypeBitWidth();
    return type.getNumElements() * ((bits + 7) / 8);
  }
  if (auto str = dyn_cast<StringAttr>(getValue()))
    return str.getValue().size();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(getValue())) {
    auto type = cast<ShapedType>(resource.getType());
    int64_t bits = type.getElementTypeBitWidth();
    return type.getNumElements() * ((bits + 7) / 8);
  }
  return 0;
}

LogicalResult BufferConstantOp::verify() {
  if (auto dense = dyn_cast<DenseElementsAttr>(getValue())) {
    Type element = cast<ShapedType>(dense.getType()).getElementType();
    if (!element.isIntOrIndexOrFloat() || isa<IndexType>(element))
      return emitOpError() << "value element type " << element
                           << " has no defined byte layout";
    return success();
  }
  if (isa<StringAttr>(getValue()))
    return success();
  // A blob (fleet-import's weights): its bytes are the value as stored.
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(getValue())) {
    Type element = cast<ShapedType>(resource.getType()).getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8)
      return emitOpError() << "dense_resource value element type " << element
                           << " has no defined byte layout";
    return success();
  }
  return emitOpError()
         << "value must be a dense elements, dense_resource or string attribute";
}

#define GET_OP_CLASSES
#include "fleet/Dialect/Util/IR/UtilOps.cpp.inc"
