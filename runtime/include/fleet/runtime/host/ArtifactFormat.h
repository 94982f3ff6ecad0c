//===- ArtifactFormat.h - the .fleet file: header, op kinds, layouts -*- C++ -*-===//
//
// What the compiler's emitter and the runtime's loader share about a .fleet
// artifact (no MLIR, no LLVM):
//   - the 24-byte header in front of the FlatBuffer (runtime/schema/
//     artifact.fbs): magic "FLEETART", format version (uint32), payload
//     size (uint32), checksum of the payload (uint64, kernel_library::
//     checksum); little-endian;
//   - OpKind, one per OpTable.def entry, in its order;
//   - checkRecord(): a record's slots, registers and immediates against its
//     kind's layout. The emitter checks every record it writes with it, the
//     loader every record it reads, so both sides agree by construction.
//
// Thread safety: stateless (the parsed layouts are built once, thread-safely).
// Failure behaviour: checkRecord returns a message, never aborts.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HOST_ARTIFACTFORMAT_H
#define FLEET_RUNTIME_HOST_ARTIFACTFORMAT_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace fleet::runtime::host {

/// Layout version of .fleet files (the header and artifact.fbs). Version 1
/// was MLIR bytecode (issue 23 and before).
constexpr uint32_t kArtifactFormatVersion = 2;
constexpr char kArtifactMagic[8] = {'F', 'L', 'E', 'E', 'T', 'A', 'R', 'T'};
constexpr size_t kArtifactHeaderSize = 24;

struct ArtifactHeader {
  uint32_t version = 0;
  uint32_t payloadSize = 0;
  uint64_t checksum = 0;
};

/// The payload's checksum (the kernel libraries' hash: KernelLibrary.h).
uint64_t artifactChecksum(const uint8_t *data, size_t size);
/// Writes the 24 header bytes for `payload`.
void writeArtifactHeader(uint8_t *out, const uint8_t *payload, size_t size);
/// Reads the header; false when the magic is not there.
bool readArtifactHeader(const uint8_t *data, size_t size,
                        ArtifactHeader &header);

enum class OpKind : uint16_t {
#define FLEET_HOST_OP(Kind, Name, Layout, Data, Imm, Handler) Kind,
#include "fleet/runtime/host/OpTable.def"
};

constexpr uint32_t kOpKindCount = 0
#define FLEET_HOST_OP(Kind, Name, Layout, Data, Imm, Handler) +1
#include "fleet/runtime/host/OpTable.def"
    ;

/// What a record's `data` index refers to.
enum class OpDataKind : uint8_t {
  None,
  Global,
  Function,
  Executable,
  Constant,
  String,
  DeviceQuery,
  LinkQuery,
};

/// "FenceCreate"
const char *opKindName(OpKind kind);
/// "hal.fence.create"
const char *opKindOpName(OpKind kind);
/// "D F"
const char *opKindLayout(OpKind kind);
OpDataKind opKindData(OpKind kind);

/// Register types of one function (ValueType numbers, Value.h).
struct RegisterTypes {
  const uint8_t *scalars = nullptr;
  uint32_t scalarCount = 0;
  const uint8_t *refs = nullptr;
  uint32_t refCount = 0;
};

/// Checks a record of `kind` with `count` slots against the kind's layout:
/// the slot count, each slot's register file and range, reference types,
/// pairwise types of moves and selects, and the immediates the layout or the
/// handler relies on. Returns an empty string when the record is well
/// formed, else what is wrong ("slot 2: reference register 9 of 4").
std::string checkRecord(OpKind kind, const uint32_t *slots, uint32_t count,
                        int64_t imm, int64_t imm2, const RegisterTypes &types);

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_HOST_ARTIFACTFORMAT_H
