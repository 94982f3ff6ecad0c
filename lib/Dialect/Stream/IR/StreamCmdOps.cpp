//===- StreamCmdOps.cpp - explicit command ops ----------------------------===//
//
// Verifiers and interface methods of the ops in StreamCmdOps.td.
//
//===----------------------------------------------------------------------===//

#include "StreamOpUtils.h"


using namespace mlir;
using namespace fleet;
using namespace fleet::stream;
using namespace fleet::stream::detail;

static Value sizeIf(unsigned idx, OpOperand &operand, Value size) {
  return idx == operand.getOperandNumber() ? size : Value();
}

/// Every access is exactly `ro`, `wo` or `rw`.
static LogicalResult verifyAccesses(Operation *op, ArrayAttr accesses) {
  for (auto [i, attr] : llvm::enumerate(accesses)) {
    auto bits = static_cast<uint32_t>(
        cast<ResourceAccessBitfieldAttr>(attr).getValue());
    if (bits == 0 || bits > 3)
      return op->emitOpError() << "resource access " << i
                               << " must be ro, wo or rw";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// stream.cmd.execute / serial / concurrent
//===----------------------------------------------------------------------===//

LogicalResult CmdExecuteOp::verify() {
  return verifySizedValueCount(*this, "resource operand size",
                               getResourceOperands().getTypes(),
                               getResourceOperandSizes());
}

LogicalResult CmdExecuteOp::verifyRegions() {
  if (failed(verifyCaptures(*this, getBody(), getResourceOperands())) ||
      failed(verifyStreamableBody(*this, getBody())) ||
      failed(verifyCapturedResourceUses(*this, getBody())))
    return failure();
  return success();
}

ValueRange CmdExecuteOp::getAwaitTimepoints() {
  return OperandRange(getAwaitTimepointMutable());
}
void CmdExecuteOp::setAwaitTimepoints(ValueRange timepoints,
                                      OpBuilder &builder) {
  setOptionalAwait(*this, getAwaitTimepointMutable(), timepoints, builder);
}
Value CmdExecuteOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value CmdExecuteOp::getResultSize(unsigned) { return {}; }

LogicalResult CmdSerialOp::verifyRegions() {
  return verifyStreamableBody(*this, getBody());
}

LogicalResult CmdConcurrentOp::verifyRegions() {
  return verifyStreamableBody(*this, getBody());
}

//===----------------------------------------------------------------------===//
// stream.cmd.dispatch
//===----------------------------------------------------------------------===//

LogicalResult CmdDispatchOp::verify() {
  if (getEntryPoints().empty())
    return emitOpError() << "requires at least one entry point";
  size_t resources = getResources().size();
  if (failed(verifySizedValueCount(*this, "resource size",
                                   getResources().getTypes(),
                                   getResourceSizes())) ||
      failed(verifyValueCount(*this, "resource range offset", resources,
                              getResourceOffsets().size())) ||
      failed(verifyValueCount(*this, "resource range length", resources,
                              getResourceLengths().size())) ||
      failed(verifyValueCount(*this, "resource access", resources,
                              getResourceAccesses().size())))
    return failure();
  return verifyAccesses(*this, getResourceAccesses());
}

LogicalResult
CmdDispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto checkFunction = [&](ExecutableExportOp exportOp) -> LogicalResult {
    FunctionOpInterface function = exportOp.lookupFunction();
    if (!function)
      return success();
    // The function takes one !stream.binding per bound resource; its other
    // arguments receive the uniform operands, in order (docs/ir-reference.md).
    SmallVector<Type> others;
    unsigned bindings = 0;
    for (Type type : function.getArgumentTypes()) {
      if (isa<BindingType>(type))
        ++bindings;
      else
        others.push_back(type);
    }
    if (bindings != getResources().size())
      return emitOpError() << "entry point function @" << function.getName()
                           << " takes " << bindings
                           << " !stream.binding arguments but the dispatch "
                           << "binds " << getResources().size()
                           << " resources";
    if (others.size() != getUniformOperands().size())
      return emitOpError() << "entry point function @" << function.getName()
                           << " takes " << others.size()
                           << " non-binding arguments but the dispatch passes "
                           << getUniformOperands().size() << " uniforms";
    for (auto [i, expected, operand] :
         llvm::enumerate(others, getUniformOperands().getTypes()))
      if (expected != operand)
        return emitOpError() << "uniform " << i << " has type " << operand
                             << " but entry point function @"
                             << function.getName() << " expects " << expected;
    return success();
  };
  return verifyDispatchEntryPoints(*this, getEntryPoints(), getWorkload(),
                                   symbolTable, checkFunction);
}

Value CmdDispatchOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResources(), getResourceSizes());
}
Value CmdDispatchOp::getResultSize(unsigned) { return {}; }

