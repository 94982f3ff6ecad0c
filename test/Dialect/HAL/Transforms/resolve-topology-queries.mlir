// RUN: fleet-opt %s --split-input-file --hal-resolve-topology-queries | FileCheck %s
// RUN: fleet-opt %s --split-input-file --hal-resolve-topology-queries=external-resources-mappable=true | FileCheck %s --check-prefix=MAPPABLE
// The global flag is the option's default: IREE's
// --iree-hal-external-resources-mappable as --hal-external-resources-mappable
// (an alias of --stream-external-resources-mappable); the option given
// explicitly wins.
// RUN: fleet-opt %s --split-input-file --hal-resolve-topology-queries --hal-external-resources-mappable | FileCheck %s --check-prefix=MAPPABLE
// RUN: fleet-opt %s --split-input-file --hal-resolve-topology-queries --stream-external-resources-mappable | FileCheck %s --check-prefix=MAPPABLE
// RUN: fleet-opt %s --split-input-file --hal-resolve-topology-queries=external-resources-mappable=false --hal-external-resources-mappable | FileCheck %s

// Transparent access from @b to memory on @a: @a (first, reached by @b)
// allocates, and the peer's in-place access adds HostVisible +
// Mapping|MappingPersistent. The select consuming the bits resolves to @a
// and its queue.

// CHECK-LABEL: util.func public @transparent
// CHECK-DAG: %[[MT:.+]] = hal.memory_type<"HostVisible|DeviceVisible|DeviceLocal"> : i32
// CHECK-DAG: %[[BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|MappingScoped|MappingPersistent|MappingAccessRandom|Mapping"> : i32
// CHECK-DAG: %[[A:.+]] = util.global.load immutable @a : !hal.device
// CHECK-DAG: %[[QA:.+]] = arith.constant 1 : i64
// CHECK-NOT: hal.allocator.resolve_memory_properties
// CHECK-NOT: hal.allocator.select
// CHECK: util.return %[[A]], %[[QA]], %[[MT]], %[[BU]]
module attributes {stream.topology = #hal.device.topology<links = [(@b -> @a = {transparent_access = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @transparent() -> (!hal.device, i64, i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a, [0]>, #hal.device.affinity<@b>]>) lifetime(transient) : i32, i32
    %a = util.global.load immutable @a : !hal.device
    %qa = arith.constant 1 : i64
    %b = util.global.load immutable @b : !hal.device
    %qb = arith.constant -1 : i64
    %d, %q = hal.allocator.select from([(%a, %qa : !hal.device, i64), (%b, %qb : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d, %q, %mt, %bu : !hal.device, i64, i32, i32
  }
}

// -----

// A unified link adds nothing, and holds in both directions even when only
// @a -> @b is written: @b reaches @a, so @a allocates with the base bits.

// CHECK-LABEL: util.func public @unified
// CHECK-DAG: %[[MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-DAG: %[[BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// CHECK-DAG: %[[A:.+]] = util.global.load immutable @a : !hal.device
// CHECK-NOT: hal.allocator.select
// CHECK: util.return %[[A]], %{{.+}}, %[[MT]], %[[BU]]
module attributes {stream.topology = #hal.device.topology<links = [(@a -> @b = {unified_memory = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @unified() -> (!hal.device, i64, i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>) lifetime(variable) : i32, i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d, %sq, %mt, %bu : !hal.device, i64, i32, i32
  }
}

// -----

// Export/import (Fleet's extension key): @b imports what @a exports, so @a
// allocates with SharingExport.

// CHECK-LABEL: util.func public @export_import
// CHECK-DAG: %[[MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-DAG: %[[BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|SharingExport"> : i32
// CHECK: util.return %[[MT]], %[[BU]]
module attributes {stream.topology = #hal.device.topology<links = [(@b -> @a = {}, {export_import = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {discrete = true, ordinal = 1 : index}> : !hal.device
  util.func public @export_import() -> (i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>) lifetime(external) : i32, i32
    util.return %mt, %bu : i32, i32
  }
}

// -----

// Three devices, @c has no link to @a: the links do not prove who
// allocates (@c may reach @a at run time), so query and select stay.

// CHECK-LABEL: util.func public @incomplete
// CHECK: hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>, #hal.device.affinity<@c>]>) lifetime(transient)
// CHECK: hal.allocator.select
module attributes {stream.topology = #hal.device.topology<links = [(@b -> @a = {transparent_access = true}), (@a -> @b = {transparent_access = true}), (@c -> @b = {transparent_access = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.global private @c = #hal.device.target<"local", {ordinal = 2 : index}> : !hal.device
  util.func public @incomplete() -> (!hal.device, i64) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>, #hal.device.affinity<@c>]>) lifetime(transient) : i32, i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %c = util.global.load immutable @c : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64), (%c, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d, %sq : !hal.device, i64
  }
}

// -----

// Only the second member is reached (@a -> @b): a link from @b to @a may
// still exist at run time, making @a the allocating device, so nothing is
// proven and the query stays.

// CHECK-LABEL: util.func public @first_member_unproven
// CHECK: hal.allocator.resolve_memory_properties
module attributes {stream.topology = #hal.device.topology<links = [(@a -> @b = {transparent_access = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @first_member_unproven() -> (i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>) lifetime(transient) : i32, i32
    util.return %mt, %bu : i32, i32
  }
}

// -----

// A link with every flag false and no extension key counts as absent.

