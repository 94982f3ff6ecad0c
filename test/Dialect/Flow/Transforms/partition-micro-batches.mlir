// RUN: fleet-opt %s --flow-split-micro-batches=count=2 --flow-data-tiling --flow-partition-pipeline="cost-model=%S/Inputs/unit-costs.json" | FileCheck %s

// The pipeline's order: micro-batches, data tiling, then the cut. The ops
// data tiling builds for each micro-batch's matmul (pack, mmt4d, unpack)
// keep its micro-batch marks, so every micro-batch is cut alike: matmul 1
// on device A, matmul 2 on device B (each 0.27 ms in unit costs; the
// devices share memory, so a transfer costs nothing). A constant weight is
// packed once, for all micro-batches.
module attributes {stream.affinity.default = #hal.device.affinity<@device_a>, stream.topology = #hal.device.topology<links = [(@device_a -> @device_b = {unified_memory = true}), (@device_b -> @device_a = {unified_memory = true})]>} {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  // CHECK-LABEL: util.func public @two_matmuls
  util.func public @two_matmuls(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<64x64xf32>
    %w1 = arith.constant dense<0.5> : tensor<64x64xf32>
    %w2 = arith.constant dense<0.25> : tensor<64x64xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m1 = linalg.matmul ins(%x, %w1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m2 = linalg.matmul ins(%m1, %w2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %out = hal.tensor.export %m2 "y" : tensor<64x64xf32> -> !hal.buffer_view
    util.return %out : !hal.buffer_view
  }
}
// CHECK: %[[X:.+]] = hal.tensor.import on(#hal.device.affinity<@device_a>) %arg0
// CHECK: tensor.extract_slice %[[X]][0, 0] [32, 64]
// CHECK: %[[W1:.+]] = arith.constant dense_resource<packed> : tensor<2x64x32x1xf32>
// CHECK: linalg.mmt4d ins(%{{.+}}, %[[W1]] :
// CHECK: %[[T0:.+]] = flow.tensor.transfer %{{.+}} : tensor<32x64xf32> to #hal.device.affinity<@device_b>
// CHECK: tensor.pad %[[T0]]
// CHECK: %[[W2:.+]] = arith.constant dense_resource<packed_1> : tensor<2x64x32x1xf32>
// CHECK: linalg.mmt4d ins(%{{.+}}, %[[W2]] :
// CHECK: tensor.extract_slice %[[X]][32, 0] [32, 64]
// CHECK-NOT: dense_resource
// CHECK: linalg.mmt4d ins(%{{.+}}, %[[W1]] :
// CHECK: %[[T1:.+]] = flow.tensor.transfer %{{.+}} : tensor<32x64xf32> to #hal.device.affinity<@device_b>
// CHECK: tensor.pad %[[T1]]
// CHECK-NOT: dense_resource
// CHECK: linalg.mmt4d ins(%{{.+}}, %[[W2]] :
// CHECK: tensor.concat
// CHECK-NOT: fleet.
