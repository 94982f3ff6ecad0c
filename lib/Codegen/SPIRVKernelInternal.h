//===- SPIRVKernelInternal.h - steps of the SPIR-V kernel compiler -*- C++ -*-===//
//
// Internal to lib/Codegen: steps compileSPIRVKernelModule runs on its
// private copy of the dispatch module (SPIRVKernelLimits.cpp,
// SPIRVKernelDistribution.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_CODEGEN_SPIRVKERNELINTERNAL_H
#define FLEET_LIB_CODEGEN_SPIRVKERNELINTERNAL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace fleet::codegen::detail {

/// Gives every dynamically sized `memref.alloc` of `module` whose sizes have
/// constant upper bounds (a partial workgroup tile: min(tile, rest)) the
/// static shape of those bounds, viewed at the dynamic sizes through a
/// subview, so it can become a private array. Allocations without bounds
/// are left for the caller to refuse.
void boundDynamicAllocations(mlir::ModuleOp module);

/// Loop back-edges one invocation of `func` runs at most once its innermost
/// loops are unrolled by `unroll`: the sum over its loops of trip count x
/// (1 + the back-edges of the body), an innermost loop counting trips /
/// unroll plus an epilogue of up to unroll - 1, with trip counts bounded
/// through ValueBoundsOpInterface. Fails for a loop without a constant
/// bound (its operation is returned in `unbounded`).
mlir::FailureOr<int64_t> countLoopIterations(mlir::func::FuncOp func,
                                             int64_t unroll,
                                             mlir::Operation *&unbounded);

/// Shares the work of `func` (in loops, linalg's parallel dimensions as
/// `scf.parallel`) among the `invocations` invocations of a workgroup, with
/// workgroup barriers between loop nests (SPIRVKernelDistribution.cpp).
mlir::LogicalResult distributeToInvocations(mlir::func::FuncOp func,
                                            int64_t invocations);

} // namespace fleet::codegen::detail

#endif // FLEET_LIB_CODEGEN_SPIRVKERNELINTERNAL_H
