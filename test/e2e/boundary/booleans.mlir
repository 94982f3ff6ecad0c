// i1 tensors cross the function boundary as one byte per element (numpy's
// bool), on one device and across two: masks made by a kernel, masks read
// by a kernel, checked against numpy (Inputs/boundary_reference.py).

// RUN: %python %S/../Inputs/boundary_reference.py booleans %t.
// RUN: fleet-compile %s -o %t.fleet

// Eight trues print as eight ones (they were bit-packed into one byte).
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-sync --function=less8 --input=8xf32=0 --input=8xf32=1 | FileCheck %s --check-prefix=TEXT
// TEXT: 8xi1=1 1 1 1 1 1 1 1
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-sync --function=less8 --input=8xf32=0,1,0,1,0,1,1,0 --input=8xf32=0.5 | FileCheck %s --check-prefix=MIXED
// MIXED: 8xi1=1 0 1 0 1 0 0 1

// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=less --input=@%t.a.npy --input=@%t.b.npy --expected_output=@%t.less.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=select --input=@%t.mask2.npy --input=@%t.a.npy --input=@%t.b.npy --expected_output=@%t.select.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-sync --function=not --input=@%t.mask.npy --expected_output=@%t.not.npy | FileCheck %s
// Two devices: the mask is made on A, used on B, and returned from B.
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=two_devices --input=@%t.a.npy --input=@%t.b.npy --expected_output=@%t.min.npy --expected_output=@%t.less.npy | FileCheck %s
// CHECK: [SUCCESS] all function outputs matched their expected values.

// An i1 result written to .npy reads back in numpy as the same bools.
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=less --input=@%t.a.npy --input=@%t.b.npy --output=@%t.out.npy
// RUN: %python -c "import numpy as np; o = np.load('%t.out.npy'); print(o.dtype, (o == np.load('%t.less.npy')).all())" | FileCheck %s --check-prefix=NPY
// NPY: bool True

module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device

  func.func @less8(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xi1> {
    %0 = arith.cmpf olt, %a, %b : tensor<8xf32>
    return %0 : tensor<8xi1>
  }

  func.func @less(%a: tensor<64x33xf32>, %b: tensor<64x33xf32>) -> tensor<64x33xi1> {
    %0 = arith.cmpf olt, %a, %b : tensor<64x33xf32>
    return %0 : tensor<64x33xi1>
  }

  func.func @select(%m: tensor<64x33xi1>, %a: tensor<64x33xf32>, %b: tensor<64x33xf32>) -> tensor<64x33xf32> {
    %0 = arith.select %m, %a, %b : tensor<64x33xi1>, tensor<64x33xf32>
    return %0 : tensor<64x33xf32>
  }

  func.func @not(%m: tensor<3x37xi1>) -> tensor<3x37xi1> {
    %true = arith.constant dense<true> : tensor<3x37xi1>
    %0 = arith.xori %m, %true : tensor<3x37xi1>
    return %0 : tensor<3x37xi1>
  }

  func.func @two_devices(%a: tensor<64x33xf32>, %b: tensor<64x33xf32>)
      -> (tensor<64x33xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>},
          tensor<64x33xi1> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %m = arith.cmpf olt, %a, %b : tensor<64x33xf32>
    %mb = flow.tensor.transfer %m : tensor<64x33xi1> to #hal.device.affinity<@device_b>
    %ab = flow.tensor.transfer %a : tensor<64x33xf32> to #hal.device.affinity<@device_b>
    %bb = flow.tensor.transfer %b : tensor<64x33xf32> to #hal.device.affinity<@device_b>
    %min = arith.select %mb, %ab, %bb : tensor<64x33xi1>, tensor<64x33xf32>
    %0 = flow.tensor.transfer %min : tensor<64x33xf32> to #hal.device.affinity<@device_a>
    %1 = flow.tensor.transfer %mb : tensor<64x33xi1> to #hal.device.affinity<@device_a>
    return %0, %1 : tensor<64x33xf32>, tensor<64x33xi1>
  }
}
