//===- KernelLinker.cpp - kernel objects to one shared object with lld ----===//

#include "fleet/Codegen/KernelLinker.h"

#include "fleet/Codegen/KernelCompiler.h"
#include "fleet/runtime/hal/KernelLibrary.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cstdlib>

using namespace llvm;

namespace fleet::codegen {

namespace kl = runtime::hal::kernel_library;

namespace {

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Removes the temporary directory when the link is done.
struct TempDir {
  SmallString<128> path;
  ~TempDir() {
    if (!path.empty())
      (void)sys::fs::remove_directories(path);
  }
  std::string file(StringRef name) const {
    SmallString<128> result(path);
    sys::path::append(result, name);
    return std::string(result);
  }
};

Error writeFile(const std::string &path, StringRef bytes) {
  std::error_code error;
  raw_fd_ostream os(path, error, sys::fs::OF_None);
  if (error)
    return makeError("cannot write " + path + ": " + error.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return makeError("cannot write " + path + ": " + os.error().message());
  return Error::success();
}

/// `input`'s object with its entry symbols renamed.
Expected<std::string> renameSymbols(const KernelLinkInput &input) {
  StringRef bytes(reinterpret_cast<const char *>(input.object.data()),
                  input.object.size());
  auto buffer = MemoryBuffer::getMemBuffer(bytes, input.name, false);
  auto object = object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!object)
    return makeError("kernel object of " + input.name + " is unreadable: " +
                     toString(object.takeError()));
  StringSet<> defined;
  for (const object::SymbolRef &symbol : (*object)->symbols()) {
    Expected<uint32_t> flags = symbol.getFlags();
    Expected<StringRef> name = symbol.getName();
    if (!flags || !name) {
      consumeError(flags.takeError());
      consumeError(name.takeError());
      continue;
    }
    if ((*flags & object::SymbolRef::SF_Global) &&
        !(*flags & object::SymbolRef::SF_Undefined))
      defined.insert(*name);
  }
  objcopy::ConfigManager config;
  for (const auto &[from, to] : input.renames) {
    if (!defined.contains(from))
      return makeError("kernel object of " + input.name +
                       " defines no global symbol '" + from +
                       "' (the entry point of an export)");
    config.Common.SymbolsToRename[from] = to;
  }
  std::string renamed;
  raw_string_ostream os(renamed);
  if (Error error = objcopy::executeObjcopyOnBinary(config, **object, os))
    return makeError("cannot rename the entry symbols of " + input.name +
                     ": " + toString(std::move(error)));
  return renamed;
}

/// An object defining `const uint32_t <kAbiVersionSymbol> = version`.
Expected<std::string> abiVersionObject(TargetMachine &machine,
                                       uint32_t version) {
  LLVMContext context;
  Module module("fleet_kernel_library", context);
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple());
  auto *i32 = Type::getInt32Ty(context);
  new GlobalVariable(module, i32, /*isConstant=*/true,
                     GlobalValue::ExternalLinkage,
                     ConstantInt::get(i32, version), kl::kAbiVersionSymbol);
  SmallVector<char, 0> buffer;
  raw_svector_ostream os(buffer);
  legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr,
                                  CodeGenFileType::ObjectFile))
    return makeError("cannot emit the ABI-version object");
  passes.run(module);
  return std::string(buffer.begin(), buffer.end());
}

} // namespace

std::string defaultLinkerPath() {
  if (const char *linker = std::getenv("FLEET_LLD"); linker && *linker)
    return linker;
#ifdef FLEET_DEFAULT_LLD
  if (sys::fs::can_execute(FLEET_DEFAULT_LLD))
    return FLEET_DEFAULT_LLD;
#endif
  if (ErrorOr<std::string> found = sys::findProgramByName("ld.lld-22"))
    return *found;
  return "";
}

