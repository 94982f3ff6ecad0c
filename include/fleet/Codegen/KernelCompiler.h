//===- KernelCompiler.h - dispatch module to object code -------*- C++ -*-===//
//
// Compiles the inner `builtin.module` of an executable (tensor form, the
// dispatch function contract of docs/pipeline.md) into a relocatable ELF
// object implementing runtime/include/fleet/runtime/hal/KernelABI.h, using
// upstream MLIR passes and LLVM only (docs/design.md §6, docs/kernels.md).
//
// Ownership: the input module is not modified; the compiler works on its
// own MLIRContext (a copy of the module made through bytecode), so calls may
// run concurrently from several threads. Nothing is cached across calls.
// Errors are values: the returned llvm::Error names the export and the step
// that failed, with the MLIR diagnostics that explain it.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_CODEGEN_KERNELCOMPILER_H
#define FLEET_CODEGEN_KERNELCOMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir
namespace llvm {
class TargetMachine;
} // namespace llvm

namespace fleet::codegen {

struct KernelExport {
  /// Symbol the object defines (the `hal.executable.export` name).
  std::string symbol;
  /// The dispatch function in the module that implements it.
  std::string function;
};

struct KernelCompileOptions {
  /// `host` (the detected CPU and its features) or an LLVM CPU name such as
  /// `x86-64-v3`, `znver4`.
  std::string targetCPU = "host";
  /// Extra LLVM features after the CPU's ("+avx2,-avx512f"); may be empty.
  std::string targetFeatures;
  /// Entry points to define. Empty: every public function of the module,
  /// each under its own name.
  std::vector<KernelExport> exports;
  /// When set, the IR after each step is printed here (debugging).
  llvm::raw_ostream *dumpStream = nullptr;
  /// When set, the LLVM IR module compiled to the object (after LLVM's
  /// optimizations) is printed here
  /// (`--hal-serialize-executables=dump-intermediates-path=`).
  llvm::raw_ostream *llvmIRStream = nullptr;
};

struct KernelObject {
  /// The relocatable ELF object.
  std::vector<uint8_t> bytes;
  /// Symbols defined, one per export (KernelABI.h `fleet_kernel_fn_t`).
  std::vector<std::string> symbols;
  /// Wall time of the steps, milliseconds: MLIR (tiling to LLVM dialect),
  /// LLVM optimization and code generation.
  double mlirMillis = 0, llvmMillis = 0;
};

/// Compiles `module` (not modified) for `options.targetCPU`.
llvm::Expected<KernelObject> compileKernelModule(mlir::ModuleOp module,
                                                 const KernelCompileOptions &options);

/// The target machine compileKernelModule uses for `targetCPU` (`host` or
/// an LLVM CPU name; x86-64, PIC, O3). An unknown CPU is an error.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createKernelTargetMachine(llvm::StringRef targetCPU);

/// Adds what the kernel compiler's input may contain (upstream dialects of
/// dispatch bodies plus Fleet's stream dialect) to `registry`.
void registerKernelInputDialects(mlir::DialectRegistry &registry);

} // namespace fleet::codegen

#endif // FLEET_CODEGEN_KERNELCOMPILER_H
