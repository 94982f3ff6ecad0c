// RUN: fleet-opt %s --split-input-file --hal-lower-topology-queries | FileCheck %s
// RUN: fleet-opt %s --split-input-file --hal-lower-topology-queries --canonicalize --cse | FileCheck %s --check-prefix=FOLDED
// The global --stream-external-resources-mappable (IREE's
// --iree-stream-external-resources-mappable) is the option's default.
// RUN: fleet-opt %s --split-input-file --hal-lower-topology-queries --stream-external-resources-mappable | FileCheck %s --check-prefix=MAPPABLE
// RUN: fleet-opt %s --split-input-file --hal-lower-topology-queries=external-resources-mappable=true | FileCheck %s --check-prefix=MAPPABLE

// Two devices the static topology says nothing about: the link kinds are
// asked at run time in both directions (unified_memory either way counts),
// and arith forms the bits of docs/design.md §3 — @a allocates when @b reaches
// it, else @b when @a reaches it — the select stays and the runtime applies
// the same rule.

// CHECK-LABEL: util.func public @two_devices
// CHECK-DAG: %[[A:.+]] = util.global.load immutable @a : !hal.device
// CHECK-DAG: %[[B:.+]] = util.global.load immutable @b : !hal.device
// CHECK-DAG: %[[BASE_MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-DAG: %[[BASE_BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// CHECK: %{{.+}}, %[[U_BA:.+]] = hal.device.query.link<%[[B]] : !hal.device, %[[A]] : !hal.device> key("unified_memory") : i1, i1 = false
// CHECK: %{{.+}}, %[[U_AB:.+]] = hal.device.query.link<%[[A]] : !hal.device, %[[B]] : !hal.device> key("unified_memory") : i1, i1 = false
// CHECK: %[[U:.+]] = arith.ori %[[U_BA]], %[[U_AB]] : i1
// CHECK: %{{.+}}, %[[T_BA:.+]] = hal.device.query.link<%[[B]] : !hal.device, %[[A]] : !hal.device> key("transparent_access") : i1, i1 = false
// CHECK: %{{.+}}, %[[E_BA:.+]] = hal.device.query.link<%[[B]] : !hal.device, %[[A]] : !hal.device> key("export_import") : i1, i1 = false
// CHECK: hal.device.query.link<%[[A]] : !hal.device, %[[B]] : !hal.device> key("transparent_access")
// CHECK: hal.device.query.link<%[[A]] : !hal.device, %[[B]] : !hal.device> key("export_import")
// CHECK-NOT: hal.device.query.link
// CHECK-NOT: hal.allocator.resolve_memory_properties
// CHECK: hal.allocator.select from([{{.+}}]) type(%{{.+}}) usage(%{{.+}})

// With external resources mappable their base bits are HostVisible, Mapping.
// MAPPABLE-LABEL: util.func public @two_devices
// MAPPABLE-DAG: hal.memory_type<"HostVisible|DeviceVisible|DeviceLocal"> : i32
// MAPPABLE-DAG: hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|MappingScoped|MappingAccessRandom|Mapping"> : i32
// MAPPABLE: hal.allocator.select
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {discrete = true, ordinal = 1 : index}> : !hal.device
  util.func public @two_devices() -> (!hal.device, i64) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>) lifetime(external) : i32, i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d, %sq : !hal.device, i64
  }
}

// -----

// The arithmetic is exactly the rule: once folded, for X = @a the memory
// type gains HostVisible only when @b's access is transparent and not
// unified, and the usage gains Mapping|MappingPersistent then, or
// SharingExport when @b only imports.

// FOLDED-LABEL: util.func public @bits
// FOLDED-DAG: %[[HOST_VISIBLE:.+]] = hal.memory_type<HostVisible> : i32
// FOLDED-DAG: %[[MAPPING:.+]] = hal.buffer_usage<"MappingScoped|MappingPersistent|MappingAccessRandom|Mapping"> : i32
// FOLDED-DAG: %[[EXPORT:.+]] = hal.buffer_usage<SharingExport> : i32
// FOLDED-DAG: %[[BASE_MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// FOLDED-DAG: %[[BASE_BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// FOLDED-NOT: hal.allocator.resolve_memory_properties
// FOLDED: util.return
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @bits() -> (i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>) lifetime(transient) : i32, i32
    util.return %mt, %bu : i32, i32
  }
}

// -----

// Members that are statically one device need no query; a single affinity
// lowers to its base bits.

// CHECK-LABEL: util.func public @no_queries
// CHECK-NOT: hal.device.query.link
// CHECK: util.return
module {
  util.global private @x = #hal.device.target<"local"> : !hal.device
  util.global private @y = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.func public @no_queries() -> (i32, i32, i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@x>, #hal.device.affinity<@y>]>) lifetime(transient) : i32, i32
    %mt2, %bu2 = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@x>) lifetime(staging) : i32, i32
    util.return %mt, %bu, %mt2, %bu2 : i32, i32, i32, i32
  }
}
