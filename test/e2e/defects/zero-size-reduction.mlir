// A reduction over a dimension of size 0 compiles (it used to crash kernel
// tiling) and yields its init value: sum over an empty axis plus a bias is
// the bias (numpy: x.sum(axis=1) + b), on one device and across two.

// RUN: fleet-compile %s -o %t.fleet
// RUN: %python -c "import numpy as np; b = np.arange(1, 5, dtype=np.float32); np.save('%t.b.npy', b); np.save('%t.expected.npy', np.zeros((4, 0), np.float32).sum(axis=1) + b)"
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=sum --input=4x0xf32 --input=@%t.b.npy --expected_output=@%t.expected.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=sum_on_b --input=4x0xf32 --input=@%t.b.npy --expected_output=@%t.expected.npy | FileCheck %s
// CHECK: [SUCCESS] all function outputs matched their expected values.
// Zero-size results still print and save.
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-sync --function=empty --input=4x0xf32 --output=@%t.empty.npy
// RUN: %python -c "import numpy as np; print(np.load('%t.empty.npy').shape)" | FileCheck %s --check-prefix=EMPTY
// EMPTY: (4, 0)

module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device

  func.func @sum(%x: tensor<4x0xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %r = linalg.reduce ins(%x : tensor<4x0xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %s = arith.addf %in, %acc : f32
        linalg.yield %s : f32
      }
    %0 = arith.addf %r, %b : tensor<4xf32>
    return %0 : tensor<4xf32>
  }

  func.func @sum_on_b(%x: tensor<4x0xf32>, %b: tensor<4xf32>)
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %xb = flow.tensor.transfer %x : tensor<4x0xf32> to #hal.device.affinity<@device_b>
    %bb = flow.tensor.transfer %b : tensor<4xf32> to #hal.device.affinity<@device_b>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %r = linalg.reduce ins(%xb : tensor<4x0xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %s = arith.addf %in, %acc : f32
        linalg.yield %s : f32
      }
    %0 = arith.addf %r, %bb : tensor<4xf32>
    %1 = flow.tensor.transfer %0 : tensor<4xf32> to #hal.device.affinity<@device_a>
    return %1 : tensor<4xf32>
  }

  func.func @empty(%x: tensor<4x0xf32>) -> tensor<4x0xf32> {
    %0 = arith.mulf %x, %x : tensor<4x0xf32>
    return %0 : tensor<4x0xf32>
  }
}
