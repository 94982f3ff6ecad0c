// Round trip of the fence ops (docs/ir-reference.md, "Fences"), every optional
// part included. Function arguments print as %argN.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @fences
util.func public @fences(%dev: !hal.device, %f0: !hal.fence, %f1: !hal.fence, %ms: i32, %code: i32) {
  // CHECK: %fence = hal.fence.create device(%arg0 : !hal.device) flags("None") : !hal.fence
  %f = hal.fence.create device(%dev : !hal.device) flags("None") : !hal.fence
  // CHECK: hal.fence.create device(%arg0 : !hal.device) flags(Reserved) : !hal.fence attributes {note}
  %fr = hal.fence.create device(%dev : !hal.device) flags(Reserved) : !hal.fence attributes {note}
  // CHECK: hal.fence.join at([%arg1, %arg2]) flags("None") -> !hal.fence
  %fj = hal.fence.join at([%f0, %f1]) flags("None") -> !hal.fence
  // An empty join is reached immediately.
  // CHECK: hal.fence.join at([]) flags("None") -> !hal.fence attributes {note}
  %fe = hal.fence.join at([]) flags("None") -> !hal.fence attributes {note}
  // CHECK: hal.fence.query<%fence : !hal.fence> : i32
  %st = hal.fence.query<%f : !hal.fence> : i32
  // CHECK: hal.fence.signal<%fence : !hal.fence>
  hal.fence.signal<%f : !hal.fence>
  // CHECK: hal.fence.signal<%fence : !hal.fence> attributes {note}
  hal.fence.signal<%f : !hal.fence> attributes {note}
  // CHECK: hal.fence.fail<%fence : !hal.fence> status(%arg4)
  hal.fence.fail<%f : !hal.fence> status(%code)
  // CHECK: hal.fence.await until([%arg1, %arg2]) timeout_millis(%arg3) flags("None") : i32
  %st1 = hal.fence.await until([%f0, %f1]) timeout_millis(%ms) flags("None") : i32
  // CHECK: hal.fence.await until([%arg1]) timeout_millis(%arg3) flags(Reserved) : i32 attributes {note}
  %st2 = hal.fence.await until([%f0]) timeout_millis(%ms) flags(Reserved) : i32 attributes {note}
  util.return
}
