//===- Signature.cpp - expected inputs and results of an export ----------===//

#include "HostLowering.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/Matchers.h"

namespace fleet::artifact {

using runtime::host::Convention;
using runtime::host::FunctionSignature;
using runtime::host::TensorDescription;
namespace hal = runtime::hal;

using namespace mlir;
namespace utilir = ::fleet::util;
namespace halir = ::fleet::hal;

static Convention conventionOf(utilir::FuncOp func) {
  auto attr = func->getAttrOfType<halir::ABIConventionAttr>("hal.abi.convention");
  return attr && attr.getValue() == halir::ABIConvention::CoarseFences
             ? Convention::CoarseFences
             : Convention::Synchronous;
}

namespace {

int64_t constantOr(mlir::Value value, int64_t fallback) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  return fallback;
}

TensorDescription describe(ValueRange shape, mlir::Value elementType) {
  TensorDescription tensor;
  tensor.known = true;
  for (mlir::Value dim : shape)
    tensor.shape.push_back(constantOr(dim, -1));
  tensor.elementType = hal::ElementType(constantOr(elementType, 0));
  return tensor;
}

} // namespace

FunctionSignature analyzeSignature(utilir::FuncOp func) {
  FunctionSignature signature;
  signature.convention = conventionOf(func);
  for (Type type : func.getArgumentTypes())
    signature.arguments.push_back(classifyType(type).value_or(ValueType::I64));
  for (Type type : func.getResultTypes())
    signature.results.push_back(classifyType(type).value_or(ValueType::I64));
  signature.argumentTensors.resize(signature.arguments.size());
  signature.resultTensors.resize(signature.results.size());
  if (func.isExternal())
    return signature;

  Block &entry = func.getBody().front();
  func.walk([&](halir::BufferViewAssertOp check) {
    auto arg = dyn_cast<BlockArgument>(check.getBufferView());
    if (!arg || arg.getOwner() != &entry)
      return;
    TensorDescription &tensor = signature.argumentTensors[arg.getArgNumber()];
    if (!tensor.known)
      tensor = describe(check.getShape(), check.getElementType());
  });
  bool seenReturn = false;
  func.walk([&](utilir::ReturnOp ret) {
    if (seenReturn)
      return;
    seenReturn = true;
    for (auto [index, operand] : llvm::enumerate(ret.getOperands()))
      if (auto create = operand.getDefiningOp<halir::BufferViewCreateOp>())
        signature.resultTensors[index] =
            describe(create.getShape(), create.getElementType());
  });
  return signature;
}

} // namespace fleet::artifact
