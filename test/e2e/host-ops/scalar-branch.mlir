// A host-side read of a computed scalar drives an scf.if, and a scalar is
// written back into a tensor (tensor.extract / insert through staging
// memory: docs/pipeline.md "Host-side tensor ops"). numpy reference:
//   s = x * x; r = -s if s[2] > 5 else s; r[0] = s[2]

// RUN: fleet-compile %s -o %t.fleet
// RUN: %python -c "import numpy as np; x = np.array([1, 2, 3, 4], np.float32); s = x * x; r = -s if s[2] > 5 else s.copy(); r[0] = s[2]; np.save('%t.big.npy', r); x = np.array([1, 2, 2, 4], np.float32); s = x * x; r = -s if s[2] > 5 else s.copy(); r[0] = s[2]; np.save('%t.small.npy', r)"
// RUN: fleet-run --module=%t.fleet --device=local-task --function=branch --input=4xf32=1,2,3,4 --expected_output=@%t.big.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=branch --input=4xf32=1,2,2,4 --expected_output=@%t.small.npy | FileCheck %s
// CHECK: [SUCCESS] all function outputs matched their expected values.

// The scalar is read by the host after one wait; the branch and the insert
// run after it.
// RUN: fleet-compile %s --compile-to=hal | FileCheck %s --check-prefix=HAL
// HAL: hal.fence.await
// HAL: hal.buffer.load<
// HAL: scf.if
// HAL: hal.buffer.store<

func.func @branch(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.mulf %x, %x : tensor<4xf32>
  %c2 = arith.constant 2 : index
  %v = tensor.extract %s[%c2] : tensor<4xf32>
  %limit = arith.constant 5.0 : f32
  %big = arith.cmpf ogt, %v, %limit : f32
  %r = scf.if %big -> tensor<4xf32> {
    %n = arith.negf %s : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  } else {
    scf.yield %s : tensor<4xf32>
  }
  %c0 = arith.constant 0 : index
  %r2 = tensor.insert %v into %r[%c0] : tensor<4xf32>
  return %r2 : tensor<4xf32>
}
