//===- ModuleLoader.cpp - loading an artifact into a context -------------===//
//
// Context.h steps 1–5: the artifact is verified (ArtifactVerifier.h), its
// globals get storage, its functions' records become Instrs (handlers from
// the op table, data indices resolved to pointers), imports are resolved
// against earlier modules, device globals bound, kernel libraries loaded
// and initializers run. Nothing of a module that fails to load stays in the
// context.
//
//===----------------------------------------------------------------------===//

#include "ArtifactVerifier.h"
#include "ModuleState.h"

#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/hal/ExecutableLoader.h"
#include "fleet/runtime/hal/Trace.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

namespace fleet::runtime::host {

namespace fb = ::fleet::artifact::fb;
using hal::makeStatus;
using hal::Status;
using hal::StatusCode;

Module::Module() : state_(std::make_unique<State>()) {}
Module::~Module() = default;

Module::State::~State() {
  for (hal::RefCounted *ref : globalRefs)
    if (ref)
      ref->release();
}

const Function *Module::lookupExport(std::string_view name) const {
  for (const Function *function : exports_)
    if (function->name() == name)
      return function;
  return nullptr;
}

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;

std::string describeTypes(const std::vector<ValueType> &types) {
  std::string text = "(";
  for (size_t i = 0; i < types.size(); ++i)
    text += (i ? ", " : "") + std::string(typeName(types[i]));
  return text + ")";
}

std::string str(const flatbuffers::String *text) {
  return text ? text->str() : std::string();
}

template <typename T> uint32_t sizeOf(const flatbuffers::Vector<T> *vector) {
  return vector ? vector->size() : 0;
}

std::vector<ValueType> typesOf(const flatbuffers::Vector<uint8_t> *types) {
  std::vector<ValueType> result;
  for (uint32_t i = 0; i < sizeOf(types); ++i)
    result.push_back(ValueType(types->Get(i)));
  return result;
}

std::vector<TensorDescription>
tensorsOf(const flatbuffers::Vector<flatbuffers::Offset<fb::Tensor>> *tensors) {
  std::vector<TensorDescription> result;
  for (uint32_t i = 0; i < sizeOf(tensors); ++i) {
    const fb::Tensor &tensor = *tensors->Get(i);
    TensorDescription description;
    description.known = tensor.known();
    for (uint32_t d = 0; d < sizeOf(tensor.shape()); ++d)
      description.shape.push_back(tensor.shape()->Get(d));
    description.elementType = hal::ElementType(tensor.element_type());
    result.push_back(std::move(description));
  }
  return result;
}

} // namespace

class ModuleLoader {
public:
  ModuleLoader(Context &context, std::string source)
      : context_(context), module_(new Module()), state_(*module_->state_) {
    module_->source_ = std::move(source);
  }

  hal::StatusOr<std::unique_ptr<Module>> load(hal::Span<const uint8_t> bytes);

private:
  void allocateGlobals();
  void buildFunctions();
  void buildCode(const fb::Function &function, FunctionCode &code);
  void resolveImports();
  Status bindDevices();
  Status loadExecutables();
  hal::StatusOr<hal::Ref<hal::Executable>>
  loadVariant(const std::string &executable, const fb::Variant &variant,
              hal::Device *device);
  Status runInitializers();
  Status failure(const std::string &what);

  Context &context_;
  std::unique_ptr<Module> module_;
  Module::State &state_;
  const fb::Module *artifact_ = nullptr;
  std::vector<std::string> errors_;
  /// Storage of global i (a uint64_t or a RefCounted*).
  std::vector<void *> globalStorage_;
  std::vector<hal::Device *> boundDevices_;
  /// The device globals bound to each device of boundDevices_ (same order).
  std::vector<std::vector<std::string>> boundGlobals_;
  std::map<uint32_t, std::shared_ptr<hal::KernelLibrary>> libraries_;
};

