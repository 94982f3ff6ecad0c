//===- LinkExecutables.cpp - one kernel shared object per target ----------===//
//
// Invariant established: no `llvm-cpu` or `vulkan-spirv` variant holds a
// kernel object; each names its library and entry symbols
// (`fleet.kernel_library`), and the module's `fleet.kernel_libraries` holds
// one linked ELF shared object per CPU executable target (KernelLibrary.h,
// docs/kernel-abi.md §1) and one SPIR-V module per vulkan-spirv variant
// (its entry points are the export names).
//
//===----------------------------------------------------------------------===//

#include "fleet/Codegen/Passes.h"

#include "fleet/Codegen/CPUTarget.h"

#include "fleet/Codegen/KernelLinker.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/runtime/hal/KernelABI.h"
#include "fleet/runtime/hal/KernelLibrary.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#define DEBUG_TYPE "hal-link-executables"

namespace fleet::codegen {
#define GEN_PASS_DEF_LINKEXECUTABLESPASS
#include "fleet/Codegen/Passes.h.inc"
} // namespace fleet::codegen

using namespace mlir;
using namespace fleet;

namespace kl = fleet::runtime::hal::kernel_library;

namespace {

constexpr llvm::StringLiteral kBackend = "llvm-cpu";
/// SPIR-V modules need no linking: each variant's module is its own
/// library, its entry points named as the exports.
constexpr llvm::StringLiteral kSPIRVBackend = "vulkan-spirv";

/// The module attribute entry of one library (KernelLibrary.h keys).
DictionaryAttr buildLibraryEntry(Builder &builder, StringRef name,
                                 StringAttr format, StringRef targetCPU,
                                 ArrayRef<Attribute> features,
                                 ArrayRef<uint8_t> bytes) {
  auto type = VectorType::get({int64_t(bytes.size())},
                              builder.getIntegerType(8));
  ArrayRef<char> raw(reinterpret_cast<const char *>(bytes.data()),
                     bytes.size());
  auto data = DenseElementsAttr::getFromRawBuffer(type, raw);
  std::string checksum =
      llvm::utohexstr(kl::checksum(bytes.data(), bytes.size()),
                      /*LowerCase=*/true, /*Width=*/16);
  NamedAttribute entries[] = {
      builder.getNamedAttr(kl::kKeyName, builder.getStringAttr(name)),
      builder.getNamedAttr(kl::kKeyFormat, format),
      builder.getNamedAttr(kl::kKeyTargetCpu,
                           builder.getStringAttr(targetCPU)),
      builder.getNamedAttr(kl::kKeyCpuFeatures,
                           builder.getArrayAttr(features)),
      builder.getNamedAttr(kl::kKeyAbiVersion,
                           builder.getI64IntegerAttr(FLEET_KERNEL_ABI_VERSION)),
      builder.getNamedAttr(kl::kKeyChecksum, builder.getStringAttr(checksum)),
      builder.getNamedAttr(kl::kKeyData, data)};
  return builder.getDictionaryAttr(entries);
}

/// Names `variant`'s library and entry symbols (kVariantAttr).
void setLinked(Builder &builder, hal::ExecutableVariantOp variant,
               StringRef library, ArrayRef<std::string> symbols) {
  SmallVector<Attribute> names;
  for (const std::string &symbol : symbols)
    names.push_back(builder.getStringAttr(symbol));
  NamedAttribute linked[] = {
      builder.getNamedAttr(kl::kKeyLibrary, builder.getStringAttr(library)),
      builder.getNamedAttr(kl::kKeySymbols, builder.getArrayAttr(names))};
  variant->removeAttr(variant.getObjectsAttrName());
  variant->setAttr(kl::kVariantAttr, builder.getDictionaryAttr(linked));
}

struct Member {
  hal::ExecutableVariantOp variant;
  ArrayRef<uint8_t> object;
  SmallVector<std::string> symbols;
};

struct LinkExecutablesPass
    : public fleet::codegen::impl::LinkExecutablesPassBase<
          LinkExecutablesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // Variants by target, in program order.
    llvm::MapVector<Attribute, SmallVector<Member>> groups;
    bool failedToCollect = false;
    for (auto executable : module.getOps<hal::ExecutableOp>()) {
      for (auto variant :
           executable.getBlock().getOps<hal::ExecutableVariantOp>()) {
        StringRef backend = variant.getTarget().getBackend().getValue();
        if ((backend != kBackend && backend != kSPIRVBackend) ||
            variant->hasAttr(kl::kVariantAttr))
          continue;
        if (variant.getInnerModule()) {
          variant.emitOpError("still holds a kernel module; run "
                              "hal-serialize-executables before "
                              "hal-link-executables");
          failedToCollect = true;
          continue;
        }
        std::optional<ArrayAttr> objects = variant.getObjects();
        auto object = objects && objects->size() == 1
                          ? dyn_cast<hal::ExecutableObjectAttr>((*objects)[0])
                          : hal::ExecutableObjectAttr();
        DenseIntElementsAttr data = object ? object.getData() : nullptr;
        if (!data || !data.getElementType().isInteger(8) || data.isSplat()) {
          variant.emitOpError("has no kernel object to link (one "
                              "#hal.executable.object<{data = dense<...> : "
                              "vector<Nxi8>}> is expected)");
          failedToCollect = true;
          continue;
        }
        ArrayRef<char> raw = data.getRawData();
        Member member{variant,
                      ArrayRef<uint8_t>(
                          reinterpret_cast<const uint8_t *>(raw.data()),
                          raw.size()),
                      {}};
        groups[variant.getTarget()].push_back(std::move(member));
      }
    }
    if (failedToCollect)
      return signalPassFailure();
    if (groups.empty())
      return;

