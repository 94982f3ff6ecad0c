//===- StreamTensorOps.cpp - tensor boundary and tensor-phase ops ---------===//
//
// Verifiers and interface methods of the ops in StreamTensorOps.td. The dim
// and size count rules are docs/ir-reference.md "General syntax rules".
//
//===----------------------------------------------------------------------===//

#include "StreamOpUtils.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;
using namespace fleet::stream::detail;

static unsigned getRank(Type encoding) {
  auto tensor = dyn_cast<RankedTensorType>(encoding);
  return tensor ? tensor.getRank() : 0;
}

//===----------------------------------------------------------------------===//
// stream.tensor.import / stream.tensor.export
//===----------------------------------------------------------------------===//

LogicalResult TensorImportOp::verify() {
  return verifyEncoding(*this, "result_encoding", getResultEncoding(),
                        getResultEncodingDims());
}

std::optional<unsigned> TensorImportOp::getTiedResultOperandIndex(unsigned) {
  return getSourceMutable().getOperandNumber();
}

Value TensorImportOp::getOperandSize(unsigned) { return {}; }

Value TensorImportOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

LogicalResult TensorExportOp::verify() {
  return verifyEncoding(*this, "source_encoding", getSourceEncoding(),
                        getSourceEncodingDims());
}

bool TensorExportOp::pinsOperandPlacement() { return true; }

std::optional<unsigned> TensorExportOp::getTiedResultOperandIndex(unsigned) {
  return getSourceMutable().getOperandNumber();
}

Value TensorExportOp::getOperandSize(unsigned idx) {
  return idx == getSourceMutable().getOperandNumber() ? getSourceSize()
                                                      : Value();
}

Value TensorExportOp::getResultSize(unsigned) { return {}; }

//===----------------------------------------------------------------------===//
// stream.tensor.sizeof
//===----------------------------------------------------------------------===//

ParseResult TensorSizeOfOp::parse(OpAsmParser &parser,
                                  OperationState &result) {
  Attribute affinity;
  if (succeeded(parser.parseOptionalKeyword("on"))) {
    if (failed(parser.parseLParen()) || failed(parser.parseAttribute(affinity)) ||
        failed(parser.parseRParen()))
      return failure();
  }
  Type encoding;
  SmallVector<OpAsmParser::UnresolvedOperand> dims;
  NamedAttrList attrs;
  Type resultType;
  if (failed(parseEncodingDimsAndAttrDict(parser, encoding, dims, attrs)) ||
      failed(parser.parseColonType(resultType)) ||
      failed(parser.resolveOperands(dims, parser.getBuilder().getIndexType(),
                                    result.operands)))
    return failure();
  result.attributes.append(attrs);
  // Inherent attributes move into the op's properties on creation.
  result.attributes.set(getEncodingAttrName(result.name),
                        TypeAttr::get(encoding));
  if (affinity)
    result.attributes.set(getAffinityAttrName(result.name), affinity);
  result.addTypes(resultType);
  return success();
}

void TensorSizeOfOp::print(OpAsmPrinter &p) {
  if (Attribute affinity = getAffinityAttr()) {
    p << " on(";
    p.printAttribute(affinity);
    p << ")";
  }
  p << " ";
  p.printType(getEncoding());
  printBracedOperands(p, getEncodingDims());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getEncodingAttrName(), getAffinityAttrName()});
  p << " : ";
  p.printType(getType());
}

LogicalResult TensorSizeOfOp::verify() {
  return verifyEncoding(*this, "encoding", getEncoding(), getEncodingDims());
}

//===----------------------------------------------------------------------===//
// stream.tensor.empty / constant / splat / clone / slice
//===----------------------------------------------------------------------===//

LogicalResult TensorEmptyOp::verify() {
  return verifyEncoding(*this, "result_encoding", getResultEncoding(),
                        getResultEncodingDims());
}

Value TensorEmptyOp::getOperandSize(unsigned) { return {}; }
Value TensorEmptyOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

LogicalResult TensorConstantOp::verify() {
  return verifyEncoding(*this, "result_encoding", getResultEncoding(),
                        getResultEncodingDims());
}

bool TensorConstantOp::preferCloneToConsumers() { return true; }
Value TensorConstantOp::getOperandSize(unsigned) { return {}; }
// The resource size is not spelled out until encodings are resolved.
Value TensorConstantOp::getResultSize(unsigned) { return {}; }

LogicalResult TensorSplatOp::verify() {
  return verifyEncoding(*this, "result_encoding", getResultEncoding(),
                        getResultEncodingDims());
}

