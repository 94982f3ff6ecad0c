//===- KernelLinker.h - kernel objects to one shared object ------*- C++ -*-===//
//
// Links the relocatable kernel objects of an artifact (KernelCompiler.h),
// one per executable variant, into one ELF shared object for the runtime's
// loader (runtime/include/fleet/runtime/hal/KernelLibrary.h,
// docs/kernel-abi.md §1). Each object's entry symbols are first renamed
// (in memory, with LLVM's objcopy library) so that equal export names of
// different executables do not clash; the shared object exports exactly the
// renamed entry symbols and the ABI-version symbol. The link itself runs
// lld (`ld.lld-22`, Debian package lld-22) as a subprocess.
//
// Ownership: inputs are borrowed for the call; the result owns its bytes.
// Thread safety: calls may run concurrently (each uses its own temporary
// directory).
// Errors: an unreadable object, a rename that finds no symbol, a missing
// linker or a failed link (duplicate or bad symbols) is an llvm::Error
// quoting the linker's message.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_CODEGEN_KERNELLINKER_H
#define FLEET_CODEGEN_KERNELLINKER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fleet::codegen {

struct KernelLinkInput {
  /// Names the object in errors (e.g. `@exe::@variant`).
  std::string name;
  /// The relocatable ELF object (borrowed).
  llvm::ArrayRef<uint8_t> object;
  /// (defined symbol in the object, name in the shared object).
  std::vector<std::pair<std::string, std::string>> renames;
};

struct KernelLinkOptions {
  /// ld.lld to run; empty: defaultLinkerPath().
  std::string linker;
  /// The CPU the objects were compiled for (`host` or an LLVM CPU name):
  /// decides the recorded features.
  std::string targetCPU = "host";
  /// Written as the library's ABI-version symbol.
  uint32_t abiVersion = 0;
};

struct KernelLibraryImage {
  /// The ELF shared object.
  std::vector<uint8_t> bytes;
  /// The resolved CPU name (`host` becomes the detected one).
  std::string targetCPU;
  /// The features of KernelLibrary.h's table that the target enables.
  std::vector<std::string> cpuFeatures;
};

/// `$FLEET_LLD` when set, else the ld.lld found at configure time
/// (/usr/lib/llvm-22/bin/ld.lld), else `ld.lld-22` on PATH; empty when none
/// exists.
std::string defaultLinkerPath();

/// The features of KernelLibrary.h's table that `targetCPU` enables, and the
/// resolved CPU name.
llvm::Expected<std::pair<std::string, std::vector<std::string>>>
getTargetCpuFeatures(llvm::StringRef targetCPU);

/// Links `inputs` into one shared object.
llvm::Expected<KernelLibraryImage>
linkKernelLibrary(llvm::ArrayRef<KernelLinkInput> inputs,
                  const KernelLinkOptions &options);

} // namespace fleet::codegen

#endif // FLEET_CODEGEN_KERNELLINKER_H