//===----------------------------------------------------------------------===//
// stream.cmd.func
//===----------------------------------------------------------------------===//

ParseResult CmdFuncOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr visibility;
  StringAttr name;
  if (failed(parseSymbolVisibility(parser, visibility)) ||
      failed(parser.parseSymbolName(name)))
    return failure();
  // Arguments: `%a: T` or, for a resource, `%r[%off for %len]: T`, which
  // stands for three inputs (resource, index offset, index length). The
  // names are not kept: a declaration prints them as %argN.
  SmallVector<Type> inputs;
  SmallVector<DictionaryAttr> argAttrs;
  auto parseArgument = [&]() -> ParseResult {
    OpAsmParser::Argument argument;
    if (failed(parser.parseArgument(argument)))
      return failure();
    bool ranged = false;
    if (succeeded(parser.parseOptionalLSquare())) {
      OpAsmParser::Argument offset, length;
      if (failed(parser.parseArgument(offset)) ||
          failed(parser.parseKeyword("for")) ||
          failed(parser.parseArgument(length)) ||
          failed(parser.parseRSquare()))
        return failure();
      ranged = true;
    }
    Type type;
    NamedAttrList attrs;
    SMLoc typeLoc = parser.getCurrentLocation();
    if (failed(parser.parseColonType(type)) ||
        failed(parser.parseOptionalAttrDict(attrs)))
      return failure();
    if (ranged && !isResource(type))
      return parser.emitError(typeLoc, "only resource arguments take a "
                                       "[offset for length] range");
    inputs.push_back(type);
    argAttrs.push_back(attrs.getDictionary(parser.getContext()));
    if (ranged) {
      inputs.append(2, builder.getIndexType());
      argAttrs.append(2, builder.getDictionaryAttr({}));
    }
    return success();
  };
  if (failed(parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                            parseArgument)))
    return failure();
  SmallVector<Type> results;
  SmallVector<DictionaryAttr> resultAttrs;
  if (succeeded(parser.parseOptionalArrow())) {
    auto parseResult = [&](bool allowAttrs) -> ParseResult {
      Type type;
      NamedAttrList attrs;
      if (failed(parser.parseType(type)) ||
          (allowAttrs && failed(parser.parseOptionalAttrDict(attrs))))
        return failure();
      results.push_back(type);
      resultAttrs.push_back(attrs.getDictionary(parser.getContext()));
      return success();
    };
    // Result attributes need the parenthesized form, as in util.func.
    if (succeeded(parser.parseOptionalLParen())) {
      if (failed(parser.parseOptionalRParen()) &&
          (failed(parser.parseCommaSeparatedList(
               [&]() { return parseResult(true); })) ||
           failed(parser.parseRParen())))
        return failure();
    } else if (failed(parseResult(false))) {
      return failure();
    }
  }
  NamedAttrList attrs;
  SMLoc attrLoc = parser.getCurrentLocation();
  if (failed(parser.parseOptionalAttrDictWithKeyword(attrs)))
    return failure();
  for (StringRef reserved : {"sym_name", "function_type", "sym_visibility"})
    if (attrs.get(reserved))
      return parser.emitError(attrLoc)
             << "'" << reserved << "' may not appear in the attribute dict";
  result.attributes.append(attrs);
  result.addAttribute(getSymNameAttrName(result.name), name);
  if (visibility)
    result.addAttribute(getSymVisibilityAttrName(result.name), visibility);
  result.addAttribute(getFunctionTypeAttrName(result.name),
                      TypeAttr::get(builder.getFunctionType(inputs, results)));
  auto nonEmpty = [](ArrayRef<DictionaryAttr> dicts) {
    return llvm::any_of(dicts, [](DictionaryAttr d) { return !d.empty(); });
  };
  if (nonEmpty(argAttrs))
    result.addAttribute(getArgAttrsAttrName(result.name),
                        builder.getArrayAttr(SmallVector<Attribute>(
                            argAttrs.begin(), argAttrs.end())));
  if (nonEmpty(resultAttrs))
    result.addAttribute(getResAttrsAttrName(result.name),
                        builder.getArrayAttr(SmallVector<Attribute>(
                            resultAttrs.begin(), resultAttrs.end())));
  result.addRegion();
  return success();
}

/// True when input `i` is a resource followed by two index inputs, printed
/// as `%argI[%argI+1 for %argI+2]`.
static bool isRangedInput(ArrayRef<Type> inputs, size_t i) {
  return isResource(inputs[i]) && i + 2 < inputs.size() &&
         inputs[i + 1].isIndex() && inputs[i + 2].isIndex();
}

