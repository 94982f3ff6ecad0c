//===- ExecutableLoader.cpp - kernel libraries through dlopen --------------===//

#include "fleet/runtime/hal/ExecutableLoader.h"

#include "fleet/runtime/hal/KernelLibrary.h"
#include "fleet/runtime/hal/Trace.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace fleet::runtime::hal {

namespace kl = kernel_library;

namespace {

std::string errnoText() { return std::strerror(errno); }

/// Writes all of `bytes` to `fd`.
bool writeAll(int fd, Span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

/// An anonymous file holding `bytes`: a memfd, or a temporary file that is
/// unlinked at once (only the descriptor names it).
StatusOr<int> makeLibraryFile(const std::string &name,
                              Span<const uint8_t> bytes) {
  int fd = -1;
#if defined(MFD_CLOEXEC)
  fd = ::memfd_create(("fleet-kernels-" + name).c_str(), MFD_CLOEXEC);
#endif
  if (fd < 0) {
    const char *dir = std::getenv("TMPDIR");
    std::string path =
        std::string(dir && *dir ? dir : "/tmp") + "/fleet-kernels-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0)
      return makeStatus(StatusCode::Unavailable, "kernel library '", name,
                        "': cannot create a memory file or a temporary file "
                        "in ", path, ": ", errnoText());
    ::unlink(path.c_str());
  }
  if (!writeAll(fd, bytes)) {
    std::string error = errnoText();
    ::close(fd);
    return makeStatus(StatusCode::Unavailable, "kernel library '", name,
                      "': cannot write its ", bytes.size(), " bytes: ", error);
  }
  return fd;
}

#if defined(__x86_64__)
uint32_t readXcr0() {
  uint32_t eax, ebx, ecx, edx;
  __cpuid(1, eax, ebx, ecx, edx);
  if (!(ecx & (1u << 27))) // OSXSAVE
    return 0;
  uint32_t low, high;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return low;
}

bool hostHas(const kl::CpuFeatureBit &feature, uint32_t xcr0) {
  uint32_t regs[4] = {0, 0, 0, 0};
  uint32_t maxLeaf = __get_cpuid_max(feature.leaf & 0x80000000u, nullptr);
  if (maxLeaf < feature.leaf)
    return false;
  __cpuid_count(feature.leaf, feature.subleaf, regs[0], regs[1], regs[2],
                regs[3]);
  if (!(regs[feature.reg] & (1u << feature.bit)))
    return false;
  return (xcr0 & feature.xcr0) == feature.xcr0;
}
#endif

bool hiddenByTestHook(const char *name) {
  const char *hidden = std::getenv("FLEET_TEST_HIDE_CPU_FEATURES");
  if (!hidden)
    return false;
  std::string list = std::string(",") + hidden + ",";
  return list.find(std::string(",") + name + ",") != std::string::npos;
}

bool hostHasFeature(const kl::CpuFeatureBit &feature) {
  if (hiddenByTestHook(feature.name))
    return false;
#if defined(__x86_64__)
  static const uint32_t xcr0 = readXcr0();
  return hostHas(feature, xcr0);
#else
  return false;
#endif
}

/// The ELF header of an x86-64 shared object: magic, 64-bit, little
/// endian, ET_DYN, EM_X86_64.
bool looksLikeSharedObject(Span<const uint8_t> bytes) {
  if (bytes.size() < 64 || std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0)
    return false;
  uint16_t type = uint16_t(bytes[16] | (bytes[17] << 8));
  uint16_t machine = uint16_t(bytes[18] | (bytes[19] << 8));
  return bytes[4] == 2 && bytes[5] == 1 && type == 3 && machine == 62;
}

std::string hex16(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", (unsigned long long)value);
  return text;
}

} // namespace

std::vector<std::string> hostCpuFeatures() {
  size_t count = 0;
  const kl::CpuFeatureBit *table = kl::cpuFeatureTable(count);
  std::vector<std::string> features;
  for (size_t i = 0; i < count; ++i)
    if (hostHasFeature(table[i]))
      features.push_back(table[i].name);
  return features;
}

Status checkCpuFeatures(const std::vector<std::string> &required,
                        const std::string &what, const std::string &targetCpu) {
  std::string missing, unknown;
  for (const std::string &name : required) {
    const kl::CpuFeatureBit *feature = kl::findCpuFeature(name.c_str());
    if (!feature)
      unknown += (unknown.empty() ? "" : ", ") + name;
    else if (!hostHasFeature(*feature))
      missing += (missing.empty() ? "" : ", ") + name;
  }
  if (!unknown.empty())
    return makeStatus(StatusCode::FailedPrecondition, what,
                      ": compiled for CPU features this runtime cannot check: ",
                      unknown, " (target CPU '", targetCpu,
                      "'; a newer compiler or a damaged artifact?)");
  if (!missing.empty())
    return makeStatus(StatusCode::FailedPrecondition, what,
                      ": compiled for target CPU '", targetCpu,
                      "', but this host's CPU lacks ", missing,
                      "; recompile with --llvmcpu-target-cpu=host on this "
                      "machine (or a CPU name this host implements)");
  return Status();
}

KernelLibrary::~KernelLibrary() {
  if (handle_)
    ::dlclose(handle_);
  // The descriptor stays open while the library is loaded, so no later
  // library gets the same /proc/self/fd path (dlopen matches by name).
  if (fd_ >= 0)
    ::close(fd_);
}

StatusOr<fleet_kernel_fn_t>
KernelLibrary::lookup(const std::string &symbol) const {
  ::dlerror();
  void *address = ::dlsym(handle_, symbol.c_str());
  if (!address) {
    const char *error = ::dlerror();
    return makeStatus(StatusCode::NotFound, "kernel library '", name_,
                      "' defines no entry point '", symbol, "'",
                      error ? std::string(" (") + error + ")" : "");
  }
  return reinterpret_cast<fleet_kernel_fn_t>(address);
}

ExecutableLoader::~ExecutableLoader() = default;

StatusOr<std::unique_ptr<ExecutableLoader>> ExecutableLoader::create() {
  return std::unique_ptr<ExecutableLoader>(new ExecutableLoader());
}

StatusOr<std::shared_ptr<KernelLibrary>>
ExecutableLoader::loadLibrary(const KernelLibraryInfo &info,
                              Span<const uint8_t> bytes) {
  uint64_t start = monotonicNanoseconds();
  std::string what = "kernel library '" + info.name + "'";
  if (info.abiVersion != FLEET_KERNEL_ABI_VERSION)
    return makeStatus(StatusCode::FailedPrecondition, what,
                      ": kernel ABI version mismatch (library ",
                      info.abiVersion, ", runtime ", FLEET_KERNEL_ABI_VERSION,
                      "); recompile the artifact");
  uint64_t sum = kl::checksum(bytes.data(), bytes.size());
  if (sum != info.checksum)
    return makeStatus(StatusCode::DataLoss, what,
                      ": corrupt shared object: checksum ", hex16(sum),
                      " of its ", bytes.size(), " bytes, recorded ",
                      hex16(info.checksum));
  if (!looksLikeSharedObject(bytes))
    return makeStatus(StatusCode::InvalidArgument, what,
                      ": not an x86-64 ELF shared object");
  FLEET_RETURN_IF_ERROR(checkCpuFeatures(info.cpuFeatures, what,
                                         info.targetCpu));

  FLEET_ASSIGN_OR_RETURN(int fd, makeLibraryFile(info.name, bytes));
  std::shared_ptr<KernelLibrary> library(new KernelLibrary());
  library->name_ = info.name;
  library->fd_ = fd;
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  ::dlerror();
  library->handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle_) {
    const char *error = ::dlerror();
    return makeStatus(StatusCode::InvalidArgument, what,
                      ": the dynamic loader rejects it: ",
                      error ? error : "unknown error");
  }
  ::dlerror();
  auto *version = static_cast<const uint32_t *>(
      ::dlsym(library->handle_, kl::kAbiVersionSymbol));
  if (!version)
    return makeStatus(StatusCode::FailedPrecondition, what, ": defines no ",
                      kl::kAbiVersionSymbol,
                      " (not linked by fleet-compile?)");
  if (int64_t(*version) != FLEET_KERNEL_ABI_VERSION)
    return makeStatus(StatusCode::FailedPrecondition, what,
                      ": kernel ABI version mismatch (shared object ",
                      *version, ", runtime ", FLEET_KERNEL_ABI_VERSION,
                      "); recompile the artifact");
  libraries_.fetch_add(1, std::memory_order_relaxed);
  loadNanoseconds_.fetch_add(monotonicNanoseconds() - start,
                             std::memory_order_relaxed);
  return library;
}

