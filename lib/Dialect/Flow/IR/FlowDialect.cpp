//===- FlowDialect.cpp - flow dialect -------------------------------------===//

#include "fleet/Dialect/Flow/IR/FlowDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::flow;

#include "fleet/Dialect/Flow/IR/FlowDialect.cpp.inc"

void FlowDialect::initialize() {
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

#define GET_OP_CLASSES
#include "fleet/Dialect/Flow/IR/FlowOps.cpp.inc"
