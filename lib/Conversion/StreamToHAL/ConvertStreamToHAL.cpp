//===- ConvertStreamToHAL.cpp - the hal-conversion pass -------------------===//
//
// Invariant established: no stream op or type remains outside executables'
// inner modules; host code holds only util, hal, arith, scf and cf ops
// (docs/pipeline.md §3). Executables are rewritten first so dispatches can
// read their exports' ordinals and count regions; sizes queried with
// stream.resource.size are replaced by the values that travel with the
// resources; then one dialect conversion rewrites everything else.
//
//===----------------------------------------------------------------------===//

#include "fleet/Conversion/Passes.h"

#include "Utils.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-conversion"

namespace fleet {
#define GEN_PASS_DEF_CONVERTSTREAMTOHALPASS
#include "fleet/Conversion/Passes.h.inc"
} // namespace fleet

using namespace mlir;
using namespace fleet;
using namespace fleet::stream_to_hal;

namespace {

struct ConvertStreamToHALPass
    : public fleet::impl::ConvertStreamToHALPassBase<ConvertStreamToHALPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    ConversionState state(module);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] "
                            << state.devices.getDevices().size()
                            << " declared device(s)\n");
    if (failed(convertExecutables(state)) ||
        failed(resolveResourceSizes(module)))
      return signalPassFailure();

    TypeConverter typeConverter;
    typeConverter.addConversion([](Type type) { return type; });
    typeConverter.addConversion([](stream::ResourceType type) -> Type {
      return hal::BufferType::get(type.getContext());
    });
    typeConverter.addConversion([](stream::TimepointType type) -> Type {
      return hal::FenceType::get(type.getContext());
    });

    ConversionTarget target(*context);
    target.addIllegalDialect<stream::StreamDialect>();
    target.addLegalDialect<hal::HALDialect, arith::ArithDialect>();
    // Kernel modules keep their stream ops for codegen.
    target.addLegalOp<hal::ExecutableOp>();
    target.markOpRecursivelyLegal<hal::ExecutableOp>();

    RewritePatternSet patterns(context);
    populateStructuralPatterns(typeConverter, patterns, target);
    populateResourcePatterns(typeConverter, state, patterns);
    populateTimepointPatterns(typeConverter, state, patterns);
    populateCmdPatterns(typeConverter, state, patterns);
    populateTensorPatterns(typeConverter, state, patterns);
    // A pattern that rejects an op explains why; the framework's generic
    // "failed to legalize" that follows would only repeat it.
    bool reportedError = false;
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (reportedError &&
          StringRef(diagnostic.str()).starts_with("failed to legalize"))
        return success();
      reportedError = true;
      return failure();
    });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
