//===- CPUTarget.h - what the llvm-cpu backend knows of a target -*- C++ -*-===//
//
// The facts kernel codegen takes from a `#hal.executable.target<"llvm-cpu",
// "fleet-object-x86_64", {config}>` (docs/kernels.md "Targets"):
//
//   cpu                 "host" (the compiling machine: its CPU and features)
//                       or an LLVM CPU name ("haswell", "x86-64-v3")
//   cpu_features        optional extra LLVM features ("+avx2,-avx512f")
//   native_vector_size  widest vector register, bytes (IREE's key): 16, 32
//                       or 64 on x86
//   cache_sizes         array<i64: L1d, L2> per core, bytes (Fleet's key)
//
// `codegen-resolve-executable-targets` writes all four; readers take what
// is missing from the global flags (--llvmcpu-target-cpu,
// --llvmcpu-cache-sizes) and the host.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_CODEGEN_CPUTARGET_H
#define FLEET_CODEGEN_CPUTARGET_H

#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>

namespace llvm {
class MCSubtargetInfo;
} // namespace llvm

namespace fleet::codegen {

/// Backend and object format of Fleet's CPU kernels (KernelABI.h).
inline constexpr llvm::StringLiteral kCPUBackend = "llvm-cpu";
inline constexpr llvm::StringLiteral kCPUFormat = "fleet-object-x86_64";

struct CPUTarget {
  /// "host" or an LLVM CPU name.
  std::string cpu = "host";
  /// Extra LLVM target features, comma-separated; may be empty.
  std::string features;
  /// Widest native vector register, bits (128, 256 or 512).
  int64_t vectorBits = 128;
  /// Per-core data cache sizes, bytes.
  int64_t l1Bytes = 32 * 1024;
  int64_t l2Bytes = 1024 * 1024;
  /// Vector registers of that width (x86: 32 with AVX-512, else 16).
  int64_t vectorRegisters() const { return vectorBits >= 512 ? 32 : 16; }
};

/// The host's per-core L1 data and L2 cache sizes in bytes, read from
/// /sys/devices/system/cpu/cpu0/cache (then sysconf); 32 KiB and 1 MiB when
/// neither tells.
std::array<int64_t, 2> getHostCacheSizes();

/// Parses `--llvmcpu-cache-sizes`: "L1,L2" in bytes, each optionally with a
/// K or M suffix (32K,1M). Empty: the host's. On failure returns false and
/// sets `error`.
bool parseCacheSizes(llvm::StringRef text, std::array<int64_t, 2> &sizes,
                     std::string &error);

/// The widest vector register a subtarget has, in bits: 512 with AVX-512F,
/// 256 with AVX, else 128 (the one rule; the kernel compiler asks it too).
int64_t getVectorBits(const llvm::MCSubtargetInfo &subtarget);

/// The widest vector register of `cpu` ("host": this machine) with the
/// extra `features`, in bits; 0 with `error` set for an unknown CPU.
int64_t getVectorBits(llvm::StringRef cpu, llvm::StringRef features,
                      std::string &error);

/// A target with every key written (see the file comment); other keys of
/// `base` (a declared target's configuration) are kept.
hal::ExecutableTargetAttr
buildCPUExecutableTarget(mlir::MLIRContext *context, const CPUTarget &target,
                         mlir::DictionaryAttr base = {});

/// True for an llvm-cpu target of Fleet's format.
bool isCPUExecutableTarget(hal::ExecutableTargetAttr target);

/// Reads the configuration of `target` (null: none); missing keys come from
/// `defaults`.
CPUTarget getCPUTarget(hal::ExecutableTargetAttr target,
                       const CPUTarget &defaults);

/// The target the global flags describe (--llvmcpu-target-cpu,
/// --llvmcpu-cache-sizes; the host's caches when that is empty). Errors
/// (bad sizes, unknown CPU) are reported by the pass that resolves targets;
/// here they fall back to the defaults of CPUTarget.
CPUTarget getDefaultCPUTarget(llvm::StringRef targetCPU,
                              llvm::StringRef cacheSizes);

} // namespace fleet::codegen

#endif // FLEET_CODEGEN_CPUTARGET_H
