// RUN: fleet-opt %s --split-input-file --hal-memoize-device-queries | FileCheck %s

// The same link question asked in two functions (and twice in one) is
// asked once, in an initializer placed before the first function using it;
// a different key or direction gets its own globals; every query becomes a
// load of the memoized answer.

// CHECK-LABEL: module
// CHECK: util.global private @a
// CHECK: util.global private @b
// CHECK: util.global private @__device_b_a_link_transparent_access_ok : i1
// CHECK-NEXT: util.global private @__device_b_a_link_transparent_access : i1
// CHECK-NEXT: util.initializer {
// CHECK-NEXT:   %[[B:.+]] = util.global.load immutable @b : !hal.device
// CHECK-NEXT:   %[[A:.+]] = util.global.load immutable @a : !hal.device
// CHECK-NEXT:   %[[OK:.+]], %[[V:.+]] = hal.device.query.link<%[[B]] : !hal.device, %[[A]] : !hal.device> key("transparent_access") : i1, i1 = false
// CHECK-NEXT:   util.global.store %[[OK]], @__device_b_a_link_transparent_access_ok : i1
// CHECK-NEXT:   util.global.store %[[V]], @__device_b_a_link_transparent_access : i1
// CHECK-NEXT:   util.return
// CHECK-NEXT: }
// CHECK: util.global private @__device_a_b_link_unified_memory_ok : i1
// CHECK: hal.device.query.link<%{{.+}} : !hal.device, %{{.+}} : !hal.device> key("unified_memory")
// CHECK: util.global private @__device_a_query_hal_device_id__local__ok : i1
// CHECK: hal.device.query<%{{.+}} : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
// CHECK-LABEL: util.func public @first
// CHECK-NOT: hal.device.query
// CHECK: %[[T1:.+]] = util.global.load immutable @__device_b_a_link_transparent_access : i1
// CHECK: %[[T2:.+]] = util.global.load immutable @__device_b_a_link_transparent_access : i1
// CHECK: %[[U:.+]] = util.global.load immutable @__device_a_b_link_unified_memory : i1
// CHECK: %[[ID_OK:.+]] = util.global.load immutable @__device_a_query_hal_device_id__local__ok : i1
// CHECK: util.return %[[T1]], %[[T2]], %[[U]], %[[ID_OK]]
// CHECK-LABEL: util.func public @second
// CHECK-NOT: hal.device.query
// CHECK: util.global.load immutable @__device_b_a_link_transparent_access : i1
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @first() -> (i1, i1, i1, i1) {
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %ok0, %t0 = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("transparent_access") : i1, i1 = false
    %ok1, %t1 = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("transparent_access") : i1, i1 = false
    %ok2, %u = hal.device.query.link<%a : !hal.device, %b : !hal.device> key("unified_memory") : i1, i1 = false
    %ok3, %id = hal.device.query<%a : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
    util.return %t0, %t1, %u, %ok3 : i1, i1, i1, i1
  }
  util.func public @second() -> i1 {
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %ok, %t = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("transparent_access") : i1, i1 = false
    util.return %t : i1
  }
}

// -----

// A device that is not an immutable global (a mutable one, or an argument)
// may change: its queries stay where they are.

// CHECK-LABEL: util.func public @not_hoistable
// CHECK-NOT: util.initializer
// CHECK: hal.device.query.link<%{{.+}} : !hal.device, %{{.+}} : !hal.device> key("export_import")
// CHECK: hal.device.query.link<%{{.+}} : !hal.device, %{{.+}} : !hal.device> key("export_import")
module {
  util.global private mutable @m : !hal.device
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @not_hoistable(%d: !hal.device) -> (i1, i1) {
    %m = util.global.load @m : !hal.device
    %a = util.global.load immutable @a : !hal.device
    %ok0, %x = hal.device.query.link<%m : !hal.device, %a : !hal.device> key("export_import") : i1, i1 = false
    %ok1, %y = hal.device.query.link<%d : !hal.device, %a : !hal.device> key("export_import") : i1, i1 = false
    util.return %x, %y : i1, i1
  }
}
