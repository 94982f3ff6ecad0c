// A non-square matmul (3x5 @ 5x2) and a larger one checked against numpy.

// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=small "--input=3x5xf32=[1 2 3 4 5][6 7 8 9 10][11 12 13 14 15]" "--input=5x2xf32=[1 0][0 1][1 0][0 1][1 1]" | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --function=small "--input=3x5xf32=[1 2 3 4 5][6 7 8 9 10][11 12 13 14 15]" "--input=5x2xf32=[1 0][0 1][1 0][0 1][1 1]" | FileCheck %s
// CHECK: 3x2xf32=[9 11][24 26][39 41]

// RUN: %python -c "import numpy as np; r = np.random.default_rng(5); a = r.standard_normal((33, 70)).astype(np.float32); b = r.standard_normal((70, 17)).astype(np.float32); np.save('%t.a.npy', a); np.save('%t.b.npy', b); np.save('%t.c.npy', (a.astype(np.float64) @ b).astype(np.float32))"
// RUN: fleet-run --module=%t.fleet --device=local-task --task_topology_group_count=2 --function=large --input=@%t.a.npy --input=@%t.b.npy --expected_output=@%t.c.npy --expected_f32_threshold=1e-3 | FileCheck %s --check-prefix=LARGE
// LARGE: [SUCCESS]

func.func @small(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>) -> tensor<3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x2xf32>) outs(%f : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}

func.func @large(%a: tensor<33x70xf32>, %b: tensor<70x17xf32>) -> tensor<33x17xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x17xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<33x17xf32>) -> tensor<33x17xf32>
  %m = linalg.matmul ins(%a, %b : tensor<33x70xf32>, tensor<70x17xf32>) outs(%f : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %m : tensor<33x17xf32>
}
