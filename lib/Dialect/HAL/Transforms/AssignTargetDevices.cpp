//===- AssignTargetDevices.cpp - device globals from command-line specs ---===//
//
// Invariant established: the module declares at least one `!hal.device`
// global and has a default affinity, so every later pass can name devices.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"
#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-assign-target-devices"

namespace fleet::hal {
#define GEN_PASS_DEF_ASSIGNTARGETDEVICESPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

struct DeviceSpec {
  std::string name;
  std::string backend;
  std::optional<int64_t> ordinal;
};

/// Fleet's device backends: "local" (CPU thread pools, llvm-cpu kernels) and
/// "vulkan" (Vulkan devices, SPIR-V kernels; docs/devices.md).
bool isKnownBackend(StringRef backend) {
  return backend == "local" || backend == "vulkan";
}

/// Parses `local`, `NAME=local`, `NAME=local[N]` or `local[N]` (or vulkan).
FailureOr<DeviceSpec> parseSpec(StringRef text, std::string &error) {
  DeviceSpec spec;
  StringRef target = text;
  if (auto [name, rest] = text.split('='); !rest.empty()) {
    spec.name = name.trim().str();
    target = rest.trim();
    if (spec.name.empty()) {
      error = "empty device name in '" + text.str() + "'";
      return failure();
    }
  }
  if (size_t open = target.find('['); open != StringRef::npos) {
    StringRef number = target.substr(open + 1);
    int64_t ordinal;
    if (!number.consume_back("]") || number.getAsInteger(10, ordinal) ||
        ordinal < 0) {
      error = "malformed ordinal in '" + text.str() +
              "' (expected NAME=BACKEND[N])";
      return failure();
    }
    spec.ordinal = ordinal;
    target = target.take_front(open);
  }
  spec.backend = target.str();
  if (!isKnownBackend(spec.backend)) {
    error = "unknown device backend '" + spec.backend + "' in '" + text.str() +
            "' (Fleet targets: local, vulkan)";
    return failure();
  }
  return spec;
}

/// Device globals name Fleet's backend and only the properties it reads
/// (docs/devices.md): a misspelled key would otherwise silently fall back to
/// its default (e.g. every device at ordinal 0).
static LogicalResult verifyTarget(util::GlobalOp global,
                                  DeviceTargetAttr target) {
  if (!isKnownBackend(target.getDeviceID().getValue()))
    return global.emitError()
           << "unknown device backend '" << target.getDeviceID().getValue()
           << "' (Fleet targets: local, vulkan)";
  if (DictionaryAttr config = target.getConfiguration()) {
    for (NamedAttribute entry : config) {
      StringRef key = entry.getName().getValue();
      bool flag = key == "discrete" || key == "remote";
      bool typed = key == "ordinal" ? isa<IntegerAttr>(entry.getValue())
                   : flag           ? isa<BoolAttr>(entry.getValue())
                                    : false;
      if (key != "ordinal" && !flag)
        return global.emitError()
               << "unknown property '" << key << "' of device target '"
               << target.getDeviceID().getValue()
               << "' (known: ordinal = N : index, discrete = true|false, "
                  "remote = true|false)";
      if (!typed)
        return global.emitError()
               << "device property '" << key << "' must be "
               << (key == "ordinal" ? "an integer (ordinal = N : index)"
                                    : "a boolean (discrete = true)")
               << ", got " << entry.getValue();
    }
  }
  return success();
}

static LogicalResult verifyDeclaredTargets(ModuleOp module) {
  for (auto global : module.getOps<util::GlobalOp>()) {
    Attribute value = global.getInitialValueAttr();
    SmallVector<DeviceTargetAttr> targets;
    if (auto target = dyn_cast_or_null<DeviceTargetAttr>(value))
      targets.push_back(target);
    else if (auto select = dyn_cast_or_null<DeviceSelectAttr>(value))
      for (Attribute candidate : select.getDevices())
        if (auto target = dyn_cast<DeviceTargetAttr>(candidate))
          targets.push_back(target);
    for (DeviceTargetAttr target : targets)
      if (failed(verifyTarget(global, target)))
        return failure();
  }
  return success();
}

struct AssignTargetDevicesPass
    : public fleet::hal::impl::AssignTargetDevicesPassBase<
          AssignTargetDevicesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (failed(verifyDeclaredTargets(module)))
      return signalPassFailure();
    DeviceSet existing(module);
    if (!existing.empty()) {
      LLVM_DEBUG(llvm::dbgs() << "module declares devices; ignoring specs\n");
      setDefaultAffinity(module, existing.getDevices().front().getName());
      return;
    }
    // The option, else the global --hal-target-device flags (fleet-opt and
    // fleet-compile; docs/contributing.md "IREE flags"), else one local.
    SmallVector<std::string> specs(targetDevices.begin(), targetDevices.end());
    if (specs.empty())
      llvm::append_range(specs, getFlagDefaults().targetDevices);
    if (specs.empty())
      specs.push_back("local");

    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    llvm::StringMap<int64_t> nextOrdinal;
    llvm::StringSet<> names;
    std::string first;
    for (auto [i, text] : llvm::enumerate(specs)) {
      std::string error;
      FailureOr<DeviceSpec> spec = parseSpec(text, error);
      if (failed(spec)) {
        module.emitError() << "--hal-target-device: " << error;
        return signalPassFailure();
      }
      if (spec->name.empty())
        spec->name = "__device_" + std::to_string(i);
      if (!names.insert(spec->name).second) {
        module.emitError() << "--hal-target-device: device '" << spec->name
                           << "' declared twice";
        return signalPassFailure();
      }
      int64_t ordinal = spec->ordinal ? *spec->ordinal
                                      : nextOrdinal[spec->backend];
      nextOrdinal[spec->backend] =
          std::max(nextOrdinal[spec->backend], ordinal + 1);
      auto config = DictionaryAttr::get(
          context, {builder.getNamedAttr("ordinal",
                                         builder.getIndexAttr(ordinal))});
      auto target = DeviceTargetAttr::get(
          context, DeviceType::get(context), builder.getStringAttr(spec->backend),
          config, ArrayRef<ExecutableTargetAttr>{});
      util::GlobalOp::create(builder, module.getLoc(), spec->name,
                                     /*isMutable=*/false,
                                     DeviceType::get(context), target);
      if (first.empty())
        first = spec->name;
    }
    setDefaultAffinity(module, first);
  }

  void setDefaultAffinity(ModuleOp module, StringRef device) {
    if (module->hasAttr("stream.affinity.default") ||
        module->hasAttr("stream.affinity"))
      return;
    module->setAttr("stream.affinity.default",
                    DeviceAffinityAttr::get(
                        &getContext(),
                        FlatSymbolRefAttr::get(&getContext(), device), -1));
  }
};

} // namespace
