//===- SPIRVKernelCompiler.h - dispatch module to SPIR-V --------*- C++ -*-===//
//
// The Vulkan kernel compiler: one SPIR-V module (GLCompute entry points) for
// the exports of a dispatch module (docs/kernels.md "Vulkan kernels").
//
// ABI of the generated shaders:
// - binding i of a dispatch function (its i-th `!stream.binding` argument)
//   is the storage buffer at descriptor set 0, binding i; the kernel applies
//   its own `stream.binding.subspan` byte offsets;
// - the primitive arguments are push constants: 32-bit words from offset 0,
//   packed as for the CPU kernels (KernelABI.h; index/i64/f64 take two words,
//   low word first);
// - one Vulkan workgroup of `invocations` x 1 x 1 invocations computes one
//   Fleet workgroup tile, its parallel iterations shared round-robin;
//   `stream.dispatch.workgroup.id/count` are the WorkgroupId/NumWorkgroups
//   builtins.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_CODEGEN_SPIRVKERNELCOMPILER_H
#define FLEET_CODEGEN_SPIRVKERNELCOMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fleet::codegen {

/// The vulkan-spirv target's default `max_loop_iterations`: lavapipe's
/// limit (LP_MAX_TGSI_LOOP_ITERATIONS), the Vulkan device Fleet is tested on.
constexpr int64_t kDefaultMaxLoopIterations = 65535;

/// The vulkan-spirv target's default `workgroup_size`.
constexpr int64_t kDefaultInvocations = 64;

struct SPIRVKernelOptions {
  /// Dispatch function names to compile; each becomes a GLCompute entry
  /// point of the same name. Empty: every public function with a body.
  std::vector<std::string> exports;
  /// Most loop back-edges one invocation may run (0: no limit). Mesa's
  /// lavapipe ends a shader invocation's loops silently after 65,535 in
  /// total, so a kernel that could run more is refused, naming the export,
  /// rather than computing a wrong result there (docs/kernels.md "Vulkan
  /// kernels"). The vulkan-spirv target's `max_loop_iterations` sets it.
  int64_t maxLoopIterations = 0;
  /// Invocations per workgroup (LocalSize x). Vulkan guarantees 128
  /// (maxComputeWorkGroupInvocations); lavapipe runs 8 per SIMD subgroup.
  /// The vulkan-spirv target's `workgroup_size` sets it.
  int64_t invocations = kDefaultInvocations;
};

struct SPIRVKernelObject {
  /// One SPIR-V module (binary), all entry points.
  std::vector<uint32_t> words;
  /// Per export, in options order: the workgroup size (LocalSize) used.
  std::vector<std::array<int64_t, 3>> workgroupSizes;
  /// Per export, in options order: the number of 32-bit push-constant words
  /// the entry point reads (0: no push-constant block).
  std::vector<uint32_t> pushConstantWords;
};

/// Compiles (a private clone of) `module` -- a hal.executable.variant's inner
/// module after codegen-configure-workgroups: each export a func.func in
/// tensor form computing the tile of workgroup
/// stream.dispatch.workgroup.id[0..2], with a fleet.codegen attribute -- to
/// SPIR-V for Vulkan. The caller's module and context are not modified; the
/// compilation runs in its own MLIRContext, so calls may run concurrently.
llvm::Expected<SPIRVKernelObject>
compileSPIRVKernelModule(mlir::ModuleOp module,
                         const SPIRVKernelOptions &options);

} // namespace fleet::codegen

#endif // FLEET_CODEGEN_SPIRVKERNELCOMPILER_H
