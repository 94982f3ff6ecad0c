//===- InitAll.cpp - dialect and pass registration for Fleet tools --------===//

#include "fleet/Tools/InitAll.h"

#include "fleet/Codegen/KernelCompiler.h"
#include "fleet/Codegen/Passes.h"
#include "fleet/Conversion/Passes.h"
#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/Flow/Transforms/Passes.h"
#include "fleet/Dialect/HAL/Analysis/DeviceTopologyModel.h"
#include "fleet/Dialect/HAL/IR/HALExternalModels.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/HAL/Transforms/Passes.h"
#include "fleet/InputConversion/Passes.h"
#include "fleet/Pipelines/Pipelines.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Passes.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "fleet/Dialect/Util/Transforms/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void fleet::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<util::UtilDialect, flow::FlowDialect, stream::StreamDialect,
                  hal::HALDialect>();
  hal::registerExternalModels(registry);
  hal::registerDeviceTopologyModel(registry);
  registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::LLVM::LLVMDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect,
                  mlir::transform::TransformDialect,
                  mlir::vector::VectorDialect>();
  // Dispatch bodies and the interfaces kernel codegen tiles them through.
  codegen::registerKernelInputDialects(registry);
}

void fleet::registerAllPasses() {
  static bool registered = false;
  if (registered)
    return;
  registered = true;
  mlir::registerTransformsPasses();
  input::registerInputConversionPasses();
  hal::registerHALPasses();
  flow::registerFlowPasses();
  stream::registerStreamPasses();
  util::registerUtilPasses();
  registerConversionPasses();
  codegen::registerCodegenPasses();
  registerPipelines();
}
