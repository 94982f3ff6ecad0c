//===- ModuleLoader.cpp - loading a module into a context ----------------===//
//
// Context.h steps 1–5: globals, functions and executables of one module are
// collected, imports resolved against earlier modules, bodies lowered
// (Lowering.h), device globals bound, kernel objects loaded and
// initializers run. Nothing of a module that fails to load stays in the
// context.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "ModuleState.h"
#include "Signature.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/hal/ExecutableLoader.h"
#include "fleet/runtime/hal/KernelLibrary.h"
#include "fleet/runtime/hal/Trace.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <map>
#include <set>

namespace fleet::runtime::host {

using namespace mlir;
namespace utilir = ::fleet::util;
namespace halir = ::fleet::hal;
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

/// A device global waiting to be bound (docs/design.md §5).
struct DeviceRequest {
  std::string global;
  std::string backend;
  int64_t ordinal;
  hal::RefCounted **storage;
};

std::string describeTypes(ArrayRef<ValueType> types) {
  std::string text = "(";
  for (size_t i = 0; i < types.size(); ++i)
    text += (i ? ", " : "") + std::string(typeName(types[i]));
  return text + ")";
}

} // namespace

class ModuleLoader {
public:
  ModuleLoader(Context &context, std::string source)
      : context_(context), module_(new Module()), state_(*module_->state_) {
    module_->source_ = std::move(source);
  }

  hal::StatusOr<std::unique_ptr<Module>> load(ModuleOp op);

private:
  void collect(ModuleOp op);
  void collectGlobal(utilir::GlobalOp global, size_t &scalarIndex,
                     size_t &refIndex);
  void resolveImports();
  void lowerBodies();
  Status bindDevices(ModuleOp op);
  Status loadExecutables(ModuleOp op);
  hal::StatusOr<hal::Ref<hal::Executable>>
  loadVariant(ModuleOp op, const std::string &executable,
              halir::ExecutableVariantOp variant);
  hal::StatusOr<std::shared_ptr<hal::KernelLibrary>>
  loadLibrary(ModuleOp op, Operation *user, StringRef name);
  Status runInitializers();
  Status failure(const std::string &what);
  void error(Operation *op, const Twine &message) {
    env_.errors.push_back(
        (formatLocation(op->getLoc()) + ": " + message).str());
  }

  Context &context_;
  std::unique_ptr<Module> module_;
  Module::State &state_;
  LoweringEnv env_;
  std::vector<DeviceRequest> deviceRequests_;
  std::vector<std::pair<utilir::FuncOp, FunctionCode *>> functions_;
  std::vector<std::pair<utilir::InitializerOp, FunctionCode *>> initializers_;
  std::vector<std::pair<halir::ExecutableOp, ExecutableTable *>> executables_;
  /// Devices this module's device globals are bound to.
  std::vector<hal::Device *> boundDevices_;
  /// Kernel libraries loaded so far, by name.
  std::map<std::string, std::shared_ptr<hal::KernelLibrary>> libraries_;
};

Status ModuleLoader::failure(const std::string &what) {
  std::string name = module_->name_.empty() ? std::string("<unnamed>")
                                            : "'" + module_->name_ + "'";
  std::string text =
      "cannot load module " + name + " from " + module_->source_ +
      (what.empty() ? std::string(":") : ": " + what);
  size_t shown = 0;
  for (const std::string &message : env_.errors) {
    if (++shown > 20) {
      text += hal::concat("\n  ... and ", env_.errors.size() - 20, " more");
      break;
    }
    text += "\n  " + message;
  }
  return Status(StatusCode::InvalidArgument, std::move(text));
}

