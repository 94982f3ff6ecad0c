//===- Executable.h - tables of kernel functions -----------------*- C++ -*-===//
//
// An Executable is what `hal.executable` becomes at run time: a table of
// kernel entry points (KernelABI.h) indexed by export ordinal, plus the
// export names. The executable loader (ExecutableLoader.h) builds one from a
// kernel object; tests may build one from plain C++ functions.
//
// Ownership: Executable::create returns the first reference. The executable
// keeps `backing` (e.g. the JIT that holds the code) alive until it dies;
// command buffers that record a dispatch retain the executable.
// Thread safety: immutable after creation; kernels may run concurrently.
// Failure behaviour: create() rejects duplicate or empty names and exports
// with neither a function nor a driver entry; lookupExport() returns NotFound naming the export. Exports with
// a layout make CommandBuffer::dispatch reject other binding and constant
// counts.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_EXECUTABLE_H
#define FLEET_RUNTIME_HAL_EXECUTABLE_H

#include "fleet/runtime/hal/KernelABI.h"
#include "fleet/runtime/hal/Ref.h"
#include "fleet/runtime/hal/Status.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fleet::runtime::hal {

/// What an export's pipeline layout (`#hal.pipeline.layout`) declares: a
/// dispatch must pass exactly this many bindings and push-constant words,
/// or the kernel would read past the arrays it is given.
/// What the artifact records about one kernel library (KernelLibrary.h).
struct KernelLibraryInfo {
  std::string name;
  std::string targetCpu;
  std::vector<std::string> cpuFeatures;
  int64_t abiVersion = 0;
  uint64_t checksum = 0;
};

struct ExportLayout {
  uint32_t bindingCount = 0;
  uint32_t constantCount = 0;
};

struct ExecutableExport {
  std::string name;
  /// Host code (local devices); null for a driver pipeline.
  fleet_kernel_fn_t function = nullptr;
  /// Unknown for executables built without one (tests): then dispatches
  /// are not checked against it.
  std::optional<ExportLayout> layout;
  /// The driver's compiled entry point (a Vulkan compute pipeline record)
  /// when `function` is null; owned by the executable's backing.
  const void *driverEntry = nullptr;
};

class Device;

class Executable final : public RefCounted {
public:
  /// Export i of `exports` gets ordinal i. `name` names the executable in
  /// messages and traces.
  static StatusOr<Ref<Executable>> create(std::string name,
                                          std::vector<ExecutableExport> exports,
                                          std::shared_ptr<void> backing = {});

  const std::string &name() const { return name_; }
  /// The device that loaded this executable and alone may run it (driver
  /// pipelines), or null: host code any local device runs.
  Device *device() const { return device_; }
  void setDevice(Device *device) { device_ = device; }
  const void *driverEntry(uint32_t ordinal) const {
    return exports_[ordinal].driverEntry;
  }
  uint32_t exportCount() const { return uint32_t(exports_.size()); }
  const std::string &exportName(uint32_t ordinal) const {
    return exports_[ordinal].name;
  }
  fleet_kernel_fn_t function(uint32_t ordinal) const {
    return exports_[ordinal].function;
  }
  const std::optional<ExportLayout> &layout(uint32_t ordinal) const {
    return exports_[ordinal].layout;
  }
  StatusOr<uint32_t> lookupExport(std::string_view name) const;

  /// Time the loader spent producing this executable (0 if not loaded).
  uint64_t loadNanoseconds() const { return loadNanoseconds_; }
  void setLoadNanoseconds(uint64_t ns) { loadNanoseconds_ = ns; }

private:
  Executable() = default;
  std::string name_;
  std::vector<ExecutableExport> exports_;
  std::shared_ptr<void> backing_;
  Device *device_ = nullptr;
  uint64_t loadNanoseconds_ = 0;
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_EXECUTABLE_H