bool TensorSplatOp::preferCloneToConsumers() { return true; }
Value TensorSplatOp::getOperandSize(unsigned) { return {}; }
Value TensorSplatOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

LogicalResult TensorCloneOp::verify() {
  if (failed(verifyEncoding(*this, "source_encoding", getSourceEncoding(),
                            getSourceEncodingDims())) ||
      failed(verifyEncoding(*this, "result_encoding", getResultEncoding(),
                            getResultEncodingDims())))
    return failure();
  // Shapes may differ but a clone never changes the encoding attribute.
  Attribute sourceEncoding =
      cast<RankedTensorType>(getSourceEncoding()).getEncoding();
  Attribute resultEncoding =
      cast<RankedTensorType>(getResultEncoding()).getEncoding();
  if (sourceEncoding != resultEncoding)
    return emitOpError() << "source encoding " << getSourceEncoding()
                         << " and result encoding " << getResultEncoding()
                         << " have different encoding attributes";
  return success();
}

Value TensorCloneOp::getOperandSize(unsigned idx) {
  return idx == getSourceMutable().getOperandNumber() ? getSourceSize()
                                                      : Value();
}
Value TensorCloneOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

LogicalResult TensorSliceOp::verify() {
  if (failed(verifyEncoding(*this, "source_encoding", getSourceEncoding(),
                            getSourceEncodingDims())) ||
      failed(verifyEncoding(*this, "result_encoding", getResultEncoding(),
                            getResultEncodingDims())))
    return failure();
  unsigned rank = getRank(getSourceEncoding());
  if (failed(verifyValueCount(*this, "start index", rank,
                              getStartIndices().size())) ||
      failed(verifyValueCount(*this, "length", rank, getLengths().size())))
    return failure();
  return success();
}

Value TensorSliceOp::getOperandSize(unsigned idx) {
  return idx == getSourceMutable().getOperandNumber() ? getSourceSize()
                                                      : Value();
}
Value TensorSliceOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

//===----------------------------------------------------------------------===//
// stream.tensor.fill / update / load / store
//===----------------------------------------------------------------------===//

LogicalResult TensorFillOp::verify() {
  if (failed(verifyEncoding(*this, "target_encoding", getTargetEncoding(),
                            getTargetEncodingDims())))
    return failure();
  // `[starts for lengths]` is optional: absent means the whole tensor.
  if (getStartIndices().empty() && getLengths().empty())
    return success();
  unsigned rank = getRank(getTargetEncoding());
  if (failed(verifyValueCount(*this, "start index", rank,
                              getStartIndices().size())) ||
      failed(verifyValueCount(*this, "length", rank, getLengths().size())))
    return failure();
  return success();
}

std::optional<unsigned> TensorFillOp::getTiedResultOperandIndex(unsigned) {
  return getTargetMutable().getOperandNumber();
}
Value TensorFillOp::getOperandSize(unsigned idx) {
  return idx == getTargetMutable().getOperandNumber() ? getTargetSize()
                                                      : Value();
}
Value TensorFillOp::getResultSize(unsigned idx) {
  return idx == 0 ? getTargetSize() : Value();
}

LogicalResult TensorUpdateOp::verify() {
  if (failed(verifyEncoding(*this, "target_encoding", getTargetEncoding(),
                            getTargetEncodingDims())) ||
      failed(verifyEncoding(*this, "update_encoding", getUpdateEncoding(),
                            getUpdateEncodingDims())))
    return failure();
  return verifyValueCount(*this, "start index", getRank(getTargetEncoding()),
                          getStartIndices().size());
}

std::optional<unsigned> TensorUpdateOp::getTiedResultOperandIndex(unsigned) {
  return getTargetMutable().getOperandNumber();
}
Value TensorUpdateOp::getOperandSize(unsigned idx) {
  if (idx == getTargetMutable().getOperandNumber())
    return getTargetSize();
  if (idx == getUpdateMutable().getOperandNumber())
    return getUpdateSize();
  return {};
}
Value TensorUpdateOp::getResultSize(unsigned idx) {
  return idx == 0 ? getTargetSize() : Value();
}

LogicalResult TensorLoadOp::verify() {
  if (failed(verifyEncoding(*this, "source_encoding", getSourceEncoding(),
                            getSourceEncodingDims())))
    return failure();
  return verifyValueCount(*this, "index", getRank(getSourceEncoding()),
                          getIndices().size());
}

Value TensorLoadOp::getOperandSize(unsigned idx) {
  return idx == getSourceMutable().getOperandNumber() ? getSourceSize()
                                                      : Value();
}
Value TensorLoadOp::getResultSize(unsigned) { return {}; }

