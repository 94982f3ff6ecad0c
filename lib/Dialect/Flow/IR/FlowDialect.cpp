//===- FlowDialect.cpp - flow dialect -------------------------------------===//

#include "fleet/Dialect/Flow/IR/FlowDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::flow;

#include "fleet/Dialect/Flow/IR/FlowDialect.cpp.inc"

namespace {
/// Flow ops carry no state that inlining could break.
struct FlowInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *op, Region *dest, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
};
} // namespace

void FlowDialect::initialize() {
  addInterfaces<FlowInlinerInterface>();
  addOperations<
#define GET_OP_LIST
#include "fleet/Dialect/Flow/IR/FlowOps.cpp.inc"
      >();
}

LogicalResult TensorTransferOp::verify() {
  return verifyValueCount(*this, "dynamic dimension",
                          getDynamicDimCount(getType()),
                          getOperandDims().size());
}

LogicalResult TensorBarrierOp::verify() {
  return verifyValueCount(*this, "dynamic dimension",
                          getDynamicDimCount(getType()),
                          getOperandDims().size());
}

std::optional<unsigned>
TensorBarrierOp::getTiedResultOperandIndex(unsigned resultIndex) {
  return 0u;
}

LogicalResult DispatchOp::verify() {
  for (auto [i, type] : llvm::enumerate(getArguments().getTypes())) {
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      if (!tensor.hasStaticShape())
        return emitOpError() << "argument " << i << " has dynamic shape "
                             << type << "; only static shapes are supported";
    } else if (!type.isIntOrIndexOrFloat()) {
      return emitOpError() << "argument " << i << " has type " << type
                           << "; expected a tensor or a primitive";
    }
  }
  for (auto [i, type] : llvm::enumerate(getResultTypes()))
    if (!cast<RankedTensorType>(type).hasStaticShape())
      return emitOpError() << "result " << i << " has dynamic shape " << type
                           << "; only static shapes are supported";
  if (getEntryPoint().getNestedReferences().size() != 1)
    return emitOpError() << "entry point " << getEntryPoint()
                         << " must be @executable::@export";
  return success();
}

LogicalResult DispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  // As IREE: the entry point may name an executable that is not in the
  // module (linked later, or not yet); StreamToHAL reports it then
  // (docs/ir-reference.md "Unresolved dispatches"). One that resolves must
  // be an executable.
  Operation *executable = symbolTable.lookupNearestSymbolFrom(
      *this, getEntryPoint().getRootReference());
  if (executable && !isa<SymbolOpInterface>(executable))
    return emitOpError() << "entry point " << getEntryPoint()
                         << " does not name an executable";
  return success();
}

#define GET_OP_CLASSES
#include "fleet/Dialect/Flow/IR/FlowOps.cpp.inc"