void ModuleLoader::collectGlobal(utilir::GlobalOp global, size_t &scalarIndex,
                                 size_t &refIndex) {
  std::optional<ValueType> type = classifyType(global.getType());
  if (!type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << global.getType();
    return error(global, "global @" + global.getSymName() + " has type " +
                             text + ", which the executor cannot hold");
  }
  void *storage = isReferenceType(*type)
                      ? static_cast<void *>(&state_.globalRefs[refIndex++])
                      : static_cast<void *>(&state_.globalScalars[scalarIndex++]);
  env_.globals[global.getSymName()] = GlobalInfo{*type, storage};
  std::optional<Attribute> initial = global.getInitialValue();
  if (!initial)
    return;
  if (auto target = dyn_cast<halir::DeviceTargetAttr>(*initial)) {
    deviceRequests_.push_back(DeviceRequest{
        global.getSymName().str(), target.getDeviceID().getValue().str(),
        target.getOrdinal(), static_cast<hal::RefCounted **>(storage)});
    return;
  }
  if (auto ordinal = dyn_cast<halir::DeviceOrdinalAttr>(*initial)) {
    // The N-th runtime device, whatever its driver.
    deviceRequests_.push_back(DeviceRequest{global.getSymName().str(), "",
                                            ordinal.getOrdinal(),
                                            static_cast<hal::RefCounted **>(
                                                storage)});
    return;
  }
  if (isReferenceType(*type))
    return error(global, "global @" + global.getSymName() +
                             ": initial value of a reference type is not "
                             "supported (only #hal.device.target and "
                             "#hal.device.ordinal)");
  Attribute attr = *initial;
  uint64_t bits = 0;
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    bits = Value::integer(*type, integer.getValue().getSExtValue()).bits();
  } else if (auto floating = dyn_cast<FloatAttr>(attr);
             floating && *type == ValueType::F32) {
    bits = Value::f32(floating.getValue().convertToFloat()).bits();
  } else if (floating && *type == ValueType::F64) {
    bits = Value::f64(floating.getValue().convertToDouble()).bits();
  } else if (floating && isHalfFloatType(*type)) {
    bits = floating.getValue().bitcastToAPInt().getZExtValue();
  } else {
    return error(global, "global @" + global.getSymName() +
                             ": unsupported initial value");
  }
  *static_cast<uint64_t *>(storage) = bits;
}

void ModuleLoader::collect(ModuleOp op) {
  // Storage first, so lowered records can point at it.
  size_t scalars = 0, refs = 0;
  for (auto global : op.getOps<utilir::GlobalOp>()) {
    std::optional<ValueType> type = classifyType(global.getType());
    if (type && isReferenceType(*type))
      ++refs;
    else
      ++scalars;
  }
  state_.globalScalars.assign(scalars, 0);
  state_.globalRefs.assign(refs, nullptr);
  size_t scalarIndex = 0, refIndex = 0;

  std::string prefix = module_->name_.empty() ? "" : module_->name_ + ".";
  size_t initializerCount = 0;
  for (Operation &child : op.getBody()->getOperations()) {
    if (auto global = dyn_cast<utilir::GlobalOp>(child)) {
      collectGlobal(global, scalarIndex, refIndex);
    } else if (auto func = dyn_cast<utilir::FuncOp>(child)) {
      auto code = std::make_unique<FunctionCode>();
      code->name = func.getSymName().str();
      code->isDeclaration = func.isExternal();
      code->displayName =
          code->isDeclaration ? code->name : prefix + code->name;
      for (Type type : func.getResultTypes())
        code->resultTypes.push_back(
            classifyType(type).value_or(ValueType::I64));
      if (code->isDeclaration)
        for (Type type : func.getArgumentTypes())
          code->argumentTypes.push_back(
              classifyType(type).value_or(ValueType::I64));
      env_.functions[code->name] = code.get();
      functions_.emplace_back(func, code.get());
      state_.functions.push_back(std::move(code));
    } else if (auto initializer = dyn_cast<utilir::InitializerOp>(child)) {
      auto code = std::make_unique<FunctionCode>();
      code->name = "initializer#" + std::to_string(initializerCount++);
      code->displayName = prefix + code->name;
      initializers_.emplace_back(initializer, code.get());
      state_.functions.push_back(std::move(code));
    } else if (auto executable = dyn_cast<halir::ExecutableOp>(child)) {
      auto table = std::make_unique<ExecutableTable>();
      table->name = executable.getSymName().str();
      env_.executables[table->name] = table.get();
      executables_.emplace_back(executable, table.get());
      state_.executables.push_back(std::move(table));
    } else {
      error(&child, "unsupported top-level op '" +
                        child.getName().getStringRef() +
                        "' (a host program holds util.global, util.func, "
                        "util.initializer and hal.executable)");
    }
  }
}

