// Round trip of the memory-property and allocation ops (docs/ir-reference.md,
// "Memory properties and allocation"), every optional part included: custom
// form twice, generic form back to custom, and FileCheck on the exact text.
// Function arguments print as %argN; each CHECK gives the printed line.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// Enum spelling: bare for one single-bit case, else a quoted list of every
// case whose bits are all set (composites included, declaration order).
// CHECK-LABEL: @constants
util.func public @constants() {
  // CHECK: hal.memory_type<"HostVisible|HostCoherent"> : i32
  %mt = hal.memory_type<"HostVisible|HostCoherent"> : i32
  // CHECK: hal.memory_type<DeviceVisible> : i32
  %dv = hal.memory_type<DeviceVisible> : i32
  // DeviceLocal (0x30) contains DeviceVisible (0x10).
  // CHECK: hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
  %dl = hal.memory_type<DeviceLocal> : i32
  // HostLocal (0x46) contains HostVisible and HostCoherent.
  // CHECK: hal.memory_type<"HostVisible|HostCoherent|HostLocal"> : i32
  %hl = hal.memory_type<"HostLocal"> : i32
  // CHECK: hal.memory_type<"None"> : i32
  %none = hal.memory_type<None> : i32
  // CHECK: hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
  %bu = hal.buffer_usage<"Transfer|DispatchStorage"> : i32
  // CHECK: hal.buffer_usage<"TransferSource|TransferTarget|Transfer"> : i32
  %t = hal.buffer_usage<Transfer> : i32
  // CHECK: hal.buffer_usage<SharingExport> : i32
  %se = hal.buffer_usage<SharingExport> : i32
  // CHECK: hal.buffer_usage<"MappingScoped|MappingAccessRandom|Mapping"> : i32
  %m = hal.buffer_usage<Mapping> : i32
  // [ad] goes before `:`.
  // CHECK: hal.memory_type<Optimal> {note = "x"} : i32
  %o = hal.memory_type<Optimal> {note = "x"} : i32
  util.return
}

// CHECK-LABEL: @resolve_memory_properties
util.func public @resolve_memory_properties() {
  // CHECK: %memory_types, %buffer_usage = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@gpu0>, #hal.device.affinity<@gpu1>]>) lifetime(transient) : i32, i32
  %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@gpu0>, #hal.device.affinity<@gpu1>]>) lifetime(transient) : i32, i32
  // The unknown lifetime is the quoted "*"; `for` is optional.
  // CHECK: hal.allocator.resolve_memory_properties lifetime("*") : i32, i32
  %mt1, %bu1 = hal.allocator.resolve_memory_properties lifetime("*") : i32, i32
  // CHECK: hal.allocator.resolve_memory_properties for(#hal.device.affinity<@gpu0, [0, 2]>) lifetime(external) : i32, i32
  %mt2, %bu2 = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@gpu0, [2, 0]>) lifetime("external") : i32, i32
  // CHECK: hal.allocator.resolve_memory_properties for(#hal.device.promise<@gpu1>) lifetime(staging) : i32, i32
  %mt3, %bu3 = hal.allocator.resolve_memory_properties for(#hal.device.promise<@gpu1>) lifetime(staging) : i32, i32
  // CHECK: hal.allocator.resolve_memory_properties lifetime(variable) : i32, i32 attributes {note}
  %mt4, %bu4 = hal.allocator.resolve_memory_properties lifetime(variable) : i32, i32 attributes {note}
  // CHECK: hal.allocator.resolve_memory_properties lifetime(constant) : i32, i32
  %mt5, %bu5 = hal.allocator.resolve_memory_properties lifetime(constant) : i32, i32
  util.return
}

// CHECK-LABEL: @select
util.func public @select(%d0: !hal.device, %q0: i64, %d1: !hal.device, %q1: i64, %mt: i32, %bu: i32) -> (!hal.device, i64) {
  // CHECK: %selected_device, %selected_queue_affinity = hal.allocator.select from([(%arg0, %arg1 : !hal.device, i64), (%arg2, %arg3 : !hal.device, i64)]) type(%arg4) usage(%arg5) : !hal.device, i64
  %dev, %q = hal.allocator.select from([(%d0, %q0 : !hal.device, i64), (%d1, %q1 : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
  // A single candidate and a trailing attribute dictionary.
  // CHECK: hal.allocator.select from([(%arg0, %arg1 : !hal.device, i64)]) type(%arg4) usage(%arg5) : !hal.device, i64 attributes {note}
  %dev1, %q1s = hal.allocator.select from([(%d0, %q0 : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64 attributes {note}
  util.return %dev, %q : !hal.device, i64
}

// CHECK-LABEL: @allocate_and_import
util.func public @allocate_and_import(%alloc: !hal.allocator, %q: i64, %mt: i32, %bu: i32, %sz: index, %hb: !util.buffer, %off: index, %len: index) {
  // CHECK: hal.allocator.allocate<%arg0 : !hal.allocator> affinity(%arg1) type(%arg2) usage(%arg3) : !hal.buffer{%arg4}
  %buf = hal.allocator.allocate<%alloc : !hal.allocator> affinity(%q) type(%mt) usage(%bu) : !hal.buffer{%sz}
  // CHECK: hal.allocator.allocate<%arg0 : !hal.allocator> affinity(%arg1) type(%arg2) usage(%arg3) : !hal.buffer{%arg4} attributes {note}
  %buf1 = hal.allocator.allocate<%alloc : !hal.allocator> affinity(%q) type(%mt) usage(%bu) : !hal.buffer{%sz} attributes {note}
  // `source` comes before `affinity`; the buffer has no `{size}`.
  // CHECK: %did_import, %mapped = hal.allocator.import<%arg0 : !hal.allocator> source(%arg5 : !util.buffer)[%arg6, %arg7] affinity(%arg1) type(%arg2) usage(%arg3) : i1, !hal.buffer
  %ok, %imported = hal.allocator.import<%alloc : !hal.allocator> source(%hb : !util.buffer)[%off, %len] affinity(%q) type(%mt) usage(%bu) : i1, !hal.buffer
  util.return
}
