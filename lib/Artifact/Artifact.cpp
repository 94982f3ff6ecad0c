//===- Artifact.cpp - writing and reading .fleet files --------------------===//

#include "fleet/Artifact/Artifact.h"

#include "fleet/runtime/hal/KernelABI.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/xxhash.h"

#include <optional>

using namespace mlir;

namespace fleet {

namespace {

constexpr llvm::StringLiteral kChecksumProducer = "fleet xxh3=";
constexpr size_t kChecksumDigits = 16;

/// Offset and length of the bytecode header's producer string: after the
/// 4-byte magic and the version (a PrefixVarInt: the trailing zero bits of
/// its first byte count its extra bytes; 0 means 8 extra bytes).
std::optional<std::pair<size_t, size_t>> findProducer(StringRef bytes) {
  if (bytes.size() < 6)
    return std::nullopt;
  uint8_t first = uint8_t(bytes[4]);
  size_t versionBytes = first ? size_t(llvm::countr_zero(first)) + 1 : 9;
  size_t start = 4 + versionBytes;
  size_t end = bytes.find('\0', start);
  if (start > bytes.size() || end == StringRef::npos)
    return std::nullopt;
  return std::make_pair(start, end - start);
}

std::string checksumText(StringRef payload) {
  return llvm::utohexstr(llvm::xxh3_64bits(payload), /*LowerCase=*/true,
                         /*Width=*/kChecksumDigits);
}

} // namespace

LogicalResult writeArtifact(ModuleOp module, llvm::raw_ostream &os) {
  Builder builder(module.getContext());
  module->setAttr("fleet.artifact_version",
                  builder.getI64IntegerAttr(kArtifactVersion));
  module->setAttr("fleet.kernel_abi_version",
                  builder.getI64IntegerAttr(FLEET_KERNEL_ABI_VERSION));
  // Write with a placeholder checksum of fixed width, then fill it in.
  std::string placeholder =
      (kChecksumProducer + std::string(kChecksumDigits, '0')).str();
  BytecodeWriterConfig config(placeholder);
  std::string bytes;
  llvm::raw_string_ostream buffer(bytes);
  if (failed(writeBytecodeToFile(module, buffer, config)))
    return failure();
  buffer.flush();
  auto producer = findProducer(bytes);
  if (!producer || StringRef(bytes).substr(producer->first, producer->second) !=
                       placeholder)
    return module.emitError("artifact writer: unexpected bytecode header");
  size_t payload = producer->first + producer->second + 1;
  std::string sum = checksumText(StringRef(bytes).drop_front(payload));
  bytes.replace(producer->first + kChecksumProducer.size(), kChecksumDigits,
                sum);
  os << bytes;
  return success();
}

OwningOpRef<ModuleOp> readArtifact(llvm::MemoryBufferRef buffer,
                                   MLIRContext *context, std::string &error) {
  StringRef name = buffer.getBufferIdentifier();
  if (!isBytecode(buffer)) {
    error = (name + ": not a Fleet artifact (expected MLIR bytecode; was it "
                    "written by fleet-compile?)")
                .str();
    return {};
  }
  // Artifacts of fleet-compile carry a checksum: check it before MLIR's
  // bytecode reader parses possibly damaged counts (Artifact.h).
  StringRef bytes = buffer.getBuffer();
  bool checksummed = false;
  if (auto producer = findProducer(bytes)) {
    StringRef text = bytes.substr(producer->first, producer->second);
    // A bare "fleet" is an artifact written before checksums existed.
    if (text.starts_with("fleet") && text != "fleet") {
      StringRef digits = text.starts_with(kChecksumProducer)
                             ? text.drop_front(kChecksumProducer.size())
                             : StringRef();
      if (digits.size() != kChecksumDigits) {
        error = (name + ": corrupt artifact: damaged header (producer '" +
                 text + "')")
                    .str();
        return {};
      }
      size_t payload = producer->first + producer->second + 1;
      if (digits != checksumText(bytes.drop_front(payload))) {
        error = (name + ": corrupt artifact: checksum mismatch (the file "
                        "changed after fleet-compile wrote it)")
                    .str();
        return {};
      }
      checksummed = true;
    }
  }
  // Collect the first diagnostic instead of printing it, so the caller gets
  // one message naming the file.
  std::string firstDiagnostic;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (firstDiagnostic.empty())
      firstDiagnostic = diag.str();
    return success();
  });
  // Verified below only when not checksummed.
  ParserConfig config(context, /*verifyAfterParse=*/false);
  Block block;
  if (failed(readBytecodeFile(buffer, &block, config))) {
    error = (name + ": corrupt or truncated artifact: " +
             (firstDiagnostic.empty() ? "unreadable bytecode"
                                      : firstDiagnostic))
                .str();
    return {};
  }
  if (!llvm::hasSingleElement(block) || !isa<ModuleOp>(block.front())) {
    error = (name + ": corrupt artifact: expected one top-level module").str();
    return {};
  }
  OwningOpRef<ModuleOp> module(cast<ModuleOp>(block.front()));
  module->getOperation()->remove();
  auto version = module.get()->getAttrOfType<IntegerAttr>(
      "fleet.artifact_version");
  if (!version) {
    error = (name + ": not a Fleet artifact (no fleet.artifact_version)").str();
    return {};
  }
  if (version.getInt() != kArtifactVersion) {
    error = (name + ": artifact format version " + Twine(version.getInt()) +
             " is not supported (this build reads version " +
             Twine(kArtifactVersion) + "); recompile it with fleet-compile")
                .str();
    return {};
  }
  auto abi = module.get()->getAttrOfType<IntegerAttr>(
      "fleet.kernel_abi_version");
  if (!abi || abi.getInt() != FLEET_KERNEL_ABI_VERSION) {
    error = (name + ": kernel ABI version mismatch (artifact " +
             (abi ? Twine(abi.getInt()) : Twine("none")) + ", runtime " +
             Twine(FLEET_KERNEL_ABI_VERSION) + "); recompile it")
                .str();
    return {};
  }
  // A checksummed artifact is byte for byte what writeArtifact wrote, from
  // a module its writer verified (Artifact.h): verifying it again was a
  // third of fleet-run's module load (issue 23). Other bytecode is checked.
  if (!checksummed && failed(verify(*module))) {
    error = (name + ": corrupt artifact: " +
             (firstDiagnostic.empty() ? "verification failed" : firstDiagnostic))
                .str();
    return {};
  }
  return module;
}

} // namespace fleet
