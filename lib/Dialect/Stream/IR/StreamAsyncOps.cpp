//===- StreamAsyncOps.cpp - async ops and execution regions ---------------===//
//
// Verifiers and interface methods of the ops in StreamAsyncOps.td.
//
//===----------------------------------------------------------------------===//

#include "StreamOpUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;
using namespace fleet::stream::detail;

/// Size of op operand `idx` when it is `operand`.
static Value sizeIf(unsigned idx, OpOperand &operand, Value size) {
  return idx == operand.getOperandNumber() ? size : Value();
}

//===----------------------------------------------------------------------===//
// Simple async ops
//===----------------------------------------------------------------------===//

// An uninitialized allocation is only storage: no device work to schedule.
bool AsyncAllocaOp::isMetadata() { return true; }
Value AsyncAllocaOp::getOperandSize(unsigned) { return {}; }
Value AsyncAllocaOp::getResultSize(unsigned idx) {
  return idx == 0 ? getStorageSize() : Value();
}

bool AsyncSplatOp::preferCloneToConsumers() { return true; }
Value AsyncSplatOp::getOperandSize(unsigned) { return {}; }
Value AsyncSplatOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}
ValueRange AsyncSplatOp::getAwaitTimepoints() {
  return OperandRange(getAwaitTimepointMutable());
}
void AsyncSplatOp::setAwaitTimepoints(ValueRange timepoints,
                                      OpBuilder &builder) {
  setOptionalAwait(*this, getAwaitTimepointMutable(), timepoints, builder);
}
Value AsyncSplatOp::getResultTimepoint() { return {}; }

Value AsyncCloneOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getSourceMutable(), getSourceSize());
}
Value AsyncCloneOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

Value AsyncSliceOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getSourceMutable(), getSourceSize());
}
Value AsyncSliceOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

std::optional<unsigned> AsyncFillOp::getTiedResultOperandIndex(unsigned) {
  return getTargetMutable().getOperandNumber();
}
Value AsyncFillOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getTargetMutable(), getTargetSize());
}
Value AsyncFillOp::getResultSize(unsigned idx) {
  return idx == 0 ? getTargetSize() : Value();
}

std::optional<unsigned> AsyncUpdateOp::getTiedResultOperandIndex(unsigned) {
  return getTargetMutable().getOperandNumber();
}
Value AsyncUpdateOp::getOperandSize(unsigned idx) {
  if (Value size = sizeIf(idx, getTargetMutable(), getTargetSize()))
    return size;
  return sizeIf(idx, getUpdateMutable(), getUpdateSize());
}
Value AsyncUpdateOp::getResultSize(unsigned idx) {
  return idx == 0 ? getTargetSize() : Value();
}

std::optional<unsigned> AsyncCopyOp::getTiedResultOperandIndex(unsigned) {
  return getTargetMutable().getOperandNumber();
}
Value AsyncCopyOp::getOperandSize(unsigned idx) {
  if (Value size = sizeIf(idx, getSourceMutable(), getSourceSize()))
    return size;
  return sizeIf(idx, getTargetMutable(), getTargetSize());
}
Value AsyncCopyOp::getResultSize(unsigned idx) {
  return idx == 0 ? getTargetSize() : Value();
}

bool AsyncConstantOp::preferCloneToConsumers() { return true; }
Value AsyncConstantOp::getOperandSize(unsigned) { return {}; }
Value AsyncConstantOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}
ValueRange AsyncConstantOp::getAwaitTimepoints() {
  return OperandRange(getAwaitTimepointMutable());
}
void AsyncConstantOp::setAwaitTimepoints(ValueRange timepoints,
                                         OpBuilder &builder) {
  setOptionalAwait(*this, getAwaitTimepointMutable(), timepoints, builder);
}
Value AsyncConstantOp::getResultTimepoint() { return {}; }

std::optional<unsigned> AsyncBarrierOp::getTiedResultOperandIndex(unsigned) {
  return getSourceMutable().getOperandNumber();
}
Value AsyncBarrierOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getSourceMutable(), getSize());
}
Value AsyncBarrierOp::getResultSize(unsigned idx) {
  return idx == 0 ? getSize() : Value();
}

Value AsyncLoadOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getSourceMutable(), getSourceSize());
}
Value AsyncLoadOp::getResultSize(unsigned) { return {}; }

