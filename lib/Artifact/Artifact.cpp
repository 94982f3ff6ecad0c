//===- Artifact.cpp - writing .fleet files (the flat artifact) -----------===//
//
// Collects the module's globals, functions, executables and kernel
// libraries, lowers the host functions (HostLowering.h) and writes them as
// the FlatBuffer of runtime/schema/artifact.fbs behind the header of
// ArtifactFormat.h. See Artifact.h.
//
//===----------------------------------------------------------------------===//

#include "fleet/Artifact/Artifact.h"

#include "HostLowering.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "fleet/runtime/hal/KernelABI.h"
#include "fleet/runtime/hal/KernelLibrary.h"
#include "fleet/runtime/host/artifact_generated.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <set>

using namespace mlir;

namespace fleet {

namespace {

namespace fb = ::fleet::artifact::fb;
namespace kl = ::fleet::runtime::hal::kernel_library;
namespace rh = ::fleet::runtime::host;
namespace utilir = ::fleet::util;
namespace halir = ::fleet::hal;
using artifact::classifyType;
using artifact::EmittedFunction;
using artifact::formatLocation;
using artifact::kNoIndex;
using artifact::LoweringEnv;
using artifact::ValueType;

struct GlobalRecord {
  std::string name;
  ValueType type = ValueType::I64;
  uint64_t bits = 0;
  fb::DeviceBinding binding = fb::DeviceBinding::None;
  std::string backend;
  int64_t ordinal = 0;
};

struct LibraryRecord {
  std::string name, format, cpu;
  std::vector<std::string> features;
  int64_t abi = 0;
  uint64_t checksum = 0;
  ArrayRef<char> data;
};

struct ExportRecord {
  std::string name, symbol;
  uint32_t ordinal, bindings, constants;
};
struct VariantRecord {
  std::string name, format, problem;
  uint32_t library = kNoIndex;
  std::vector<ExportRecord> exports;
  std::vector<std::string> devices;
};
struct ExecutableRecord {
  std::string name;
  std::vector<VariantRecord> variants;
};

class Writer {
public:
  explicit Writer(ModuleOp module) : module_(module) {}
  /// Lowers and serializes the module; on success hands the header and the
  /// payload to `sink` (both live only during the call).
  bool write(llvm::function_ref<void(llvm::ArrayRef<uint8_t> header,
                                     llvm::ArrayRef<uint8_t> payload)>
                 sink,
             std::string &error);

private:
  void error(Operation *op, const Twine &message) {
    env_.errors.push_back((formatLocation(op->getLoc()) + ": " + message).str());
  }
  void collectGlobal(utilir::GlobalOp global);
  void collectLibraries();
  void collectExecutable(halir::ExecutableOp executable);
  VariantRecord collectVariant(halir::ExecutableVariantOp variant,
                               StringRef executable);
  flatbuffers::DetachedBuffer build();

