//===- DispatchNames.h - names of dispatches --------------------*- C++ -*-===//
//
// The description of a dispatch root that form-dispatches puts into export
// names (`<func>_dispatch_<N>_<description>`) and the cost model uses as a
// profile key (it does not depend on the ordinal N).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_DIALECT_FLOW_TRANSFORMS_DISPATCHNAMES_H
#define FLEET_LIB_DIALECT_FLOW_TRANSFORMS_DISPATCHNAMES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace fleet::flow {

/// e.g. `matmul_64x32x16_f32` (M x N x K), `batch_matmul_4x8x8_f32`,
/// `elementwise_4_f32`, `reduction_128_f32`, `transpose_8x4_f32`.
std::string describeDispatchRoot(mlir::linalg::LinalgOp root);

} // namespace fleet::flow

#endif // FLEET_LIB_DIALECT_FLOW_TRANSFORMS_DISPATCHNAMES_H
