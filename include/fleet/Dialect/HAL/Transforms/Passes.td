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
    them and ignores the option. Without the option the specs of the global
    `--hal-target-device` flags are used (fleet-opt and fleet-compile), and
    without those one `local` device. The first device becomes the module's
    `stream.affinity.default` unless one is set.

    ```mlir
    // --hal-assign-target-devices=targetDevices=a=local,b=local[1]
    util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
    util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
    ```
  }];
  let options = [
    ListOption<"targetDevices", "targetDevices", "std::string",
               "Device specs: local | NAME=local | NAME=local[N] (when "
               "empty: the global --hal-target-device flags, else `local`)">,
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
    holds it (docs/design.md §3: naming an undeclared device is the only
    placement error).
  }];
}

def MaterializeTopologyPass : Pass<"hal-materialize-topology", "mlir::ModuleOp"> {
  let summary = "Builds stream.topology from device targets when the module has none";
  let description = [{
    For every ordered pair of distinct device globals whose targets are both
    plain `local` devices (no `discrete = true` in the config) adds a link
    `(@x -> @y = {unified_memory = true})`: both run in this process on host
    memory. A discrete device gets no link to any other device, so the
    runtime topology decides (docs/design.md §3). Devices of different backends
    get no link either. Modules with fewer than two devices, or with a
    `stream.topology` already, are left alone.

    ```mlir
    module attributes {stream.topology = #hal.device.topology<links = [
        (@a -> @b = {unified_memory = true}), (@b -> @a = {unified_memory = true})]>}
    ```
  }];
}

def MaterializeWorkgroupCountsPass : Pass<"hal-materialize-workgroup-counts", "mlir::ModuleOp"> {
  let summary = "Replaces hal.executable.calculate_workgroups by the count "
                "region of the variant it names";
  let description = [{
    Invariant established: no `hal.executable.calculate_workgroups`
    remains outside executables. Each is replaced by a copy of its export's
    `count` region, with the op's device and workload as the region's
    arguments (1, 1, 1 when the export has no count region). Runs after
    `codegen-configure-workgroups` chose each variant's grid; IREE inlines
    the count region the same way when it converts the op.

    ```mlir
    %x, %y, %z = hal.executable.calculate_workgroups device(%dev : !hal.device) target(@ex::@fleet_object::@mm) : index, index, index
    // becomes, when @mm's count region returns 4, 8, 1:
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    ```
  }];  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ResolveTopologyQueriesPass : Pass<"hal-resolve-topology-queries", "mlir::ModuleOp"> {
  let summary = "Folds memory-property queries the static topology proves";
  let description = [{
    Folds `hal.allocator.resolve_memory_properties` to `hal.memory_type` /
    `hal.buffer_usage` constants by the rule of docs/design.md §3: the
    lifetime's base bits for a single affinity or for members that are all one
    device (same backend and ordinal); otherwise, when the module's
    `stream.topology` proves the allocating device X (the first member in
    declaration order, reached by every other member), the base bits plus
    what each peer's link adds (unified: nothing; transparent access:
    HostVisible + Mapping|MappingPersistent; export/import: SharingExport).
    A missing link is unknown, so a member before X can never be ruled out:
    the links prove X only when it is the first member. When they do, the
    `hal.allocator.select` consuming the bits is resolved to X's device and
    queue too (IREE leaves select to run time), so compile time and run time
    cannot disagree. Everything else is left for
    `--hal-lower-topology-queries`.

    ```mlir
    // stream.topology = #hal.device.topology<links = [(@b -> @a = {transparent_access = true})]>
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>) lifetime(transient) : i32, i32
    // becomes
    %mt = hal.memory_type<"HostVisible|DeviceVisible|DeviceLocal"> : i32
    %bu = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|MappingScoped|MappingPersistent|MappingAccessRandom|Mapping"> : i32
    ```
  }];
  let options = [
    Option<"externalResourcesMappable", "external-resources-mappable", "bool",
           /*default=*/"::fleet::hal::getFlagDefaults().externalResourcesMappable",
           "External resources are also HostVisible with Mapping usage "
           "(default: the global --stream-external-resources-mappable, "
           "alias --hal-external-resources-mappable)">,
  ];
  let dependentDialects = ["::fleet::hal::HALDialect"];
}