Status ModuleLoader::failure(const std::string &what) {
  std::string name = module_->name_.empty() ? std::string("<unnamed>")
                                            : "'" + module_->name_ + "'";
  std::string text =
      "cannot load module " + name + " from " + module_->source_ +
      (what.empty() ? std::string(":") : ": " + what);
  size_t shown = 0;
  for (const std::string &message : errors_) {
    if (++shown > 20) {
      text += hal::concat("\n  ... and ", errors_.size() - 20, " more");
      break;
    }
    text += "\n  " + message;
  }
  return Status(StatusCode::InvalidArgument, std::move(text));
}

void ModuleLoader::allocateGlobals() {
  const auto *globals = artifact_->globals();
  size_t scalars = 0, refs = 0;
  for (uint32_t i = 0; i < sizeOf(globals); ++i)
    (isReferenceType(ValueType(globals->Get(i)->type())) ? refs : scalars)++;
  state_.globalScalars.assign(scalars, 0);
  state_.globalRefs.assign(refs, nullptr);
  size_t scalarIndex = 0, refIndex = 0;
  for (uint32_t i = 0; i < sizeOf(globals); ++i) {
    const fb::Global &global = *globals->Get(i);
    auto type = ValueType(global.type());
    if (isReferenceType(type)) {
      state_.globalRefTypes.push_back(type);
      globalStorage_.push_back(&state_.globalRefs[refIndex++]);
    } else {
      state_.globalScalars[scalarIndex] = global.initial_bits();
      globalStorage_.push_back(&state_.globalScalars[scalarIndex++]);
    }
  }
  state_.globalTable = GlobalTable{state_.globalScalars.data(), scalars,
                                   state_.globalRefs.data(), refs,
                                   state_.globalRefTypes.data()};
}

void ModuleLoader::buildCode(const fb::Function &function, FunctionCode &code) {
  const auto *records = function.records();
  uint32_t count = sizeOf(records);
  if (function.slots())
    code.slotTable.assign(function.slots()->begin(), function.slots()->end());
  if (function.scalar_template())
    code.scalarTemplate.assign(function.scalar_template()->begin(),
                               function.scalar_template()->end());
  for (uint32_t i = 0; i < sizeOf(function.fixups()); ++i) {
    const fb::Fixup &fixup = *function.fixups()->Get(i);
    code.scalarTemplate[fixup.slot()] =
        fixup.kind() == fb::FixupKind::GlobalAddress
            ? uint64_t(uintptr_t(globalStorage_[fixup.index()]))
            : uint64_t(context_.devices().size());
  }
  code.refCount = sizeOf(function.ref_types());
  if (function.argument_slots())
    code.argumentSlots.assign(function.argument_slots()->begin(),
                              function.argument_slots()->end());
  for (uint32_t i = 0; i < sizeOf(function.sites()); ++i) {
    const fb::Site &site = *function.sites()->Get(i);
    code.sites.push_back(Site{str(site.op()), str(site.location())});
  }
  code.code.resize(count);
  const auto *refTypes = function.ref_types();
  for (uint32_t i = 0; i < count; ++i) {
    const fb::Record &record = *records->Get(i);
    Instr &instr = code.code[i];
    auto kind = OpKind(record.kind());
    instr.handler = handlerOf(kind);
    instr.slots = code.slotTable.data() + record.slot_offset();
    instr.slotCount = record.slot_count();
    instr.imm = record.imm();
    instr.imm2 = record.imm2();
    instr.site = record.site();
    instr.target = record.target() < count ? &code.code[record.target()]
                                           : nullptr;
    uint32_t data = record.data();
    switch (opKindData(kind)) {
    case OpDataKind::Global:
      instr.data = globalStorage_[data];
      break;
    case OpDataKind::Function:
      instr.data = state_.functions[data].get();
      break;
    case OpDataKind::Executable:
      instr.data = state_.executables[data].get();
      break;
    case OpDataKind::Constant:
      instr.data = state_.constants[data].get();
      break;
    case OpDataKind::String:
      instr.data = &state_.strings[data];
      break;
    case OpDataKind::DeviceQuery:
      instr.data = &state_.deviceQueries[data];
      break;
    case OpDataKind::LinkQuery:
      instr.data = &state_.linkQueries[data];
      break;
    case OpDataKind::None:
      break;
    }
    if (kind == OpKind::IndirectLoadScalar || kind == OpKind::IndirectLoadRef ||
        kind == OpKind::IndirectStoreScalar || kind == OpKind::IndirectStoreRef)
      instr.data = &state_.globalTable;
    // The reference type an indirect ref access expects (GlobalTable).
    if (kind == OpKind::IndirectLoadRef)
      instr.imm = refTypes->Get(instr.slots[1]);
    else if (kind == OpKind::IndirectStoreRef)
      instr.imm = refTypes->Get(instr.slots[0]);
  }
  module_->statistics_.opRecords += count;
}

