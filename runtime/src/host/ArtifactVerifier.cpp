//===- ArtifactVerifier.cpp - structural and semantic artifact checks ----===//
//
// See ArtifactVerifier.h.
//
//===----------------------------------------------------------------------===//

#include "ArtifactVerifier.h"

#include "fleet/runtime/hal/KernelABI.h"
#include "fleet/runtime/host/ArtifactFormat.h"
#include "fleet/runtime/host/Value.h"

#include <cstring>

namespace fleet::runtime::host {

namespace fb = ::fleet::artifact::fb;
using hal::Status;
using hal::StatusCode;

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint8_t kTypeCount = uint8_t(ValueType::HostBuffer) + 1;

template <typename T> uint32_t sizeOf(const flatbuffers::Vector<T> *vector) {
  return vector ? vector->size() : 0;
}

class Checker {
public:
  explicit Checker(const fb::Module &module) : module_(module) {}
  std::vector<std::string> run();

private:
  void fail(std::string text) {
    if (problems_.size() < 21)
      problems_.push_back(std::move(text));
  }
  void checkGlobals();
  void checkFunction(uint32_t index, const fb::Function &function);
  void checkRecord(const std::string &where, uint32_t index,
                   const fb::Function &function, const fb::Record &record,
                   const RegisterTypes &types);
  void checkExecutables();
  ValueType slotType(const RegisterTypes &types, uint32_t tagged) const {
    return (tagged & 0x80000000u) ? ValueType(types.refs[tagged & ~0x80000000u])
                                  : ValueType(types.scalars[tagged]);
  }

