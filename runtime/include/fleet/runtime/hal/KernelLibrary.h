//===- KernelLibrary.h - the kernel shared object of an artifact -*- C++ -*-===//
//
// What the compiler (lib/Codegen/LinkExecutables.cpp) and the runtime
// (runtime/src/hal/ExecutableLoader.cpp, runtime/src/host/ModuleLoader.cpp)
// agree on about the one shared object per target that holds every CPU
// kernel of an artifact (docs/kernel-abi.md §1):
//
//   - the module attribute `fleet.kernel_libraries` (kLibrariesAttr): an
//     array with one dictionary per library, keys below (kKey*);
//   - the variant attribute `fleet.kernel_library` (kVariantAttr):
//     `{library = "<name>", symbols = ["<symbol of export 0>", ...]}`, one
//     symbol per `hal.executable.export` in declaration order;
//   - the data symbol kAbiVersionSymbol (`const uint32_t`, the
//     FLEET_KERNEL_ABI_VERSION the library was linked for);
//   - checksum(): a 64-bit hash of the library bytes, stored as 16 lower-case
//     hex digits, that the loader recomputes before dlopen;
//   - the x86 CPU features the loader can check (cpuFeatureTable()): the
//     compiler records those its target enables, the loader checks each
//     against CPUID of the host.
//
// Plain C++17, no LLVM: the runtime's loader includes it.
// Thread safety: constants and pure functions.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_KERNELLIBRARY_H
#define FLEET_RUNTIME_HAL_KERNELLIBRARY_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fleet::runtime::hal::kernel_library {

constexpr const char *kLibrariesAttr = "fleet.kernel_libraries";
constexpr const char *kVariantAttr = "fleet.kernel_library";
constexpr const char *kAbiVersionSymbol = "fleet_kernel_library_abi_version";

/// Keys of one library dictionary.
constexpr const char *kKeyName = "name";           // StringAttr, unique
constexpr const char *kKeyFormat = "format";       // StringAttr
constexpr const char *kKeyTargetCpu = "target_cpu"; // StringAttr
constexpr const char *kKeyCpuFeatures = "cpu_features"; // [StringAttr]
constexpr const char *kKeyAbiVersion = "abi_version";   // i64
constexpr const char *kKeyChecksum = "checksum";        // 16 hex digits
constexpr const char *kKeyData = "data";                // vector<Nxi8>
/// Keys of the variant attribute.
constexpr const char *kKeyLibrary = "library";
constexpr const char *kKeySymbols = "symbols";

/// FNV-1a over little-endian 64-bit words (then the tail bytes). Not a
/// cryptographic hash: it detects corruption, not tampering (the threat
/// model of docs/runtime.md).
inline uint64_t checksum(const uint8_t *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  constexpr uint64_t prime = 0x100000001b3ull;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word = 0;
    for (int b = 7; b >= 0; --b)
      word = (word << 8) | data[i + size_t(b)];
    hash = (hash ^ word) * prime;
  }
  for (; i < size; ++i)
    hash = (hash ^ data[i]) * prime;
  return hash;
}

/// One CPUID bit: leaf/subleaf, register (0 eax, 1 ebx, 2 ecx, 3 edx), bit,
/// and the XCR0 bits the OS must enable for the feature's registers (0:
/// none).
struct CpuFeatureBit {
  const char *name; // LLVM's feature name
  uint32_t leaf, subleaf;
  uint8_t reg, bit;
  uint32_t xcr0;
};

constexpr uint32_t kXcr0Avx = 0x6;    // SSE + AVX state
constexpr uint32_t kXcr0Avx512 = 0xe6; // + opmask, ZMM_Hi256, Hi16_ZMM
constexpr uint32_t kXcr0Amx = 0x60000; // XTILECFG + XTILEDATA