LogicalResult TensorStoreOp::verify() {
  if (failed(verifyEncoding(*this, "target_encoding", getTargetEncoding(),
                            getTargetEncodingDims())))
    return failure();
  return verifyValueCount(*this, "index", getRank(getTargetEncoding()),
                          getIndices().size());
}

std::optional<unsigned> TensorStoreOp::getTiedResultOperandIndex(unsigned) {
  return getTargetMutable().getOperandNumber();
}
Value TensorStoreOp::getOperandSize(unsigned idx) {
  return idx == getTargetMutable().getOperandNumber() ? getTargetSize()
                                                      : Value();
}
Value TensorStoreOp::getResultSize(unsigned idx) {
  return idx == 0 ? getTargetSize() : Value();
}

//===----------------------------------------------------------------------===//
// stream.tensor.dispatch
//===----------------------------------------------------------------------===//

LogicalResult TensorDispatchOp::verify() {
  if (getEntryPoints().empty())
    return emitOpError() << "requires at least one entry point";
  OperandRange operands = getMixedOperands();
  ArrayAttr operandEncodings = getOperandEncodings();
  if (failed(verifyValueCount(*this, "operand encoding", operands.size(),
                              operandEncodings.size())))
    return failure();
  unsigned operandDims = 0;
  for (auto [i, operand, attr] : llvm::enumerate(operands, operandEncodings)) {
    Type encoding = cast<TypeAttr>(attr).getValue();
    if (!isResource(operand.getType())) {
      // A primitive operand is written with its type only.
      if (encoding != operand.getType())
        return emitOpError() << "operand " << i << " is a primitive of type "
                             << operand.getType() << " but its encoding is "
                             << encoding;
      continue;
    }
    if (!isa<RankedTensorType>(encoding))
      return emitOpError() << "operand " << i
                           << " encoding must be a ranked tensor type, got "
                           << encoding;
    operandDims += getDynamicDimCount(encoding);
  }
  if (failed(verifyValueCount(*this, "operand encoding dimension",
                              operandDims, getOperandEncodingDims().size())) ||
      failed(verifySizedValueCount(*this, "operand size", operands.getTypes(),
                                   getOperandSizes())))
    return failure();

  ArrayAttr resultEncodings = getResultEncodings();
  if (failed(verifyValueCount(*this, "result encoding", getNumResults(),
                              resultEncodings.size())))
    return failure();
  unsigned resultDims = 0;
  for (auto [i, attr] : llvm::enumerate(resultEncodings)) {
    Type encoding = cast<TypeAttr>(attr).getValue();
    if (!isa<RankedTensorType>(encoding))
      return emitOpError() << "result " << i
                           << " encoding must be a ranked tensor type, got "
                           << encoding;
    resultDims += getDynamicDimCount(encoding);
  }
  if (failed(verifyValueCount(*this, "result encoding dimension", resultDims,
                              getResultEncodingDims().size())) ||
      failed(verifySizedValueCount(*this, "result size", getResultTypes(),
                                   getResultSizes())) ||
      failed(verifyTiedOperands(*this, getTiedOperandsAttr(),
                                getResultTypes(), operands.getTypes())))
    return failure();
  // A tied result reuses the operand's storage, so it has its encoding.
  for (unsigned i = 0; i < getNumResults(); ++i) {
    int64_t index = getTiedIndex(getTiedOperandsAttr(), i);
    if (index < 0)
      continue;
    Attribute operandEncoding = operandEncodings[index];
    if (resultEncodings[i] != operandEncoding)
      return emitOpError() << "result " << i << " is tied to operand " << index
                           << " but its encoding "
                           << cast<TypeAttr>(resultEncodings[i]).getValue()
                           << " differs from the operand's "
                           << cast<TypeAttr>(operandEncoding).getValue();
  }
  return success();
}

LogicalResult
TensorDispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyDispatchEntryPoints(*this, getEntryPoints(), getWorkload(),
                                   symbolTable);
}

std::pair<unsigned, unsigned> TensorDispatchOp::getTiedOperandsIndexAndLength() {
  OperandRange operands = getMixedOperands();
  return {operands.getBeginOperandIndex(), operands.size()};
}

Value TensorDispatchOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getMixedOperands(), getOperandSizes());
}

Value TensorDispatchOp::getResultSize(unsigned idx) {
  return findValueSize(idx, getResultTypes(), getResultSizes());
}

//===----------------------------------------------------------------------===//
// Result names (IREE's, docs/ir-reference.md "Result names")
//===----------------------------------------------------------------------===//

void TensorEmptyOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "empty");
}

void TensorConstantOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "cst");
}