    SmallVector<Attribute> libraries;
    if (auto existing = module->getAttrOfType<ArrayAttr>(kl::kLibrariesAttr))
      libraries.append(existing.begin(), existing.end());
    llvm::StringSet<> usedNames;
    for (Attribute library : libraries)
      if (auto dict = dyn_cast<DictionaryAttr>(library))
        if (auto name = dict.getAs<StringAttr>(kl::kKeyName))
          usedNames.insert(name.getValue());

    Builder builder(context);
    auto uniqueName = [&](std::string base) {
      std::string name = base;
      for (int suffix = 1; usedNames.contains(name); ++suffix)
        name = base + "_" + std::to_string(suffix);
      usedNames.insert(name);
      return name;
    };
    for (auto &[target, members] : groups) {
      auto targetAttr = cast<hal::ExecutableTargetAttr>(target);
      if (targetAttr.getBackend().getValue() == kSPIRVBackend) {
        for (Member &member : members) {
          auto executable =
              member.variant->getParentOfType<hal::ExecutableOp>();
          std::string name = uniqueName(
              ("spirv_" + executable.getSymName() + "_" +
               member.variant.getSymName())
                  .str());
          for (auto exportOp :
               member.variant.getBlock().getOps<hal::ExecutableExportOp>())
            member.symbols.push_back(exportOp.getSymName().str());
          libraries.push_back(buildLibraryEntry(builder, name,
                                                targetAttr.getFormat(), "",
                                                {}, member.object));
          setLinked(builder, member.variant, name, member.symbols);
        }
        continue;
      }
      std::string name =
          uniqueName("kernels_" + targetAttr.getFormat().getValue().str());

      std::vector<codegen::KernelLinkInput> inputs;
      size_t counter = 0;
      for (Member &member : members) {
        auto executable =
            member.variant->getParentOfType<hal::ExecutableOp>();
        codegen::KernelLinkInput input;
        input.name = ("@" + executable.getSymName() + "::@" +
                      member.variant.getSymName())
                         .str();
        input.object = member.object;
        for (auto exportOp :
             member.variant.getBlock().getOps<hal::ExecutableExportOp>()) {
          std::string symbol = "fleet_kernel_" + std::to_string(counter++) +
                               "_" + exportOp.getSymName().str();
          input.renames.emplace_back(exportOp.getSymName().str(), symbol);
          member.symbols.push_back(symbol);
        }
        inputs.push_back(std::move(input));
      }
      codegen::KernelLinkOptions options;
      options.linker = linker;
      // The CPU the variants of this target were compiled for.
      codegen::CPUTarget fallback;
      fallback.cpu = targetCPU;
      options.targetCPU = codegen::getCPUTarget(targetAttr, fallback).cpu;
      options.abiVersion = FLEET_KERNEL_ABI_VERSION;
      llvm::Expected<codegen::KernelLibraryImage> image =
          codegen::linkKernelLibrary(inputs, options);
      if (!image) {
        members.front().variant.emitOpError("cannot link the kernel library ")
            << name << ": " << llvm::toString(image.takeError());
        return signalPassFailure();
      }

      SmallVector<Attribute> features;
      for (const std::string &feature : image->cpuFeatures)
        features.push_back(builder.getStringAttr(feature));
      libraries.push_back(buildLibraryEntry(builder, name,
                                            targetAttr.getFormat(),
                                            image->targetCPU, features,
                                            image->bytes));
      for (Member &member : members)
        setLinked(builder, member.variant, name, member.symbols);
    }
    module->setAttr(kl::kLibrariesAttr, ArrayAttr::get(context, libraries));
  }
};

} // namespace
