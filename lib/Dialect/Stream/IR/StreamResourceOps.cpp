//===- StreamResourceOps.cpp - timepoint and resource ops -----------------===//
//
// Verifiers, folds and interface methods of the ops in StreamResourceOps.td.
//
//===----------------------------------------------------------------------===//

#include "StreamOpUtils.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;
using namespace fleet::stream::detail;

static bool isImmediate(Attribute attr) {
  return isa_and_nonnull<TimepointAttr>(attr);
}

//===----------------------------------------------------------------------===//
// stream.timepoint.immediate
//===----------------------------------------------------------------------===//

OpFoldResult TimepointImmediateOp::fold(FoldAdaptor) {
  return TimepointAttr::get(getContext());
}

ValueRange TimepointImmediateOp::getAwaitTimepoints() { return {}; }
void TimepointImmediateOp::setAwaitTimepoints(ValueRange, OpBuilder &) {}

//===----------------------------------------------------------------------===//
// stream.timepoint.await
//===----------------------------------------------------------------------===//

LogicalResult TimepointAwaitOp::verify() {
  OperandRange operands = getResourceOperands();
  if (operands.size() != getNumResults())
    return emitOpError() << "has " << getNumResults() << " results for "
                         << operands.size() << " resource operands";
  for (auto [i, operand, type] :
       llvm::enumerate(operands.getTypes(), getResultTypes()))
    if (operand != type)
      return emitOpError() << "result " << i << " has type " << type
                           << " but its operand has type " << operand;
  return verifySizedValueCount(*this, "resource size", operands.getTypes(),
                               getResourceOperandSizes());
}

LogicalResult TimepointAwaitOp::fold(FoldAdaptor adaptor,
                                     SmallVectorImpl<OpFoldResult> &results) {
  // Waiting for an already reached timepoint is a no-op: the results are
  // the operands.
  if (!isImmediate(adaptor.getAwaitTimepoint()) ||
      getResourceOperands().size() != getNumResults())
    return failure();
  for (Value operand : getResourceOperands())
    results.push_back(operand);
  return success();
}

ValueRange TimepointAwaitOp::getAwaitTimepoints() {
  return OperandRange(&getAwaitTimepointMutable(), 1);
}
void TimepointAwaitOp::setAwaitTimepoints(ValueRange timepoints,
                                          OpBuilder &builder) {
  // The await operand is required: an empty list waits for nothing, which
  // is an immediate timepoint.
  Value joined = joinTimepoints(builder, getLoc(), timepoints);
  if (!joined)
    joined = TimepointImmediateOp::create(builder, getLoc(),
                                          builder.getType<TimepointType>());
  getAwaitTimepointMutable().assign(joined);
}
Value TimepointAwaitOp::getResultTimepoint() { return {}; }

std::optional<unsigned>
TimepointAwaitOp::getTiedResultOperandIndex(unsigned resultIndex) {
  OperandRange operands = getResourceOperands();
  if (resultIndex >= operands.size())
    return std::nullopt;
  return operands.getBeginOperandIndex() + resultIndex;
}
Value TimepointAwaitOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value TimepointAwaitOp::getResultSize(unsigned idx) {
  return findValueSize(idx, getResultTypes(), getResourceOperandSizes());
}

//===----------------------------------------------------------------------===//
// stream.timepoint.join
//===----------------------------------------------------------------------===//

OpFoldResult TimepointJoinOp::fold(FoldAdaptor adaptor) {
  // Joining one timepoint is that timepoint; joining none or only reached
  // ones is reached already.
  if (getAwaitTimepoints().size() == 1)
    return getAwaitTimepoints().front();
  if (llvm::all_of(adaptor.getAwaitTimepoints(), isImmediate))
    return TimepointAttr::get(getContext());
  return {};
}

void TimepointJoinOp::setAwaitTimepoints(ValueRange timepoints, OpBuilder &) {
  getAwaitTimepointsMutable().assign(timepoints);
}

//===----------------------------------------------------------------------===//
// stream.timepoint.barrier / export / import / chain_external
//===----------------------------------------------------------------------===//

ValueRange TimepointBarrierOp::getAwaitTimepoints() { return {}; }
void TimepointBarrierOp::setAwaitTimepoints(ValueRange, OpBuilder &) {}

std::optional<unsigned> TimepointBarrierOp::getTiedResultOperandIndex(unsigned) {
  return getResourceMutable().getOperandNumber();
}
Value TimepointBarrierOp::getOperandSize(unsigned idx) {
  return idx == getResourceMutable().getOperandNumber() ? getResourceSize()
                                                        : Value();
}
Value TimepointBarrierOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResourceSize() : Value();
}

