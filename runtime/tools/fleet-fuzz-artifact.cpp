//===- fleet-fuzz-artifact.cpp - structure-aware artifact fuzzer ---------===//
//
//   fleet-fuzz-artifact SEED.fleet MUTANTS [RANDOM-SEED]
//
// Makes MUTANTS mutants of a valid artifact and loads each into a fresh
// Context on one local-sync device; a mutant that loads has every export
// called with zero/default arguments (zero-filled buffer views of the shapes
// the program states; host waits bounded). Mutations are
// structure-aware: a record's kind, slot count or offset, data, target or
// immediates, a slot, a register type, a fixup, a global's type or binding,
// a signature type, a library or variant index (through the FlatBuffers
// mutable API), or a few raw payload bytes; every mutant's header is
// resealed (checksum recomputed), so it reaches the verifier. The tool
// prints how many were rejected, loaded and ran, and fails when fewer than
// 90% reached the verifier. Crashes are the failure it looks for: run it
// under ASan (make test does, in the standalone runtime build).
//
// Thread safety and ownership: a single-threaded tool.
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/host/ArtifactFormat.h"
#include "fleet/runtime/host/Context.h"
#include "fleet/runtime/host/artifact_generated.h"
#include "fleet/runtime/tooling/Tensor.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>

using namespace fleet::runtime;
namespace fb = fleet::artifact::fb;