// CHECK-LABEL: util.func public @all_false_link
// CHECK: hal.allocator.resolve_memory_properties
module attributes {stream.topology = #hal.device.topology<links = [(@b -> @a = {unified_memory = false, transparent_access = false}, {export_import = false})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @all_false_link() -> (i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>) lifetime(transient) : i32, i32
    util.return %mt, %bu : i32, i32
  }
}

// -----

// No topology and different backends: nothing is known.

// CHECK-LABEL: util.func public @different_backends
// CHECK: hal.allocator.resolve_memory_properties
module {
  util.global private @cpu = #hal.device.target<"local"> : !hal.device
  util.global private @gpu = #hal.device.target<"cuda"> : !hal.device
  util.func public @different_backends() -> (i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@cpu>, #hal.device.affinity<@gpu>]>) lifetime(transient) : i32, i32
    util.return %mt, %bu : i32, i32
  }
}

// -----

// Same backend, different ordinals, no topology: two devices, not one.

// CHECK-LABEL: util.func public @different_ordinals
// CHECK: hal.allocator.resolve_memory_properties
module {
  util.global private @x = #hal.device.target<"local"> : !hal.device
  util.global private @y = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @different_ordinals() -> (i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@x>, #hal.device.affinity<@y>]>) lifetime(transient) : i32, i32
    util.return %mt, %bu : i32, i32
  }
}

// -----

// Two globals naming one device (same backend, ordinal 0 written or not):
// exactly the base bits, without any topology; the select resolves to the
// first member in declaration order.

// CHECK-LABEL: util.func public @same_device
// CHECK-DAG: %[[MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-DAG: %[[BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// CHECK-DAG: %[[X:.+]] = util.global.load immutable @x : !hal.device
// CHECK-NOT: hal.allocator.select
// CHECK: util.return %[[X]], %{{.+}}, %[[MT]], %[[BU]]
module {
  util.global private @x = #hal.device.target<"local"> : !hal.device
  util.global private @y = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.func public @same_device() -> (!hal.device, i64, i32, i32) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@y>, #hal.device.affinity<@x>]>) lifetime(transient) : i32, i32
    %x = util.global.load immutable @x : !hal.device
    %y = util.global.load immutable @y : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%x, %q : !hal.device, i64), (%y, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d, %sq, %mt, %bu : !hal.device, i64, i32, i32
  }
}

// -----

// Exact base bits of every lifetime on a single affinity (docs/design.md §3).
// With --hal-external-resources-mappable only `external` changes.

// CHECK-LABEL: util.func public @lifetimes
// CHECK-NEXT: %[[CONSTANT_MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-NEXT: %[[CONSTANT_BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|SharingImmutable"> : i32
// CHECK-NEXT: %[[TRANSIENT_MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-NEXT: %[[TRANSIENT_BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// CHECK-NEXT: %[[VARIABLE_MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-NEXT: %[[VARIABLE_BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// CHECK-NEXT: %[[UNKNOWN_MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-NEXT: %[[UNKNOWN_BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// CHECK-NEXT: %[[EXTERNAL_MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK-NEXT: %[[EXTERNAL_BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// CHECK-NEXT: %[[STAGING_MT:.+]] = hal.memory_type<"HostVisible|HostCoherent|HostLocal|DeviceVisible"> : i32
// CHECK-NEXT: %[[STAGING_BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|MappingScoped|MappingAccessRandom|Mapping"> : i32
// CHECK-NEXT: %[[NONE_MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32

// MAPPABLE-LABEL: util.func public @lifetimes
// MAPPABLE: hal.memory_type<"HostVisible|DeviceVisible|DeviceLocal"> : i32
// MAPPABLE-NEXT: hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|MappingScoped|MappingAccessRandom|Mapping"> : i32
// MAPPABLE-NEXT: hal.memory_type<"HostVisible|HostCoherent|HostLocal|DeviceVisible"> : i32
module {
  util.global private @d = #hal.device.target<"local"> : !hal.device
  util.func public @lifetimes() {
    %0:2 = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@d>) lifetime(constant) : i32, i32
    %1:2 = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@d>) lifetime(transient) : i32, i32
    %2:2 = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@d>) lifetime(variable) : i32, i32
    %3:2 = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@d>) lifetime("*") : i32, i32
    %4:2 = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@d>) lifetime(external) : i32, i32
    %5:2 = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@d>) lifetime(staging) : i32, i32
    // Without an affinity, any one device: the lifetime alone decides.
    %6:2 = hal.allocator.resolve_memory_properties lifetime(transient) : i32, i32
    util.call @use(%0#0, %0#1, %1#0, %1#1, %2#0, %2#1, %3#0, %3#1, %4#0, %4#1, %5#0, %5#1, %6#0, %6#1) : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
    util.return
  }
  util.func private @use(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32, %arg11: i32, %arg12: i32, %arg13: i32)
}

// -----

// The select is resolved to the candidate of the allocating device with the
// member's own queue, even when that device appears with two queues.

// CHECK-LABEL: util.func public @select_queue
// CHECK: %[[A:.+]] = util.global.load immutable @a : !hal.device
// CHECK: %[[Q2:.+]] = arith.constant 4 : i64
// CHECK-NOT: hal.allocator.select
// CHECK: util.return %[[A]], %[[Q2]]
module attributes {stream.topology = #hal.device.topology<links = [(@b -> @a = {unified_memory = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @select_queue() -> (!hal.device, i64) {
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a, [2]>, #hal.device.affinity<@b>]>) lifetime(transient) : i32, i32
    %a = util.global.load immutable @a : !hal.device
    %q1 = arith.constant 1 : i64
    %q2 = arith.constant 4 : i64
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q1 : !hal.device, i64), (%a, %q2 : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d, %sq : !hal.device, i64
  }
}
