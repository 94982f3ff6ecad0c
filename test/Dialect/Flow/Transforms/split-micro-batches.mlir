// RUN: fleet-opt %s --split-input-file --flow-split-micro-batches=count=4 | FileCheck %s

// A batch of 8 rows as 4 micro-batches of 2, micro-batch-major; the weight
// (leading dimension 16, not the batch) is shared, and its preparation (the
// transpose) stays once, before the micro-batches. Rows flattened with
// another dimension ([8, 4, 16] -> [32, 16]) split into 8-row parts.
#map = affine_map<(i, j) -> (i, j)>
module {
  // CHECK-LABEL: util.func public @mlp
  util.func public @mlp(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<8x4x16xf32>
    %w = hal.tensor.import %arg1 "w" : !hal.buffer_view -> tensor<16x16xf32>
    %zero = arith.constant 0.0 : f32
    %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<8x4x16xf32> into tensor<32x16xf32>
    %te = tensor.empty() : tensor<16x16xf32>
    %wt = linalg.transpose ins(%w : tensor<16x16xf32>) outs(%te : tensor<16x16xf32>) permutation = [1, 0]
    %e = tensor.empty() : tensor<32x16xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
    %m = linalg.matmul ins(%x2, %wt : tensor<32x16xf32>, tensor<16x16xf32>) outs(%f : tensor<32x16xf32>) -> tensor<32x16xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%m : tensor<32x16xf32>) outs(%e : tensor<32x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %c = arith.maximumf %v, %zero : f32
      linalg.yield %c : f32
    } -> tensor<32x16xf32>
    %y = tensor.expand_shape %r [[0, 1], [2]] output_shape [8, 4, 16] : tensor<32x16xf32> into tensor<8x4x16xf32>
    %out = hal.tensor.export %y "y" : tensor<8x4x16xf32> -> !hal.buffer_view
    util.return %out : !hal.buffer_view
  }
}
// CHECK: %[[X:.+]] = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<8x4x16xf32>
// CHECK: %[[WT:.+]] = linalg.transpose {{.*}}fleet.template
// CHECK: %[[X0:.+]] = tensor.extract_slice %[[X]][0, 0, 0] [2, 4, 16] [1, 1, 1] {fleet.micro_batch = 0 : i64, fleet.template = [[SLICE:[0-9]+]] : i64}
// CHECK-NEXT: %[[C0:.+]] = tensor.collapse_shape %[[X0]] {{.*}} : tensor<2x4x16xf32> into tensor<8x16xf32>
// CHECK: %[[M0:.+]] = linalg.matmul {fleet.micro_batch = 0 : i64, fleet.template = [[MM:[0-9]+]] : i64} ins(%[[C0]], %[[WT]] : tensor<8x16xf32>, tensor<16x16xf32>)
// CHECK: %[[R0:.+]] = linalg.generic {{.*}} ins(%[[M0]] : tensor<8x16xf32>)
// CHECK: %[[Y0:.+]] = tensor.expand_shape %[[R0]] {{.*}} output_shape [2, 4, 16] {{.*}}: tensor<8x16xf32> into tensor<2x4x16xf32>
// CHECK-NEXT: %[[X1:.+]] = tensor.extract_slice %[[X]][2, 0, 0] [2, 4, 16] [1, 1, 1] {fleet.micro_batch = 1 : i64, fleet.template = [[SLICE]] : i64}
// CHECK-NEXT: tensor.collapse_shape %[[X1]]
// CHECK: linalg.matmul {fleet.micro_batch = 1 : i64, fleet.template = [[MM]] : i64}
// CHECK: tensor.extract_slice %[[X]][4, 0, 0]
// CHECK: tensor.extract_slice %[[X]][6, 0, 0]
// CHECK: tensor.expand_shape {{.*}} into tensor<2x4x16xf32>
// CHECK: %[[Y:.+]] = tensor.concat dim(0) %[[Y0]], %{{.+}}, %{{.+}}, %{{[a-z_0-9]+}} {{.*}}: (tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<8x4x16xf32>
// CHECK: hal.tensor.export %[[Y]] "y"

// -----

// One empty tensor feeds the weight's transpose and the batched ops' inits
// (CSE shares them): each micro-batch builds its own init, the transpose
// stays once before the micro-batches. A result behind a coarse-fence
// barrier is concatenated before the barrier. Another public function
// whose input has no batch to split (3 rows) is left whole.
#map = affine_map<(i, j) -> (i, j)>
module {
  // CHECK-LABEL: util.func public @init
  // CHECK-NOT: fleet.micro_batch
  util.func public @init(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<3xf32>
    %y = arith.addf %x, %x : tensor<3xf32>
    %out = hal.tensor.export %y "y" : tensor<3xf32> -> !hal.buffer_view
    util.return %out : !hal.buffer_view
  }
  // CHECK-LABEL: util.func public @shared
  util.func public @shared(%arg0: !hal.buffer_view, %sf: !hal.fence) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<8x8xf32>
    %zero = arith.constant 0.0 : f32
    %c = arith.constant dense<1.0> : tensor<8x8xf32>
    %e = tensor.empty() : tensor<8x8xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.addf %v, %v : f32
      linalg.yield %s : f32
    } -> tensor<8x8xf32>
    %wt = linalg.transpose ins(%c : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m = linalg.matmul ins(%r, %wt : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
    %y = hal.tensor.barrier join(%m : tensor<8x8xf32>) => %sf : !hal.fence
    %out = hal.tensor.export %y "y" : tensor<8x8xf32> -> !hal.buffer_view
    util.return %out : !hal.buffer_view
  }
}
// CHECK: %[[X:.+]] = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<8x8xf32>
// CHECK: %[[E:.+]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT: %[[WT:.+]] = linalg.transpose {{.*}}outs(%[[E]] : tensor<8x8xf32>)
// CHECK-NEXT: tensor.extract_slice %[[X]][0, 0] [2, 8]
// CHECK-NEXT: %[[E0:.+]] = tensor.empty() {fleet.micro_batch = 0 : i64} : tensor<2x8xf32>
// CHECK-NEXT: %[[R0:.+]] = linalg.generic {{.*}} outs(%[[E0]] : tensor<2x8xf32>)
// CHECK: %[[F0:.+]] = linalg.fill {{.*}} outs(%[[E0]] : tensor<2x8xf32>)
// CHECK-NEXT: %[[M0:.+]] = linalg.matmul {{.*}} ins(%[[R0]], %[[WT]] : tensor<2x8xf32>, tensor<8x8xf32>) outs(%[[F0]] : tensor<2x8xf32>)
// CHECK: tensor.empty() {fleet.micro_batch = 3 : i64} : tensor<2x8xf32>
// CHECK: %[[Y:.+]] = tensor.concat dim(0) %[[M0]], {{.*}} -> tensor<8x8xf32>
// CHECK-NEXT: %[[B:.+]] = hal.tensor.barrier join(%[[Y]] : tensor<8x8xf32>)
// CHECK-NEXT: hal.tensor.export %[[B]] "y"
// CHECK-NOT: tensor.empty() : tensor<8x8xf32>
