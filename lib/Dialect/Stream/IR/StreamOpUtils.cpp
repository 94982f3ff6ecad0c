//===- StreamOpUtils.cpp - helpers shared by the stream op files ----------===//

#include "StreamOpUtils.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace fleet::stream::detail {

unsigned countResources(TypeRange types) {
  return llvm::count_if(types, isResource);
}

LogicalResult verifyEncoding(Operation *op, StringRef name, Type encoding,
                             ValueRange dims) {
  // docs/ir-reference.md: `enc` is a ranked tensor type giving the logical
  // shape.
  if (!isa<RankedTensorType>(encoding))
    return op->emitOpError() << name << " must be a ranked tensor type, got "
                             << encoding;
  return verifyValueCount(op, (Twine(name) + " dimension").str(),
                          getDynamicDimCount(encoding), dims.size());
}

LogicalResult verifyTiedOperands(Operation *op, ArrayAttr tied,
                                 TypeRange results, TypeRange tieable) {
  if (!tied)
    return success();
  unsigned numResults = results.size();
  if (tied.size() != numResults)
    return op->emitOpError() << "tied_operands has " << tied.size()
                             << " entries but the op has " << numResults
                             << " tieable results";
  for (unsigned i = 0; i < numResults; ++i) {
    int64_t index = getTiedIndex(tied, i);
    if (index < 0)
      continue;
    if (static_cast<size_t>(index) >= tieable.size())
      return op->emitOpError() << "result " << i << " is tied to operand "
                               << index << ", which does not exist";
    if (!isResource(tieable[index]))
      return op->emitOpError() << "result " << i << " is tied to operand "
                               << index << ", which is not a resource";
    if (!isResource(results[i]))
      return op->emitOpError() << "result " << i << " is tied to operand "
                               << index << " but is not a resource";
  }
  return success();
}

Value findValueSize(unsigned index, TypeRange types, ValueRange sizes) {
  if (index >= types.size() ||
      !isa<util::SizeAwareTypeInterface>(types[index]))
    return {};
  unsigned position = 0;
  for (unsigned i = 0; i < index; ++i)
    if (isa<util::SizeAwareTypeInterface>(types[i]))
      ++position;
  return position < sizes.size() ? sizes[position] : Value();
}

Value findOperandSize(unsigned operandIndex, OperandRange values,
                      ValueRange sizes) {
  unsigned begin = values.getBeginOperandIndex();
  if (operandIndex < begin || operandIndex >= begin + values.size())
    return {};
  return findValueSize(operandIndex - begin, values.getTypes(), sizes);
}

LogicalResult verifyDispatchEntryPoints(
    Operation *op, ArrayAttr entryPoints, ValueRange workload,
    SymbolTableCollection &symbolTable,
    llvm::function_ref<LogicalResult(ExecutableExportOp)> check) {
  for (Attribute attr : entryPoints) {
    auto ref = cast<SymbolRefAttr>(attr);
    auto exportOp =
        symbolTable.lookupNearestSymbolFrom<ExecutableExportOp>(op, ref);
    // As IREE: an entry point is checked only when it resolves; a dispatch
    // to an executable (or export) not in the module verifies, and
    // StreamToHAL reports it (docs/ir-reference.md "Unresolved dispatches").
    if (!exportOp)
      continue;
    Region &workgroups = exportOp.getWorkgroupCount();
    if (!workgroups.empty()) {
      // The workload feeds the workgroups region's arguments.
      auto arguments = workgroups.getArguments();
      if (arguments.size() != workload.size())
        return op->emitOpError()
               << "workload count mismatch: entry point " << ref
               << " expects " << arguments.size() << ", got "
               << workload.size();
      for (auto [i, argument, value] : llvm::enumerate(arguments, workload))
        if (argument.getType() != value.getType())
          return op->emitOpError()
                 << "workload " << i << " has type " << value.getType()
                 << " but entry point " << ref << " expects "
                 << argument.getType();
    }
    if (check && failed(check(exportOp)))
      return failure();
  }
  return success();
}

LogicalResult verifyCaptures(Operation *op, Region &body,
                             ValueRange operands) {
  if (body.empty())
    return op->emitOpError() << "requires a body block";
  Block &entry = body.front();
  if (entry.getNumArguments() != operands.size())
    return op->emitOpError() << "body has " << entry.getNumArguments()
                             << " arguments but " << operands.size()
                             << " resources are captured";
  for (auto [i, argument, operand] :
       llvm::enumerate(entry.getArguments(), operands))
    if (argument.getType() != operand.getType())
      return op->emitOpError() << "capture " << i << " has type "
                               << operand.getType()
                               << " but its body argument has type "
                               << argument.getType();
  return success();
}

LogicalResult verifyCapturedResourceUses(Operation *op, Region &body) {
  LogicalResult result = success();
  body.walk([&](Operation *nested) {
    for (OpOperand &use : nested->getOpOperands()) {
      Value value = use.get();
      if (!isResource(value.getType()) ||
          body.isAncestor(value.getParentRegion()))
        continue;
      InFlightDiagnostic diag =
          op->emitOpError() << "body uses a resource that is not captured "
                            << "(operand " << use.getOperandNumber() << " of '"
                            << nested->getName() << "')";
      diag.attachNote(nested->getLoc()) << "used here";
      result = failure();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result;
}

LogicalResult verifyYield(Operation *op, Region &body, TypeRange results,
                          ValueRange resultSizes) {
  if (body.empty() || body.front().empty() ||
      !isa<YieldOp>(body.front().back()))
    return op->emitOpError() << "body must end in stream.yield";
  auto yield = cast<YieldOp>(body.front().back());
  auto yielded = yield.getResourceOperands();
  if (yielded.size() != results.size())
    return yield.emitOpError()
           << "yields " << yielded.size() << " resources but the parent has "
           << results.size() << " results";
  for (auto [i, value, type] : llvm::enumerate(yielded, results))
    if (value.getType() != type)
      return yield.emitOpError() << "resource " << i << " has type "
                                 << value.getType()
                                 << " but the parent result has type " << type;
  auto sizes = yield.getResourceOperandSizes();
  if (sizes.size() != resultSizes.size())
    return yield.emitOpError() << "yields " << sizes.size()
                               << " sizes but the parent has "
                               << resultSizes.size() << " result sizes";
  for (auto [i, size, expected] : llvm::enumerate(sizes, resultSizes))
    if (size != expected)
      return yield.emitOpError()
             << "size " << i
             << " is not the parent's result size value for that result";
  return success();
}

LogicalResult verifyStreamableBody(Operation *op, Region &body) {
  if (body.empty())
    return op->emitOpError() << "requires a body block";
  for (Operation &nested : body.front()) {
    if (isa<StreamableOpInterface, YieldOp>(nested))
      continue;
    return nested.emitOpError()
           << "is not allowed in '" << op->getName()
           << "': the body holds only streamable (stream command) ops";
  }
  return success();
}

void setOptionalAwait(Operation *op, MutableOperandRange await,
                      ValueRange timepoints, OpBuilder &builder) {
  Value joined = joinTimepoints(builder, op->getLoc(), timepoints);
  if (joined)
    await.assign(joined);
  else
    await.clear();
}

} // namespace fleet::stream::detail

Value fleet::stream::joinTimepoints(OpBuilder &builder, Location loc,
                                    ValueRange timepoints) {
  if (timepoints.empty())
    return {};
  if (timepoints.size() == 1)
    return timepoints.front();
  return TimepointJoinOp::create(builder, loc,
                                 builder.getType<TimepointType>(), timepoints)
      .getResultTimepoint();
}