std::optional<unsigned> AsyncStoreOp::getTiedResultOperandIndex(unsigned) {
  return getTargetMutable().getOperandNumber();
}
Value AsyncStoreOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getTargetMutable(), getTargetSize());
}
Value AsyncStoreOp::getResultSize(unsigned idx) {
  return idx == 0 ? getTargetSize() : Value();
}

//===----------------------------------------------------------------------===//
// stream.async.transfer
//===----------------------------------------------------------------------===//

Attribute AsyncTransferOp::getAffinityAttr() {
  if (Attribute execution = getExecutionAffinityAttr())
    return execution;
  // docs/ir-reference.md / docs/design.md §3: a staging or external source
  // executes on the target (the device side pulls); every other case, staging
  // to staging included, executes on the source (push).
  Lifetime source = cast<ResourceType>(getSource().getType()).getLifetime();
  Lifetime target = cast<ResourceType>(getResult().getType()).getLifetime();
  bool stagingToStaging =
      source == Lifetime::Staging && target == Lifetime::Staging;
  if (!stagingToStaging &&
      (source == Lifetime::Staging || source == Lifetime::External))
    return getTargetAffinityAttr();
  return getSourceAffinityAttr();
}

void AsyncTransferOp::setAffinityAttr(Attribute affinity) {
  setExecutionAffinityAttr(affinity);
}

Value AsyncTransferOp::getOperandSize(unsigned idx) {
  return sizeIf(idx, getSourceMutable(), getSourceSize());
}
Value AsyncTransferOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

//===----------------------------------------------------------------------===//
// stream.async.dispatch / stream.async.call
//===----------------------------------------------------------------------===//

/// Shared rules of dispatch and call: one size per resource operand and
/// result, one range (offset, end, length) per resource operand, valid ties.
template <typename OpT>
static LogicalResult verifyRangedOperands(OpT op) {
  OperandRange operands = op.getResourceOperands();
  unsigned resources = countResources(operands.getTypes());
  if (failed(verifySizedValueCount(op, "resource operand size",
                                   operands.getTypes(),
                                   op.getResourceOperandSizes())) ||
      failed(verifyValueCount(op, "resource range offset", resources,
                              op.getResourceOperandOffsets().size())) ||
      failed(verifyValueCount(op, "resource range end", resources,
                              op.getResourceOperandEnds().size())) ||
      failed(verifyValueCount(op, "resource range length", resources,
                              op.getResourceOperandLengths().size())) ||
      failed(verifySizedValueCount(op, "result size", op.getResultTypes(),
                                   op.getResultSizes())) ||
      failed(verifyTiedOperands(op, op.getTiedOperandsAttr(),
                                op.getResultTypes(), operands.getTypes())))
    return failure();
  return success();
}

LogicalResult AsyncDispatchOp::verify() {
  if (getEntryPoints().empty())
    return emitOpError() << "requires at least one entry point";
  return verifyRangedOperands(*this);
}

LogicalResult
AsyncDispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyDispatchEntryPoints(*this, getEntryPoints(), getWorkload(),
                                   symbolTable);
}

std::pair<unsigned, unsigned> AsyncDispatchOp::getTiedOperandsIndexAndLength() {
  OperandRange operands = getResourceOperands();
  return {operands.getBeginOperandIndex(), operands.size()};
}
Value AsyncDispatchOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value AsyncDispatchOp::getResultSize(unsigned idx) {
  return findValueSize(idx, getResultTypes(), getResultSizes());
}

LogicalResult AsyncCallOp::verify() { return verifyRangedOperands(*this); }

/// A callee `!stream.resource<*>` accepts a resource of any lifetime;
/// everything else must match exactly (docs/ir-reference.md, async.call).
static bool isCallTypeCompatible(Type calleeType, Type callType) {
  if (calleeType == callType)
    return true;
  auto calleeResource = dyn_cast<ResourceType>(calleeType);
  return calleeResource && isResource(callType) &&
         calleeResource.getLifetime() == Lifetime::Unknown;
}