void ModuleLoader::resolveImports() {
  for (auto &[func, code] : functions_) {
    if (!code->isDeclaration)
      continue;
    Convention convention = conventionOf(func);
    StringRef full = func.getSymName();
    auto [prefix, rest] = full.split('.');
    const Function *target = nullptr;
    const Module *provider = nullptr;
    for (const std::unique_ptr<Module> &loaded : context_.modules()) {
      if (!rest.empty() && loaded->name() == prefix)
        target = loaded->lookupExport(rest.str());
      else if (loaded->name().empty())
        target = loaded->lookupExport(full.str());
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
      error(func, "import @" + full + " is not exported by any module loaded "
                  "before this one (" +
                  (available.empty() ? std::string("no modules loaded")
                                     : available) +
                  "); load the module defining it first");
      continue;
    }
    const FunctionSignature &signature = target->signature();
    if (signature.arguments != code->argumentTypes ||
        signature.results != code->resultTypes ||
        signature.convention != convention) {
      error(func, "import @" + full + " has type " +
                      describeTypes(code->argumentTypes) + " -> " +
                      describeTypes(code->resultTypes) +
                      (convention == Convention::CoarseFences
                           ? " (coarse-fences)"
                           : "") +
                      " but " +
                      (provider->name().empty() ? std::string("the export")
                                                : "module '" + provider->name() +
                                                      "' exports") +
                      " " + signature.toString(target->name()) +
                      (signature.convention == Convention::CoarseFences
                           ? " (coarse-fences)"
                           : ""));
      continue;
    }
    code->import = target->code_;
  }
}

void ModuleLoader::lowerBodies() {
  for (auto &[func, code] : functions_) {
    if (code->isDeclaration)
      continue;
    FunctionLowering lowering(env_, *code);
    lowering.lower(func.getBody());
    ++module_->statistics_.functionsCompiled;
  }
  for (auto &[initializer, code] : initializers_) {
    FunctionLowering lowering(env_, *code);
    lowering.lower(initializer.getBody());
    ++module_->statistics_.functionsCompiled;
  }
  module_->statistics_.opRecords = env_.opRecords;
}