namespace {

using Rng = std::mt19937_64;

template <typename T> T pick(Rng &rng, std::initializer_list<T> values) {
  return *(values.begin() + rng() % values.size());
}

/// A boundary-biased replacement value.
uint64_t interesting(Rng &rng, uint64_t old) {
  switch (rng() % 8) {
  case 0:
    return 0;
  case 1:
    return old + 1;
  case 2:
    return old - 1;
  case 3:
    return 0xFFFFFFFFu;
  case 4:
    return 0x80000000u | (rng() % 16);
  case 5:
    return rng() % 64;
  case 6:
    return uint64_t(-1);
  default:
    return rng();
  }
}

/// Applies one mutation; returns true when it flipped raw payload bytes.
/// Raw flips can corrupt the FlatBuffers offsets the structured mutations
/// follow, so the caller applies no further mutation after one.
bool mutate(std::vector<uint8_t> &bytes, Rng &rng) {
  uint8_t *payload = bytes.data() + host::kArtifactHeaderSize;
  size_t size = bytes.size() - host::kArtifactHeaderSize;
  fb::Module *module = fb::GetMutableModule(payload);
  auto *functions = module->mutable_functions();
  unsigned choice = rng() % 12;
  if (choice >= 10 || !functions || functions->size() == 0) {
    // Raw bytes (then the FlatBuffers verifier or the checks see them).
    for (int n = 1 + rng() % 4; n > 0; --n)
      payload[rng() % size] ^= uint8_t(1u << (rng() % 8));
    return true;
  }
  fb::Function *function = functions->GetMutableObject(rng() % functions->size());
  auto *records = function->mutable_records();
  switch (choice) {
  case 0:
  case 1:
  case 2:
  case 3:
    if (records && records->size()) {
      auto *record = records->GetMutableObject(rng() % records->size());
      switch (rng() % 7) {
      case 0:
        record->mutate_kind(uint16_t(rng() % (host::kOpKindCount + 3)));
        break;
      case 1:
        record->mutate_slot_count(uint32_t(interesting(rng, record->slot_count())));
        break;
      case 2:
        record->mutate_slot_offset(uint32_t(interesting(rng, record->slot_offset())));
        break;
      case 3:
        record->mutate_data(uint32_t(interesting(rng, record->data())));
        break;
      case 4:
        record->mutate_target(uint32_t(interesting(rng, record->target())));
        break;
      case 5:
        record->mutate_imm(int64_t(interesting(rng, record->imm())));
        break;
      default:
        record->mutate_imm2(int64_t(interesting(rng, record->imm2())));
        break;
      }
    }
    break;
  case 4:
  case 5:
    if (auto *slots = function->mutable_slots(); slots && slots->size()) {
      uint32_t i = rng() % slots->size();
      slots->Mutate(i, uint32_t(interesting(rng, slots->Get(i))));
    }
    break;
  case 6:
    if (auto *types = rng() % 2 ? function->mutable_ref_types()
                                : function->mutable_scalar_types();
        types && types->size())
      types->Mutate(rng() % types->size(), uint8_t(rng() % 21));
    break;
  case 7:
    if (auto *fixups = function->mutable_fixups(); fixups && fixups->size()) {
      auto *fixup = fixups->GetMutableObject(rng() % fixups->size());
      if (rng() % 2)
        fixup->mutate_slot(uint32_t(interesting(rng, fixup->slot())));
      else
        fixup->mutate_index(uint32_t(interesting(rng, fixup->index())));
    } else if (auto *args = function->mutable_argument_slots();
               args && args->size()) {
      args->Mutate(rng() % args->size(),
                   uint32_t(interesting(rng, args->Get(0))));
    }
    break;
  case 8:
    if (auto *types = rng() % 2 ? function->mutable_argument_types()
                                : function->mutable_result_types();
        types && types->size())
      types->Mutate(rng() % types->size(), uint8_t(rng() % 21));
    break;
  default:
    if (auto *globals = module->mutable_globals(); globals && globals->size()) {
      fb::Global *global = globals->GetMutableObject(rng() % globals->size());
      if (rng() % 2)
        global->mutate_type(uint8_t(rng() % 21));
      else
        global->mutate_binding(pick(rng, {fb::DeviceBinding::None,
                                          fb::DeviceBinding::Target,
                                          fb::DeviceBinding::Ordinal}));
    } else if (auto *executables = module->mutable_executables();
               executables && executables->size()) {
      auto *variants = executables->GetMutableObject(0)->mutable_variants();
      if (variants && variants->size())
        variants->GetMutableObject(0)->mutate_library(
            uint32_t(interesting(rng, 0)));
    }
    break;
  }
  return false;
}

/// Zero/default arguments for `function`: a zero-filled buffer view on
/// `device` of each buffer-view argument whose shape and element type the
/// program states (at most 64 Ki elements; else a null view), zero scalars,
/// fresh fences for coarse-fences functions.
std::vector<host::Value> arguments(const host::Function &function,
                                   hal::Device &device) {
  const host::FunctionSignature &signature = function.signature();
  std::vector<host::Value> values;
  for (size_t i = 0; i < signature.arguments.size(); ++i) {
    host::ValueType type = signature.arguments[i];
    if (type == host::ValueType::Fence) {
      hal::Ref<hal::Semaphore> semaphore = hal::Semaphore::create(1);
      values.push_back(host::Value::fence(hal::Fence::createAt(*semaphore, 1)));
    } else if (type == host::ValueType::BufferView &&
               i < signature.argumentTensors.size()) {
      const host::TensorDescription &description = signature.argumentTensors[i];
      tooling::HostTensor tensor;
      tensor.shape = description.shape;
      tensor.elementType = description.elementType;
      uint64_t count = 1;
      bool usable = description.known && hal::element_type::byteSize(
                                             description.elementType) > 0;
      for (int64_t dim : description.shape) {
        if (dim < 0 || dim > (1 << 16) || (count *= uint64_t(dim)) > (1 << 16))
          usable = false;
      }
      if (usable) {
        tensor.bytes.assign(count * hal::element_type::byteSize(
                                        description.elementType), 0);
        if (auto view = tooling::uploadTensor(device, tensor); view.ok()) {
          values.push_back(host::Value::bufferView(std::move(*view)));
          continue;
        }
      }
      values.push_back(host::Value::reference(type, hal::Ref<hal::RefCounted>()));
    } else if (host::isReferenceType(type)) {
      values.push_back(host::Value::reference(type, hal::Ref<hal::RefCounted>()));
    } else {
      values.push_back(host::Value::fromBits(type, 0));
    }
  }
  return values;
}

} // namespace

