//===- CPUTarget.cpp - what the llvm-cpu backend knows of a target --------===//

#include "fleet/Codegen/CPUTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <fstream>
#include <memory>
#include <mutex>
#include <unistd.h>

using namespace mlir;

namespace fleet::codegen {
namespace {

/// "32K" / "1024K" / "1M" / "65536" in bytes; -1 when malformed.
int64_t parseSize(llvm::StringRef text) {
  text = text.trim();
  int64_t scale = 1;
  if (text.ends_with_insensitive("k")) {
    scale = 1024;
    text = text.drop_back();
  } else if (text.ends_with_insensitive("m")) {
    scale = 1024 * 1024;
    text = text.drop_back();
  }
  uint64_t value = 0;
  if (text.empty() || text.getAsInteger(10, value) || value == 0 ||
      value > (uint64_t(1) << 40))
    return -1;
  return int64_t(value) * scale;
}

std::string readLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace

std::array<int64_t, 2> getHostCacheSizes() {
  std::array<int64_t, 2> sizes = {0, 0};
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::string level = readLine(dir + "/level");
    if (level.empty())
      break;
    std::string type = readLine(dir + "/type");
    int64_t size = parseSize(readLine(dir + "/size"));
    if (size <= 0)
      continue;
    if (level == "1" && type == "Data")
      sizes[0] = size;
    else if (level == "2" && (type == "Unified" || type == "Data"))
      sizes[1] = size;
  }
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (!sizes[0])
    sizes[0] = std::max<long>(0, sysconf(_SC_LEVEL1_DCACHE_SIZE));
  if (!sizes[1])
    sizes[1] = std::max<long>(0, sysconf(_SC_LEVEL2_CACHE_SIZE));
#endif
  CPUTarget fallback;
  if (!sizes[0])
    sizes[0] = fallback.l1Bytes;
  if (!sizes[1])
    sizes[1] = fallback.l2Bytes;
  return sizes;
}

bool parseCacheSizes(llvm::StringRef text, std::array<int64_t, 2> &sizes,
                     std::string &error) {
  if (text.trim().empty()) {
    sizes = getHostCacheSizes();
    return true;
  }
  auto [l1, l2] = text.split(',');
  int64_t first = parseSize(l1), second = parseSize(l2);
  if (first <= 0 || second <= 0 || l2.contains(',')) {
    error = ("cache sizes '" + text +
             "' are not two sizes L1,L2 in bytes (e.g. 32768,1048576 or "
             "32K,1M)")
                .str();
    return false;
  }
  sizes = {first, second};
  return true;
}

int64_t getVectorBits(llvm::StringRef cpu, llvm::StringRef features,
                      std::string &error) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target) {
    error = "no LLVM target for " + triple.str() + ": " + lookupError;
    return 0;
  }
  std::string cpuName = cpu.str();
  llvm::SubtargetFeatures all;
  if (cpu == "host") {
    cpuName = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      all.AddFeature(feature.first(), feature.second);
  }
  llvm::SmallVector<llvm::StringRef> extra;
  features.split(extra, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef feature : extra)
    all.AddFeature(feature.trim());
  // Ask a generic subtarget whether the name is known first: creating one
  // for an unknown CPU prints a warning of LLVM's own.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, "", ""));
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  if (generic && generic->isCPUStringValid(cpuName))
    subtarget.reset(
        target->createMCSubtargetInfo(triple, cpuName, all.getString()));
  if (!subtarget) {
    error = "unknown target CPU '" + cpu.str() +
            "' (use `host` or an LLVM CPU name such as x86-64-v3)";
    return 0;
  }
  return getVectorBits(*subtarget);
}

int64_t getVectorBits(const llvm::MCSubtargetInfo &subtarget) {
  if (subtarget.checkFeatures("+avx512f"))
    return 512;
  if (subtarget.checkFeatures("+avx"))
    return 256;
  return 128;
}

hal::ExecutableTargetAttr buildCPUExecutableTarget(MLIRContext *context,
                                                   const CPUTarget &target,
                                                   DictionaryAttr base) {
  Builder b(context);
  SmallVector<NamedAttribute> entries;
  if (base)
    for (NamedAttribute entry : base)
      if (!llvm::is_contained({"cache_sizes", "cpu", "cpu_features",
                               "native_vector_size"},
                              entry.getName().getValue()))
        entries.push_back(entry);
  entries.push_back(b.getNamedAttr(
      "cache_sizes", b.getDenseI64ArrayAttr({target.l1Bytes, target.l2Bytes})));
  entries.push_back(b.getNamedAttr("cpu", b.getStringAttr(target.cpu)));
  if (!target.features.empty())
    entries.push_back(
        b.getNamedAttr("cpu_features", b.getStringAttr(target.features)));
  entries.push_back(b.getNamedAttr(
      "native_vector_size", b.getI64IntegerAttr(target.vectorBits / 8)));
  // getDictionaryAttr sorts the entries.
  return hal::ExecutableTargetAttr::get(context, b.getStringAttr(kCPUBackend),
                                        b.getStringAttr(kCPUFormat),
                                        b.getDictionaryAttr(entries));
}

bool isCPUExecutableTarget(hal::ExecutableTargetAttr target) {
  return target && target.getBackend().getValue() == kCPUBackend &&
         target.getFormat().getValue() == kCPUFormat;
}

CPUTarget getCPUTarget(hal::ExecutableTargetAttr target,
                       const CPUTarget &defaults) {
  CPUTarget result = defaults;
  DictionaryAttr config = target ? target.getConfiguration() : nullptr;
  if (!config)
    return result;
  if (auto cpu = config.getAs<StringAttr>("cpu"))
    result.cpu = cpu.getValue().str();
  if (auto features = config.getAs<StringAttr>("cpu_features"))
    result.features = features.getValue().str();
  if (auto width = config.getAs<IntegerAttr>("native_vector_size"))
    result.vectorBits = width.getInt() * 8;
  if (auto sizes = config.getAs<DenseI64ArrayAttr>("cache_sizes");
      sizes && sizes.size() == 2 && sizes[0] > 0 && sizes[1] > 0) {
    result.l1Bytes = sizes[0];
    result.l2Bytes = sizes[1];
  }
  return result;
}

CPUTarget getDefaultCPUTarget(llvm::StringRef targetCPU,
                              llvm::StringRef cacheSizes) {
  CPUTarget target;
  target.cpu = targetCPU.empty() ? "host" : targetCPU.str();
  std::string error;
  std::array<int64_t, 2> sizes;
  if (parseCacheSizes(cacheSizes, sizes, error)) {
    target.l1Bytes = sizes[0];
    target.l2Bytes = sizes[1];
  }
  if (int64_t bits = getVectorBits(target.cpu, target.features, error))
    target.vectorBits = bits;
  return target;
}

} // namespace fleet::codegen
