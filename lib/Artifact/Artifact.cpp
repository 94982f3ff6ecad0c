//===- Artifact.cpp - writing and reading .fleet files --------------------===//

#include "fleet/Artifact/Artifact.h"

#include "fleet/runtime/hal/KernelABI.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace fleet {

LogicalResult writeArtifact(ModuleOp module, llvm::raw_ostream &os) {
  Builder builder(module.getContext());
  module->setAttr("fleet.artifact_version",
                  builder.getI64IntegerAttr(kArtifactVersion));
  module->setAttr("fleet.kernel_abi_version",
                  builder.getI64IntegerAttr(FLEET_KERNEL_ABI_VERSION));
  BytecodeWriterConfig config("fleet");
  return writeBytecodeToFile(module, os, config);
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
  // Collect the first diagnostic instead of printing it, so the caller gets
  // one message naming the file.
  std::string firstDiagnostic;
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (firstDiagnostic.empty())
      firstDiagnostic = diag.str();
    return success();
  });
  ParserConfig config(context);
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
  if (failed(verify(*module))) {
    error = (name + ": corrupt artifact: " +
             (firstDiagnostic.empty() ? "verification failed" : firstDiagnostic))
                .str();
    return {};
  }
  return module;
}

} // namespace fleet