LogicalResult AsyncCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *symbol = symbolTable.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!symbol)
    return emitOpError() << "calls undefined function " << getCalleeAttr();
  auto callee = dyn_cast<AsyncFuncOp>(symbol);
  if (!callee)
    return emitOpError() << "callee " << getCalleeAttr()
                         << " is not a stream.async.func";
  FunctionType type = callee.getFunctionType();
  OperandRange operands = getResourceOperands();
  if (type.getNumInputs() != operands.size())
    return emitOpError() << "passes " << operands.size()
                         << " operands but callee " << getCalleeAttr()
                         << " takes " << type.getNumInputs();
  if (type.getNumResults() != getNumResults())
    return emitOpError() << "has " << getNumResults()
                         << " results but callee " << getCalleeAttr()
                         << " returns " << type.getNumResults();
  for (auto [i, operand, expected] :
       llvm::enumerate(operands.getTypes(), type.getInputs()))
    if (!isCallTypeCompatible(expected, operand))
      return emitOpError() << "operand " << i << " has type " << operand
                           << " but callee " << getCalleeAttr() << " expects "
                           << expected;
  for (auto [i, result, expected] :
       llvm::enumerate(getResultTypes(), type.getResults()))
    if (!isCallTypeCompatible(expected, result))
      return emitOpError() << "result " << i << " has type " << result
                           << " but callee " << getCalleeAttr() << " returns "
                           << expected;
  return success();
}

std::pair<unsigned, unsigned> AsyncCallOp::getTiedOperandsIndexAndLength() {
  OperandRange operands = getResourceOperands();
  return {operands.getBeginOperandIndex(), operands.size()};
}
Value AsyncCallOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value AsyncCallOp::getResultSize(unsigned idx) {
  return findValueSize(idx, getResultTypes(), getResultSizes());
}

//===----------------------------------------------------------------------===//
// stream.async.func
//===----------------------------------------------------------------------===//

int64_t AsyncFuncOp::getTiedResultIndex(unsigned resultIndex) {
  return getTiedIndex(getTiedOperandsAttr(), resultIndex);
}

std::pair<unsigned, unsigned> AsyncFuncOp::getTiedOperandsIndexAndLength() {
  return {0, static_cast<unsigned>(getArgumentTypes().size())};
}

std::optional<unsigned>
AsyncFuncOp::getTiedResultOperandIndex(unsigned resultIndex) {
  int64_t index = getTiedResultIndex(resultIndex);
  if (index < 0 || index >= static_cast<int64_t>(getArgumentTypes().size()))
    return std::nullopt;
  return static_cast<unsigned>(index);
}

ParseResult AsyncFuncOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr visibility;
  StringAttr name;
  if (failed(parseSymbolVisibility(parser, visibility)) ||
      failed(parser.parseSymbolName(name)))
    return failure();
  SmallVector<OpAsmParser::Argument> arguments;
  if (failed(parser.parseArgumentList(arguments, OpAsmParser::Delimiter::Paren,
                                      /*allowType=*/true,
                                      /*allowAttrs=*/true)))
    return failure();
  SmallVector<UnresolvedOperand> argumentNames;
  SmallVector<Type> argumentTypes;
  for (OpAsmParser::Argument &argument : arguments) {
    argumentNames.push_back(argument.ssaName);
    argumentTypes.push_back(argument.type);
  }
  // Results print like util.func's: `T`, `%argN` or `%argN as T`, without
  // sizes (a declaration has no size values).
  SmallVector<Type> resultTypes;
  ArrayAttr tied;
  if (succeeded(parser.parseOptionalArrow()) &&
      failed(parseTiedFunctionResultList(parser, argumentNames, argumentTypes,
                                         resultTypes, tied)))
    return failure();
  NamedAttrList attrs;
  SMLoc attrLoc = parser.getCurrentLocation();
  if (failed(parser.parseOptionalAttrDictWithKeyword(attrs)))
    return failure();
  for (StringRef reserved : {"sym_name", "function_type", "sym_visibility",
                             "tied_operands"})
    if (attrs.get(reserved))
      return parser.emitError(attrLoc)
             << "'" << reserved << "' may not appear in the attribute dict";
  result.attributes.append(attrs);
  result.addAttribute(getSymNameAttrName(result.name), name);
  if (visibility)
    result.addAttribute(getSymVisibilityAttrName(result.name), visibility);
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(builder.getFunctionType(argumentTypes, resultTypes)));
  if (tied)
    result.addAttribute(getTiedOperandsAttrName(result.name), tied);
  call_interface_impl::addArgAndResultAttrs(
      builder, result, arguments, /*resultAttrs=*/{},
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
  result.addRegion();
  return success();
}

