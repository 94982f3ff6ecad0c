//===- Passes.td - hal passes -------------------------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_HAL_TRANSFORMS_PASSES_TD
#define FLEET_DIALECT_HAL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AssignTargetDevicesPass : Pass<"hal-assign-target-devices", "mlir::ModuleOp"> {
  let summary = "Declares device globals from --hal-target-device when the input has none";
  let description = [{
    Each target spec becomes a `!hal.device` global, in the order given:
    `local` (one unnamed device, `@__device_0`), `NAME=local`,
    `NAME=local[N]` (ordinal N; without `[N]` the ordinal counts earlier
    devices of the same backend). A module that declares device globals keeps
    them and ignores the option. The first device becomes the module's
    `stream.affinity.default` unless one is set.

    ```mlir
    // --hal-assign-target-devices=targetDevices=a=local,b=local[1]
    util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
    util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
    ```
  }];
  let options = [
    ListOption<"targetDevices", "targetDevices", "std::string",
               "Device specs: local | NAME=local | NAME=local[N]">,
  ];
  let dependentDialects = ["::fleet::util::UtilDialect", "::fleet::hal::HALDialect"];
}

def ResolveDevicePromisesPass : Pass<"hal-resolve-device-promises", "mlir::ModuleOp"> {
  let summary = "Replaces #hal.device.promise<@d> with #hal.device.affinity<@d>";
  let description = [{
    Every promise, wherever it appears (op attributes, nested in
    `#hal.device.optimal`, argument attributes), is replaced with an affinity
    on the declared device global of that name, keeping the queue mask. A
    promise naming a device that is not declared is an error at the op that
    holds it (design.md §3: naming an undeclared device is the only placement
    error).
  }];
}

def MaterializeTopologyPass : Pass<"hal-materialize-topology", "mlir::ModuleOp"> {
  let summary = "Builds stream.topology from device targets when the module has none";
  let description = [{
    For every ordered pair of distinct device globals whose targets are both
    plain `local` devices (no `discrete = true` in the config) adds a link
    `(@x -> @y = {unified_memory = true})`: both run in this process on host
    memory. A discrete device gets no link to any other device, so the
    runtime topology decides (design.md §3). Devices of different backends get
    no link either. Modules with fewer than two devices, or with a
    `stream.topology` already, are left alone.

    ```mlir
    module attributes {stream.topology = #hal.device.topology<links = [
        (@a -> @b = {unified_memory = true}), (@b -> @a = {unified_memory = true})]>}
    ```
  }];
}

#endif // FLEET_DIALECT_HAL_TRANSFORMS_PASSES_TD
