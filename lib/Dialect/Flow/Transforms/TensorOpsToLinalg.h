//===- TensorOpsToLinalg.h - tensor ops that belong in a kernel -*- C++ -*-===//
//
// Helpers of flow-form-dispatches (TensorOpsToLinalg.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_LIB_DIALECT_FLOW_TRANSFORMS_TENSOROPSTOLINALG_H
#define FLEET_LIB_DIALECT_FLOW_TRANSFORMS_TENSOROPSTOLINALG_H

#include "mlir/IR/Operation.h"

namespace fleet::flow {

/// Decomposes every op under `root` implementing linalg's
/// AggregatedOpInterface (linalg.softmax) with the interface; an op that
/// cannot be decomposed is an error at it.
mlir::LogicalResult decomposeAggregatedOps(mlir::Operation *root);

/// Rewrites the tensor.pad / extract_slice / insert_slice ops under `root`
/// that belong in a kernel into linalg.generic ops (TensorOpsToLinalg.cpp).
void convertTensorOpsToLinalg(mlir::Operation *root);

/// Gives dynamic tensor.reshape operands of linalg ops the static shape the
/// op's other operands pin down.
void refineStaticShapes(mlir::Operation *root);

/// Rewrites cf.assert outside linalg ops into util.status.check_ok (a failed assert fails the
/// call with its message).
void lowerAsserts(mlir::Operation *root);

/// Clamps the indices of every tensor.extract inside a linalg op under
/// `root` into the source's bounds (an out-of-range gather reads the
/// nearest element).
void clampGatherIndices(mlir::Operation *root);

} // namespace fleet::flow

#endif // FLEET_LIB_DIALECT_FLOW_TRANSFORMS_TENSOROPSTOLINALG_H
