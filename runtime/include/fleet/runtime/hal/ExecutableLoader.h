//===- ExecutableLoader.h - kernel libraries to executables ------*- C++ -*-===//
//
// Loads the kernel shared object of an artifact (one per target, linked by
// the compiler with lld; KernelLibrary.h, docs/kernel-abi.md §1) with the
// system's dynamic loader and resolves entry points by name. No LLVM is
// involved: the library's bytes are written to an anonymous memory file
// (memfd_create; a private temporary file, unlinked at once, where memfd is
// unavailable) and opened with dlopen(RTLD_NOW | RTLD_LOCAL), so undefined
// libc/libm references (expf, memcpy, malloc) are bound at load from the
// process and symbols of different libraries never clash.
//
// Checked before any code of the library runs (docs/runtime.md "Threat
// model": kernel code is trusted; what is checked is corruption and version
// mismatch):
//   1. the recorded kernel-ABI version equals FLEET_KERNEL_ABI_VERSION;
//   2. the bytes hash to the recorded checksum and start like an ELF
//      shared object for x86-64;
//   3. every recorded CPU feature is one this runtime knows and the host
//      has (CPUID, with the OS enabling the registers it needs);
//   4. after dlopen, the library's own kAbiVersionSymbol equals (1).
// Test hook: the environment variable FLEET_TEST_HIDE_CPU_FEATURES (a
// comma-separated list of feature names) makes the host appear to lack
// those features.
//
// Ownership: create() returns the loader. loadLibrary() returns a shared
// library handle; executables created from it keep it loaded (dlclose when
// the last one dies), so they may outlive the loader and the handle.
// Thread safety: all calls may be made from several threads.
// Failure behaviour: each failed check, a dlopen error (unresolved symbol,
// malformed ELF) and a missing entry point give an error naming the library
// (and the export); nothing aborts.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_EXECUTABLELOADER_H
#define FLEET_RUNTIME_HAL_EXECUTABLELOADER_H

#include "fleet/runtime/hal/Executable.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace fleet::runtime::hal {

struct LoaderStatistics {
  uint64_t librariesLoaded = 0;
  uint64_t executablesLoaded = 0;
  /// Time spent in loadLibrary() and createExecutable(), nanoseconds.
  uint64_t loadNanoseconds = 0;
};


/// One dlopen'ed kernel library. Immutable; lookups may race.
class KernelLibrary {
public:
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;

  const std::string &name() const { return name_; }
  /// The entry point `symbol`, or NotFound naming the library and symbol.
  StatusOr<fleet_kernel_fn_t> lookup(const std::string &symbol) const;

private:
  friend class ExecutableLoader;
  KernelLibrary() = default;
  std::string name_;
  void *handle_ = nullptr;
  int fd_ = -1;
};

class ExecutableLoader {
public:
  static StatusOr<std::unique_ptr<ExecutableLoader>> create();
  ~ExecutableLoader();

  /// Checks `info` and `bytes` (steps 1-4 above) and loads the library.
  StatusOr<std::shared_ptr<KernelLibrary>>
  loadLibrary(const KernelLibraryInfo &info, Span<const uint8_t> bytes);

  /// Export i of the result is `exportNames[i]` (ordinal i), implemented by
  /// `symbols[i]` of `library`, with layout `layouts[i]` when given
  /// (Executable.h). The executable keeps the library loaded.
  StatusOr<Ref<Executable>>
  createExecutable(const std::string &name,
                   std::shared_ptr<KernelLibrary> library,
                   const std::vector<std::string> &exportNames,
                   const std::vector<std::string> &symbols,
                   const std::vector<std::optional<ExportLayout>> &layouts = {});

  LoaderStatistics statistics() const;

private:
  ExecutableLoader() = default;
  std::atomic<uint64_t> libraries_{0};
  std::atomic<uint64_t> executables_{0};
  std::atomic<uint64_t> loadNanoseconds_{0};
};

/// The names of cpuFeatureTable() (KernelLibrary.h) the host has, after the
/// FLEET_TEST_HIDE_CPU_FEATURES hook.
std::vector<std::string> hostCpuFeatures();

/// OK when the host has every feature of `required`; otherwise
/// FailedPrecondition naming `what`, the target CPU and the missing (or
/// unknown) features.
Status checkCpuFeatures(const std::vector<std::string> &required,
                        const std::string &what, const std::string &targetCpu);

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_EXECUTABLELOADER_H
