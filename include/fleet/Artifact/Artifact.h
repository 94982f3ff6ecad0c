//===- Artifact.h - writing the .fleet artifact ------------------*- C++ -*-===//
//
// A `.fleet` artifact is a flat, versioned program the runtime loads without
// MLIR (docs/design.md §7): a 24-byte header (magic, format version, payload
// size, checksum; fleet/runtime/host/ArtifactFormat.h) and one FlatBuffer
// (runtime/schema/artifact.fbs) holding
//   - the host functions as op records of the shared op table
//     (fleet/runtime/host/OpTable.def), with typed registers, constants,
//     load-time fixups and (op, location) sites for messages;
//   - globals (types, initial values, device bindings), constants, strings
//     and device/link queries the records index;
//   - executables (variants with format, library and entry table) and the
//     kernel libraries (target, format, target CPU, CPU features, kernel-ABI
//     version, checksum, the shared object's bytes).
// The host program is lowered to records here, at compile time
// (HostLowering.h), and every record is checked against the op table with
// the runtime loader's own checker.
//
// Thread-safety: stateless functions; the module is only read.
// Failure behaviour: an unsupported op, type or attribute makes the writer
// fail with every problem listed, one line each ("file:line:col: in @f:
// unsupported op 'x'"); nothing is written then.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_ARTIFACT_ARTIFACT_H
#define FLEET_ARTIFACT_ARTIFACT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace fleet {

/// Lowers the host program of `module` (verified, compiled to the end) and
/// appends the artifact's bytes to `bytes`. On failure returns false and
/// sets `error` to "cannot write the artifact: <what>" plus one line per
/// problem.
bool emitArtifact(mlir::ModuleOp module, std::vector<uint8_t> &bytes,
                  std::string &error);

/// emitArtifact, written to `os`; failures are reported as an error on the
/// module.
mlir::LogicalResult writeArtifact(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace fleet

#endif // FLEET_ARTIFACT_ARTIFACT_H
