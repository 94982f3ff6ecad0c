// RUN: fleet-opt %s --split-input-file --hal-memoize-device-queries | FileCheck %s

// IREE's layout (docs/pipeline.md "Memoized globals"): per device, in
// declaration order, one initializer asks the device's questions (in
// first-use order), after the globals holding the answers, named
// @<device>_query_<i>_<category>_<key>(_ok) (a `__` prefix is added unless
// the name has one); Fleet's link questions from that device follow the same
// scheme as @<device>_link_<i>_<target>_<key>(_ok). The same question asked
// in two functions (and twice in one) is asked once, and every question
// becomes a load of the memoized answer.

// CHECK-LABEL: module
// CHECK:      util.global private @__device_0 =
// CHECK-NEXT: util.global private @__device_0_query_0_hal_device_id_local__ok : i1
// CHECK-NEXT: util.global private @__device_0_query_0_hal_device_id_local_ : i1
// CHECK-NEXT: util.global private @__device_0_query_1_hal_executable_format_embedded_elf_x86_64_ok : i1
// CHECK-NEXT: util.global private @__device_0_query_1_hal_executable_format_embedded_elf_x86_64 : i1
// CHECK-NEXT: util.initializer {
// CHECK-NEXT:   %[[D0:.+]] = util.global.load immutable @__device_0 : !hal.device
// CHECK-NEXT:   %[[OK0:.+]], %[[V0:.+]] = hal.device.query<%[[D0]] : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
// CHECK-NEXT:   util.global.store %[[OK0]], @__device_0_query_0_hal_device_id_local__ok : i1
// CHECK-NEXT:   util.global.store %[[V0]], @__device_0_query_0_hal_device_id_local_ : i1
// CHECK-NEXT:   %[[OK1:.+]], %[[V1:.+]] = hal.device.query<%[[D0]] : !hal.device> key("hal.executable.format" :: "embedded-elf-x86_64") : i1, i1 = false
// CHECK-NEXT:   util.global.store %[[OK1]], @__device_0_query_1_hal_executable_format_embedded_elf_x86_64_ok : i1
// CHECK-NEXT:   util.global.store %[[V1]], @__device_0_query_1_hal_executable_format_embedded_elf_x86_64 : i1
// CHECK-NEXT:   util.return
// CHECK-NEXT: }
// CHECK-NEXT: util.global private @__device_1 =
// CHECK-NEXT: util.global private @__device_1_link_0_device_0_transparent_access_ok : i1
// CHECK-NEXT: util.global private @__device_1_link_0_device_0_transparent_access : i1
// CHECK-NEXT: util.global private @__device_1_query_0_hal_device_id_local__ok : i1
// CHECK-NEXT: util.global private @__device_1_query_0_hal_device_id_local_ : i1
// CHECK-NEXT: util.initializer {
// CHECK-NEXT:   %[[D1:.+]] = util.global.load immutable @__device_1 : !hal.device
// CHECK-NEXT:   %[[D0B:.+]] = util.global.load immutable @__device_0 : !hal.device
// CHECK-NEXT:   %[[OK2:.+]], %[[V2:.+]] = hal.device.query.link<%[[D1]] : !hal.device, %[[D0B]] : !hal.device> key("transparent_access") : i1, i1 = false
// CHECK-NEXT:   util.global.store %[[OK2]], @__device_1_link_0_device_0_transparent_access_ok : i1
// CHECK-NEXT:   util.global.store %[[V2]], @__device_1_link_0_device_0_transparent_access : i1
// CHECK-NEXT:   %[[OK3:.+]], %[[V3:.+]] = hal.device.query<%[[D1]] : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
// CHECK-NEXT:   util.global.store %[[OK3]], @__device_1_query_0_hal_device_id_local__ok : i1
// CHECK-NEXT:   util.global.store %[[V3]], @__device_1_query_0_hal_device_id_local_ : i1
// CHECK-NEXT:   util.return
// CHECK-NEXT: }
// CHECK-LABEL: util.func public @first
// CHECK-NOT: hal.device.query
// CHECK: %[[T1:.+]] = util.global.load immutable @__device_1_link_0_device_0_transparent_access : i1
// CHECK: %[[T2:.+]] = util.global.load immutable @__device_1_link_0_device_0_transparent_access : i1
// CHECK: %[[ID0:.+]] = util.global.load immutable @__device_0_query_0_hal_device_id_local__ok : i1
// CHECK: %[[ELF:.+]] = util.global.load immutable @__device_0_query_1_hal_executable_format_embedded_elf_x86_64 : i1
// CHECK: %[[ID1:.+]] = util.global.load immutable @__device_1_query_0_hal_device_id_local_ : i1
// CHECK: util.return %[[T1]], %[[T2]], %[[ID0]], %[[ELF]], %[[ID1]]
// CHECK-LABEL: util.func public @second
// CHECK-NOT: hal.device.query
// CHECK: util.global.load immutable @__device_1_link_0_device_0_transparent_access : i1
// CHECK: util.global.load immutable @__device_0_query_0_hal_device_id_local_ : i1
module {
  util.global private @__device_0 = #hal.device.target<"local"> : !hal.device
  util.global private @__device_1 = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @first() -> (i1, i1, i1, i1, i1) {
    %a = util.global.load immutable @__device_0 : !hal.device
    %b = util.global.load immutable @__device_1 : !hal.device
    %ok0, %t0 = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("transparent_access") : i1, i1 = false
    %ok1, %t1 = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("transparent_access") : i1, i1 = false
    %ok2, %id0 = hal.device.query<%a : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
    %ok3, %elf = hal.device.query<%a : !hal.device> key("hal.executable.format" :: "embedded-elf-x86_64") : i1, i1 = false
    %ok4, %id1 = hal.device.query<%b : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
    util.return %t0, %t1, %ok2, %elf, %id1 : i1, i1, i1, i1, i1
  }
  util.func public @second() -> (i1, i1) {
    %a = util.global.load immutable @__device_0 : !hal.device
    %b = util.global.load immutable @__device_1 : !hal.device
    %ok, %t = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("transparent_access") : i1, i1 = false
    %ok2, %id0 = hal.device.query<%a : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
    util.return %t, %id0 : i1, i1
  }
}

