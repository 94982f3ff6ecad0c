// Reductions and elementwise ops over i1 tensors give numpy's answer: a
// vectorized kernel read i1 tensors (one byte per element) as packed bits,
// so a max over bools (ONNX reduce_max_bool_inputs) returned 1 0 0 0 for
// rows [1 1] [1 0] [0 1] [0 0]. Such ops now stay scalar loops.

// RUN: fleet-compile %s -o %t.fleet
// RUN: %python -c "import numpy as np; x = np.random.default_rng(5).integers(0, 2, (16, 7)).astype(np.bool_); np.save('%t.x.npy', x); np.save('%t.max.npy', x.max(axis=1)); np.save('%t.not.npy', np.logical_not(x))"
// RUN: fleet-run --module=%t.fleet --device=local-task --function=max --input=@%t.x.npy --expected_output=@%t.max.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --function=negate --input=@%t.x.npy --expected_output=@%t.not.npy | FileCheck %s
// CHECK: [SUCCESS] all function outputs matched their expected values.

func.func @max(%x: tensor<16x7xi1>) -> tensor<16xi1> {
  %f = arith.constant false
  %e = tensor.empty() : tensor<16xi1>
  %i = linalg.fill ins(%f : i1) outs(%e : tensor<16xi1>) -> tensor<16xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x7xi1>) outs(%i : tensor<16xi1>) {
  ^bb0(%a: i1, %b: i1):
    %m = arith.maxui %a, %b : i1
    linalg.yield %m : i1
  } -> tensor<16xi1>
  return %r : tensor<16xi1>
}

func.func @negate(%x: tensor<16x7xi1>) -> tensor<16x7xi1> {
  %t = arith.constant true
  %e = tensor.empty() : tensor<16x7xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x7xi1>) outs(%e : tensor<16x7xi1>) {
  ^bb0(%a: i1, %b: i1):
    %n = arith.xori %a, %t : i1
    linalg.yield %n : i1
  } -> tensor<16x7xi1>
  return %r : tensor<16x7xi1>
}
