//===- DispatchNames.cpp - names of dispatches ----------------------------===//

#include "DispatchNames.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

static std::string getElementTypeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << getElementTypeOrSelf(type);
  return name;
}

static std::string getShapeName(ShapedType type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  llvm::interleave(type.getShape(), os, "x");
  return name;
}

/// A short description of the root for export names and traces, e.g.
/// `matmul_64x32x16_f32` or `elementwise_4_f32`.
std::string fleet::flow::describeDispatchRoot(linalg::LinalgOp root) {
  Type resultType = root->getNumResults() ? root->getResult(0).getType()
                                          : root.getDpsInits()[0].getType();
  auto shaped = cast<ShapedType>(resultType);
  std::string element = getElementTypeName(shaped);
  if (auto matmul = dyn_cast<linalg::MatmulOp>(root.getOperation())) {
    auto lhs = cast<ShapedType>(matmul.getInputs()[0].getType());
    return "matmul_" + std::to_string(shaped.getDimSize(0)) + "x" +
           std::to_string(shaped.getDimSize(1)) + "x" +
           std::to_string(lhs.getDimSize(1)) + "_" + element;
  }
  if (isa<linalg::BatchMatmulOp>(root.getOperation()))
    return "batch_matmul_" + getShapeName(shaped) + "_" + element;
  if (auto generic = dyn_cast<linalg::GenericOp>(root.getOperation())) {
    bool reduction = generic.getNumReductionLoops() > 0;
    return std::string(reduction ? "reduction_" : "elementwise_") +
           getShapeName(shaped) + "_" + element;
  }
  std::string name = root->getName().stripDialect().str();
  std::replace(name.begin(), name.end(), '.', '_');
  return name + "_" + getShapeName(shaped) + "_" + element;
}

