// Host-side tensor ops in a model-like program (docs/pipeline.md "Host-side
// tensor ops"): a fused QKV projection sliced into q, k, v, two heads
// concatenated and the result padded, checked against numpy
// (Inputs/host_ops_reference.py). @one runs on one device; @two computes
// the projection on device B and slices it on device A (a slice of a
// tensor living on B read on A).

// RUN: %python %S/../Inputs/host_ops_reference.py %t.
// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=one --input=@%t.x.npy --input=@%t.w.npy --expected_output=@%t.y.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=two --input=@%t.x.npy --input=@%t.w.npy --expected_output=@%t.y.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-task --function=two --input=@%t.x.npy --input=@%t.w.npy --expected_output=@%t.y.npy | FileCheck %s
// CHECK: [SUCCESS] all function outputs matched their expected values.

// The slices and the concat are copies, not kernels: two dispatches (the
// projection and q * k) per function.
// RUN: fleet-compile %s --compile-to=stream | FileCheck %s --check-prefix=IR
// IR-LABEL: util.func public @one
// IR-COUNT-2: stream.cmd.dispatch
// IR-NOT: stream.cmd.dispatch
// IR: util.return

module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device

  func.func private @heads(%qkv: tensor<4x24xf32>) -> tensor<6x16xf32> {
    %q = tensor.extract_slice %qkv[0, 0] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
    %k = tensor.extract_slice %qkv[0, 8] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
    %v = tensor.extract_slice %qkv[0, 16] [4, 8] [1, 1] : tensor<4x24xf32> to tensor<4x8xf32>
    %qk = arith.mulf %q, %k : tensor<4x8xf32>
    %cat = tensor.concat dim(1) %qk, %v : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
    %m1 = arith.constant -1.0 : f32
    %y = tensor.pad %cat low[1, 0] high[1, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %m1 : f32
    } : tensor<4x16xf32> to tensor<6x16xf32>
    return %y : tensor<6x16xf32>
  }

  func.func @one(%x: tensor<4x8xf32>, %w: tensor<8x24xf32>) -> tensor<6x16xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x24xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x24xf32>) -> tensor<4x24xf32>
    %qkv = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x24xf32>) outs(%f : tensor<4x24xf32>) -> tensor<4x24xf32>
    %y = call @heads(%qkv) : (tensor<4x24xf32>) -> tensor<6x16xf32>
    return %y : tensor<6x16xf32>
  }

  func.func @two(%x: tensor<4x8xf32>, %w: tensor<8x24xf32>)
      -> (tensor<6x16xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %xb = flow.tensor.transfer %x : tensor<4x8xf32> to #hal.device.affinity<@device_b>
    %wb = flow.tensor.transfer %w : tensor<8x24xf32> to #hal.device.affinity<@device_b>
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x24xf32>
    %eb = flow.tensor.transfer %e : tensor<4x24xf32> to #hal.device.affinity<@device_b>
    %f = linalg.fill ins(%z : f32) outs(%eb : tensor<4x24xf32>) -> tensor<4x24xf32>
    %qkv = linalg.matmul ins(%xb, %wb : tensor<4x8xf32>, tensor<8x24xf32>) outs(%f : tensor<4x24xf32>) -> tensor<4x24xf32>
    %qkva = flow.tensor.transfer %qkv : tensor<4x24xf32> to #hal.device.affinity<@device_a>
    %y = call @heads(%qkva) : (tensor<4x24xf32>) -> tensor<6x16xf32>
    return %y : tensor<6x16xf32>
  }
}