void ModuleLoader::buildFunctions() {
  // Per-module data first: records point into it.
  for (uint32_t i = 0; i < sizeOf(artifact_->strings()); ++i)
    state_.strings.push_back(str(artifact_->strings()->Get(i)));
  for (uint32_t i = 0; i < sizeOf(artifact_->device_queries()); ++i) {
    const fb::DeviceQuery &q = *artifact_->device_queries()->Get(i);
    state_.deviceQueries.push_back(DeviceQueryData{
        str(q.category()), str(q.key()), ValueType(q.type()), q.default_bits()});
  }
  for (uint32_t i = 0; i < sizeOf(artifact_->link_queries()); ++i) {
    const fb::LinkQuery &q = *artifact_->link_queries()->Get(i);
    state_.linkQueries.push_back(LinkQueryData{str(q.key()), q.default_bits()});
  }
  for (uint32_t i = 0; i < sizeOf(artifact_->constants()); ++i) {
    const fb::Constant &constant = *artifact_->constants()->Get(i);
    const auto *data = constant.data();
    state_.constants.push_back(hal::Ref<hal::RefCounted>(HostBuffer::create(
        data ? data->data() : nullptr, sizeOf(data), constant.alignment())));
  }
  for (uint32_t i = 0; i < sizeOf(artifact_->executables()); ++i) {
    auto table = std::make_unique<ExecutableTable>();
    table->name = str(artifact_->executables()->Get(i)->name());
    state_.executables.push_back(std::move(table));
  }
  const auto *functions = artifact_->functions();
  std::string prefix = module_->name_.empty() ? "" : module_->name_ + ".";
  for (uint32_t i = 0; i < sizeOf(functions); ++i) {
    const fb::Function &function = *functions->Get(i);
    auto code = std::make_unique<FunctionCode>();
    code->name = str(function.name());
    code->isDeclaration = function.is_declaration();
    code->displayName = code->isDeclaration ? code->name : prefix + code->name;
    code->argumentTypes = typesOf(function.argument_types());
    code->resultTypes = typesOf(function.result_types());
    state_.functions.push_back(std::move(code));
  }
  for (uint32_t i = 0; i < sizeOf(functions); ++i) {
    const fb::Function &function = *functions->Get(i);
    if (function.is_declaration())
      continue;
    buildCode(function, *state_.functions[i]);
    ++module_->statistics_.functionsCompiled;
  }
}

