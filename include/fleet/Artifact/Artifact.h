//===- Artifact.h - the .fleet artifact format ------------------*- C++ -*-===//
//
// A `.fleet` artifact is one MLIR bytecode file holding the final host
// program (util/hal/arith/scf/cf functions and globals) and every
// `hal.executable` with its compiled kernel objects (docs/design.md §7). The
// module carries two version attributes:
//   fleet.artifact_version    = kArtifactVersion   (this file's layout)
//   fleet.kernel_abi_version  = FLEET_KERNEL_ABI_VERSION (KernelABI.h)
// A reader rejects other versions, non-bytecode input and truncated or
// corrupt files with a message naming the file and the problem.
//
// Integrity: the writer sets the bytecode's producer string to
// `fleet xxh3=<16 hex digits>`, the XXH3-64 hash of every byte after the
// producer, so the file stays plain MLIR bytecode (fleet-opt reads it) and a
// reader can reject a damaged file before MLIR's bytecode reader sees it
// (which does not validate every count of corrupted input). Bytecode from
// other producers (e.g. `fleet-opt --emit-bytecode` of hand-written host IR)
// and artifacts written before checksums (producer `fleet`) carry none and
// are read as is.
//
// Verification: writeArtifact expects a verified module (fleet-compile
// verifies at the end of every phase). readArtifact verifies what carries no
// checksum; a checksummed artifact is exactly what the writer wrote, so it
// is not verified again (it was a third of a module load).
//
// Thread-safety: stateless functions; the MLIRContext passed in must not be
// used concurrently by the caller while reading.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_ARTIFACT_ARTIFACT_H
#define FLEET_ARTIFACT_ARTIFACT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace fleet {

/// Layout version of .fleet files written by this build.
constexpr int64_t kArtifactVersion = 1;

/// Stamps the version attributes on `module` (verified by the caller) and
/// writes it as MLIR bytecode.
mlir::LogicalResult writeArtifact(mlir::ModuleOp module, llvm::raw_ostream &os);

/// Reads a .fleet file from `buffer` (its identifier names the file in
/// errors). On failure returns null and sets `error` to a one-line message.
mlir::OwningOpRef<mlir::ModuleOp> readArtifact(llvm::MemoryBufferRef buffer,
                                               mlir::MLIRContext *context,
                                               std::string &error);

} // namespace fleet

#endif // FLEET_ARTIFACT_ARTIFACT_H
