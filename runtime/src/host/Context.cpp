//===- Context.cpp - devices, modules and calls --------------------------===//

#include "ModuleState.h"

#include "fleet/runtime/hal/ExecutableLoader.h"
#include "fleet/runtime/hal/Trace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fleet::runtime::host {

using hal::makeStatus;
using hal::Status;
using hal::StatusCode;

hal::StatusOr<std::unique_ptr<Context>>
Context::create(std::vector<hal::Ref<hal::Device>> devices) {
  std::unique_ptr<Context> context(new Context());
  for (const hal::Ref<hal::Device> &device : devices)
    if (!device)
      return makeStatus(StatusCode::InvalidArgument,
                        "host context: null device");
  if (!devices.empty()) {
    auto group = hal::DeviceGroup::create(devices);
    if (!group.ok())
      return group.status();
    context->group_ = std::move(*group);
  }
  context->devices_ = std::move(devices);
  for (const hal::Ref<hal::Device> &device : context->devices_)
    context->devicePointers_.push_back(device.get());
  return context;
}

hal::Status Context::waitIdle() {
  uint64_t bound = hostWaitLimitMilliseconds_ ? hostWaitLimitMilliseconds_
                                               : 10000;
  hal::Status first = hal::Status::okStatus();
  for (hal::Device *device : devicePointers_) {
    hal::Status status =
        device->waitIdle(hal::Timeout::milliseconds(bound));
    if (first.ok() && !status.ok())
      first = std::move(status);
  }
  return first;
}

Context::~Context() {
  // Pending queue ops may run kernels of this context's executables and read
  // its constants: let the devices drain before modules go (bounded; the
  // ops retain what they touch, so a timeout only delays the release).
  waitIdle().ignoreError();
  while (!modules_.empty())
    modules_.pop_back();
}

hal::StatusOr<hal::ExecutableLoader *> Context::executableLoader() {
  if (!loader_) {
    auto loader = hal::ExecutableLoader::create();
    if (!loader.ok())
      return loader.status();
    loader_ = std::move(*loader);
  }
  return loader_.get();
}

hal::StatusOr<Module *> Context::loadArtifact(hal::Span<const uint8_t> bytes,
                                              const std::string &name) {
  return loadModuleInto(*this, bytes, name, modules_);
}

hal::StatusOr<Module *> Context::loadArtifactFile(const std::string &path) {
  FILE *file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!file)
    return makeStatus(StatusCode::NotFound, "cannot read module '", path,
                      "': ", std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + got);
  bool failed = std::ferror(file) != 0;
  int error = errno;
  if (file != stdin)
    std::fclose(file);
  if (failed)
    return makeStatus(StatusCode::NotFound, "cannot read module '", path,
                      "': ", std::strerror(error));
  return loadArtifact(bytes, path == "-" ? std::string("<stdin>") : path);
}

const Function *Context::lookupFunction(std::string_view name) const {
  if (modules_.empty())
    return nullptr;
  size_t dot = name.find('.');
  if (dot != std::string_view::npos) {
    std::string_view moduleName = name.substr(0, dot);
    for (const std::unique_ptr<Module> &module : modules_)
      if (module->name() == moduleName)
        if (const Function *function =
                module->lookupExport(name.substr(dot + 1)))
          return function;
  }
  return modules_.back()->lookupExport(name);
}

hal::Status Context::invoke(const Function &function,
                            hal::Span<const Value> arguments,
                            std::vector<Value> &results) {
  const FunctionSignature &signature = function.signature();
  if (arguments.size() != signature.arguments.size())
    return makeStatus(StatusCode::InvalidArgument, "@",
                      function.qualifiedName(), " takes ",
                      signature.arguments.size(), " arguments, ",
                      arguments.size(), " given; expected ",
                      signature.toString(function.qualifiedName()));
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].type() != signature.arguments[i])
      return makeStatus(StatusCode::InvalidArgument, "@",
                        function.qualifiedName(), ": argument ", i, " is ",
                        typeName(arguments[i].type()), ", expected ",
                        typeName(signature.arguments[i]), " (",
                        signature.toString(function.qualifiedName()), ")");
  ExecState state;
  state.context = this;
  if (!callFunction(state, *function.code_, nullptr, nullptr, nullptr,
                    arguments, &results))
    return state.status;
  return Status();
}

std::string formatLoadStatistics(const Context &context) {
  std::string text;
  auto ms = [](uint64_t ns) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.3f ms", double(ns) / 1e6);
    return std::string(buffer);
  };
  for (const std::unique_ptr<Module> &module : context.modules()) {
    const ModuleLoadStatistics &s = module->loadStatistics();
    text += "module " +
            (module->name().empty() ? std::string("<unnamed>")
                                    : "'" + module->name() + "'") +
            " (" + module->source() + ")\n";
    text += hal::concat("  load time:                 ", ms(s.totalNanoseconds),
                        "\n");
    text += hal::concat("    read artifact:           ", ms(s.readNanoseconds),
                        "\n");
    text += hal::concat("    compile host code:       ",
                        ms(s.compileNanoseconds), " (", s.functionsCompiled,
                        " functions, ", s.opRecords, " op records)\n");
    text += hal::concat("    load executables:        ",
                        ms(s.executableLoadNanoseconds), " (",
                        s.executablesLoaded, " loaded)\n");
    text += hal::concat("    run initializers:        ",
                        ms(s.initializerNanoseconds), "\n");
  }
  return text;
}

} // namespace fleet::runtime::host
