//===- ExecutableLoader.h - kernel objects to executables --------*- C++ -*-===//
//
// Loads the relocatable ELF object of one `hal.executable` variant (bytes in
// memory, see KernelABI.h) with LLVM ORC (LLJIT + JITLink) and resolves each
// export name to a fleet_kernel_fn_t. The object may call libc/libm functions
// of the process (expf, memcpy, ...); no MLIR is involved at load time. Each
// executable gets its own JITDylib, so equal symbol names in different
// executables do not clash.
//
// This header has no LLVM types; the implementation lives in the
// FleetRuntimeLoader library (links libLLVM.so).
//
// Ownership: create() returns the loader. Executables it loads keep the JIT
// alive (and remove their code when they die), so they may outlive the
// loader object.
// Thread safety: load() may be called from several threads.
// Failure behaviour: a malformed object, an unresolved symbol or a missing
// export gives an error naming the executable and the symbol; nothing
// aborts.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_EXECUTABLELOADER_H
#define FLEET_RUNTIME_HAL_EXECUTABLELOADER_H

#include "fleet/runtime/hal/Executable.h"

#include <memory>
#include <string>
#include <vector>

namespace fleet::runtime::hal {

struct LoaderStatistics {
  uint64_t executablesLoaded = 0;
  /// Sum of Executable::loadNanoseconds over all loads.
  uint64_t loadNanoseconds = 0;
  /// Time create() spent building the JIT.
  uint64_t setupNanoseconds = 0;
};

class ExecutableLoader {
public:
  static StatusOr<std::unique_ptr<ExecutableLoader>> create();
  ~ExecutableLoader();

  /// Export i of the result is `exportNames[i]` (ordinal i), with layout
  /// `layouts[i]` when given (Executable.h).
  StatusOr<Ref<Executable>>
  load(const std::string &name, Span<const uint8_t> object,
       const std::vector<std::string> &exportNames,
       const std::vector<std::optional<ExportLayout>> &layouts = {});

  LoaderStatistics statistics() const;

  struct Impl;

private:
  explicit ExecutableLoader(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_EXECUTABLELOADER_H
