//===- StreamExecutableOps.cpp - executables, dispatch-side and test ops --===//
//
// Verifiers and interface methods of the ops in StreamExecutableOps.td.
//
//===----------------------------------------------------------------------===//

#include "StreamOpUtils.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;
using namespace fleet::stream::detail;

//===----------------------------------------------------------------------===//
// stream.executable / stream.executable.export
//===----------------------------------------------------------------------===//

ModuleOp ExecutableOp::getInnerModule() {
  if (getBody().empty())
    return {};
  auto modules = getBody().front().getOps<ModuleOp>();
  return modules.empty() ? ModuleOp() : *modules.begin();
}

LogicalResult ExecutableOp::verify() {
  if (getBody().empty())
    return success(); // SizedRegion<1> reports the missing block
  auto modules = getBody().front().getOps<ModuleOp>();
  if (std::distance(modules.begin(), modules.end()) > 1)
    return emitOpError() << "holds more than one inner builtin.module";
  return success();
}

FunctionOpInterface ExecutableExportOp::lookupFunction() {
  auto executable = dyn_cast_or_null<ExecutableOp>((*this)->getParentOp());
  if (!executable)
    return {};
  ModuleOp module = executable.getInnerModule();
  if (!module)
    return {};
  return dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(module, getFunctionRefAttr().getAttr()));
}

LogicalResult ExecutableExportOp::verifyRegions() {
  Region &region = getWorkgroupCount();
  if (region.empty())
    return success();
  if (!region.hasOneBlock())
    return emitOpError() << "workgroups region must have one block";
  Block &block = region.front();
  if (block.empty() || !isa<ReturnOp>(block.back()))
    return emitOpError() << "workgroups region must end in stream.return";
  return success();
}

//===----------------------------------------------------------------------===//
// stream.binding.subspan / stream.return
//===----------------------------------------------------------------------===//

LogicalResult BindingSubspanOp::verify() {
  return verifyValueCount(*this, "dynamic dimension",
                          getDynamicDimCount(getType()),
                          getDynamicDims().size());
}

LogicalResult ReturnOp::verify() {
  // The workgroups region computes the (x, y, z) workgroup count.
  if (getNumOperands() != 3 ||
      !llvm::all_of(getOperandTypes(), [](Type t) { return t.isIndex(); }))
    return emitOpError() << "must return three index values (the workgroup "
                         << "count), got " << getNumOperands() << " values";
  return success();
}

//===----------------------------------------------------------------------===//
// stream.dispatch.workgroup.id / count / size
//===----------------------------------------------------------------------===//

/// Dimension in [0, 2]; the op sits in a function of the inner module of a
/// stream.executable.
static LogicalResult emitNotInKernel(Operation *op) {
  return op->emitOpError()
         << "is only valid inside a function of a stream.executable's inner "
            "module (or of a hal.executable.variant's)";
}

static LogicalResult verifyWorkgroupQuery(Operation *op, APInt dimension) {
  if (dimension.isNegative() || dimension.uge(3))
    return op->emitOpError() << "dimension " << dimension.getSExtValue()
                             << " is out of range [0, 2]";
  auto function = op->getParentOfType<FunctionOpInterface>();
  Operation *module = function ? function->getParentOp() : nullptr;
  if (!function || !isa_and_nonnull<ModuleOp>(module))
    return emitNotInKernel(op);
  // The kernel module lives in a stream.executable, then (after StreamToHAL,
  // unchanged) in a hal.executable.variant; kernel codegen also compiles it
  // alone, as a top-level module of `func.func`s (fleet/Codegen).
  Operation *container = module->getParentOp();
  if (isa_and_nonnull<ExecutableOp>(container) ||
      (container &&
       container->getName().getStringRef() == "hal.executable.variant") ||
      (!container && function->getName().getStringRef() == "func.func"))
    return success();
  return emitNotInKernel(op);
}

LogicalResult DispatchWorkgroupIDOp::verify() {
  return verifyWorkgroupQuery(*this, getDimension());
}
LogicalResult DispatchWorkgroupCountOp::verify() {
  return verifyWorkgroupQuery(*this, getDimension());
}
LogicalResult DispatchWorkgroupSizeOp::verify() {
  return verifyWorkgroupQuery(*this, getDimension());
}

//===----------------------------------------------------------------------===//
// stream.test.timeline_op
//===----------------------------------------------------------------------===//

LogicalResult TestTimelineOp::verify() {
  if (std::optional<uint64_t> limit = getAwaitLimit())
    if (getAwaitTimepoints().size() > *limit)
      return emitOpError() << "awaits " << getAwaitTimepoints().size()
                           << " timepoints but await_limit is " << *limit;
  if (failed(verifySizedValueCount(*this, "resource operand size",
                                   getResourceOperands().getTypes(),
                                   getResourceOperandSizes())) ||
      failed(verifySizedValueCount(*this, "result size",
                                   getResults().getTypes(), getResultSizes())) ||
      failed(verifyTiedOperands(*this, getTiedOperandsAttr(),
                                getResults().getTypes(),
                                getResourceOperands().getTypes())))
    return failure();
  return success();
}

void TestTimelineOp::setAwaitTimepoints(ValueRange timepoints, OpBuilder &) {
  getAwaitTimepointsMutable().assign(timepoints);
}

std::pair<unsigned, unsigned> TestTimelineOp::getTiedOperandsIndexAndLength() {
  OperandRange operands = getResourceOperands();
  return {operands.getBeginOperandIndex(), operands.size()};
}
Value TestTimelineOp::getOperandSize(unsigned idx) {
  return findOperandSize(idx, getResourceOperands(), getResourceOperandSizes());
}
Value TestTimelineOp::getResultSize(unsigned idx) {
  return findValueSize(idx, getResultTypes(), getResultSizes());
}

//===----------------------------------------------------------------------===//
// stream.test.timeline_aware: TimelineAwareOpInterface
//===----------------------------------------------------------------------===//

namespace fleet::stream {

bool TestTimelineAwareOp::isTimelineAware() { return true; }

SmallVector<Value> TestTimelineAwareOp::getWaitFences() {
  return SmallVector<Value>(getWaits().begin(), getWaits().end());
}

Value TestTimelineAwareOp::getSignalFence() { return getSignal(); }

void TestTimelineAwareOp::joinTimepoint(Value timepoint, OpBuilder &builder,
                                        Attribute affinity) {
  // Export the timepoint as one more wait fence.
  Value fence =
      TimepointExportOp::create(builder, getLoc(),
                                TypeRange{TestFenceType::get(getContext())},
                                timepoint, affinity)
          .getResult(0);
  getWaitsMutable().append(fence);
}

Value TestTimelineAwareOp::importSignalTimepoint(OpBuilder &builder,
                                                 Attribute affinity) {
  return TimepointImportOp::create(builder, getLoc(),
                                   TimepointType::get(getContext()),
                                   ValueRange{getSignal()}, affinity);
}

} // namespace fleet::stream
