// A result affinity naming an undeclared device is one error at the user's
// line, not one per function that carries it (the entry point and its ABI
// wrapper both do).

// RUN: not fleet-compile %s -o %t.fleet 2>&1 | FileCheck %s
// CHECK: undeclared-device.mlir:[[# @LINE + 3]]:1: error: names device @nodev, which is not declared
// CHECK-NOT: error:
module {
func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@nodev>}) {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
}
