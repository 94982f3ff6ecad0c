//===- LowerToLLVM.cpp - vectorized tensor kernels to the LLVM dialect ----===//
//
// Bufferization and lowering with upstream passes only (docs/design.md §6):
// - one-shot bufferization after empty-tensor elimination, so tiles are
//   computed in place in the result bindings; copies it still needs are
//   linalg.copy (lowered to loops) instead of memref.copy, which would call
//   the `memrefCopy` runtime helper (docs/build.md pitfall 8);
// - temporaries up to kMaxStackBytes live on the stack, larger ones are
//   hoisted out of loops and freed by the ownership-based deallocation;
// - vector.contract becomes outer products (FMAs), multi-reductions are
//   reduced innermost, f32 math functions use polynomial approximations
//   (vectorizable, no libm calls), `ub.poison` from vectorization needs
//   convert-ub-to-llvm (docs/build.md pitfall 8).
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace fleet::codegen::detail {

namespace {

/// Temporaries up to this size are stack allocations (a workgroup's rows of
/// a reduction, an epilogue's register tile).
constexpr unsigned kMaxStackBytes = 16 * 1024;

LogicalResult runPipeline(ModuleOp module, llvm::raw_ostream *dumpStream,
                          function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  build(pm);
  if (dumpStream) {
    auto always = [](Pass *, Operation *) { return true; };
    auto never = [](Pass *, Operation *) { return false; };
    pm.enableIRPrinting(never, always, /*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/true,
                        /*printAfterOnlyOnFailure=*/false, *dumpStream);
  }
  return pm.run(module);
}

/// Vector and math lowerings that convert-vector-to-llvm does not choose
/// for us.
LogicalResult lowerVectorAndMath(ModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  vector::populateVectorContractLoweringPatterns(
      patterns, vector::VectorContractLowering::OuterProduct);
  vector::populateVectorMultiReductionLoweringPatterns(
      patterns, vector::VectorMultiReductionLowering::InnerReduction);
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  // Trailing unit dimensions (a pack's [.., 8, 1] tiles) would make every
  // element its own store: transfers drop them first.
  vector::populateDropInnerMostUnitDimsXferOpPatterns(patterns);
  vector::populateVectorTransferDropUnitDimsPatterns(patterns);
  vector::populateDropUnitDimWithShapeCastPatterns(patterns);
  vector::populateVectorShapeCastLoweringPatterns(patterns);
  vector::populateVectorBroadcastLoweringPatterns(patterns);
  vector::populateVectorTransposeLoweringPatterns(
      patterns, vector::VectorTransposeLowering::Shuffle1D);
  // math.fpowi (ONNX Pow with an integer exponent): LLVM's powi takes one
  // scalar i32 exponent; constant exponents become multiplications, others
  // expand upstream to powf.
  populateMathAlgebraicSimplificationPatterns(patterns);
  math::populateExpansionPatterns(patterns, {"fpowi"});
  populateMathPolynomialApproximationPatterns(patterns);
  // f32 <-> bf16 as integer ops (round to nearest even): without
  // AVX512-BF16 LLVM calls libgcc's __truncsfbf2, which Debian 12's libgcc
  // lacks, so the kernel library would not load on such a CPU.
  arith::populateExpandBFloat16Patterns(patterns);
  if (failed(applyPatternsGreedily(module, std::move(patterns))))
    return module.emitError("vector lowering did not converge");
  // A horizontal float sum or product over a vector (the merge of a
  // partial reduction's lanes, a chunk of a reduction tiled serially) may
  // add in any order: LLVM then adds in halves (log2 steps of shuffles)
  // instead of one lane after another (docs/kernels.md "Streaming
  // stores"). The partial reduction already reassociated the sum.
  module.walk([](vector::ReductionOp reduction) {
    if ((reduction.getKind() == vector::CombiningKind::ADD ||
         reduction.getKind() == vector::CombiningKind::MUL) &&
        isa<FloatType>(reduction.getType()))
      reduction.setFastmath(reduction.getFastmath() |
                            arith::FastMathFlags::reassoc);
  });
  return success();
}

/// Copies bufferization left (a tile moved from one binding to another, a
/// pack of whole runs) become vector transfers when their shape is static
/// and at most kMaxVectorizedCopy elements; others stay loops. As scalar
/// loops (LLVM's loop vectorizer is off, KernelCompiler.cpp) a pack of the
/// filter of a 3x3 convolution with 256 channels took 0.4-0.8 ms.
void vectorizeStaticCopies(ModuleOp module) {
  constexpr int64_t kMaxVectorizedCopy = 4096;
  SmallVector<linalg::CopyOp> copies;
  module.walk([&](linalg::CopyOp copy) {
    auto type = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
    if (type && type.hasStaticShape() &&
        type.getNumElements() <= kMaxVectorizedCopy &&
        copy.getInputs()[0] != copy.getOutputs()[0])
      copies.push_back(copy);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::CopyOp copy : copies)
    (void)vectorizeOp(rewriter, copy);
}

} // namespace

LogicalResult lowerToLLVMDialect(ModuleOp module,
                                 llvm::raw_ostream *dumpStream) {
  if (failed(bufferizeKernelModule(module)))
    return failure();

  auto buildCleanup = [](OpPassManager &cleanup) {
    cleanup.addPass(createCanonicalizerPass());
    cleanup.addPass(createCSEPass());
  };
  if (failed(runPipeline(module, dumpStream, buildCleanup)))
    return module.emitError("buffer cleanup failed");
  vectorizeStaticCopies(module);

  auto buildBuffers = [](OpPassManager &buffers) {
    OpPassManager &funcs = buffers.nest<func::FuncOp>();
    funcs.addPass(bufferization::createBufferLoopHoistingPass());
    bufferization::PromoteBuffersToStackPassOptions stack;
    stack.maxAllocSizeInBytes = kMaxStackBytes;
    stack.maxRankOfAllocatedMemRef = 4;
    funcs.addPass(bufferization::createPromoteBuffersToStackPass(stack));
    bufferization::buildBufferDeallocationPipeline(buffers);
    buffers.addPass(createConvertLinalgToLoopsPass());
    buffers.addPass(createCanonicalizerPass());
  };
  if (failed(runPipeline(module, dumpStream, buildBuffers)))
    return module.emitError("buffer and loop lowering failed");
  for (auto func : module.getOps<func::FuncOp>())
    useNonTemporalStores(func);

  // bf16 arithmetic in f32 (LLVM would promote it with __truncsfbf2 libcalls,
  // missing from Debian 12's libgcc); the truncations left are expanded to
  // integer ops in lowerVectorAndMath.
  {
    PassManager pm(module.getContext());
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = {"bf16"};
    emulate.targetTypeStr = "f32";
    pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
    if (failed(pm.run(module)))
      return module.emitError("bf16 emulation failed");
  }
  if (failed(lowerVectorAndMath(module)))
    return failure();

  auto buildLLVM = [](OpPassManager &llvm) {
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll();
    llvm.addPass(createConvertVectorToSCFPass(transfers));
    llvm.addPass(createLowerAffinePass());
    llvm.addPass(createSCFToControlFlowPass());
    ConvertVectorToLLVMPassOptions vectorOptions;
    vectorOptions.vectorContractLowering =
        vector::VectorContractLowering::OuterProduct;
    vectorOptions.vectorTransposeLowering =
        vector::VectorTransposeLowering::Shuffle1D;
    llvm.addPass(createConvertVectorToLLVMPass(vectorOptions));
    llvm.addPass(memref::createExpandStridedMetadataPass());
    llvm.addPass(createLowerAffinePass());
    llvm.addPass(createFinalizeMemRefToLLVMConversionPass());
    llvm.addPass(createConvertMathToLLVMPass());
    llvm.addPass(createArithToLLVMConversionPass());
    llvm.addPass(createConvertIndexToLLVMPass());
    llvm.addPass(createConvertFuncToLLVMPass());
    llvm.addPass(createConvertControlFlowToLLVMPass());
    llvm.addPass(createUBToLLVMConversionPass());
    llvm.addPass(createReconcileUnrealizedCastsPass());
    llvm.addPass(createCanonicalizerPass());
  };
  if (failed(runPipeline(module, dumpStream, buildLLVM)))
    return module.emitError("lowering to the LLVM dialect failed");
  return success();
}

LogicalResult bufferizeKernelModule(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  if (failed(bufferization::eliminateEmptyTensors(rewriter, module)))
    return module.emitError("empty tensor elimination failed");
  bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = false;
  options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                        Value to) -> LogicalResult {
    linalg::CopyOp::create(b, loc, from, to);
    return success();
  };
  bufferization::BufferizationState state;
  if (failed(bufferization::runOneShotBufferize(module, options, state)))
    return module.emitError("one-shot bufferization failed");
  return success();
}

} // namespace fleet::codegen::detail