void ModuleLoader::resolveImports() {
  const auto *functions = artifact_->functions();
  for (uint32_t i = 0; i < sizeOf(functions); ++i) {
    const fb::Function &function = *functions->Get(i);
    if (!function.is_declaration())
      continue;
    FunctionCode &code = *state_.functions[i];
    auto convention = Convention(uint8_t(function.convention()));
    const std::string &full = code.name;
    size_t dot = full.find('.');
    std::string prefix = dot == std::string::npos ? full : full.substr(0, dot);
    std::string rest = dot == std::string::npos ? "" : full.substr(dot + 1);
    const Function *target = nullptr;
    const Module *provider = nullptr;
    for (const std::unique_ptr<Module> &loaded : context_.modules()) {
      if (!rest.empty() && loaded->name() == prefix)
        target = loaded->lookupExport(rest);
      else if (loaded->name().empty())
        target = loaded->lookupExport(full);
      if (target) {
        provider = loaded.get();
        break;
      }
    }
    if (!target) {
      std::string available;
      for (const std::unique_ptr<Module> &loaded : context_.modules()) {
        available += available.empty() ? "" : "; ";
        available += loaded->name().empty() ? std::string("unnamed module")
                                            : "module '" + loaded->name() + "'";
        available += " exports";
        for (const Function *fn : loaded->exports())
          available += " @" + fn->qualifiedName();
      }
      errors_.push_back(str(function.location()) + ": import @" + full +
                        " is not exported by any module loaded before this "
                        "one (" +
                        (available.empty() ? std::string("no modules loaded")
                                           : available) +
                        "); load the module defining it first");
      continue;
    }
    const FunctionSignature &signature = target->signature();
    if (signature.arguments != code.argumentTypes ||
        signature.results != code.resultTypes ||
        signature.convention != convention) {
      errors_.push_back(
          str(function.location()) + ": import @" + full + " has type " +
          describeTypes(code.argumentTypes) +
          " -> " + describeTypes(code.resultTypes) +
          (convention == Convention::CoarseFences ? " (coarse-fences)" : "") +
          " but " +
          (provider->name().empty() ? std::string("the export")
                                    : "module '" + provider->name() +
                                          "' exports") +
          " " + signature.toString(target->name()) +
          (signature.convention == Convention::CoarseFences ? " (coarse-fences)"
                                                            : ""));
      continue;
    }
    code.import = target->code_;
  }
}

Status ModuleLoader::bindDevices() {
  // Only device globals the program uses need a device (docs/design.md §4: a
  // function that uses no device runs with no --device).
  hal::Span<hal::Device *const> devices = context_.devices();
  const auto *globals = artifact_->globals();
  std::vector<uint32_t> problems;
  for (uint32_t i = 0; i < sizeOf(globals); ++i) {
    const fb::Global &global = *globals->Get(i);
    if (global.binding() == fb::DeviceBinding::None)
      continue;
    hal::Device *device = nullptr;
    if (global.binding() == fb::DeviceBinding::Ordinal) {
      if (global.ordinal() >= 0 && size_t(global.ordinal()) < devices.size())
        device = devices[global.ordinal()];
    } else {
      auto bound =
          hal::bindDevice(devices, str(global.backend()), uint64_t(global.ordinal()));
      if (bound.ok())
        device = *bound;
    }
    if (!device) {
      if (global.used())
        problems.push_back(i);
      continue;
    }
    device->retain();
    *static_cast<hal::RefCounted **>(globalStorage_[i]) = device;
    auto bound = std::find(boundDevices_.begin(), boundDevices_.end(), device);
    if (bound == boundDevices_.end()) {
      boundDevices_.push_back(device);
      boundGlobals_.emplace_back();
      bound = std::prev(boundDevices_.end());
    }
    boundGlobals_[bound - boundDevices_.begin()].push_back(
        str(global.name()));
  }
  if (problems.empty())
    return Status();
  std::string needs;
  for (uint32_t i = 0; i < sizeOf(globals); ++i) {
    const fb::Global &global = *globals->Get(i);
    if (global.binding() == fb::DeviceBinding::None || !global.used())
      continue;
    needs += hal::concat("\n  @", str(global.name()), " = ",
                         global.binding() == fb::DeviceBinding::Ordinal
                             ? std::string("device")
                             : str(global.backend()),
                         "[", global.ordinal(), "]");
    if (std::find(problems.begin(), problems.end(), i) != problems.end())
      needs += "  <- no such device";
  }
  std::string given;
  for (hal::Device *device : devices)
    given += hal::concat(given.empty() ? "" : ", ", device->driverName(), " (",
                         device->name(), ", backend '",
                         device->capabilities().backend, "')");
  std::string drivers;
  for (const std::string &driver : hal::driverNames())
    drivers += (drivers.empty() ? "" : ", ") + driver;
  return failure(hal::concat(
      "not enough devices: the module needs", needs, "\ngiven ",
      devices.size(), " device(s)", given.empty() ? "" : ": ", given,
      "\nordinal N of backend 'local' is the N-th --device whose driver "
      "serves it (",
      drivers, ")"));
}

