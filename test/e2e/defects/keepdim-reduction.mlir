// A reduction whose result map has a constant, (d0, d1) -> (d0, 0) (what
// torch-mlir emits for ONNX ReduceSum/Softmax with keepdims), compiles: it
// used to crash the kernel's partial-reduction tiling. Checked against numpy
// (x.sum(axis=1, keepdims=True)) with rows longer than one vector chunk.

// RUN: fleet-compile %s -o %t.fleet
// RUN: %python -c "import numpy as np; x = np.random.default_rng(3).standard_normal((3, 37)).astype(np.float32); np.save('%t.x.npy', x); np.save('%t.y.npy', x.astype(np.float64).sum(axis=1, keepdims=True).astype(np.float32))"
// RUN: fleet-run --module=%t.fleet --device=local-task --function=sum --input=@%t.x.npy --expected_output=@%t.y.npy | FileCheck %s
// CHECK: [SUCCESS] all function outputs matched their expected values.

func.func @sum(%x: tensor<3x37xf32>) -> tensor<3x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x1xf32>) -> tensor<3x1xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x37xf32>) outs(%f : tensor<3x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<3x1xf32>
  return %s : tensor<3x1xf32>
}
