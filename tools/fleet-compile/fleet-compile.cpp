//===- fleet-compile.cpp - compiles an MLIR program into a .fleet artifact ===//
//
//   fleet-compile in.mlir -o out.fleet [--hal-target-device=NAME=local[N] ...]
//                 [--execution-model=async-external] [--compile-to=input|stream|hal]
//   fleet-compile host.mlir --compile-from-host -o out.fleet
//
// An input ending in `.onnx` is imported first by fleet-import (next to
// this binary; FLEET_IMPORT overrides it), which also takes --input-shape
// and --place (docs/onnx.md). Input `-` reads stdin; without -o (or with -o -) the output goes to stdout.
// --compile-to stops after a phase and prints IR text instead of the artifact.
// IREE's flags are accepted without the `iree-` prefix: --hal-target-device,
// --execution-model, --stream-external-resources-mappable (alias
// --hal-external-resources-mappable) and --llvmcpu-target-cpu are registered
// by fleet/Tools/CompilerFlags.h for fleet-opt too (docs/contributing.md
// "IREE flags"). Unknown flags are rejected by the command-line parser with
// exit code 1.
//
// The IR is verified after each phase (input, stream, HAL, kernels), not
// after each pass: every verification walks the whole module, and on large
// programs the per-pass walks were a third of the compile time and grew
// faster than the program (docs/pipeline.md "Verification").
// --verify-each verifies after every pass again, to find the pass that
// broke the IR.
//
//===----------------------------------------------------------------------===//

#include "fleet/Artifact/Artifact.h"
#include "fleet/InputConversion/Passes.h"
#include "fleet/Pipelines/Pipelines.h"
#include "fleet/Tools/CompilerFlags.h"
#include "fleet/Tools/InitAll.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"

#include <sys/mman.h>
#include <unistd.h>
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("fleet-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir>"),
                                          cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("file"),
                                           cl::init("-"), cl::cat(category));
static cl::opt<fleet::CompilePhase> compileTo(
    "compile-to", cl::desc("Stop after a phase and print its IR"),
    cl::values(clEnumValN(fleet::CompilePhase::Input, "input",
                          "after input conversion and dispatch formation"),
               clEnumValN(fleet::CompilePhase::Stream, "stream",
                          "after the stream phase (cmd-level IR)"),
               clEnumValN(fleet::CompilePhase::HAL, "hal",
                          "the host program before kernel codegen")),
    cl::init(fleet::CompilePhase::End), cl::cat(category));
static cl::opt<bool> compileFromHost(
    "compile-from-host",
    cl::desc("The input is a finished host program (util/hal/arith/scf/cf, "
             "kernels linked, e.g. by fleet-opt --hal-link-executables): "
             "run no pipeline, write it as the artifact"),
    cl::init(false), cl::cat(category));
static cl::list<std::string> localBackends(
    "hal-local-target-device-backends",
    cl::desc("Kernel backends for local devices: llvm-cpu (vmvx is accepted "
             "and compiled to native code too)"),
    cl::CommaSeparated, cl::cat(category));

static cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("ONNX input only: fix the shape of graph input NAME "
             "(NAME=1x3x224x224, repeatable; see fleet-import)"),
    cl::value_desc("NAME=DIMS"), cl::cat(category));
static cl::list<std::string> places(
    "place",
    cl::desc("ONNX input only: run the nodes whose name starts with PREFIX "
             "on device N (N:PREFIX, repeatable; see fleet-import)"),
    cl::value_desc("N:PREFIX"), cl::cat(category));

static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass (default: after every phase)"),
    cl::init(false), cl::cat(category));

namespace {
/// Verifies the module at the end of a phase; the pass manager verifies
/// after every pass only with --verify-each.
struct VerifyPhasePass
    : public PassWrapper<VerifyPhasePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VerifyPhasePass)

  explicit VerifyPhasePass(StringRef phase) : phase(phase.str()) {}
  StringRef getName() const override { return "VerifyPhasePass"; }
  StringRef getArgument() const override { return "fleet-verify-phase"; }
  StringRef getDescription() const override {
    return "Verifies the module at the end of a phase";
  }
  void runOnOperation() override {
    markAllAnalysesPreserved();
    if (succeeded(verify(getOperation())))
      return;
    getOperation().emitError()
        << "the IR is invalid after the " << phase
        << " phase (rerun with --verify-each to find the pass)";
    signalPassFailure();
  }

  std::string phase;
};
} // namespace

static int fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "fleet-compile") << message << "\n";
  return 1;
}

/// Once the input is parsed its text is only read again to quote a line in
/// a diagnostic: the pages of a memory-mapped input are handed back to the
/// kernel (a private file mapping reads them back on demand), so a model's
/// weights are not held as text and as blobs at once (docs/onnx.md
/// "Memory").
static void releaseSourcePages(const llvm::SourceMgr &sourceMgr) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (buffer->getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t begin = uintptr_t(buffer->getBufferStart());
  uintptr_t end = uintptr_t(buffer->getBufferEnd());
  uintptr_t first = (begin + page - 1) & ~(page - 1);
  uintptr_t last = end & ~(page - 1);
  if (last > first)
    madvise(reinterpret_cast<void *>(first), last - first, MADV_DONTNEED);
}