Status ModuleLoader::loadExecutables() {
  const auto *executables = artifact_->executables();
  if (!sizeOf(executables) || boundDevices_.empty())
    return Status();
  size_t deviceCount = context_.devices().size();
  // One load per (executable, variant): devices choosing the same variant
  // share it (local devices all run host code).
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>,
           hal::Ref<hal::Executable>>
      loaded;
  for (uint32_t e = 0; e < sizeOf(executables); ++e) {
    const fb::Executable &executable = *executables->Get(e);
    ExecutableTable &table = *state_.executables[e];
    table.byDevice.resize(deviceCount);
    table.missingReason.assign(deviceCount,
                               "this module binds no device global to it");
    for (size_t b = 0; b < boundDevices_.size(); ++b) {
      hal::Device *device = boundDevices_[b];
      uint32_t index = device->groupIndex();
      uint32_t chosen = kNone;
      std::string formats;
      // A variant made for one of this device's globals (the host program
      // computes its dispatches' grids for that variant), else the first of
      // a format the device loads.
      uint32_t named = kNone;
      std::string namedBy;
      for (uint32_t v = 0; v < sizeOf(executable.variants()); ++v) {
        const fb::Variant &variant = *executable.variants()->Get(v);
        for (uint32_t d = 0; d < sizeOf(variant.devices()); ++d) {
          std::string global = str(variant.devices()->Get(d));
          if (std::find(boundGlobals_[b].begin(), boundGlobals_[b].end(),
                        global) == boundGlobals_[b].end())
            continue;
          if (named != kNone && named != v)
            return failure(hal::concat(
                "device '", device->name(), "' is bound to device globals @",
                namedBy, " and @", global, ", which executable @", table.name,
                " compiles for different variants (@",
                str(executable.variants()->Get(named)->name()), ", @",
                str(variant.name()),
                "); bind them to different --device flags"));
          named = v;
          namedBy = global;
        }
      }
      for (uint32_t v = 0; v < sizeOf(executable.variants()); ++v) {
        std::string format = str(executable.variants()->Get(v)->format());
        formats += (formats.empty() ? "" : ", ") + format;
        if (named != kNone && v != named)
          continue;
        if (device->query("hal.executable.format", format).value) {
          chosen = v;
          break;
        }
      }
      if (chosen == kNone) {
        table.missingReason[index] =
            "no variant of a format the device loads (variants: " +
            (formats.empty() ? std::string("none") : formats) +
            "; device: " + device->executableFormat() + ")";
        continue;
      }
      // Host code is shared by every local device; a driver's pipelines
      // (SPIR-V), and host code a remote device loads in its own process,
      // belong to the device that created them.
      bool perDevice = device->loadsOwnExecutables();
      auto key = std::make_tuple(e, chosen, perDevice ? index : ~0u);
      auto it = loaded.find(key);
      if (it == loaded.end()) {
        hal::StatusOr<hal::Ref<hal::Executable>> result =
            loadVariant(table.name, *executable.variants()->Get(chosen),
                        perDevice ? device : nullptr);
        if (!result.ok())
          return result.status();
        ++module_->statistics_.executablesLoaded;
        it = loaded.emplace(key, std::move(*result)).first;
      }
      table.byDevice[index] = it->second;
      table.missingReason[index].clear();
    }
  }
  return Status();
}

