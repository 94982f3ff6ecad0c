// RUN: fleet-opt %s --split-input-file --hal-resolve-device-promises --verify-diagnostics | FileCheck %s

// Promises become affinities wherever they appear, queue masks kept.
// CHECK-LABEL: @promises
// CHECK-SAME: a = #hal.device.affinity<@b, [1]>
// CHECK-SAME: o = #hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>
// CHECK: flow.tensor.transfer %arg0 : tensor<4xf32> to #hal.device.affinity<@b>
util.global private @a = #hal.device.target<"local"> : !hal.device
util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
util.func private @promises(%t: tensor<4xf32>) attributes {a = #hal.device.promise<@b, [1]>, o = #hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.promise<@b>]>} {
  %0 = flow.tensor.transfer %t : tensor<4xf32> to #hal.device.promise<@b>
  util.return
}

// -----

util.global private @a = #hal.device.target<"local"> : !hal.device
util.func private @undeclared(%t: tensor<4xf32>) {
  // expected-error @+1 {{names device @gpu9, which is not declared}}
  %0 = flow.tensor.transfer %t : tensor<4xf32> to #hal.device.promise<@gpu9>
  util.return
}

// -----

util.global private @a = #hal.device.target<"local"> : !hal.device
util.func private @undeclared_affinity(%t: tensor<4xf32>) {
  // expected-error @+1 {{names device @gpu9, which is not declared}}
  %0 = flow.tensor.transfer %t : tensor<4xf32> to #hal.device.affinity<@gpu9>
  util.return
}