/// Runs fleet-import on an .onnx input into a temporary .mlir file, whose
/// path it returns; fleet-import prints its own one-line error.
static FailureOr<std::string> importOnnx(const char *argv0,
                                         StringRef onnxPath) {
  std::string tool;
  if (std::optional<std::string> env = llvm::sys::Process::GetEnv("FLEET_IMPORT"))
    tool = *env;
  else {
    std::string self = llvm::sys::fs::getMainExecutable(
        argv0, reinterpret_cast<void *>(&importOnnx));
    SmallString<256> path(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(path, "fleet-import");
    tool = std::string(path);
  }
  SmallString<128> mlirPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "fleet-import", "mlir", mlirPath)) {
    fail("cannot create a temporary file: " + ec.message());
    return failure();
  }
  std::vector<std::string> args = {tool, onnxPath.str(), "-o",
                                   std::string(mlirPath)};
  for (const std::string &shape : inputShapes)
    args.push_back("--input-shape=" + shape);
  for (const std::string &place : places)
    args.push_back("--place=" + place);
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(tool, argRefs, /*Env=*/std::nullopt,
                                     /*Redirects=*/{}, /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &error);
  if (rc != 0) {
    llvm::sys::fs::remove(mlirPath);
    if (rc < 0)
      fail("cannot run " + tool + ": " + error);
    return failure();
  }
  return std::string(mlirPath);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  fleet::registerCompilerFlags();
  cl::HideUnrelatedOptions({&category, &fleet::getCompilerFlagsCategory()});
  cl::ParseCommandLineOptions(argc, argv,
                              "Fleet compiler: MLIR program -> .fleet artifact\n");

  fleet::CompileOptions options = fleet::CompileOptions::fromFlags();
  const std::string &executionModel =
      fleet::input::getFlagDefaults().executionModel;
  if (executionModel != "async-internal" && executionModel != "async-external")
    return fail("unknown --execution-model '" + executionModel +
                "' (expected async-internal or async-external)");
  for (const std::string &backend : localBackends) {
    if (backend == "vmvx")
      llvm::errs() << "fleet-compile: note: backend vmvx is compiled to native "
                      "code (llvm-cpu)\n";
    else if (backend != "llvm-cpu")
      return fail("unknown --hal-local-target-device-backends value '" +
                  backend + "' (expected llvm-cpu or vmvx)");
  }

  DialectRegistry registry;
  fleet::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the user's source; the generic form of the op
  // they are attached to helps compiler developers only (fleet-opt prints
  // it, and so does --mlir-print-op-on-diagnostic here).
  if (llvm::none_of(llvm::ArrayRef(argv, argc), [](const char *arg) {
        return llvm::StringRef(arg).contains("mlir-print-op-on-diagnostic");
      }))
    context.printOpOnDiagnostic(false);

  std::string errorMessage;
  std::string sourcePath = inputFilename;
  std::string importedPath;
  if (StringRef(inputFilename).ends_with(".onnx")) {
    FailureOr<std::string> imported = importOnnx(argv[0], inputFilename);
    if (failed(imported))
      return 1;
    importedPath = sourcePath = *imported;
  } else if (!inputShapes.empty() || !places.empty()) {
    return fail("--input-shape and --place apply to an .onnx input only");
  }
  auto input = openInputFile(sourcePath, &errorMessage);
  if (!importedPath.empty())
    llvm::sys::fs::remove(importedPath); // the buffer holds the text

  if (!input)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  releaseSourcePages(sourceMgr);

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  PassManager pm(&context);
  TimingScope rootScope = timing.getRootScope();
  pm.enableTiming(rootScope);
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  pm.enableVerifier(verifyEach);
  auto endPhase = [&](StringRef phase) {
    if (!verifyEach)
      pm.addPass(std::make_unique<VerifyPhasePass>(phase));
  };
  if (compileFromHost) {
    endPhase("host program");
  } else {
    fleet::buildInputPipeline(pm, options);
    endPhase("input");
    if (compileTo != fleet::CompilePhase::Input) {
      fleet::buildStreamPipeline(pm, options);
      endPhase("stream");
    }
    if (compileTo == fleet::CompilePhase::HAL ||
        compileTo == fleet::CompilePhase::End) {
      fleet::buildHALPipeline(pm, options);
      endPhase("HAL");
    }
    if (compileTo == fleet::CompilePhase::End) {
      fleet::buildKernelPipeline(pm, options);
      endPhase("kernel");
    }
  }
  if (failed(pm.run(*module)))
    return 1;

  if (compileTo == fleet::CompilePhase::End && outputFilename == "-" &&
      llvm::sys::Process::StandardOutIsDisplayed())
    return fail("the artifact is binary: write it with -o FILE, or pipe it "
                "(fleet-compile s.mlir | fleet-run --module=- ...)");
  auto output = openOutputFile(outputFilename, &errorMessage);
  if (!output)
    return fail(errorMessage);
  if (compileTo == fleet::CompilePhase::End) {
    if (failed(fleet::writeArtifact(*module, output->os())))
      return fail("failed to write the artifact");
  } else {
    // The last phase verified the module; the printer need not again.
    module->print(output->os(), OpPrintingFlags().assumeVerified());
    output->os() << "\n";
  }
  output->keep();
  // The process ends here: leave the module to the OS instead of destroying
  // it op by op (as clang's -disable-free does), which on large programs
  // is one more walk over all of their IR (docs/pipeline.md "Verification").
  llvm::BuryPointer(module.release().getOperation());
  return 0;
}