/// The x86-64 ISA features the loader checks (the compiler records only
/// these). Tuning flags of LLVM's subtargets are not ISA features and are
/// never recorded.
inline const CpuFeatureBit *cpuFeatureTable(size_t &count) {
  static const CpuFeatureBit table[] = {
      {"cx8", 1, 0, 3, 8, 0},
      {"cmov", 1, 0, 3, 15, 0},
      {"mmx", 1, 0, 3, 23, 0},
      {"fxsr", 1, 0, 3, 24, 0},
      {"sse", 1, 0, 3, 25, 0},
      {"sse2", 1, 0, 3, 26, 0},
      {"sse3", 1, 0, 2, 0, 0},
      {"pclmul", 1, 0, 2, 1, 0},
      {"ssse3", 1, 0, 2, 9, 0},
      {"fma", 1, 0, 2, 12, kXcr0Avx},
      {"cx16", 1, 0, 2, 13, 0},
      {"sse4.1", 1, 0, 2, 19, 0},
      {"sse4.2", 1, 0, 2, 20, 0},
      {"movbe", 1, 0, 2, 22, 0},
      {"popcnt", 1, 0, 2, 23, 0},
      {"aes", 1, 0, 2, 25, 0},
      {"xsave", 1, 0, 2, 26, 0},
      {"avx", 1, 0, 2, 28, kXcr0Avx},
      {"f16c", 1, 0, 2, 29, kXcr0Avx},
      {"rdrnd", 1, 0, 2, 30, 0},
      {"fsgsbase", 7, 0, 1, 0, 0},
      {"bmi", 7, 0, 1, 3, 0},
      {"avx2", 7, 0, 1, 5, kXcr0Avx},
      {"bmi2", 7, 0, 1, 8, 0},
      {"avx512f", 7, 0, 1, 16, kXcr0Avx512},
      {"avx512dq", 7, 0, 1, 17, kXcr0Avx512},
      {"rdseed", 7, 0, 1, 18, 0},
      {"adx", 7, 0, 1, 19, 0},
      {"avx512ifma", 7, 0, 1, 21, kXcr0Avx512},
      {"clflushopt", 7, 0, 1, 23, 0},
      {"clwb", 7, 0, 1, 24, 0},
      {"avx512cd", 7, 0, 1, 28, kXcr0Avx512},
      {"sha", 7, 0, 1, 29, 0},
      {"avx512bw", 7, 0, 1, 30, kXcr0Avx512},
      {"avx512vl", 7, 0, 1, 31, kXcr0Avx512},
      {"avx512vbmi", 7, 0, 2, 1, kXcr0Avx512},
      {"avx512vbmi2", 7, 0, 2, 6, kXcr0Avx512},
      {"gfni", 7, 0, 2, 8, 0},
      {"vaes", 7, 0, 2, 9, kXcr0Avx},
      {"vpclmulqdq", 7, 0, 2, 10, kXcr0Avx},
      {"avx512vnni", 7, 0, 2, 11, kXcr0Avx512},
      {"avx512bitalg", 7, 0, 2, 12, kXcr0Avx512},
      {"avx512vpopcntdq", 7, 0, 2, 14, kXcr0Avx512},
      {"amx-bf16", 7, 0, 3, 22, kXcr0Amx},
      {"avx512fp16", 7, 0, 3, 23, kXcr0Avx512},
      {"amx-tile", 7, 0, 3, 24, kXcr0Amx},
      {"amx-int8", 7, 0, 3, 25, kXcr0Amx},
      {"avxvnni", 7, 1, 0, 4, kXcr0Avx},
      {"avx512bf16", 7, 1, 0, 5, kXcr0Avx512},
      {"lzcnt", 0x80000001, 0, 2, 5, 0},
      {"sse4a", 0x80000001, 0, 2, 6, 0},
      {"prfchw", 0x80000001, 0, 2, 8, 0},
      {"xop", 0x80000001, 0, 2, 11, kXcr0Avx},
      {"fma4", 0x80000001, 0, 2, 16, kXcr0Avx},
      {"tbm", 0x80000001, 0, 2, 21, 0},
  };
  count = sizeof(table) / sizeof(table[0]);
  return table;
}

/// The table entry named `name`, or null.
inline const CpuFeatureBit *findCpuFeature(const char *name) {
  size_t count = 0;
  const CpuFeatureBit *table = cpuFeatureTable(count);
  for (size_t i = 0; i < count; ++i)
    if (std::strcmp(table[i].name, name) == 0)
      return &table[i];
  return nullptr;
}

} // namespace fleet::runtime::hal::kernel_library

#endif // FLEET_RUNTIME_HAL_KERNELLIBRARY_H
