// RUN: fleet-opt %s --input-convert-to-util --split-input-file | FileCheck %s

// func.func/call/return become util; attributes and visibility are kept.
// CHECK-LABEL: util.func public @abs
// CHECK-SAME: (%arg0: tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@d>}) -> tensor<4xf32>
// CHECK-SAME: attributes {iree.abi.model = "coarse-fences"}
// CHECK: %[[R:.+]] = util.call @helper(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: util.return %[[R]] : tensor<4xf32>
func.func @abs(%a: tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@d>}) -> tensor<4xf32> attributes {iree.abi.model = "coarse-fences"} {
  %0 = call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: util.func private @helper
func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.absf %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// External declarations stay declarations.
// CHECK: util.func private @ext(%arg0: tensor<4xf32>) -> tensor<4xf32>{{$}}
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>

// -----

// A named inner module is hoisted and names the compiled module.
// CHECK: module attributes {fleet.module_name = "module_a"}
// CHECK: util.func public @abs
module {
  builtin.module @module_a {
    func.func @abs(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = math.absf %a : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
  }
}
