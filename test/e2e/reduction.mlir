// A reduction (row sums) and several results from one function.

// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=rowsum "--input=2x3xf32=[1 2 3][4 5 6]" | FileCheck %s --check-prefix=SUM
// RUN: fleet-run --module=%t.fleet --device=local-task --function=rowsum "--input=2x3xf32=[1 2 3][4 5 6]" | FileCheck %s --check-prefix=SUM
// SUM: 2xf32=6 15
// RUN: fleet-run --module=%t.fleet --device=local-task --function=stats --input=4xf32=-1,2,-3,4 | FileCheck %s --check-prefix=STATS
// STATS: EXEC @stats
// STATS-NEXT: result[0]: hal.buffer_view
// STATS-NEXT: 4xf32=1 2 3 4
// STATS-NEXT: result[1]: hal.buffer_view
// STATS-NEXT: 4xf32=1 4 9 16
// STATS-NEXT: result[2]: hal.buffer_view
// STATS-NEXT: f32=2

func.func @rowsum(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce ins(%a : tensor<2x3xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<2xf32>
}

func.func @stats(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %0 = math.absf %a : tensor<4xf32>
  %1 = arith.mulf %a, %a : tensor<4xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%a : tensor<4xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %0, %1, %s : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}