StatusOr<Ref<Executable>> ExecutableLoader::createExecutable(
    const std::string &name, std::shared_ptr<KernelLibrary> library,
    const std::vector<std::string> &exportNames,
    const std::vector<std::string> &symbols,
    const std::vector<std::optional<ExportLayout>> &layouts) {
  uint64_t start = monotonicNanoseconds();
  if (!library)
    return makeStatus(StatusCode::InvalidArgument, "executable '", name,
                      "': no kernel library");
  if (symbols.size() != exportNames.size())
    return makeStatus(StatusCode::InvalidArgument, "executable '", name,
                      "': ", exportNames.size(), " exports but ",
                      symbols.size(), " entry symbols");
  std::vector<ExecutableExport> exports;
  exports.reserve(exportNames.size());
  for (size_t i = 0; i < exportNames.size(); ++i) {
    auto function = library->lookup(symbols[i]);
    if (!function.ok())
      return makeStatus(StatusCode::NotFound, "executable '", name,
                        "': export '", exportNames[i],
                        "' cannot be resolved: ",
                        function.status().message());
    std::optional<ExportLayout> layout;
    if (i < layouts.size())
      layout = layouts[i];
    exports.push_back(ExecutableExport{exportNames[i], *function, layout});
  }
  FLEET_ASSIGN_OR_RETURN(
      Ref<Executable> executable,
      Executable::create(name, std::move(exports), std::move(library)));
  uint64_t elapsed = monotonicNanoseconds() - start;
  executable->setLoadNanoseconds(elapsed);
  executables_.fetch_add(1, std::memory_order_relaxed);
  loadNanoseconds_.fetch_add(elapsed, std::memory_order_relaxed);
  return executable;
}

LoaderStatistics ExecutableLoader::statistics() const {
  LoaderStatistics statistics;
  statistics.librariesLoaded = libraries_.load(std::memory_order_relaxed);
  statistics.executablesLoaded = executables_.load(std::memory_order_relaxed);
  statistics.loadNanoseconds = loadNanoseconds_.load(std::memory_order_relaxed);
  return statistics;
}

} // namespace fleet::runtime::hal
