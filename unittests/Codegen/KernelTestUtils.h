//===- KernelTestUtils.h - compile, load and run dispatch kernels -*- C++ -*-===//
//
// Test harness for kernel codegen: parses a module holding one
// `stream.executable` with one export, optionally runs
// `codegen-configure-workgroups`, compiles the inner module with
// compileKernelModule, loads the object with LLVM ORC (LLJIT, libc/libm of
// the process resolvable) and calls every workgroup of the grid through the
// KernelABI.h entry point.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_UNITTESTS_CODEGEN_KERNELTESTUTILS_H
#define FLEET_UNITTESTS_CODEGEN_KERNELTESTUTILS_H

#include "fleet/runtime/hal/KernelABI.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/Error.h"

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fleet::codegen::testing {

struct LoadedKernel {
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::string kind;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  fleet_kernel_fn_t function = nullptr;
  double compileMillis = 0, mlirMillis = 0, llvmMillis = 0;
  size_t objectBytes = 0;
  /// The optimized LLVM IR (CompileFlags::keepLLVMIR).
  std::string llvmIR;
  /// The IR after each step of the kernel compiler, when asked for.
  std::string stepsIR;
};

struct CompileFlags {
  bool configure = true;
  std::string targetCPU = "host";
  /// Keep the LLVM IR in LoadedKernel::llvmIR.
  bool keepLLVMIR = false;
  /// Keep the IR after each step in LoadedKernel::stepsIR.
  bool keepStepsIR = false;
};

/// Compiles and loads the single export of the executable in `source`.
llvm::Expected<LoadedKernel> compileAndLoad(const std::string &source,
                                            const CompileFlags &flags = {});

/// Replaces each `key` of `values` in `text` (e.g. "$M" -> "37").
std::string substitute(std::string text,
                       const std::map<std::string, std::string> &values);

/// Runs workgroups [begin, end) of the grid, linearized with x fastest.
/// Returns the first non-zero status.
int32_t runWorkgroupRange(const LoadedKernel &kernel,
                          const fleet_kernel_state_t &state, uint64_t begin,
                          uint64_t end);

/// Runs every workgroup (x fastest). Returns the first non-zero status.
int32_t runAllWorkgroups(const LoadedKernel &kernel,
                         const std::vector<void *> &bindings,
                         const std::vector<uint64_t> &lengths,
                         const std::vector<uint32_t> &constants = {});

/// Deterministic pseudo-random floats in [-1, 1).
std::vector<float> randomFloats(size_t count, uint32_t seed);

} // namespace fleet::codegen::testing

#endif // FLEET_UNITTESTS_CODEGEN_KERNELTESTUTILS_H