  const fb::Module &module_;
  std::vector<std::string> problems_;
};

bool validTypes(const flatbuffers::Vector<uint8_t> *types) {
  if (!types)
    return true;
  for (uint8_t type : *types)
    if (type >= kTypeCount)
      return false;
  return true;
}

std::vector<std::string> Checker::run() {
  if (module_.kernel_abi_version() != FLEET_KERNEL_ABI_VERSION)
    fail(hal::concat("kernel ABI version mismatch (artifact ",
                     module_.kernel_abi_version(), ", runtime ",
                     FLEET_KERNEL_ABI_VERSION, "); recompile it"));
  if (module_.op_kind_count() != kOpKindCount)
    fail(hal::concat("op table mismatch (the artifact was written with ",
                     module_.op_kind_count(), " record kinds, this runtime has ",
                     kOpKindCount, "); recompile it"));
  if (!problems_.empty())
    return problems_;
  checkGlobals();
  const auto *functions = module_.functions();
  for (uint32_t i = 0; i < sizeOf(functions); ++i)
    checkFunction(i, *functions->Get(i));
  checkExecutables();
  for (uint32_t i = 0; i < sizeOf(module_.constants()); ++i) {
    uint32_t alignment = module_.constants()->Get(i)->alignment();
    if (alignment == 0 || (alignment & (alignment - 1)) || alignment > 4096)
      fail(hal::concat("constant ", i, ": alignment ", alignment,
                       " is not a power of two up to 4096"));
  }
  for (uint32_t i = 0; i < sizeOf(module_.device_queries()); ++i) {
    uint8_t type = module_.device_queries()->Get(i)->type();
    if (type >= kTypeCount || isReferenceType(ValueType(type)))
      fail(hal::concat("device query ", i, ": result type ", int(type),
                       " is not a scalar type"));
  }
  return problems_;
}

void Checker::checkGlobals() {
  const auto *globals = module_.globals();
  for (uint32_t i = 0; i < sizeOf(globals); ++i) {
    const fb::Global &global = *globals->Get(i);
    if (global.type() >= kTypeCount) {
      fail(hal::concat("global ", i, ": invalid type ", int(global.type())));
      continue;
    }
    if (global.binding() != fb::DeviceBinding::None &&
        ValueType(global.type()) != ValueType::Device)
      fail(hal::concat("global ", i, ": a device binding on a ",
                       typeName(ValueType(global.type())), " global"));
    if (uint8_t(global.binding()) > uint8_t(fb::DeviceBinding::Ordinal))
      fail(hal::concat("global ", i, ": invalid device binding"));
  }
}

void Checker::checkFunction(uint32_t index, const fb::Function &function) {
  std::string where =
      hal::concat("function ", index, " (@",
                  function.name() ? function.name()->str() : std::string("?"),
                  ")");
  if (!function.name()) {
    fail(where + ": no name");
    return;
  }
  if (!validTypes(function.argument_types()) ||
      !validTypes(function.result_types()) ||
      !validTypes(function.scalar_types()) || !validTypes(function.ref_types())) {
    fail(where + ": invalid value type");
    return;
  }
  if (uint8_t(function.convention()) > uint8_t(fb::Convention::CoarseFences))
    fail(where + ": invalid convention");
  if (sizeOf(function.argument_tensors()) != sizeOf(function.argument_types()) ||
      sizeOf(function.result_tensors()) != sizeOf(function.result_types()))
    fail(where + ": tensor descriptions do not match the signature");
  if (function.is_declaration())
    return;
  RegisterTypes types{
      function.scalar_types() ? function.scalar_types()->data() : nullptr,
      sizeOf(function.scalar_types()),
      function.ref_types() ? function.ref_types()->data() : nullptr,
      sizeOf(function.ref_types())};
  for (uint32_t i = 0; i < types.scalarCount; ++i)
    if (isReferenceType(ValueType(types.scalars[i])))
      return fail(hal::concat(where, ": scalar register ", i, " has type ",
                              typeName(ValueType(types.scalars[i]))));
  for (uint32_t i = 0; i < types.refCount; ++i)
    if (!isReferenceType(ValueType(types.refs[i])))
      return fail(hal::concat(where, ": reference register ", i, " has type ",
                              typeName(ValueType(types.refs[i]))));
  if (sizeOf(function.scalar_template()) != types.scalarCount)
    return fail(where + ": the scalar template does not match the registers");
  if (types.scalarCount + uint64_t(types.refCount) > (1u << 24))
    return fail(where + ": too many registers");
  if (function.is_initializer() && (sizeOf(function.argument_types()) ||
                                    sizeOf(function.result_types())))
    fail(where + ": an initializer takes and returns nothing");
  uint32_t arguments = sizeOf(function.argument_slots());
  if (arguments != sizeOf(function.argument_types()))
    return fail(where + ": argument slots do not match the signature");
  for (uint32_t i = 0; i < arguments; ++i) {
    uint32_t slot = function.argument_slots()->Get(i);
    uint32_t plain = slot & ~0x80000000u;
    if (plain >= ((slot & 0x80000000u) ? types.refCount : types.scalarCount))
      return fail(hal::concat(where, ": argument ", i, " slot out of range"));
    if (slotType(types, slot) != ValueType(function.argument_types()->Get(i)))
      return fail(hal::concat(where, ": argument ", i,
                              " register type differs from the signature"));
  }
  for (uint32_t i = 0; i < sizeOf(function.fixups()); ++i) {
    const fb::Fixup &fixup = *function.fixups()->Get(i);
    if (fixup.slot() >= types.scalarCount)
      return fail(hal::concat(where, ": fixup ", i, " register out of range"));
    if (fixup.kind() == fb::FixupKind::GlobalAddress) {
      if (fixup.index() >= sizeOf(module_.globals()) ||
          ValueType(types.scalars[fixup.slot()]) != ValueType::Pointer)
        return fail(hal::concat(where, ": fixup ", i,
                                " names no global or a non-pointer register"));
    } else if (fixup.kind() != fb::FixupKind::DeviceCount) {
      return fail(hal::concat(where, ": fixup ", i, " of unknown kind"));
    }
  }
  const auto *records = function.records();
  uint32_t count = sizeOf(records);
  if (count == 0)
    return fail(where + ": no records");
  for (uint32_t i = 0; i < count; ++i) {
    size_t before = problems_.size();
    checkRecord(where, i, function, *records->Get(i), types);
    if (problems_.size() != before)
      return;
  }
  auto last = OpKind(records->Get(count - 1)->kind());
  if (last != OpKind::Unreachable && last != OpKind::Return &&
      last != OpKind::Jump)
    fail(where + ": the last record can fall through");
}

void Checker::checkRecord(const std::string &where, uint32_t index,
                          const fb::Function &function, const fb::Record &record,
                          const RegisterTypes &types) {
  if (record.kind() >= kOpKindCount)
    return fail(hal::concat(where, ": record ", index, ": unknown kind ",
                            record.kind()));
  auto kind = OpKind(record.kind());
  // The message prefix, built only for a problem (most records have none).
  auto at = [&] {
    return hal::concat(where, ": record ", index, " (", opKindName(kind), ")");
  };
  uint32_t slotCount = sizeOf(function.slots());
  if (uint64_t(record.slot_offset()) + record.slot_count() > slotCount)
    return fail(at() + ": slots out of range");
  if (record.site() >= sizeOf(function.sites()))
    return fail(at() + ": site out of range");
  const uint32_t *slots = function.slots()
                              ? function.slots()->data() + record.slot_offset()
                              : nullptr;
  std::string problem =
      host::checkRecord(kind, slots, record.slot_count(), record.imm(),
                        record.imm2(), types);
  if (!problem.empty())
    return fail(at() + ": " + problem);
  bool jumps = kind == OpKind::Jump || kind == OpKind::BranchIfFalse ||
               kind == OpKind::ForEnter || kind == OpKind::ForNext;
  if (jumps && record.target() >= sizeOf(function.records()))
    return fail(at() + ": jump target out of range");
  uint32_t data = record.data();
  auto inRange = [&](uint32_t size, const char *what) {
    if (data < size)
      return true;
    fail(hal::concat(at(), ": ", what, " ", data, " out of range (", size, ")"));
    return false;
  };
  switch (opKindData(kind)) {
  case OpDataKind::Global: {
    if (!inRange(sizeOf(module_.globals()), "global"))
      return;
    auto type = ValueType(module_.globals()->Get(data)->type());
    if (type != ValueType(isReferenceType(type) ? types.refs[slots[0]]
                                                : types.scalars[slots[0]]) ||
        isReferenceType(type) != (kind == OpKind::GlobalLoadRef ||
                                  kind == OpKind::GlobalStoreRef))
      fail(at() + ": register type differs from the global's");
    return;
  }
  case OpDataKind::Function: {
    if (!inRange(sizeOf(module_.functions()), "function"))
      return;
    const fb::Function &callee = *module_.functions()->Get(data);
    uint32_t argCount = sizeOf(callee.argument_types());
    uint32_t resultCount = sizeOf(callee.result_types());
    if (callee.is_initializer() || record.imm() != int64_t(argCount) ||
        record.slot_count() != argCount + resultCount)
      return fail(at() + ": the call does not match the callee's signature");
    for (uint32_t i = 0; i < argCount + resultCount; ++i) {
      uint8_t expected = i < argCount
                             ? callee.argument_types()->Get(i)
                             : callee.result_types()->Get(i - argCount);
      if (slotType(types, slots[i]) != ValueType(expected))
        return fail(hal::concat(at(), ": operand ", i,
                                " type differs from the callee's"));
    }
    return;
  }
  case OpDataKind::Executable:
    inRange(sizeOf(module_.executables()), "executable");
    return;
  case OpDataKind::Constant:
    inRange(sizeOf(module_.constants()), "constant");
    return;
  case OpDataKind::String:
    inRange(sizeOf(module_.strings()), "string");
    return;
  case OpDataKind::DeviceQuery:
    if (inRange(sizeOf(module_.device_queries()), "device query") &&
        module_.device_queries()->Get(data)->type() != types.scalars[slots[2]])
      fail(at() + ": result register type differs from the query's");
    return;
  case OpDataKind::LinkQuery:
    inRange(sizeOf(module_.link_queries()), "link query");
    return;
  case OpDataKind::None:
    break;
  }
  if (kind == OpKind::Return) {
    uint32_t results = sizeOf(function.result_types());
    if (record.slot_count() != results)
      return fail(at() + ": returns a different number of values than the "
                       "function's results");
    for (uint32_t i = 0; i < results; ++i)
      if (slotType(types, slots[i]) != ValueType(function.result_types()->Get(i)))
        return fail(hal::concat(at(), ": result ", i,
                                " type differs from the signature"));
  }
}

void Checker::checkExecutables() {
  uint32_t libraries = sizeOf(module_.libraries());
  for (uint32_t e = 0; e < sizeOf(module_.executables()); ++e) {
    const fb::Executable &executable = *module_.executables()->Get(e);
    if (!executable.name()) {
      fail(hal::concat("executable ", e, ": no name"));
      continue;
    }
    for (uint32_t v = 0; v < sizeOf(executable.variants()); ++v) {
      const fb::Variant &variant = *executable.variants()->Get(v);
      std::string where = hal::concat("executable @", executable.name()->str(),
                                      " variant ", v);
      if (!variant.name() || !variant.format())
        fail(where + ": no name or format");
      if (variant.library() != kNone && variant.library() >= libraries)
        fail(where + ": library index out of range");
      if (variant.library() == kNone && !variant.problem())
        fail(where + ": no library");
      for (uint32_t x = 0; x < sizeOf(variant.exports()); ++x) {
        const fb::Export &entry = *variant.exports()->Get(x);
        if (entry.ordinal() >= 4096 || !entry.name() || !entry.symbol())
          fail(hal::concat(where, ": export ", x,
                           " has no name, no symbol or a too large ordinal"));
      }
      // The devices a variant is for name device globals of this module.
      for (uint32_t d = 0; d < sizeOf(variant.devices()); ++d) {
        const flatbuffers::String *device = variant.devices()->Get(d);
        bool found = false;
        for (uint32_t g = 0; device && g < sizeOf(module_.globals()); ++g) {
          const fb::Global &global = *module_.globals()->Get(g);
          if (global.binding() != fb::DeviceBinding::None && global.name() &&
              global.name()->string_view() == device->string_view())
            found = true;
        }
        if (!found)
          fail(hal::concat(where, ": device ", d,
                           " names no device global of the module"));
      }
    }
  }
  for (uint32_t l = 0; l < libraries; ++l) {
    const fb::KernelLibrary &library = *module_.libraries()->Get(l);
    if (!library.name() || !library.data() || !library.target_cpu())
      fail(hal::concat("kernel library ", l, ": no name, data or target CPU"));
  }
}

} // namespace

