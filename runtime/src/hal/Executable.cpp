//===- Executable.cpp - tables of kernel functions -------------------------===//

#include "fleet/runtime/hal/Executable.h"

#include <set>

namespace fleet::runtime::hal {

StatusOr<Ref<Executable>> Executable::create(std::string name,
                                             std::vector<ExecutableExport> exports,
                                             std::shared_ptr<void> backing) {
  std::set<std::string_view> seen;
  for (size_t ordinal = 0; ordinal < exports.size(); ++ordinal) {
    const ExecutableExport &entry = exports[ordinal];
    if (entry.name.empty())
      return makeStatus(StatusCode::InvalidArgument, "executable '", name,
                        "': export ordinal ", ordinal, " has no name");
    if (!entry.function && !entry.driverEntry)
      return makeStatus(StatusCode::InvalidArgument, "executable '", name,
                        "': export '", entry.name, "' (ordinal ", ordinal,
                        ") has no function");
    if (!seen.insert(entry.name).second)
      return makeStatus(StatusCode::InvalidArgument, "executable '", name,
                        "': export '", entry.name, "' appears twice");
  }
  Ref<Executable> executable = Ref<Executable>::adopt(new Executable());
  executable->name_ = std::move(name);
  executable->exports_ = std::move(exports);
  executable->backing_ = std::move(backing);
  return executable;
}

StatusOr<uint32_t> Executable::lookupExport(std::string_view name) const {
  for (uint32_t ordinal = 0; ordinal < exports_.size(); ++ordinal)
    if (exports_[ordinal].name == name)
      return ordinal;
  return makeStatus(StatusCode::NotFound, "executable '", name_,
                    "' has no export '", name, "'");
}

} // namespace fleet::runtime::hal