Status ModuleLoader::bindDevices(ModuleOp op) {
  // Only device globals the program uses need a device (docs/design.md §4: a
  // function that uses no device runs with no --device).
  std::set<std::string> used;
  op.walk([&](Operation *nested) {
    if (auto load = dyn_cast<utilir::GlobalLoadOp>(nested))
      used.insert(load.getGlobal().str());
    else if (auto address = dyn_cast<utilir::GlobalAddressOp>(nested))
      used.insert(address.getGlobal().str());
  });
  hal::Span<hal::Device *const> devices = context_.devices();
  std::vector<std::string> problems;
  for (const DeviceRequest &request : deviceRequests_) {
    hal::Device *device = nullptr;
    if (request.backend.empty()) {
      if (request.ordinal >= 0 && size_t(request.ordinal) < devices.size())
        device = devices[request.ordinal];
    } else {
      auto bound = hal::bindDevice(devices, request.backend,
                                   uint64_t(request.ordinal));
      if (bound.ok())
        device = *bound;
    }
    if (!device) {
      if (used.count(request.global))
        problems.push_back(request.global);
      continue;
    }
    device->retain();
    *request.storage = device;
    if (std::find(boundDevices_.begin(), boundDevices_.end(), device) ==
        boundDevices_.end())
      boundDevices_.push_back(device);
  }
  if (problems.empty())
    return Status();
  std::string needs;
  for (const DeviceRequest &request : deviceRequests_) {
    if (!used.count(request.global))
      continue;
    needs += hal::concat("\n  @", request.global, " = ",
                         request.backend.empty() ? "device" : request.backend,
                         "[", request.ordinal, "]");
    if (std::find(problems.begin(), problems.end(), request.global) !=
        problems.end())
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

Status ModuleLoader::loadExecutables(ModuleOp op) {
  if (executables_.empty() || boundDevices_.empty())
    return Status();
  size_t deviceCount = context_.devices().size();
  // One load per (executable, variant): devices choosing the same variant
  // share it (local devices all run host code).
  std::map<std::pair<ExecutableTable *, std::string>, hal::Ref<hal::Executable>>
      loaded;
  for (auto &[executable, table] : executables_) {
    table->byDevice.resize(deviceCount);
    table->missingReason.assign(deviceCount,
                                "this module binds no device global to it");
    for (hal::Device *device : boundDevices_) {
      uint32_t index = device->groupIndex();
      halir::ExecutableVariantOp chosen;
      std::string formats;
      for (auto variant :
           executable.getBlock().getOps<halir::ExecutableVariantOp>()) {
        StringRef format = variant.getTarget().getFormat().getValue();
        formats += (formats.empty() ? "" : ", ") + format.str();
        if (device->query("hal.executable.format", format).value) {
          chosen = variant;
          break;
        }
      }
      if (!chosen) {
        table->missingReason[index] =
            "no variant of a format the device loads (variants: " +
            (formats.empty() ? std::string("none") : formats) + "; device: " +
            hal::kLocalExecutableFormat + ")";
        continue;
      }
      auto key = std::make_pair(table, chosen.getSymName().str());
      auto it = loaded.find(key);
      if (it == loaded.end()) {
        hal::StatusOr<hal::Ref<hal::Executable>> result =
            loadVariant(op, table->name, chosen);
        if (!result.ok())
          return result.status();
        ++module_->statistics_.executablesLoaded;
        it = loaded.emplace(key, std::move(*result)).first;
      }
      table->byDevice[index] = it->second;
      table->missingReason[index].clear();
    }
  }
  return Status();
}

hal::StatusOr<std::shared_ptr<hal::KernelLibrary>>
ModuleLoader::loadLibrary(ModuleOp op, Operation *user, StringRef name) {
  namespace kl = hal::kernel_library;
  auto it = libraries_.find(name.str());
  if (it != libraries_.end())
    return it->second;
  auto bad = [&](const Twine &why) -> Status {
    error(user, "kernel library '" + name + "': " + why);
    return failure("kernel library '" + name.str() + "' does not load");
  };
  auto libraries = op->getAttrOfType<ArrayAttr>(kl::kLibrariesAttr);
  if (!libraries)
    return bad(Twine("the module has no ") + kl::kLibrariesAttr +
               " attribute (compile it with fleet-compile, or link the "
               "executables with --hal-link-executables)");
  DictionaryAttr entry;
  for (Attribute attr : libraries) {
    auto dict = dyn_cast<DictionaryAttr>(attr);
    auto entryName = dict ? dict.getAs<StringAttr>(kl::kKeyName) : StringAttr();
    if (entryName && entryName.getValue() == name) {
      entry = dict;
      break;
    }
  }
  if (!entry)
    return bad(Twine("not found in ") + kl::kLibrariesAttr);
  auto data = entry.getAs<DenseIntElementsAttr>(kl::kKeyData);
  auto abi = entry.getAs<IntegerAttr>(kl::kKeyAbiVersion);
  auto checksum = entry.getAs<StringAttr>(kl::kKeyChecksum);
  auto cpu = entry.getAs<StringAttr>(kl::kKeyTargetCpu);
  auto features = entry.getAs<ArrayAttr>(kl::kKeyCpuFeatures);
  if (!data || !data.getElementType().isInteger(8) || data.isSplat() ||
      !abi || !checksum || !cpu || !features)
    return bad(Twine("malformed entry (expected ") + kl::kKeyData +
               " = dense<...> : vector<Nxi8>, " + kl::kKeyAbiVersion + ", " +
               kl::kKeyChecksum + ", " + kl::kKeyTargetCpu + ", " +
               kl::kKeyCpuFeatures + ")");
  hal::KernelLibraryInfo info;
  info.name = name.str();
  info.targetCpu = cpu.getValue().str();
  info.abiVersion = abi.getInt();
  if (checksum.getValue().size() != 16 ||
      checksum.getValue().getAsInteger(16, info.checksum))
    return bad("malformed checksum '" + checksum.getValue() +
               "' (16 hex digits expected)");
  for (Attribute feature : features) {
    auto text = dyn_cast<StringAttr>(feature);
    if (!text)
      return bad("malformed cpu_features (strings expected)");
    info.cpuFeatures.push_back(text.getValue().str());
  }
  // Non-splat i8 data is stored as its raw bytes.
  ArrayRef<char> raw = data.getRawData();
  auto loader = context_.executableLoader();
  if (!loader.ok())
    return loader.status();
  auto library = (*loader)->loadLibrary(
      info, hal::Span<const uint8_t>(
                reinterpret_cast<const uint8_t *>(raw.data()), raw.size()));
  if (!library.ok()) {
    error(user, library.status().toString());
    return failure("kernel library '" + name.str() + "' does not load");
  }
  libraries_.emplace(name.str(), *library);
  return *library;
}

hal::StatusOr<hal::Ref<hal::Executable>>
ModuleLoader::loadVariant(ModuleOp op, const std::string &executable,
                          halir::ExecutableVariantOp variant) {
  namespace kl = hal::kernel_library;
  uint64_t start = hal::monotonicNanoseconds();
  auto linked = variant->getAttrOfType<DictionaryAttr>(kl::kVariantAttr);
  if (!linked) {
    std::optional<ArrayAttr> objects = variant.getObjects();
    error(variant,
          "executable @" + executable + " variant @" + variant.getSymName() +
              (objects && !objects->empty()
                   ? Twine(" holds an unlinked kernel object (the runtime "
                           "loads one shared object per artifact; link the "
                           "executables with --hal-link-executables, as "
                           "fleet-compile does)")
                   : Twine(" holds no kernel object (one "
                           "#hal.executable.object<{data = ...}> is "
                           "expected; compile the module to the end)")));
    return failure(objects && !objects->empty()
                       ? "executable with an unlinked kernel object"
                       : "executable without kernel object");
  }
  auto libraryName = linked.getAs<StringAttr>(kl::kKeyLibrary);
  auto symbolsAttr = linked.getAs<ArrayAttr>(kl::kKeySymbols);
  if (!libraryName || !symbolsAttr) {
    error(variant, Twine("malformed ") + kl::kVariantAttr +
                       " (expected {library = \"...\", symbols = [...]})");
    return failure("bad executable variant");
  }
  // Export names and entry symbols by ordinal (declaration order when
  // absent); symbols are listed in declaration order.
  std::vector<std::string> names, symbols;
  std::vector<std::optional<hal::ExportLayout>> layouts;
  size_t position = 0;
  for (auto exportOp : variant.getBlock().getOps<halir::ExecutableExportOp>()) {
    size_t ordinal = exportOp.getOrdinal()
                         ? size_t(exportOp.getOrdinal()->getZExtValue())
                         : position;
    auto symbol = position < symbolsAttr.size()
                      ? dyn_cast<StringAttr>(symbolsAttr[position])
                      : StringAttr();
    ++position;
    if (ordinal >= 4096) {
      error(exportOp, "export ordinal too large");
      return failure("bad executable export");
    }
    if (!symbol) {
      error(exportOp, Twine("no entry symbol for this export in ") +
                          kl::kVariantAttr);
      return failure("bad executable export");
    }
    if (names.size() <= ordinal) {
      names.resize(ordinal + 1);
      symbols.resize(ordinal + 1);
      layouts.resize(ordinal + 1);
    }
    names[ordinal] = exportOp.getSymName().str();
    symbols[ordinal] = symbol.getValue().str();
    // Dispatches are checked against the layout (Executable.h).
    halir::PipelineLayoutAttr layout = exportOp.getLayout();
    layouts[ordinal] = hal::ExportLayout{uint32_t(layout.getBindings().size()),
                                         uint32_t(layout.getConstants())};
  }
  FLEET_ASSIGN_OR_RETURN(std::shared_ptr<hal::KernelLibrary> library,
                         loadLibrary(op, variant, libraryName.getValue()));
  auto loader = context_.executableLoader();
  if (!loader.ok())
    return loader.status();
  auto result =
      (*loader)->createExecutable(executable, library, names, symbols, layouts);
  module_->statistics_.executableLoadNanoseconds +=
      hal::monotonicNanoseconds() - start;
  if (!result.ok()) {
    error(variant, result.status().toString());
    return failure("kernel library of executable @" + executable +
                   " does not load");
  }
  return std::move(*result);
}

Status ModuleLoader::runInitializers() {
  for (auto &[initializer, code] : initializers_) {
    ExecState state;
    state.context = &context_;
    std::vector<Value> results;
    if (!callFunction(state, *code, nullptr, nullptr, nullptr, {}, &results))
      return failure("util.initializer failed: " + state.status.toString());
  }
  return Status();
}

hal::StatusOr<std::unique_ptr<Module>> ModuleLoader::load(ModuleOp op) {
  uint64_t start = hal::monotonicNanoseconds();
  // input-convert-to-util records the name of a hoisted inner module as
  // fleet.module_name; a top-level `module @name` keeps its own symbol.
  if (auto name = op->getAttrOfType<StringAttr>("fleet.module_name"))
    module_->name_ = name.getValue().str();
  else if (std::optional<StringRef> symbol = op.getSymName())
    module_->name_ = symbol->str();
  for (const std::unique_ptr<Module> &loaded : context_.modules())
    if (!module_->name_.empty() && loaded->name() == module_->name_)
      return failure("a module named '" + module_->name_ +
                     "' is already loaded (from " + loaded->source() + ")");
  env_.context = &context_;
  env_.moduleName = module_->name_;
  env_.constants = &state_.constants;

  collect(op);
  resolveImports();
  if (!env_.errors.empty())
    return failure("");
  lowerBodies();
  if (!env_.errors.empty())
    return failure("unsupported host IR");
  module_->statistics_.compileNanoseconds = hal::monotonicNanoseconds() - start;

  // Public functions with bodies are the module's exports.
  std::string prefix = module_->name_.empty() ? "" : module_->name_ + ".";
  for (auto &[func, code] : functions_) {
    if (code->isDeclaration || !func.isPublic())
      continue;
    auto function = std::make_unique<Function>();
    function->name_ = code->name;
    function->qualifiedName_ = prefix + code->name;
    function->signature_ = analyzeSignature(func);
    function->module_ = module_.get();
    function->exported_ = true;
    function->code_ = code;
    module_->exports_.push_back(function.get());
    state_.exports.push_back(std::move(function));
  }

  FLEET_RETURN_IF_ERROR(bindDevices(op));
  FLEET_RETURN_IF_ERROR(loadExecutables(op));
  uint64_t initStart = hal::monotonicNanoseconds();
  FLEET_RETURN_IF_ERROR(runInitializers());
  uint64_t end = hal::monotonicNanoseconds();
  module_->statistics_.initializerNanoseconds = end - initStart;
  module_->statistics_.totalNanoseconds = end - start;
  return std::move(module_);
}

hal::StatusOr<Module *> loadModuleInto(Context &context, ModuleOp op,
                                       const std::string &source,
                                       std::vector<std::unique_ptr<Module>> &modules) {
  ModuleLoader loader(context, source);
  auto module = loader.load(op);
  if (!module.ok())
    return module.status();
  modules.push_back(std::move(*module));
  return modules.back().get();
}

} // namespace fleet::runtime::host
