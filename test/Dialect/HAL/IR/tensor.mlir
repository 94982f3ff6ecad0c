// Round trip of the tensor boundary ops (docs/ir-reference.md, "Buffer views
// and tensors"), every optional part in the documented order. Function
// arguments print as %argN.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @import
util.func public @import(%bv: !hal.buffer_view, %b: !hal.buffer, %wf: !hal.fence, %n: index, %off: index) {
  // CHECK: hal.tensor.import on(#hal.device.affinity<@gpu0>) wait(%arg2) => %arg0 "input0" : !hal.buffer_view -> tensor<?x16xf32>{%arg3}
  %t = hal.tensor.import on(#hal.device.affinity<@gpu0>) wait(%wf) => %bv "input0" : !hal.buffer_view -> tensor<?x16xf32>{%n}
  // Order: on, wait =>, consume, source, offset, name.
  // CHECK: hal.tensor.import on(#hal.device.promise<@gpu1>) wait(%arg2) => consume %arg1 offset(%arg4) "in" : !hal.buffer -> tensor<4xf32>
  %t1 = hal.tensor.import on(#hal.device.promise<@gpu1>) wait(%wf) => consume %b offset(%off) "in" : !hal.buffer -> tensor<4xf32>
  // The encoding may differ from the result; the dims follow the result.
  // CHECK: hal.tensor.import %arg0 : !hal.buffer_view -> tensor<?x16xf32> as tensor<?x16xi32>{%arg3}
  %t2 = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x16xf32> as tensor<?x16xi32>{%n}
  // [ad] at the end, bare; also after a static tensor (no dims).
  // CHECK: hal.tensor.import %arg0 : !hal.buffer_view -> tensor<?xf32>{%arg3} {note}
  %t3 = hal.tensor.import %bv : !hal.buffer_view -> tensor<?xf32>{%n} {note}
  // CHECK: hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32> {note, quoted.name = 1 : i32}
  %t4 = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32> {note, "quoted.name" = 1 : i32}
  util.return
}

// CHECK-LABEL: @export
util.func public @export(%t: tensor<?x16xf32>, %s: tensor<4xf32>, %n: index) {
  // CHECK: hal.tensor.export on(#hal.device.affinity<@gpu0>) %arg0 "output0" : tensor<?x16xf32>{%arg2} -> !hal.buffer_view
  %bv = hal.tensor.export on(#hal.device.affinity<@gpu0>) %t "output0" : tensor<?x16xf32>{%n} -> !hal.buffer_view
  // CHECK: hal.tensor.export %arg0 : tensor<?x16xi32> as tensor<?x16xf32>{%arg2} -> !hal.buffer
  %b = hal.tensor.export %t : tensor<?x16xi32> as tensor<?x16xf32>{%n} -> !hal.buffer
  // CHECK: hal.tensor.export %arg1 : tensor<4xf32> -> !hal.buffer_view {note}
  %bv1 = hal.tensor.export %s : tensor<4xf32> -> !hal.buffer_view {note}
  util.return
}

// CHECK-LABEL: @barrier_and_alias
util.func public @barrier_and_alias(%a: tensor<4xf32>, %b: tensor<8xi8>, %sf: !hal.fence, %wf: !hal.fence, %t: tensor<?x16xf32>, %n: index, %storage: !hal.buffer, %view: !hal.buffer_view) {
  // CHECK: %0:2 = hal.tensor.barrier join(%arg0, %arg1 : tensor<4xf32>, tensor<8xi8>) => %arg2 : !hal.fence
  %a2, %b2 = hal.tensor.barrier join(%a, %b : tensor<4xf32>, tensor<8xi8>) => %sf : !hal.fence
  // CHECK: hal.tensor.barrier join(%arg0 : tensor<4xf32>) => %arg2 : !hal.fence attributes {note}
  %a3 = hal.tensor.barrier join(%a : tensor<4xf32>) => %sf : !hal.fence attributes {note}
  // CHECK: hal.tensor.alias on(#hal.device.affinity<@gpu0>) wait(%arg3) => %arg4 : tensor<?x16xf32>{%arg5} to %arg6 : !hal.buffer
  %t2 = hal.tensor.alias on(#hal.device.affinity<@gpu0>) wait(%wf) => %t : tensor<?x16xf32>{%n} to %storage : !hal.buffer
  // CHECK: hal.tensor.alias %arg0 : tensor<4xf32> to %arg7 : !hal.buffer_view {note}
  %a4 = hal.tensor.alias %a : tensor<4xf32> to %view : !hal.buffer_view {note}
  util.return
}