/// What the artifact records about a kernel library, for the loader.
static hal::KernelLibraryInfo getLibraryInfo(const fb::KernelLibrary &record) {
  hal::KernelLibraryInfo info;
  info.name = str(record.name());
  info.targetCpu = str(record.target_cpu());
  info.abiVersion = record.abi_version();
  info.checksum = record.checksum();
  for (uint32_t i = 0; i < sizeOf(record.cpu_features()); ++i)
    info.cpuFeatures.push_back(str(record.cpu_features()->Get(i)));
  return info;
}

hal::StatusOr<hal::Ref<hal::Executable>>
ModuleLoader::loadVariant(const std::string &executable,
                          const fb::Variant &variant, hal::Device *device) {
  uint64_t start = hal::monotonicNanoseconds();
  if (variant.library() == kNone) {
    std::string problem = str(variant.problem());
    errors_.push_back(problem);
    bool unlinked = problem.find("unlinked") != std::string::npos;
    bool noObject = problem.find("holds no kernel object") != std::string::npos;
    size_t quote = problem.find("kernel library '");
    return failure(unlinked   ? "executable with an unlinked kernel object"
                   : noObject ? "executable without kernel object"
                   : quote != std::string::npos
                       ? problem.substr(quote, problem.find("':", quote) -
                                                   quote + 1) +
                             " does not load"
                       : "bad executable variant");
  }
  std::vector<std::string> names, symbols;
  std::vector<std::optional<hal::ExportLayout>> layouts;
  for (uint32_t x = 0; x < sizeOf(variant.exports()); ++x) {
    const fb::Export &entry = *variant.exports()->Get(x);
    size_t ordinal = entry.ordinal();
    if (names.size() <= ordinal) {
      names.resize(ordinal + 1);
      symbols.resize(ordinal + 1);
      layouts.resize(ordinal + 1);
    }
    names[ordinal] = str(entry.name());
    symbols[ordinal] = str(entry.symbol());
    layouts[ordinal] = hal::ExportLayout{entry.bindings(), entry.constants()};
  }
  if (device) {
    // A driver format: the device compiles the module into its pipelines.
    const fb::KernelLibrary &record =
        *artifact_->libraries()->Get(variant.library());
    hal::ExecutableSource source;
    source.name = executable;
    source.format = str(variant.format());
    source.bytes = hal::Span<const uint8_t>(record.data()->data(),
                                            record.data()->size());
    source.exportNames = std::move(names);
    source.symbols = std::move(symbols);
    source.layouts = std::move(layouts);
    source.library = getLibraryInfo(record);
    auto result = device->loadExecutable(source);
    module_->statistics_.executableLoadNanoseconds +=
        hal::monotonicNanoseconds() - start;
    if (!result.ok()) {
      errors_.push_back(result.status().toString());
      return failure("executable @" + executable + " does not load on device '" +
                     device->name() + "'");
    }
    return std::move(*result);
  }
  auto loader = context_.executableLoader();
  if (!loader.ok())
    return loader.status();
  std::shared_ptr<hal::KernelLibrary> library;
  auto cached = libraries_.find(variant.library());
  const fb::KernelLibrary &record =
      *artifact_->libraries()->Get(variant.library());
  if (cached != libraries_.end()) {
    library = cached->second;
  } else {
    hal::KernelLibraryInfo info = getLibraryInfo(record);
    auto result = (*loader)->loadLibrary(
        info, hal::Span<const uint8_t>(record.data()->data(),
                                       record.data()->size()));
    if (!result.ok()) {
      errors_.push_back(result.status().toString());
      return failure("kernel library '" + info.name + "' does not load");
    }
    library = *result;
    libraries_.emplace(variant.library(), library);
  }
  auto result =
      (*loader)->createExecutable(executable, library, names, symbols, layouts);
  module_->statistics_.executableLoadNanoseconds +=
      hal::monotonicNanoseconds() - start;
  if (!result.ok()) {
    errors_.push_back(result.status().toString());
    return failure("kernel library of executable @" + executable +
                   " does not load");
  }
  return std::move(*result);
}

