//===- fleet-dump.cpp - prints a .fleet artifact readably ----------------===//
//
//   fleet-dump m.fleet
//
// Verifies the artifact as the runtime's loader does (the header, checksum
// and FlatBuffers verifier) and prints its versions, globals and device
// bindings, functions (signature, registers, one line per record: kind,
// slots, immediates, data, target, site), executables with their variants
// and entry tables, and kernel libraries. Runtime-only (no LLVM or MLIR).
// A damaged file is an error message and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/host/ArtifactFormat.h"
#include "fleet/runtime/host/Value.h"
#include "fleet/runtime/host/artifact_generated.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

using namespace fleet::runtime;
namespace fb = fleet::artifact::fb;

namespace {

template <typename T> uint32_t sizeOf(const flatbuffers::Vector<T> *v) {
  return v ? v->size() : 0;
}
const char *str(const flatbuffers::String *s) { return s ? s->c_str() : ""; }

std::string types(const flatbuffers::Vector<uint8_t> *list) {
  std::string text;
  for (uint32_t i = 0; i < sizeOf(list); ++i)
    text += std::string(i ? ", " : "") +
            (list->Get(i) <= uint8_t(host::ValueType::HostBuffer)
                 ? host::typeName(host::ValueType(list->Get(i)))
                 : "?");
  return "(" + text + ")";
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fleet-dump FILE.fleet\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "fleet-dump: error: cannot read '%s'\n", argv[1]);
    return 1;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  host::ArtifactHeader header;
  if (!host::readArtifactHeader(bytes.data(), bytes.size(), header)) {
    std::fprintf(stderr, "fleet-dump: error: %s: not a Fleet artifact\n", argv[1]);
    return 1;
  }
  const uint8_t *payload = bytes.data() + host::kArtifactHeaderSize;
  size_t size = bytes.size() - host::kArtifactHeaderSize;
  flatbuffers::Verifier verifier(payload, size, 64, 1u << 24);
  if (header.version != host::kArtifactFormatVersion ||
      header.payloadSize != size ||
      host::artifactChecksum(payload, size) != header.checksum ||
      !fb::VerifyModuleBuffer(verifier)) {
    std::fprintf(stderr,
                 "fleet-dump: error: %s: corrupt or unsupported artifact "
                 "(format version %u, this build reads %u)\n",
                 argv[1], header.version, host::kArtifactFormatVersion);
    return 1;
  }
  const fb::Module &m = *fb::GetModule(payload);
  std::printf("artifact %s\n  format version %u, checksum %016" PRIx64
              ", %zu bytes\n  module '%s', kernel ABI %" PRId64
              ", op table of %u kinds\n",
              argv[1], header.version, header.checksum, bytes.size(),
              str(m.name()), m.kernel_abi_version(), m.op_kind_count());
  for (uint32_t i = 0; i < sizeOf(m.globals()); ++i) {
    const fb::Global &g = *m.globals()->Get(i);
    std::printf("global %u @%s : %s", i, str(g.name()),
                g.type() <= uint8_t(host::ValueType::HostBuffer)
                    ? host::typeName(host::ValueType(g.type()))
                    : "?");
    if (g.binding() == fb::DeviceBinding::Target)
      std::printf(" = device %s[%" PRId64 "]", str(g.backend()), g.ordinal());
    else if (g.binding() == fb::DeviceBinding::Ordinal)
      std::printf(" = device[%" PRId64 "]", g.ordinal());
    else
      std::printf(" = 0x%" PRIx64, g.initial_bits());
    std::printf("%s\n", g.used() ? "" : " (unused)");
  }
  for (uint32_t i = 0; i < sizeOf(m.functions()); ++i) {
    const fb::Function &f = *m.functions()->Get(i);
    std::printf("function %u @%s%s%s%s %s -> %s%s\n", i, str(f.name()),
                f.is_declaration() ? " (import)" : "",
                f.is_public() ? " public" : "",
                f.is_initializer() ? " (initializer)" : "",
                types(f.argument_types()).c_str(),
                types(f.result_types()).c_str(),
                f.convention() == fb::Convention::CoarseFences
                    ? " coarse-fences"
                    : "");
    if (f.is_declaration())
      continue;
    std::printf("  registers: %u scalar, %u reference; %u records\n",
                sizeOf(f.scalar_types()), sizeOf(f.ref_types()),
                sizeOf(f.records()));
    for (uint32_t r = 0; r < sizeOf(f.records()); ++r) {
      const fb::Record &record = *f.records()->Get(r);
      std::printf("  %4u %-22s [", r,
                  host::opKindName(host::OpKind(record.kind())));
      for (uint32_t s = 0; s < record.slot_count() &&
                           record.slot_offset() + s < sizeOf(f.slots());
           ++s) {
        uint32_t slot = f.slots()->Get(record.slot_offset() + s);
        std::printf("%s%s%u", s ? " " : "", (slot >> 31) ? "r" : "",
                    slot & 0x7FFFFFFFu);
      }
      std::printf("]");
      if (record.imm() || record.imm2())
        std::printf(" imm=%" PRId64 ",%" PRId64, record.imm(), record.imm2());
      if (host::opKindData(host::OpKind(record.kind())) !=
          host::OpDataKind::None)
        std::printf(" data=%u", record.data());
      if (record.target() != 0xFFFFFFFFu)
        std::printf(" -> %u", record.target());
      if (record.site() < sizeOf(f.sites()))
        std::printf("  ; %s %s", str(f.sites()->Get(record.site())->op()),
                    str(f.sites()->Get(record.site())->location()));
      std::printf("\n");
    }
  }
  for (uint32_t i = 0; i < sizeOf(m.executables()); ++i) {
    const fb::Executable &e = *m.executables()->Get(i);
    std::printf("executable %u @%s\n", i, str(e.name()));
    for (uint32_t v = 0; v < sizeOf(e.variants()); ++v) {
      const fb::Variant &variant = *e.variants()->Get(v);
      std::string devices;
      for (uint32_t d = 0; d < sizeOf(variant.devices()); ++d)
        devices += std::string(d ? " @" : " devices @") +
                   str(variant.devices()->Get(d));
      bool problem = variant.problem() && variant.problem()->size();
      std::printf("  variant @%s format %s library %d%s%s%s\n",
                  str(variant.name()), str(variant.format()),
                  int(variant.library()), problem ? ": " : "",
                  problem ? str(variant.problem()) : "", devices.c_str());
      for (uint32_t x = 0; x < sizeOf(variant.exports()); ++x) {
        const fb::Export &entry = *variant.exports()->Get(x);
        std::printf("    export %u @%s -> %s (%u bindings, %u constants)\n",
                    entry.ordinal(), str(entry.name()), str(entry.symbol()),
                    entry.bindings(), entry.constants());
      }
    }
  }
  for (uint32_t i = 0; i < sizeOf(m.libraries()); ++i) {
    const fb::KernelLibrary &l = *m.libraries()->Get(i);
    std::string features;
    for (uint32_t f = 0; f < sizeOf(l.cpu_features()); ++f)
      features += std::string(f ? "," : "") + str(l.cpu_features()->Get(f));
    std::printf("library %u '%s' target %s format %s cpu %s [%s] ABI %" PRId64
                ", %u bytes, checksum %016" PRIx64 "\n",
                i, str(l.name()), str(l.target()), str(l.format()),
                str(l.target_cpu()), features.c_str(), l.abi_version(),
                sizeOf(l.data()), l.checksum());
  }
  std::printf("constants %u, strings %u, device queries %u, link queries %u\n",
              sizeOf(m.constants()), sizeOf(m.strings()),
              sizeOf(m.device_queries()), sizeOf(m.link_queries()));
  return 0;
}