void AsyncFuncOp::print(OpAsmPrinter &p) {
  p << ' ';
  printSymbolVisibility(p, *this, getSymVisibilityAttr());
  p << ' ';
  p.printSymbolName(getSymName());
  ArrayRef<Type> argumentTypes = getArgumentTypes();
  ArrayAttr argAttrs = getArgAttrsAttr();
  p << '(';
  for (auto [i, type] : llvm::enumerate(argumentTypes)) {
    if (i)
      p << ", ";
    p << "%arg" << i << ": ";
    p.printType(type);
    if (argAttrs && i < argAttrs.size())
      if (auto dict = dyn_cast<DictionaryAttr>(argAttrs[i]))
        p.printOptionalAttrDict(dict.getValue());
  }
  p << ')';
  ArrayRef<Type> resultTypes = getResultTypes();
  if (!resultTypes.empty()) {
    p << " -> ";
    bool parens = resultTypes.size() != 1;
    if (parens)
      p << '(';
    for (auto [i, type] : llvm::enumerate(resultTypes)) {
      if (i)
        p << ", ";
      int64_t index = getTiedResultIndex(i);
      if (index >= 0 && static_cast<size_t>(index) < argumentTypes.size()) {
        p << "%arg" << index;
        if (argumentTypes[index] != type) {
          p << " as ";
          p.printType(type);
        }
      } else {
        p.printType(type);
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
}

LogicalResult AsyncFuncOp::verify() {
  if (!getBody().empty())
    return emitOpError() << "is a declaration and must not have a body";
  return verifyTiedOperands(*this, getTiedOperandsAttr(), getResultTypes(),
                            getArgumentTypes());
}

//===----------------------------------------------------------------------===//
// stream.async.execute / stream.async.concurrent / stream.yield
//===----------------------------------------------------------------------===//

/// Operand-side rules shared by execute and concurrent.
template <typename OpT>
static LogicalResult verifyResourceRegionOp(OpT op) {
  if (failed(verifySizedValueCount(op, "resource operand size",
                                   op.getResourceOperands().getTypes(),
                                   op.getResourceOperandSizes())) ||
      failed(verifySizedValueCount(op, "result size",
                                   op.getResults().getTypes(),
                                   op.getResultSizes())) ||
      failed(verifyTiedOperands(op, op.getTiedOperandsAttr(),
                                op.getResults().getTypes(),
                                op.getResourceOperands().getTypes())))
    return failure();
  return success();
}

template <typename OpT>
static LogicalResult verifyResourceRegion(OpT op) {
  if (failed(verifyCaptures(op, op.getBody(), op.getResourceOperands())) ||
      failed(verifyYield(op, op.getBody(), op.getResults().getTypes(),
                         op.getResultSizes())) ||
      failed(verifyCapturedResourceUses(op, op.getBody())))
    return failure();
  return success();
}

LogicalResult AsyncExecuteOp::verify() { return verifyResourceRegionOp(*this); }
LogicalResult AsyncExecuteOp::verifyRegions() {
  return verifyResourceRegion(*this);
}

ValueRange AsyncExecuteOp::getAwaitTimepoints() {
  return OperandRange(getAwaitTimepointMutable());
}
void AsyncExecuteOp::setAwaitTimepoints(ValueRange timepoints,
                                        OpBuilder &builder) {
  setOptionalAwait(*this, getAwaitTimepointMutable(), timepoints, builder);
}

std::pair<unsigned, unsigned> AsyncExecuteOp::getTiedOperandsIndexAndLength() {
  OperandRange operands = getResourceOperands();
  return {operands.getBeginOperandIndex(), operands.size()};
}
Value AsyncExecuteOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value AsyncExecuteOp::getResultSize(unsigned idx) {
  // The trailing timepoint is not size-aware, so it finds no size.
  return findValueSize(idx, getResultTypes(), getResultSizes());
}

LogicalResult AsyncConcurrentOp::verify() {
  return verifyResourceRegionOp(*this);
}
LogicalResult AsyncConcurrentOp::verifyRegions() {
  return verifyResourceRegion(*this);
}

std::pair<unsigned, unsigned>
AsyncConcurrentOp::getTiedOperandsIndexAndLength() {
  OperandRange operands = getResourceOperands();
  return {operands.getBeginOperandIndex(), operands.size()};
}
Value AsyncConcurrentOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value AsyncConcurrentOp::getResultSize(unsigned idx) {
  return findValueSize(idx, getResultTypes(), getResultSizes());
}

LogicalResult YieldOp::verify() {
  return verifySizedValueCount(*this, "resource size",
                               getResourceOperands().getTypes(),
                               getResourceOperandSizes());
}

Value YieldOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value YieldOp::getResultSize(unsigned) { return {}; }

//===----------------------------------------------------------------------===//
// Result names (IREE's, docs/ir-reference.md "Result names")
//===----------------------------------------------------------------------===//

void AsyncConstantOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "cst");
}