void CmdFuncOp::print(OpAsmPrinter &p) {
  p << ' ';
  printSymbolVisibility(p, *this, getSymVisibilityAttr());
  p << ' ';
  p.printSymbolName(getSymName());
  ArrayRef<Type> inputs = getArgumentTypes();
  ArrayAttr argAttrs = getArgAttrsAttr();
  auto printAttrs = [&](ArrayAttr all, size_t i) {
    if (all && i < all.size())
      if (auto dict = dyn_cast<DictionaryAttr>(all[i]))
        p.printOptionalAttrDict(dict.getValue());
  };
  p << '(';
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i)
      p << ", ";
    p << "%arg" << i;
    size_t typeIndex = i;
    if (isRangedInput(inputs, i)) {
      p << "[%arg" << i + 1 << " for %arg" << i + 2 << "]";
      i += 2;
    }
    p << ": ";
    p.printType(inputs[typeIndex]);
    printAttrs(argAttrs, typeIndex);
  }
  p << ')';
  ArrayRef<Type> results = getResultTypes();
  ArrayAttr resAttrs = getResAttrsAttr();
  if (!results.empty()) {
    bool anyAttrs = resAttrs && llvm::any_of(resAttrs, [](Attribute a) {
                      auto dict = dyn_cast<DictionaryAttr>(a);
                      return dict && !dict.empty();
                    });
    bool parens = results.size() != 1 || anyAttrs;
    p << " -> ";
    if (parens)
      p << '(';
    for (auto [i, type] : llvm::enumerate(results)) {
      if (i)
        p << ", ";
      p.printType(type);
      printAttrs(resAttrs, i);
    }
    if (parens)
      p << ')';
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getFunctionTypeAttrName(),
       getSymVisibilityAttrName(), getArgAttrsAttrName(),
       getResAttrsAttrName()});
}

LogicalResult CmdFuncOp::verify() {
  if (!getBody().empty())
    return emitOpError() << "is a declaration and must not have a body";
  // A resource argument stands for (resource, offset, length).
  ArrayRef<Type> inputs = getArgumentTypes();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!isResource(inputs[i]))
      continue;
    if (!isRangedInput(inputs, i))
      return emitOpError() << "resource argument " << i
                           << " must be followed by index offset and length "
                           << "arguments";
    i += 2;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// stream.cmd.call
//===----------------------------------------------------------------------===//

LogicalResult CmdCallOp::verify() {
  OperandRange operands = getResourceOperands();
  unsigned resources = countResources(operands.getTypes());
  if (failed(verifySizedValueCount(*this, "resource operand size",
                                   operands.getTypes(),
                                   getResourceOperandSizes())) ||
      failed(verifyValueCount(*this, "resource range offset", resources,
                              getResourceOperandOffsets().size())) ||
      failed(verifyValueCount(*this, "resource range length", resources,
                              getResourceOperandLengths().size())) ||
      failed(verifyValueCount(*this, "resource access", resources,
                              getResourceOperandAccesses().size())) ||
      failed(verifySizedValueCount(*this, "result size", getResultTypes(),
                                   getResultSizes())))
    return failure();
  // Results are primitives returned by value; nothing reuses storage.
  if (getTiedOperandsAttr() &&
      llvm::any_of(llvm::seq<unsigned>(0, getNumResults()), [&](unsigned i) {
        return getTiedIndex(getTiedOperandsAttr(), i) >= 0;
      }))
    return emitOpError() << "results are primitives and cannot be tied to "
                         << "operands";
  return verifyAccesses(*this, getResourceOperandAccesses());
}

LogicalResult CmdCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *symbol = symbolTable.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!symbol)
    return emitOpError() << "calls undefined function " << getCalleeAttr();
  if (!isa<CmdFuncOp>(symbol))
    return emitOpError() << "callee " << getCalleeAttr()
                         << " is not a stream.cmd.func";
  return success();
}

Value CmdCallOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value CmdCallOp::getResultSize(unsigned) { return {}; }

//===----------------------------------------------------------------------===//
// Transfer commands
//===----------------------------------------------------------------------===//

Value CmdCopyOp::getOperandSize(unsigned idx) {
  if (Value size = sizeIf(idx, getSourceMutable(), getSourceSize()))
    return size;
  return sizeIf(idx, getTargetMutable(), getTargetSize());
}
Value CmdCopyOp::getResultSize(unsigned) { return {}; }

Value CmdFillOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getTargetMutable(), getTargetSize());
}
Value CmdFillOp::getResultSize(unsigned) { return {}; }

Value CmdFlushOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getTargetMutable(), getTargetSize());
}
Value CmdFlushOp::getResultSize(unsigned) { return {}; }

Value CmdInvalidateOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getTargetMutable(), getTargetSize());
}
Value CmdInvalidateOp::getResultSize(unsigned) { return {}; }

Value CmdDiscardOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getTargetMutable(), getTargetSize());
}
Value CmdDiscardOp::getResultSize(unsigned) { return {}; }
