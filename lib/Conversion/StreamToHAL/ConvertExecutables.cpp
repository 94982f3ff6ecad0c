//===- ConvertExecutables.cpp - stream.executable → hal.executable --------===//
//
// Each stream.executable becomes a hal.executable with one variant per
// executable target among the devices that dispatch it (the first
// `llvm-cpu`/`fleet-object-x86_64` target of each local device global, which
// kernel codegen compiles, KernelABI.h; `vulkan-spirv` for a vulkan device):
// `@fleet_object` (`@vulkan_spirv`), then `@fleet_object_1`, ... in device
// declaration order. With several
// variants each names the device globals it serves (`fleet.devices`), so
// the runtime loads for a device the variant whose grid the host program
// computes. Exports keep their names, get ordinals in declaration order and
// a pipeline layout derived from the dispatch function's signature; the
// `workgroups` region becomes the `count` region (with the device as its
// first argument). Each variant gets its own copy of the inner
// builtin.module, which codegen-configure-workgroups tiles for its target.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-conversion"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream_to_hal;

namespace {

/// Push-constant words a primitive dispatch operand takes (KernelABI.h:
/// 32-bit words; index/i64/f64 take two, low word first).
int64_t getConstantWords(Type type) {
  if (type.isIndex())
    return 2;
  return type.getIntOrFloatBitWidth() > 32 ? 2 : 1;
}

/// Per executable (root symbol): the device globals dispatching it, in
/// declaration order.
using DispatchDevices =
    llvm::DenseMap<StringAttr, SmallVector<const hal::DeviceInfo *>>;

DispatchDevices collectDispatchDevices(const ConversionState &state) {
  DispatchDevices devices;
  ModuleOp module = state.module;
  module.walk([&](stream::CmdDispatchOp dispatch) {
    auto execute = dispatch->getParentOfType<stream::CmdExecuteOp>();
    if (!execute)
      return;
    auto affinity = dyn_cast_or_null<hal::DeviceAffinityAttr>(
        lookupAffinity(execute, execute.getAffinityAttr(), state));
    if (!affinity)
      return;
    const hal::DeviceInfo *info = state.devices.lookup(
        affinity.getDevice().getRootReference().getValue());
    if (!info)
      return;
    for (Attribute entryPoint : dispatch.getEntryPoints()) {
      auto &list =
          devices[cast<SymbolRefAttr>(entryPoint).getRootReference()];
      if (!llvm::is_contained(list, info))
        list.push_back(info);
    }
  });
  for (auto &[executable, list] : devices)
    llvm::sort(list, [](const hal::DeviceInfo *a, const hal::DeviceInfo *b) {
      return a->index < b->index;
    });
  return devices;
}

/// The kernel target of a device: for a vulkan device its vulkan-spirv
/// target; otherwise its first llvm-cpu executable target, or Fleet's CPU
/// target without configuration (codegen then uses the global flags) when it
/// declares none or is not a #hal.device.target.
hal::ExecutableTargetAttr getKernelTarget(MLIRContext *context,
                                          const hal::DeviceInfo *info) {
  Builder b(context);
  if (info && info->target &&
      info->target.getDeviceID().getValue() == "vulkan") {
    // Vulkan devices load SPIR-V (docs/kernel-abi.md "SPIR-V executables").
    for (hal::ExecutableTargetAttr target :
         info->target.getExecutableTargets())
      if (target.getBackend().getValue() == "vulkan-spirv")
        return target;
    return hal::ExecutableTargetAttr::get(
        context, b.getStringAttr("vulkan-spirv"),
        b.getStringAttr("vulkan-spirv"), DictionaryAttr());
  }
  if (info && info->target)
    for (hal::ExecutableTargetAttr target :
         info->target.getExecutableTargets())
      if (target.getBackend().getValue() == "llvm-cpu" &&
          target.getFormat().getValue() == "fleet-object-x86_64")
        return target;
  return hal::ExecutableTargetAttr::get(
      context, b.getStringAttr("llvm-cpu"),
      b.getStringAttr("fleet-object-x86_64"), DictionaryAttr());
}

/// For each export (`@ex::@name`) and binding position: true while every
/// dispatch seen so far only reads it.
using ReadOnlyMap = llvm::DenseMap<SymbolRefAttr, SmallVector<bool>>;

ReadOnlyMap collectReadOnlyBindings(ModuleOp module) {
  ReadOnlyMap readOnly;
  module.walk([&](stream::CmdDispatchOp dispatch) {
    ArrayAttr accesses = dispatch.getResourceAccesses();
    for (Attribute entryPoint : dispatch.getEntryPoints()) {
      auto &flags = readOnly[cast<SymbolRefAttr>(entryPoint)];
      if (flags.size() < accesses.size())
        flags.resize(accesses.size(), true);
      for (auto [index, access] : llvm::enumerate(accesses)) {
        auto bits = cast<stream::ResourceAccessBitfieldAttr>(access).getValue();
        if (stream::bitEnumContainsAny(bits,
                                       stream::ResourceAccessBitfield::Write))
          flags[index] = false;
      }
    }
  });
  return readOnly;
}

FailureOr<hal::PipelineLayoutAttr>
buildLayout(stream::ExecutableExportOp exportOp, ArrayRef<bool> readOnly) {
  FunctionOpInterface function = exportOp.lookupFunction();
  if (!function) {
    return exportOp.emitOpError()
           << "names function @" << exportOp.getFunctionRef()
           << ", which the executable's inner module does not define";
  }
  MLIRContext *context = exportOp.getContext();
  SmallVector<hal::PipelineBindingAttr> bindings;
  int64_t constants = 0;
  for (Type type : function.getArgumentTypes()) {
    if (isa<stream::BindingType>(type)) {
      // A binding no dispatch writes is read-only (lets the runtime share it).
      unsigned index = bindings.size();
      bool isReadOnly = index < readOnly.size() && readOnly[index];
      bindings.push_back(hal::PipelineBindingAttr::get(
          context, hal::DescriptorType::StorageBuffer,
          isReadOnly ? hal::DescriptorFlags::ReadOnly
                     : hal::DescriptorFlags::None));
      continue;
    }
    if (!type.isIntOrIndexOrFloat()) {
      return exportOp.emitOpError()
             << "dispatch function argument of type " << type
             << " is neither a !stream.binding nor a push-constant primitive";
    }
    constants += getConstantWords(type);
  }
  return hal::PipelineLayoutAttr::get(context, constants, bindings,
                                      hal::PipelineLayoutFlags::None);
}

/// Clones the `workgroups` region into `count`: block (device, workload...),
/// stream.return → hal.return.
void buildCountRegion(OpBuilder &builder, stream::ExecutableExportOp exportOp,
                      hal::ExecutableExportOp halExport) {
  Region &source = exportOp.getWorkgroupCount();
  if (source.empty())
    return;
  Block &sourceBlock = source.front();
  Region &target = halExport.getWorkgroupCount();
  Block *block = builder.createBlock(&target);
  block->addArgument(hal::DeviceType::get(builder.getContext()),
                     exportOp.getLoc());
  IRMapping mapping;
  for (BlockArgument argument : sourceBlock.getArguments())
    mapping.map(argument,
                block->addArgument(argument.getType(), argument.getLoc()));
  builder.setInsertionPointToEnd(block);
  for (Operation &op : sourceBlock) {
    if (auto ret = dyn_cast<stream::ReturnOp>(op)) {
      SmallVector<Value> values;
      for (Value value : ret.getOperands())
        values.push_back(mapping.lookupOrDefault(value));
      hal::ReturnOp::create(builder, ret.getLoc(), values);
      continue;
    }
    builder.clone(op, mapping);
  }
}

LogicalResult convertExecutable(stream::ExecutableOp executable,
                                const ReadOnlyMap &readOnly,
                                ArrayRef<const hal::DeviceInfo *> devices) {
  MLIRContext *context = executable.getContext();
  OpBuilder builder(executable);
  Location loc = executable.getLoc();
  auto halExecutable = hal::ExecutableOp::create(
      builder, loc, executable.getSymVisibilityAttr(), /*lazy=*/false,
      executable.getSymName());
  builder.createBlock(&halExecutable.getBody());

  // One variant per distinct target, in device declaration order.
  SmallVector<std::pair<hal::ExecutableTargetAttr,
                        SmallVector<Attribute>>> targets;
  for (const hal::DeviceInfo *info : devices) {
    hal::ExecutableTargetAttr target = getKernelTarget(context, info);
    auto it = llvm::find_if(targets, [&](auto &entry) {
      return entry.first == target;
    });
    if (it == targets.end()) {
      targets.push_back({target, {}});
      it = std::prev(targets.end());
    }
    it->second.push_back(FlatSymbolRefAttr::get(context, info->getName()));
  }
  if (targets.empty())
    targets.push_back({getKernelTarget(context, nullptr), {}});

  ModuleOp inner = executable.getInnerModule();
  for (auto [index, entry] : llvm::enumerate(targets)) {
    auto &[target, users] = entry;
    std::string name = target.getBackend().getValue() == "vulkan-spirv"
                           ? "vulkan_spirv"
                           : "fleet_object";
    if (index)
      name += "_" + std::to_string(index);
    builder.setInsertionPointToEnd(&halExecutable.getBody().front());
    auto variant = hal::ExecutableVariantOp::create(
        builder, loc, builder.getStringAttr("public"), name, target,
        /*objects=*/ArrayAttr(), /*sources=*/DictionaryAttr());
    if (targets.size() > 1)
      variant->setAttr("fleet.devices", builder.getArrayAttr(users));
    LLVM_DEBUG(llvm::dbgs() << "@" << executable.getSymName() << "::@" << name
                            << " for " << users.size() << " device(s)\n");
    Block *variantBlock = builder.createBlock(&variant.getBody());

    int64_t ordinal = 0;
    for (auto exportOp : executable.getOps<stream::ExecutableExportOp>()) {
      if (exportOp.getSymName() != exportOp.getFunctionRef()) {
        // KernelABI.h looks kernels up by the export's name.
        return exportOp.emitOpError()
               << "exports function @" << exportOp.getFunctionRef()
               << " as '" << exportOp.getSymName()
               << "'; kernel objects name kernels by their export, so the "
                  "names must match";
      }
      auto key = SymbolRefAttr::get(
          executable.getSymNameAttr(),
          {FlatSymbolRefAttr::get(exportOp.getSymNameAttr())});
      auto it = readOnly.find(key);
      FailureOr<hal::PipelineLayoutAttr> layout = buildLayout(
          exportOp, it == readOnly.end() ? ArrayRef<bool>() : it->second);
      if (failed(layout))
        return failure();
      builder.setInsertionPointToEnd(variantBlock);
      auto halExport = hal::ExecutableExportOp::create(
          builder, exportOp.getLoc(), exportOp.getSymVisibilityAttr(),
          exportOp.getSymName(), builder.getIndexAttr(ordinal++), *layout,
          /*condition_fallback=*/nullptr, /*workgroup_size=*/nullptr,
          /*subgroup_size=*/nullptr);
      OpBuilder regionBuilder(context);
      buildCountRegion(regionBuilder, exportOp, halExport);
    }
    if (!inner)
      continue;
    // The last variant takes the module; the others get copies.
    builder.setInsertionPointToEnd(variantBlock);
    if (index + 1 == targets.size())
      inner->moveBefore(variantBlock, variantBlock->end());
    else
      builder.clone(*inner);
  }
  executable.erase();
  return success();
}

} // namespace

LogicalResult fleet::stream_to_hal::convertExecutables(ConversionState &state) {
  ReadOnlyMap readOnly = collectReadOnlyBindings(state.module);
  DispatchDevices devices = collectDispatchDevices(state);
  SmallVector<stream::ExecutableOp> executables(
      state.module.getOps<stream::ExecutableOp>());
  for (stream::ExecutableOp executable : executables) {
    LLVM_DEBUG(llvm::dbgs() << "converting executable @"
                            << executable.getSymName() << "\n");
    // The symbol table keeps pointing at the new op under the same name.
    state.symbols.remove(executable);
    auto it = devices.find(executable.getSymNameAttr());
    if (failed(convertExecutable(
            executable, readOnly,
            it == devices.end() ? ArrayRef<const hal::DeviceInfo *>()
                                : ArrayRef<const hal::DeviceInfo *>(
                                      it->second))))
      return failure();
  }
  // Re-register the converted executables.
  for (auto executable : state.module.getOps<hal::ExecutableOp>())
    if (!state.symbols.lookup(executable.getSymName()))
      state.symbols.insert(executable);
  return success();
}