ValueRange TimepointExportOp::getAwaitTimepoints() {
  return OperandRange(&getAwaitTimepointMutable(), 1);
}
void TimepointExportOp::setAwaitTimepoints(ValueRange timepoints,
                                           OpBuilder &builder) {
  Value joined = joinTimepoints(builder, getLoc(), timepoints);
  if (!joined)
    joined = TimepointImmediateOp::create(builder, getLoc(),
                                          builder.getType<TimepointType>());
  getAwaitTimepointMutable().assign(joined);
}
Value TimepointExportOp::getResultTimepoint() { return {}; }

ValueRange TimepointImportOp::getAwaitTimepoints() { return {}; }
void TimepointImportOp::setAwaitTimepoints(ValueRange, OpBuilder &) {}

ValueRange TimepointChainExternalOp::getAwaitTimepoints() {
  return OperandRange(&getAwaitTimepointMutable(), 1);
}
void TimepointChainExternalOp::setAwaitTimepoints(ValueRange timepoints,
                                                  OpBuilder &builder) {
  Value joined = joinTimepoints(builder, getLoc(), timepoints);
  if (!joined)
    joined = TimepointImmediateOp::create(builder, getLoc(),
                                          builder.getType<TimepointType>());
  getAwaitTimepointMutable().assign(joined);
}
Value TimepointChainExternalOp::getResultTimepoint() { return {}; }

//===----------------------------------------------------------------------===//
// stream.resource.alloca / dealloca
//===----------------------------------------------------------------------===//

ValueRange ResourceAllocaOp::getAwaitTimepoints() {
  return OperandRange(getAwaitTimepointMutable());
}
void ResourceAllocaOp::setAwaitTimepoints(ValueRange timepoints,
                                          OpBuilder &builder) {
  setOptionalAwait(*this, getAwaitTimepointMutable(), timepoints, builder);
}
Value ResourceAllocaOp::getOperandSize(unsigned) { return {}; }
Value ResourceAllocaOp::getResultSize(unsigned idx) {
  return idx == 0 ? getStorageSize() : Value();
}

ValueRange ResourceDeallocaOp::getAwaitTimepoints() {
  return OperandRange(getAwaitTimepointMutable());
}
void ResourceDeallocaOp::setAwaitTimepoints(ValueRange timepoints,
                                            OpBuilder &builder) {
  setOptionalAwait(*this, getAwaitTimepointMutable(), timepoints, builder);
}
Value ResourceDeallocaOp::getOperandSize(unsigned idx) {
  return idx == getOperandMutable().getOperandNumber() ? getOperandSize()
                                                       : Value();
}
Value ResourceDeallocaOp::getResultSize(unsigned) { return {}; }

//===----------------------------------------------------------------------===//
// Other resource ops
//===----------------------------------------------------------------------===//

Value ResourceSizeOp::getOperandSize(unsigned) { return {}; }
Value ResourceSizeOp::getResultSize(unsigned) { return {}; }

Value ResourceAllocOp::getOperandSize(unsigned) { return {}; }
Value ResourceAllocOp::getResultSize(unsigned idx) {
  return idx == 0 ? getStorageSize() : Value();
}

std::optional<unsigned> ResourceSubviewOp::getTiedResultOperandIndex(unsigned) {
  return getSourceMutable().getOperandNumber();
}
Value ResourceSubviewOp::getOperandSize(unsigned idx) {
  return idx == getSourceMutable().getOperandNumber() ? getSourceSize()
                                                      : Value();
}
Value ResourceSubviewOp::getResultSize(unsigned idx) {
  return idx == 0 ? getResultSize() : Value();
}

Value ResourceLoadOp::getOperandSize(unsigned idx) {
  return idx == getSourceMutable().getOperandNumber() ? getSourceSize()
                                                      : Value();
}
Value ResourceLoadOp::getResultSize(unsigned) { return {}; }

Value ResourceStoreOp::getOperandSize(unsigned idx) {
  return idx == getTargetMutable().getOperandNumber() ? getTargetSize()
                                                      : Value();
}
Value ResourceStoreOp::getResultSize(unsigned) { return {}; }

// The source is a `!util.buffer` whose size is not an operand here.
Value ResourceTryMapOp::getOperandSize(unsigned) { return {}; }
Value ResourceTryMapOp::getResultSize(unsigned idx) {
  return idx == 1 ? getResultSize() : Value();
}

LogicalResult ResourcePackOp::verify() {
  // Each slice has two lifetime bounds, one size and one offset result.
  size_t slices = getDynamicSliceSizes().size();
  if (getLifetimeIntervals().size() != 2 * slices)
    return emitOpError() << "has " << getLifetimeIntervals().size()
                         << " lifetime bounds for " << slices
                         << " slices (expected two per slice)";
  return verifyValueCount(*this, "packed offset", slices,
                          getPackedOffsets().size());
}