Status verifyArtifact(hal::Span<const uint8_t> bytes, const std::string &source,
                      std::vector<uint64_t> &aligned,
                      const fb::Module *&module) {
  auto bad = [&](const std::string &what) {
    return Status(StatusCode::InvalidArgument, source + ": " + what);
  };
  ArtifactHeader header;
  if (!readArtifactHeader(bytes.data(), bytes.size(), header)) {
    if (bytes.size() >= 4 && std::memcmp(bytes.data(), "ML\xefR", 4) == 0)
      return bad("an MLIR bytecode file, not a Fleet artifact (artifact "
                 "format version 1, read by runtimes before issue 24); "
                 "recompile it with fleet-compile");
    return bad("not a Fleet artifact (no FLEETART header; was it written by "
               "fleet-compile?)");
  }
  if (header.version != kArtifactFormatVersion)
    return bad(hal::concat("artifact format version ", header.version,
                           " is not supported (this build reads version ",
                           kArtifactFormatVersion,
                           "); recompile it with fleet-compile"));
  size_t payloadSize = bytes.size() - kArtifactHeaderSize;
  if (header.payloadSize != payloadSize)
    return bad(hal::concat("corrupt or truncated artifact: ", payloadSize,
                           " payload bytes, the header records ",
                           header.payloadSize));
  const uint8_t *payload = bytes.data() + kArtifactHeaderSize;
  if (artifactChecksum(payload, payloadSize) != header.checksum)
    return bad("corrupt artifact: checksum mismatch (the file changed after "
               "fleet-compile wrote it)");
  if (reinterpret_cast<uintptr_t>(payload) % 8 != 0) {
    aligned.assign((payloadSize + 7) / 8, 0);
    std::memcpy(aligned.data(), payload, payloadSize);
    payload = reinterpret_cast<const uint8_t *>(aligned.data());
  }
  flatbuffers::Verifier verifier(payload, payloadSize, /*max_depth=*/64,
                                 /*max_tables=*/1u << 24);
  if (!fb::ModuleBufferHasIdentifier(payload) ||
      !fb::VerifyModuleBuffer(verifier))
    return bad("corrupt artifact: the FlatBuffers verifier rejects it");
  module = fb::GetModule(payload);
  std::vector<std::string> problems = Checker(*module).run();
  if (problems.empty())
    return Status();
  std::string text = "corrupt or mismatched artifact:";
  for (size_t i = 0; i < problems.size() && i < 20; ++i)
    text += "\n  " + problems[i];
  if (problems.size() > 20)
    text += "\n  ...";
  return bad(text);
}

} // namespace fleet::runtime::host