def LowerTopologyQueriesPass : Pass<"hal-lower-topology-queries", "mlir::ModuleOp"> {
  let summary = "Lowers the remaining memory-property queries to link queries";
  let description = [{
    Every `hal.allocator.resolve_memory_properties` still present (those the
    static topology could not prove) becomes run-time
    `hal.device.query.link<%y, %x> key("unified_memory" | "transparent_access"
    | "export_import")` queries between the members' devices plus the
    `arith` that forms the same bits as docs/design.md §3: the allocating device
    is the first member every other member reaches, and each peer adds the
    bits of its link kind. The `hal.allocator.select` consuming the bits
    stays; the runtime applies the same allocating-device rule. Members that
    are statically the same device need no query. None of these ops may
    reach the artifact, so an affinity this pass cannot read is an error.

    ```mlir
    %ok, %t = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("transparent_access") : i1, i1 = false
    ```
  }];
  let options = [
    Option<"externalResourcesMappable", "external-resources-mappable", "bool",
           /*default=*/"::fleet::hal::getFlagDefaults().externalResourcesMappable",
           "External resources are also HostVisible with Mapping usage "
           "(must match --hal-resolve-topology-queries; default: the global "
           "--stream-external-resources-mappable)">,
  ];
  let dependentDialects = ["::fleet::hal::HALDialect",
                           "::fleet::util::UtilDialect",
                           "::mlir::arith::ArithDialect"];
}

def MemoizeDeviceQueriesPass : Pass<"hal-memoize-device-queries", "mlir::ModuleOp"> {
  let summary = "Asks each device query once, at module load";
  let description = [{
    Each unique `hal.device.query` (device global, category, key, default)
    and `hal.device.query.link` (device pair, key, default) on devices
    loaded from immutable globals moves into a `util.initializer` that
    stores its results in two private globals (`..._ok`, value); every
    original query becomes `util.global.load immutable` of them. Answers
    are fixed for the program's lifetime, so this changes no result.
    IREE's layout: one initializer per device, after the device's global
    and the globals it stores, named after the question's index among the
    device's questions (docs/pipeline.md "Memoized globals").

    ```mlir
    util.global private @__device_0 = #hal.device.target<"local"> : !hal.device
    util.global private @__device_0_query_0_hal_device_id_local__ok : i1
    util.global private @__device_0_query_0_hal_device_id_local_ : i1
    util.initializer {
      %d = util.global.load immutable @__device_0 : !hal.device
      %ok, %v = hal.device.query<%d : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
      util.global.store %ok, @__device_0_query_0_hal_device_id_local__ok : i1
      util.global.store %v, @__device_0_query_0_hal_device_id_local_ : i1
      util.return
    }
    ```

    Link questions from a device follow the same scheme:
    `@__device_1_link_0_device_0_transparent_access(_ok)`.
  }];
  let dependentDialects = ["::fleet::util::UtilDialect"];
}

def MemoizeDeviceSelectionPass : Pass<"hal-memoize-device-selection", "mlir::ModuleOp"> {
  let summary = "Selects allocating devices once, at module load";
  let description = [{
    A `hal.allocator.select` whose operands are computed only from constants
    and immutable globals (device globals, memoized query answers) moves,
    with the arithmetic feeding it, into a `util.initializer` that stores
    the selected device and queue affinity, and the memory type and usage
    it was given, in private globals; uses (including the allocation's use of
    the bits) load them. Identical selections share one set of globals. The
    initializer is placed before the first function or initializer that uses
    it and after every initializer storing a global it reads. Names are
    IREE's, uniqued with `_0`, `_1`, ... for later selections.

    ```mlir
    util.global private @__allocator_select_device : !hal.device
    util.global private @__allocator_select_affinity : i64
    util.global private @__allocator_select_memory_types : i32
    util.global private @__allocator_select_buffer_usage : i32
    ```
  }];
  let dependentDialects = ["::fleet::util::UtilDialect"];
}

#endif // FLEET_DIALECT_HAL_TRANSFORMS_PASSES_TD
