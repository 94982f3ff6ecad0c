//===- fleet-stream-opt.cpp - opt driver with Stream and without HAL ------===//
//
// Registers the util, flow and stream dialects, Stream's and Util's passes
// and the upstream dialects host programs use, and nothing of HAL: Stream's
// own tests (test/Dialect/Stream) run here, with `#stream.test.affinity`
// for placement, which proves Stream's IR, analyses and passes need no HAL
// (docs/contributing.md "Layering"). The build links no HAL library into it
// (test/Layering/link-graph.test checks the CMake graph).
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Passes.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "fleet/Dialect/Util/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<fleet::util::UtilDialect, fleet::flow::FlowDialect,
                  fleet::stream::StreamDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
  mlir::registerTransformsPasses();
  fleet::stream::registerStreamPasses();
  fleet::util::registerUtilPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Fleet Stream optimizer driver (no HAL)\n", registry));
}