// LeakSanitizer's on-demand check (present only in sanitizer builds).
extern "C" int __lsan_do_recoverable_leak_check() __attribute__((weak));

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fleet-fuzz-artifact SEED.fleet MUTANTS [SEED]\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  std::vector<uint8_t> seed((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
  int mutants = std::atoi(argv[2]);
  Rng rng(argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1);
  host::ArtifactHeader header;
  if (!host::readArtifactHeader(seed.data(), seed.size(), header)) {
    std::fprintf(stderr, "fleet-fuzz-artifact: %s is not an artifact\n", argv[1]);
    return 2;
  }
  int reached = 0, rejected = 0, loaded = 0, ran = 0;
  // FLEET_FUZZ_LEAK_EACH=1 (debugging, under ASan): a leak check after
  // every mutant, naming the first one that leaked.
  const bool leakEach =
      std::getenv("FLEET_FUZZ_LEAK_EACH") && __lsan_do_recoverable_leak_check;
  for (int i = 0; i < mutants; ++i) {
    if (leakEach && i > 0 && __lsan_do_recoverable_leak_check()) {
      std::fprintf(stderr, "fleet-fuzz-artifact: mutant %d leaked\n", i - 1);
      return 1;
    }
    std::vector<uint8_t> bytes = seed;
    for (int n = 1 + rng() % 3; n > 0; --n)
      if (mutate(bytes, rng))
        break;
    host::writeArtifactHeader(bytes.data(),
                              bytes.data() + host::kArtifactHeaderSize,
                              bytes.size() - host::kArtifactHeaderSize);
    if (const char *keep = std::getenv("FLEET_FUZZ_KEEP")) {
      // Debugging: the mutant about to be loaded, kept in a file.
      std::ofstream out(keep, std::ios::binary);
      out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    }
    // A mutated workgroup count may ask for billions of workgroups: bounded.
    auto device = hal::createDevice(
        "local-sync?max_workgroups=4096&max_allocation=268435456");
    auto context = host::Context::create({*device});
    (*context)->setHostWaitLimit(50);
    auto module = (*context)->loadArtifact(bytes, "mutant");
    const std::string message =
        module.ok() ? std::string() : module.status().message();
    // Everything past the header checks reached the verifier.
    if (message.find("checksum") == std::string::npos &&
        message.find("FLEETART") == std::string::npos &&
        message.find("payload bytes") == std::string::npos)
      ++reached;
    if (!module.ok()) {
      ++rejected;
      continue;
    }
    ++loaded;
    const bool verbose = std::getenv("FLEET_FUZZ_VERBOSE");
    for (const host::Function *function : (*module)->exports()) {
      std::vector<host::Value> results;
      hal::Status status =
          (*context)->invoke(*function, arguments(*function, **device), results);
      if (status.ok())
        ++ran;
      else if (verbose)
        std::fprintf(stderr, "mutant %d: @%s: %s\n", i,
                     function->name().c_str(), status.toString().c_str());
    }
    hal::Status idle = (*context)->waitIdle();
    if (!idle.ok() && verbose)
      std::fprintf(stderr, "mutant %d: waitIdle: %s\n", i,
                   idle.toString().c_str());
    // Work that can never run (a mutant that waits on its own signal) is
    // given up, so it releases the device and its buffers.
    if (!idle.ok())
      if (hal::Status abandoned = (**device).abandonPending(
              hal::Status(), hal::Timeout::milliseconds(2000));
          !abandoned.ok()) {
        std::fprintf(stderr, "fleet-fuzz-artifact: mutant %d: %s\n", i,
                     abandoned.toString().c_str());
        return 1;
      }
  }
  std::printf("mutants %d: reached the verifier %d (%.1f%%), rejected %d, "
              "loaded %d, calls that returned ok %d\n",
              mutants, reached, 100.0 * reached / mutants, rejected, loaded,
              ran);
  return reached * 10 >= mutants * 9 ? 0 : 1;
}
