// Round trip of the device ops (docs/ir-reference.md, "Devices"), every
// optional part included. Function arguments print as %argN.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @query
util.func public @query(%dev: !hal.device) {
  // `::` prints as two `:` with no space; the default is a typed attribute
  // printed in full.
  // CHECK: %ok, %value = hal.device.query<%arg0 : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
  %ok, %v = hal.device.query<%dev : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
  // CHECK: hal.device.query<%arg0 : !hal.device> key("hal.dispatch" :: "concurrency") : i1, i32 = 0 : i32
  %ok1, %n = hal.device.query<%dev : !hal.device> key("hal.dispatch" :: "concurrency") : i1, i32 = 0 : i32
  // No default; `: :` with a space also parses (two tokens).
  // CHECK: hal.device.query<%arg0 : !hal.device> key("hal.executable.format" :: "embedded-elf-x86_64") : i1, i1 attributes {note}
  %ok2, %f = hal.device.query<%dev : !hal.device> key("hal.executable.format" : : "embedded-elf-x86_64") : i1, i1 attributes {note}
  util.return
}

// Fleet extension: link queries between two runtime devices.
// CHECK-LABEL: @query_link
util.func public @query_link(%gpu0: !hal.device, %gpu1: !hal.device) {
  // CHECK: %ok, %value = hal.device.query.link<%arg0 : !hal.device, %arg1 : !hal.device> key("transparent_access") : i1, i1 = false
  %ok, %v = hal.device.query.link<%gpu0 : !hal.device, %gpu1 : !hal.device> key("transparent_access") : i1, i1 = false
  // CHECK: hal.device.query.link<%arg1 : !hal.device, %arg0 : !hal.device> key("unified_memory") : i1, i1 = true
  %ok1, %v1 = hal.device.query.link<%gpu1 : !hal.device, %gpu0 : !hal.device> key("unified_memory") : i1, i1 = true
  // CHECK: hal.device.query.link<%arg0 : !hal.device, %arg1 : !hal.device> key("export_import") : i1, i1 attributes {note}
  %ok2, %v2 = hal.device.query.link<%gpu0 : !hal.device, %gpu1 : !hal.device> key("export_import") : i1, i1 attributes {note}
  util.return
}

// CHECK-LABEL: @allocator_and_devices
util.func public @allocator_and_devices(%dev: !hal.device, %i: index) {
  // CHECK: hal.device.allocator<%arg0 : !hal.device> : !hal.allocator
  %alloc = hal.device.allocator<%dev : !hal.device> : !hal.allocator
  // CHECK: hal.device.allocator<%arg0 : !hal.device> : !hal.allocator attributes {note}
  %alloc1 = hal.device.allocator<%dev : !hal.device> : !hal.allocator attributes {note}
  // CHECK: hal.devices.get %arg1 : !hal.device
  %d = hal.devices.get %i : !hal.device
  // CHECK: hal.devices.count : index
  %nd = hal.devices.count : index
  // [ad] goes before `:`.
  // CHECK: hal.devices.get %arg1 {note} : !hal.device
  %d1 = hal.devices.get %i {note} : !hal.device
  // CHECK: hal.devices.count {note} : index
  %nd1 = hal.devices.count {note} : index
  util.return
}