Status ModuleLoader::runInitializers() {
  const auto *functions = artifact_->functions();
  for (uint32_t i = 0; i < sizeOf(functions); ++i) {
    if (!functions->Get(i)->is_initializer())
      continue;
    ExecState state;
    state.context = &context_;
    std::vector<Value> results;
    if (!callFunction(state, *state_.functions[i], nullptr, nullptr, nullptr,
                      {}, &results))
      return failure("util.initializer failed: " + state.status.toString());
  }
  return Status();
}

hal::StatusOr<std::unique_ptr<Module>>
ModuleLoader::load(hal::Span<const uint8_t> bytes) {
  uint64_t start = hal::monotonicNanoseconds();
  std::vector<uint64_t> aligned;
  FLEET_RETURN_IF_ERROR(
      verifyArtifact(bytes, module_->source_, aligned, artifact_));
  uint64_t read = hal::monotonicNanoseconds();
  module_->statistics_.readNanoseconds = read - start;
  module_->name_ = str(artifact_->name());
  for (const std::unique_ptr<Module> &loaded : context_.modules())
    if (!module_->name_.empty() && loaded->name() == module_->name_)
      return failure("a module named '" + module_->name_ +
                     "' is already loaded (from " + loaded->source() + ")");
  allocateGlobals();
  buildFunctions();
  resolveImports();
  if (!errors_.empty())
    return failure("");
  module_->statistics_.compileNanoseconds = hal::monotonicNanoseconds() - read;

  // Public functions with bodies are the module's exports.
  std::string prefix = module_->name_.empty() ? "" : module_->name_ + ".";
  const auto *functions = artifact_->functions();
  for (uint32_t i = 0; i < sizeOf(functions); ++i) {
    const fb::Function &record = *functions->Get(i);
    if (record.is_declaration() || !record.is_public() ||
        record.is_initializer())
      continue;
    FunctionCode *code = state_.functions[i].get();
    auto function = std::make_unique<Function>();
    function->name_ = code->name;
    function->qualifiedName_ = prefix + code->name;
    function->signature_.arguments = code->argumentTypes;
    function->signature_.results = code->resultTypes;
    function->signature_.argumentTensors = tensorsOf(record.argument_tensors());
    function->signature_.resultTensors = tensorsOf(record.result_tensors());
    function->signature_.convention = Convention(uint8_t(record.convention()));
    function->module_ = module_.get();
    function->exported_ = true;
    function->code_ = code;
    module_->exports_.push_back(function.get());
    state_.exports.push_back(std::move(function));
  }

  FLEET_RETURN_IF_ERROR(bindDevices());
  FLEET_RETURN_IF_ERROR(loadExecutables());
  uint64_t initStart = hal::monotonicNanoseconds();
  FLEET_RETURN_IF_ERROR(runInitializers());
  uint64_t end = hal::monotonicNanoseconds();
  module_->statistics_.initializerNanoseconds = end - initStart;
  module_->statistics_.totalNanoseconds = end - start;
  return std::move(module_);
}

hal::StatusOr<Module *> loadModuleInto(Context &context,
                                       hal::Span<const uint8_t> bytes,
                                       const std::string &source,
                                       std::vector<std::unique_ptr<Module>> &modules) {
  ModuleLoader loader(context, source);
  auto module = loader.load(bytes);
  if (!module.ok())
    return module.status();
  modules.push_back(std::move(*module));
  return modules.back().get();
}

} // namespace fleet::runtime::host