  ModuleOp module_;
  std::string name_;
  LoweringEnv env_;
  std::vector<GlobalRecord> globals_;
  std::vector<EmittedFunction> functions_;
  std::vector<Region *> bodies_;
  std::vector<ExecutableRecord> executables_;
  std::vector<LibraryRecord> libraries_;
  /// Library entries that cannot be loaded, by name: why.
  std::map<std::string, std::string> badLibraries_;
  std::set<std::string> usedGlobals_;
};

void Writer::collectGlobal(utilir::GlobalOp global) {
  GlobalRecord record;
  record.name = global.getSymName().str();
  std::optional<ValueType> type = classifyType(global.getType());
  env_.globals[record.name] =
      artifact::GlobalInfo{uint32_t(globals_.size()), type.value_or(ValueType::I64)};
  if (!type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << global.getType();
    globals_.push_back(record);
    return error(global, "global @" + record.name + " has type " + text +
                             ", which the executor cannot hold");
  }
  record.type = *type;
  std::optional<Attribute> initial = global.getInitialValue();
  if (initial) {
    if (auto target = dyn_cast<halir::DeviceTargetAttr>(*initial)) {
      record.binding = fb::DeviceBinding::Target;
      record.backend = target.getDeviceID().getValue().str();
      record.ordinal = target.getOrdinal();
    } else if (auto ordinal = dyn_cast<halir::DeviceOrdinalAttr>(*initial)) {
      record.binding = fb::DeviceBinding::Ordinal;
      record.ordinal = ordinal.getOrdinal();
    } else if (rh::isReferenceType(*type)) {
      error(global, "global @" + record.name +
                        ": initial value of a reference type is not "
                        "supported (only #hal.device.target and "
                        "#hal.device.ordinal)");
    } else if (auto integer = dyn_cast<IntegerAttr>(*initial)) {
      record.bits =
          rh::Value::integer(*type, integer.getValue().getSExtValue()).bits();
    } else if (auto floating = dyn_cast<FloatAttr>(*initial);
               floating && *type == ValueType::F32) {
      record.bits = rh::Value::f32(floating.getValue().convertToFloat()).bits();
    } else if (floating && *type == ValueType::F64) {
      record.bits =
          rh::Value::f64(floating.getValue().convertToDouble()).bits();
    } else if (floating && rh::isHalfFloatType(*type)) {
      record.bits = floating.getValue().bitcastToAPInt().getZExtValue();
    } else {
      error(global, "global @" + record.name + ": unsupported initial value");
    }
  }
  globals_.push_back(std::move(record));
}

void Writer::collectLibraries() {
  auto libraries = module_->getAttrOfType<ArrayAttr>(kl::kLibrariesAttr);
  if (!libraries)
    return;
  for (Attribute attr : libraries) {
    auto dict = dyn_cast<DictionaryAttr>(attr);
    auto name = dict ? dict.getAs<StringAttr>(kl::kKeyName) : StringAttr();
    if (!name)
      continue;
    auto bad = [&](const Twine &why) {
      badLibraries_[name.getValue().str()] = why.str();
    };
    auto data = dict.getAs<DenseIntElementsAttr>(kl::kKeyData);
    auto abi = dict.getAs<IntegerAttr>(kl::kKeyAbiVersion);
    auto checksum = dict.getAs<StringAttr>(kl::kKeyChecksum);
    auto cpu = dict.getAs<StringAttr>(kl::kKeyTargetCpu);
    auto features = dict.getAs<ArrayAttr>(kl::kKeyCpuFeatures);
    auto format = dict.getAs<StringAttr>(kl::kKeyFormat);
    if (!data || !data.getElementType().isInteger(8) || data.isSplat() ||
        !abi || !checksum || !cpu || !features) {
      bad(Twine("malformed entry (expected ") + kl::kKeyData +
          " = dense<...> : vector<Nxi8>, " + kl::kKeyAbiVersion + ", " +
          kl::kKeyChecksum + ", " + kl::kKeyTargetCpu + ", " +
          kl::kKeyCpuFeatures + ")");
      continue;
    }
    LibraryRecord record;
    record.name = name.getValue().str();
    record.format = format ? format.getValue().str() : "elf-shared-object";
    record.cpu = cpu.getValue().str();
    record.abi = abi.getInt();
    if (checksum.getValue().size() != 16 ||
        checksum.getValue().getAsInteger(16, record.checksum)) {
      bad("malformed checksum '" + checksum.getValue() +
          "' (16 hex digits expected)");
      continue;
    }
    bool ok = true;
    for (Attribute feature : features) {
      auto text = dyn_cast<StringAttr>(feature);
      if (!text) {
        bad("malformed cpu_features (strings expected)");
        ok = false;
        break;
      }
      record.features.push_back(text.getValue().str());
    }
    if (!ok)
      continue;
    record.data = data.getRawData();
    libraries_.push_back(std::move(record));
  }
}

VariantRecord Writer::collectVariant(halir::ExecutableVariantOp variant,
                                     StringRef executable) {
  VariantRecord record;
  record.name = variant.getSymName().str();
  record.format = variant.getTarget().getFormat().getValue().str();
  if (auto devices = variant->getAttrOfType<ArrayAttr>("fleet.devices"))
    for (Attribute device : devices)
      if (auto ref = dyn_cast<FlatSymbolRefAttr>(device))
        record.devices.push_back(ref.getValue().str());
  auto linked = variant->getAttrOfType<DictionaryAttr>(kl::kVariantAttr);
  if (!linked) {
    std::optional<ArrayAttr> objects = variant.getObjects();
    record.problem =
        (formatLocation(variant.getLoc()) + ": executable @" + executable +
         " variant @" + record.name +
         (objects && !objects->empty()
              ? Twine(" holds an unlinked kernel object (the runtime loads "
                      "one shared object per artifact; link the executables "
                      "with --hal-link-executables, as fleet-compile does)")
              : Twine(" holds no kernel object (one "
                      "#hal.executable.object<{data = ...}> is expected; "
                      "compile the module to the end)")))
            .str();
    return record;
  }
  auto libraryName = linked.getAs<StringAttr>(kl::kKeyLibrary);
  auto symbols = linked.getAs<ArrayAttr>(kl::kKeySymbols);
  if (!libraryName || !symbols) {
    record.problem = formatLocation(variant.getLoc()) + ": malformed " +
                     kl::kVariantAttr +
                     " (expected {library = \"...\", symbols = [...]})";
    return record;
  }
  std::string libraryText = libraryName.getValue().str();
  for (size_t i = 0; i < libraries_.size(); ++i)
    if (libraries_[i].name == libraryText)
      record.library = uint32_t(i);
  if (record.library == kNoIndex) {
    auto bad = badLibraries_.find(libraryText);
    record.problem =
        (formatLocation(variant.getLoc()) + std::string(": kernel library '") +
         libraryText + "': " +
         (bad != badLibraries_.end()
              ? bad->second
              : std::string(module_->getAttr(kl::kLibrariesAttr)
                                ? "not found in "
                                : "the module has no ") +
                    kl::kLibrariesAttr +
                    (module_->getAttr(kl::kLibrariesAttr)
                         ? ""
                         : " attribute (compile it with fleet-compile, or "
                           "link the executables with "
                           "--hal-link-executables)")));
    return record;
  }
  size_t position = 0;
  for (auto exportOp : variant.getBlock().getOps<halir::ExecutableExportOp>()) {
    size_t ordinal = exportOp.getOrdinal()
                         ? size_t(exportOp.getOrdinal()->getZExtValue())
                         : position;
    auto symbol = position < symbols.size()
                      ? dyn_cast<StringAttr>(symbols[position])
                      : StringAttr();
    ++position;
    if (ordinal >= 4096) {
      error(exportOp, "export ordinal too large");
      continue;
    }
    if (!symbol) {
      error(exportOp, Twine("no entry symbol for this export in ") +
                          kl::kVariantAttr);
      continue;
    }
    halir::PipelineLayoutAttr layout = exportOp.getLayout();
    record.exports.push_back(ExportRecord{
        exportOp.getSymName().str(), symbol.getValue().str(), uint32_t(ordinal),
        uint32_t(layout.getBindings().size()), uint32_t(layout.getConstants())});
  }
  return record;
}

void Writer::collectExecutable(halir::ExecutableOp executable) {
  ExecutableRecord record;
  record.name = executable.getSymName().str();
  for (auto variant : executable.getBlock().getOps<halir::ExecutableVariantOp>())
    record.variants.push_back(collectVariant(variant, record.name));
  env_.executables[record.name] = uint32_t(executables_.size());
  executables_.push_back(std::move(record));
}

bool Writer::write(
    llvm::function_ref<void(llvm::ArrayRef<uint8_t>, llvm::ArrayRef<uint8_t>)>
        sink,
    std::string &errorText) {
  if (auto name = module_->getAttrOfType<StringAttr>("fleet.module_name"))
    name_ = name.getValue().str();
  else if (std::optional<StringRef> symbol = module_.getSymName())
    name_ = symbol->str();
  std::string prefix = name_.empty() ? "" : name_ + ".";
  collectLibraries();
  module_.walk([&](Operation *op) {
    if (auto load = dyn_cast<utilir::GlobalLoadOp>(op))
      usedGlobals_.insert(load.getGlobal().str());
    else if (auto address = dyn_cast<utilir::GlobalAddressOp>(op))
      usedGlobals_.insert(address.getGlobal().str());
  });
  size_t initializerCount = 0;
  for (Operation &child : module_.getBody()->getOperations()) {
    if (auto global = dyn_cast<utilir::GlobalOp>(child)) {
      collectGlobal(global);
    } else if (auto func = dyn_cast<utilir::FuncOp>(child)) {
      EmittedFunction code;
      code.name = func.getSymName().str();
      code.isDeclaration = func.isExternal();
      code.isPublic = func.isPublic();
      code.location = formatLocation(func.getLoc());
      code.displayName = code.isDeclaration ? code.name : prefix + code.name;
      code.signature = artifact::analyzeSignature(func);
      env_.functions[code.name] = uint32_t(functions_.size());
      functions_.push_back(std::move(code));
      bodies_.push_back(func.isExternal() ? nullptr : &func.getBody());
    } else if (auto initializer = dyn_cast<utilir::InitializerOp>(child)) {
      EmittedFunction code;
      code.name = "initializer#" + std::to_string(initializerCount++);
      code.displayName = prefix + code.name;
      code.isInitializer = true;
      functions_.push_back(std::move(code));
      bodies_.push_back(&initializer.getBody());
    } else if (auto executable = dyn_cast<halir::ExecutableOp>(child)) {
      collectExecutable(executable);
    } else {
      error(&child, "unsupported top-level op '" +
                        child.getName().getStringRef() +
                        "' (a host program holds util.global, util.func, "
                        "util.initializer and hal.executable)");
    }
  }
  std::string what = "cannot write the artifact";
  if (env_.errors.empty()) {
    for (size_t i = 0; i < functions_.size(); ++i) {
      if (!bodies_[i])
        continue;
      artifact::FunctionLowering lowering(env_, functions_[i]);
      lowering.lower(*bodies_[i]);
    }
    what += ": unsupported host IR";
  }
  if (!env_.errors.empty()) {
    errorText = what + ":";
    size_t shown = 0;
    for (const std::string &message : env_.errors) {
      if (++shown > 20) {
        errorText += "\n  ... and " + std::to_string(env_.errors.size() - 20) +
                     " more";
        break;
      }
      errorText += "\n  " + message;
    }
    return false;
  }
  // The payload is not copied: weights are already held by the module and
  // by the builder (docs/onnx.md "Memory").
  flatbuffers::DetachedBuffer payload = build();
  uint8_t header[rh::kArtifactHeaderSize];
  rh::writeArtifactHeader(header, payload.data(), payload.size());
  sink(llvm::ArrayRef<uint8_t>(header, sizeof(header)),
       llvm::ArrayRef<uint8_t>(payload.data(), payload.size()));
  return true;
}

flatbuffers::Offset<fb::Tensor>
buildTensor(flatbuffers::FlatBufferBuilder &b,
            const rh::TensorDescription &tensor) {
  return fb::CreateTensor(b, tensor.known, b.CreateVector(tensor.shape),
                          tensor.elementType);
}

std::vector<uint8_t> typeBytes(const std::vector<ValueType> &types) {
  std::vector<uint8_t> bytes;
  for (ValueType type : types)
    bytes.push_back(uint8_t(type));
  return bytes;
}

flatbuffers::DetachedBuffer Writer::build() {
  // Sized for the constants and kernel objects up front: a builder that
  // grows allocates a larger buffer and copies, holding the old and the new
  // one at once (with 100 MiB of weights, ~200 MiB on top of the module's
  // own copy: fleet-compile's peak, docs/onnx.md "Memory").
  size_t bulk = 1 << 16;
  for (const LibraryRecord &l : libraries_)
    bulk += l.data.size() + 64;
  for (const artifact::EmittedConstant &c : env_.constants)
    bulk += c.bytes.size() + 64;
  flatbuffers::FlatBufferBuilder b(bulk + bulk / 64);
  std::vector<flatbuffers::Offset<fb::Global>> globals;
  for (const GlobalRecord &g : globals_)
    globals.push_back(fb::CreateGlobal(
        b, b.CreateString(g.name), uint8_t(g.type), g.bits, g.binding,
        b.CreateString(g.backend), g.ordinal, usedGlobals_.count(g.name) != 0));
  std::vector<flatbuffers::Offset<fb::Function>> functions;
  for (const EmittedFunction &f : functions_) {
    std::vector<fb::Record> records;
    for (const artifact::EmittedRecord &r : f.records)
      records.emplace_back(uint16_t(r.kind), 0, r.slotCount, r.slotOffset,
                           r.data, uint32_t(r.target), r.site, r.imm, r.imm2);
    std::vector<fb::Fixup> fixups;
    for (const artifact::EmittedFixup &x : f.fixups)
      fixups.emplace_back(x.slot, fb::FixupKind(x.kind), x.index);
    std::vector<flatbuffers::Offset<fb::Site>> sites;
    for (const auto &[op, location] : f.sites)
      sites.push_back(
          fb::CreateSite(b, b.CreateSharedString(op), b.CreateString(location)));
    std::vector<flatbuffers::Offset<fb::Tensor>> argumentTensors,
        resultTensors;
    for (const rh::TensorDescription &t : f.signature.argumentTensors)
      argumentTensors.push_back(buildTensor(b, t));
    for (const rh::TensorDescription &t : f.signature.resultTensors)
      resultTensors.push_back(buildTensor(b, t));
    functions.push_back(fb::CreateFunction(
        b, b.CreateString(f.name), f.isDeclaration, f.isPublic,
        f.isInitializer, fb::Convention(uint8_t(f.signature.convention)),
        b.CreateVector(typeBytes(f.signature.arguments)),
        b.CreateVector(typeBytes(f.signature.results)),
        b.CreateVector(argumentTensors), b.CreateVector(resultTensors),
        b.CreateVector(f.argumentSlots), b.CreateVector(f.scalarTypes),
        b.CreateVector(f.refTypes), b.CreateVector(f.scalarTemplate),
        b.CreateVectorOfStructs(fixups), b.CreateVectorOfStructs(records),
        b.CreateVector(f.slots), b.CreateVector(sites),
        b.CreateString(f.location)));
  }
  std::vector<flatbuffers::Offset<fb::Executable>> executables;
  for (const ExecutableRecord &e : executables_) {
    std::vector<flatbuffers::Offset<fb::Variant>> variants;
    for (const VariantRecord &v : e.variants) {
      std::vector<flatbuffers::Offset<fb::Export>> exports;
      for (const ExportRecord &x : v.exports)
        exports.push_back(fb::CreateExport(b, b.CreateString(x.name), x.ordinal,
                                           b.CreateString(x.symbol), x.bindings,
                                           x.constants));
      std::vector<flatbuffers::Offset<flatbuffers::String>> devices;
      for (const std::string &device : v.devices)
        devices.push_back(b.CreateString(device));
      variants.push_back(fb::CreateVariant(
          b, b.CreateString(v.name), b.CreateString(v.format), v.library,
          b.CreateString(v.problem), b.CreateVector(exports),
          devices.empty() ? 0 : b.CreateVector(devices)));
    }
    executables.push_back(fb::CreateExecutable(b, b.CreateString(e.name),
                                               b.CreateVector(variants)));
  }
  std::vector<flatbuffers::Offset<fb::KernelLibrary>> libraries;
  for (const LibraryRecord &l : libraries_) {
    b.ForceVectorAlignment(l.data.size(), 1, 16);
    auto data = b.CreateVector(reinterpret_cast<const uint8_t *>(l.data.data()),
                               l.data.size());
    libraries.push_back(fb::CreateKernelLibrary(
        b, b.CreateString(l.name),
        b.CreateString(l.format == "vulkan-spirv" ? "vulkan-spirv"
                                                  : "llvm-cpu"),
        b.CreateString(l.format), b.CreateString(l.cpu),
        b.CreateVectorOfStrings(l.features), l.abi, l.checksum, data));
  }
  std::vector<flatbuffers::Offset<fb::Constant>> constants;
  for (const artifact::EmittedConstant &c : env_.constants) {
    b.ForceVectorAlignment(c.bytes.size(), 1, 16);
    auto data = b.CreateVector(c.bytes.data(), c.bytes.size());
    constants.push_back(fb::CreateConstant(b, c.alignment, data));
  }
  std::vector<flatbuffers::Offset<fb::DeviceQuery>> deviceQueries;
  for (const artifact::EmittedDeviceQuery &q : env_.deviceQueries)
    deviceQueries.push_back(fb::CreateDeviceQuery(
        b, b.CreateString(q.category), b.CreateString(q.key), uint8_t(q.type),
        q.defaultBits));
  std::vector<flatbuffers::Offset<fb::LinkQuery>> linkQueries;
  for (const artifact::EmittedLinkQuery &q : env_.linkQueries)
    linkQueries.push_back(
        fb::CreateLinkQuery(b, b.CreateString(q.key), q.defaultBits));
  auto root = fb::CreateModule(
      b, b.CreateString(name_), FLEET_KERNEL_ABI_VERSION, rh::kOpKindCount,
      b.CreateVector(globals), b.CreateVector(functions),
      b.CreateVector(executables), b.CreateVector(libraries),
      b.CreateVector(constants), b.CreateVectorOfStrings(env_.strings),
      b.CreateVector(deviceQueries), b.CreateVector(linkQueries));
  fb::FinishModuleBuffer(b, root);
  return b.Release();
}

} // namespace

bool emitArtifact(ModuleOp module, std::vector<uint8_t> &bytes,
                  std::string &error) {
  return Writer(module).write(
      [&](ArrayRef<uint8_t> header, ArrayRef<uint8_t> payload) {
        bytes.insert(bytes.end(), header.begin(), header.end());
        bytes.insert(bytes.end(), payload.begin(), payload.end());
      },
      error);
}

LogicalResult writeArtifact(ModuleOp module, llvm::raw_ostream &os) {
  std::string error;
  auto sink = [&](ArrayRef<uint8_t> header, ArrayRef<uint8_t> payload) {
    os.write(reinterpret_cast<const char *>(header.data()), header.size());
    os.write(reinterpret_cast<const char *>(payload.data()), payload.size());
  };
  if (!Writer(module).write(sink, error))
    return module.emitError(error);
  return success();
}

} // namespace fleet
