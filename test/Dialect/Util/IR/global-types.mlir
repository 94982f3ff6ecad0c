// util.global initial values and loads are checked as IREE checks them:
// shaped types are compatible when their shapes are, element types are not
// compared; stores need the global's type exactly (docs/ir-reference.md
// "util").

// RUN: fleet-opt %s | FileCheck %s
// RUN: fleet-opt %s | fleet-opt | FileCheck %s

// CHECK: util.global private @f16_init : tensor<4xf16> = dense<1> : tensor<4xi32>
util.global private @f16_init : tensor<4xf16> = dense<1> : tensor<4xi32>
// CHECK: util.global private @dynamic : tensor<?xf32> = dense<2.000000e+00> : tensor<4xf32>
util.global private @dynamic : tensor<?xf32> = dense<2.0> : tensor<4xf32>

// CHECK-LABEL: util.func private @load
util.func private @load() -> tensor<4xf32> {
  // CHECK: util.global.load @dynamic : tensor<4xf32>
  %0 = util.global.load @dynamic : tensor<4xf32>
  util.return %0 : tensor<4xf32>
}