Expected<std::pair<std::string, std::vector<std::string>>>
getTargetCpuFeatures(StringRef targetCPU) {
  Expected<std::unique_ptr<TargetMachine>> machine =
      createKernelTargetMachine(targetCPU);
  if (!machine)
    return machine.takeError();
  const MCSubtargetInfo *subtarget = (*machine)->getMCSubtargetInfo();
  // checkFeatures() aborts on a name the target does not know: ask only
  // about the ones it lists.
  StringSet<> known;
  for (const SubtargetFeatureKV &feature : subtarget->getAllProcessorFeatures())
    known.insert(feature.Key);
  std::vector<std::string> features;
  size_t count = 0;
  const kl::CpuFeatureBit *table = kl::cpuFeatureTable(count);
  for (size_t i = 0; i < count; ++i)
    if (known.contains(table[i].name) &&
        subtarget->checkFeatures(std::string("+") + table[i].name))
      features.push_back(table[i].name);
  return std::make_pair(subtarget->getCPU().str(), std::move(features));
}

Expected<KernelLibraryImage>
linkKernelLibrary(ArrayRef<KernelLinkInput> inputs,
                  const KernelLinkOptions &options) {
  std::string linker =
      options.linker.empty() ? defaultLinkerPath() : options.linker;
  if (linker.empty() || !sys::fs::can_execute(linker))
    return makeError("cannot link the kernel library: no linker (" +
                     (linker.empty() ? std::string("ld.lld-22 not found")
                                     : "'" + linker + "' is not executable") +
                     "; install Debian's lld-22 (scripts/bootstrap) or set "
                     "FLEET_LLD)");
  Expected<std::unique_ptr<TargetMachine>> machine =
      createKernelTargetMachine(options.targetCPU);
  if (!machine)
    return machine.takeError();
  auto features = getTargetCpuFeatures(options.targetCPU);
  if (!features)
    return features.takeError();

  TempDir dir;
  if (std::error_code error =
          sys::fs::createUniqueDirectory("fleet-link", dir.path))
    return makeError("cannot create a temporary directory: " +
                     error.message());
  std::vector<std::string> objectPaths;
  std::string exports = "{\n  global:\n    " + std::string(kl::kAbiVersionSymbol) +
                        ";\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    Expected<std::string> renamed = renameSymbols(inputs[i]);
    if (!renamed)
      return renamed.takeError();
    objectPaths.push_back(dir.file("k" + std::to_string(i) + ".o"));
    if (Error error = writeFile(objectPaths.back(), *renamed))
      return std::move(error);
    for (const auto &rename : inputs[i].renames)
      exports += "    \"" + rename.second + "\";\n";
  }
  exports += "  local: *;\n};\n";
  Expected<std::string> abi = abiVersionObject(**machine, options.abiVersion);
  if (!abi)
    return abi.takeError();
  objectPaths.push_back(dir.file("abi.o"));
  if (Error error = writeFile(objectPaths.back(), *abi))
    return std::move(error);
  std::string script = dir.file("exports.map");
  if (Error error = writeFile(script, exports))
    return std::move(error);

  std::string output = dir.file("kernels.so");
  std::string errors = dir.file("lld.txt");
  std::string versionScript = "--version-script=" + script;
  std::vector<StringRef> args = {linker,
                                 "-shared",
                                 "--strip-all",
                                 "--build-id=none",
                                 "--hash-style=gnu",
                                 "-z",
                                 "noexecstack",
                                 "-z",
                                 "now",
                                 versionScript,
                                 "-o",
                                 output};
  for (const std::string &path : objectPaths)
    args.push_back(path);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(errors),
                                          StringRef(errors)};
  std::string message;
  int code = sys::ExecuteAndWait(linker, args, std::nullopt, redirects, 0, 0,
                                 &message);
  if (code != 0) {
    auto text = MemoryBuffer::getFile(errors);
    std::string lldSays =
        text ? (*text)->getBuffer().trim().str() : std::string();
    return makeError("linking the kernel library with " + linker +
                     " failed" + (message.empty() ? "" : " (" + message + ")") +
                     (lldSays.empty() ? "" : ": " + lldSays));
  }
  auto library = MemoryBuffer::getFile(output, /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false);
  if (!library)
    return makeError("cannot read the linked kernel library: " +
                     library.getError().message());
  KernelLibraryImage image;
  StringRef bytes = (*library)->getBuffer();
  image.bytes.assign(bytes.begin(), bytes.end());
  image.targetCPU = features->first;
  image.cpuFeatures = std::move(features->second);
  return image;
}

} // namespace fleet::codegen
