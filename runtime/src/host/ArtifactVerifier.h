//===- ArtifactVerifier.h - checks of a .fleet artifact -----------*- C++ -*-===//
//
// verifyArtifact() decides whether bytes are an artifact this runtime can
// load without risk: the header (magic, format version, payload size,
// checksum), the FlatBuffers verifier over the payload, then the semantic
// checks the handlers rely on (runtime/schema/artifact.fbs):
//   - module: kernel-ABI version, op-table size;
//   - globals: value types, device bindings only on device globals;
//   - functions: register types, the scalar template, argument slots and
//     types, fixups (registers, globals), and for every record its kind,
//     its slot range, its layout and register types (checkRecord, the op
//     table), its site, its jump target, its data index and the types that
//     index implies (globals, callees' signatures, returns' results), and a
//     last record that cannot fall through;
//   - executables: library indices, export ordinals; constants: alignment.
// On success `module` points into `bytes` (or into `aligned`, a copy made
// when `bytes` is not 8-byte aligned).
//
// Thread safety: stateless. Failure behaviour: returns an INVALID_ARGUMENT
// status "<source>: <what>" (at most 20 problems listed), never aborts.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_HOST_ARTIFACTVERIFIER_H
#define FLEET_RUNTIME_SRC_HOST_ARTIFACTVERIFIER_H

#include "fleet/runtime/hal/Ref.h"
#include "fleet/runtime/hal/Status.h"
#include "fleet/runtime/host/artifact_generated.h"

#include <string>
#include <vector>

namespace fleet::runtime::host {

hal::Status verifyArtifact(hal::Span<const uint8_t> bytes,
                           const std::string &source,
                           std::vector<uint64_t> &aligned,
                           const artifact::fb::Module *&module);

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_SRC_HOST_ARTIFACTVERIFIER_H
