// A public function also called inside its module: internal calls go to the
// unwrapped function (tensors), external callers see the buffer-view ABI;
// both paths give the right numbers (x^2 and x^4, numpy).

// RUN: fleet-compile %s -o %t.fleet
// RUN: %python -c "import numpy as np; x = np.array([1, 2, 3, -4], np.float32); np.save('%t.x.npy', x); np.save('%t.sq.npy', x * x); np.save('%t.p4.npy', (x * x) * (x * x))"
// RUN: fleet-run --module=%t.fleet --device=local-task --function=square --input=@%t.x.npy --expected_output=@%t.sq.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --function=fourth --input=@%t.x.npy --expected_output=@%t.p4.npy | FileCheck %s
// CHECK: [SUCCESS] all function outputs matched their expected values.
// RUN: fleet-compile %s --compile-to=input | FileCheck %s --check-prefix=IR
// Internal calls were inlined (they went to the tensor function), so no
// call of the wrapper remains.
// IR: util.func public @square(%{{.*}}: !hal.buffer_view) -> !hal.buffer_view
// IR-NOT: util.call @square
// IR: util.func public @fourth(%{{.*}}: !hal.buffer_view) -> !hal.buffer_view
// IR-NOT: util.call @square

func.func @square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @fourth(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = call @square(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
