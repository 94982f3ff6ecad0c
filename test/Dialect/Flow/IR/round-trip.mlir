// Round trip of the flow placement ops.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @placement
util.func private @placement(%t0: tensor<?x16xf32>, %n: index, %s: tensor<4xf32>) {
  // CHECK: %[[T1:.+]] = flow.tensor.transfer %arg0 : tensor<?x16xf32>{%arg1} to #hal.device.affinity<@gpu1>
  %t1 = flow.tensor.transfer %t0 : tensor<?x16xf32>{%n} to #hal.device.affinity<@gpu1>
  // Static tensors print no braces; any attribute may be the target.
  // CHECK: flow.tensor.transfer %arg2 : tensor<4xf32> to #hal.device.promise<@gpu2>
  %s1 = flow.tensor.transfer %s : tensor<4xf32> to #hal.device.promise<@gpu2>
  // CHECK: flow.tensor.transfer %arg2 : tensor<4xf32> to "cpu" attributes {tag}
  %s2 = flow.tensor.transfer %s : tensor<4xf32> to "cpu" attributes {tag}
  // CHECK: flow.tensor.barrier %[[T1]] : tensor<?x16xf32>{%arg1} on #hal.device.affinity<@gpu1>
  %t2 = flow.tensor.barrier %t1 : tensor<?x16xf32>{%n} on #hal.device.affinity<@gpu1>
  // CHECK: flow.tensor.barrier %arg2 : tensor<4xf32> on #hal.device.affinity<@gpu0, [1]>
  %s3 = flow.tensor.barrier %s : tensor<4xf32> on #hal.device.affinity<@gpu0, [1]>
  util.return
}

util.func private @ex()
// CHECK-LABEL: @dispatches
util.func private @dispatches(%a: tensor<4xf32>, %n: index) {
  // CHECK: flow.dispatch @ex::@entry(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %0 = flow.dispatch @ex::@entry(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: flow.dispatch @ex::@entry[%arg1](%arg0, %arg1) {tag} : (tensor<4xf32>, index) -> (tensor<4xf32>, tensor<2xi32>)
  %1:2 = flow.dispatch @ex::@entry[%n](%a, %n) {tag} : (tensor<4xf32>, index) -> (tensor<4xf32>, tensor<2xi32>)
  util.return
}
