//===- ModuleState.h - what a loaded module owns ------------------*- C++ -*-===//
//
// Ownership: a Module owns its State: global storage (references released
// when the module dies), compiled functions, exported Function objects,
// executable tables and the constants records point at.
// Thread safety: immutable after loading, except global storage, which the
// host program reads and writes. Failure behaviour: none.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_HOST_MODULESTATE_H
#define FLEET_RUNTIME_SRC_HOST_MODULESTATE_H

#include "HALHandlers.h"

namespace fleet::runtime::host {

struct Module::State {
  ~State();
  std::vector<uint64_t> globalScalars;
  std::vector<hal::RefCounted *> globalRefs;
  std::vector<std::unique_ptr<FunctionCode>> functions;
  std::vector<std::unique_ptr<Function>> exports;
  std::vector<std::unique_ptr<ExecutableTable>> executables;
  std::vector<hal::Ref<hal::RefCounted>> constants;
  /// Record data: strings, queries, the globals' table (indirect access).
  std::vector<std::string> strings;
  std::vector<DeviceQueryData> deviceQueries;
  std::vector<LinkQueryData> linkQueries;
  std::vector<ValueType> globalRefTypes;
  GlobalTable globalTable;
};

/// Verifies and loads the artifact `bytes` (ModuleLoader.cpp) and appends it
/// to `modules` on success. `bytes` is only read during the call.
hal::StatusOr<Module *>
loadModuleInto(Context &context, hal::Span<const uint8_t> bytes,
               const std::string &source,
               std::vector<std::unique_ptr<Module>> &modules);

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_SRC_HOST_MODULESTATE_H