// -----

// Devices named without `__` get the prefix. A question differing only in
// its default or direction is a question of its own; a link question waits
// for its target's global (the initializer of @a follows @b).

// CHECK-LABEL: module
// CHECK:      util.global private @a =
// CHECK-NEXT: util.global private @b =
// CHECK-NEXT: util.global private @__a_link_0_b_unified_memory_ok : i1
// CHECK-NEXT: util.global private @__a_link_0_b_unified_memory : i1
// CHECK-NEXT: util.global private @__a_link_1_b_unified_memory_ok : i1
// CHECK-NEXT: util.global private @__a_link_1_b_unified_memory : i1
// CHECK-NEXT: util.initializer {
// CHECK:        key("unified_memory") : i1, i1 = false
// CHECK:        key("unified_memory") : i1, i1 = true
// CHECK:        util.return
// CHECK-NEXT: }
// CHECK-NEXT: util.global private @__b_link_0_a_unified_memory_ok : i1
// CHECK-NEXT: util.global private @__b_link_0_a_unified_memory : i1
// CHECK-NEXT: util.initializer {
// CHECK-LABEL: util.func public @defaults
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @defaults() -> (i1, i1, i1) {
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %ok0, %x = hal.device.query.link<%a : !hal.device, %b : !hal.device> key("unified_memory") : i1, i1 = false
    %ok1, %y = hal.device.query.link<%a : !hal.device, %b : !hal.device> key("unified_memory") : i1, i1 = true
    %ok2, %z = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("unified_memory") : i1, i1 = false
    util.return %x, %y, %z : i1, i1, i1
  }
}

// -----

// A device stored by an initializer: the device's initializer follows it. A
// question used before that (in @early) stays where it is; the same question
// in @late is memoized under its own index 0.

// CHECK-LABEL: module
// CHECK:      util.func public @early
// CHECK:        hal.device.query<%{{.+}} : !hal.device> key("hal.device.id" :: "a")
// CHECK:      util.initializer {
// CHECK:        util.global.store %{{.+}}, @d : !hal.device
// CHECK:      }
// CHECK-NEXT: util.global private @__d_query_0_hal_device_id_b_ok : i1
// CHECK-NEXT: util.global private @__d_query_0_hal_device_id_b : i1
// CHECK-NEXT: util.initializer {
// CHECK-LABEL: util.func public @late
// CHECK-NOT:  hal.device.query
// CHECK:      util.global.load immutable @__d_query_0_hal_device_id_b : i1
module {
  util.global private @d : !hal.device
  util.func public @early() -> i1 {
    %d = util.global.load immutable @d : !hal.device
    %ok, %v = hal.device.query<%d : !hal.device> key("hal.device.id" :: "a") : i1, i1 = false
    util.return %v : i1
  }
  util.initializer {
    %c0 = arith.constant 0 : index
    %d = hal.devices.get %c0 : !hal.device
    util.global.store %d, @d : !hal.device
    util.return
  }
  util.func public @late() -> i1 {
    %d = util.global.load immutable @d : !hal.device
    %ok, %v = hal.device.query<%d : !hal.device> key("hal.device.id" :: "b") : i1, i1 = false
    util.return %v : i1
  }
}

// -----

// A device that is not an immutable global (a mutable one, or an argument)
// may change: its queries stay where they are, and the pass changes nothing.

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
