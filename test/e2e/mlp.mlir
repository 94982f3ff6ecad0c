// A 2-layer MLP, relu(x @ w1 + b1) @ w2 + b2, checked against numpy
// (Inputs/mlp_reference.py writes the inputs and the reference at test time).

// RUN: %python %S/Inputs/mlp_reference.py %t.
// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=mlp --input=@%t.x.npy --input=@%t.w1.npy --input=@%t.b1.npy --input=@%t.w2.npy --input=@%t.b2.npy --expected_output=@%t.y.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --task_topology_group_count=2 --function=mlp --input=@%t.x.npy --input=@%t.w1.npy --input=@%t.b1.npy --input=@%t.w2.npy --input=@%t.b2.npy --expected_output=@%t.y.npy | FileCheck %s
// CHECK: EXEC @mlp
// CHECK-NEXT: [SUCCESS] all function outputs matched their expected values.

// The output also round-trips through --output.
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=mlp --input=@%t.x.npy --input=@%t.w1.npy --input=@%t.b1.npy --input=@%t.w2.npy --input=@%t.b2.npy --output=@%t.out.npy
// RUN: %python -c "import numpy; print(numpy.allclose(numpy.load('%t.out.npy'), numpy.load('%t.y.npy'), atol=1e-4))" | FileCheck %s --check-prefix=CLOSE
// CLOSE: True

func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>,
               %w2: tensor<16x3xf32>, %b2: tensor<3xf32>) -> tensor<4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m1, %b1 : tensor<4x16xf32>, tensor<16xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %m2 = linalg.matmul ins(%h, %w2 : tensor<4x16xf32>, tensor<16x3xf32>) outs(%f2 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m2, %b2 : tensor<4x3xf32>, tensor<3xf32>) outs(%e2 : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
