// Elementwise chains (fused into one dispatch or not): abs, mul, add, and a
// splat constant operand.

// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=chain --input=8xf32=-1,2,-3,4,-5,6,-7,8 --input=8xf32=2 | FileCheck %s --check-prefix=CHAIN
// RUN: fleet-run --module=%t.fleet --device=local-task --function=chain --input=8xf32=-1,2,-3,4,-5,6,-7,8 --input=8xf32=2 | FileCheck %s --check-prefix=CHAIN
// |a| * b + a
// CHAIN: 8xf32=1 6 3 12 5 18 7 24
// RUN: fleet-run --module=%t.fleet --device=local-task --function=affine --input=2x3xf32=1,2,3,4,5,6 | FileCheck %s --check-prefix=AFFINE
// 3x - 1 on a 2-D tensor
// AFFINE: 2x3xf32=[2 5 8][11 14 17]
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=big --input=4096xf32=-2.0 --print_max_element_count=4 | FileCheck %s --check-prefix=BIG
// BIG: 4096xf32=4 4 4 4...

func.func @chain(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = math.absf %a : tensor<8xf32>
  %1 = arith.mulf %0, %b : tensor<8xf32>
  %2 = arith.addf %1, %a : tensor<8xf32>
  return %2 : tensor<8xf32>
}

func.func @affine(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %three = arith.constant dense<3.0> : tensor<2x3xf32>
  %one = arith.constant dense<1.0> : tensor<2x3xf32>
  %0 = arith.mulf %x, %three : tensor<2x3xf32>
  %1 = arith.subf %0, %one : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

func.func @big(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = arith.mulf %x, %x : tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
