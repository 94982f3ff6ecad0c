// RUN: fleet-opt %s --split-input-file '--codegen-configure-workgroups=target-cpu=skylake-avx512 cache-sizes=32K,1M' | FileCheck %s
// Configured twice = configured once (functions carrying fleet.codegen are left alone).
// RUN: fleet-opt %s --split-input-file '--codegen-configure-workgroups=target-cpu=skylake-avx512 cache-sizes=32K,1M' '--codegen-configure-workgroups=target-cpu=skylake-avx512 cache-sizes=32K,1M' | FileCheck %s

// Matmul (512x256) * (256x384): 64x128 tiles of (M, N), so x = 384/128 = 3
// N tiles and y = 512/64 = 8 M tiles. The body computes its tile: slices of
// A and B, the fill fused into the tile, the result written to its slice of
// the result binding.
// CHECK-LABEL: stream.executable private @matmul
// CHECK: stream.executable.export public @matmul workgroups() -> (index, index, index) {
// CHECK-DAG:   %[[X:.+]] = arith.constant 3 : index
// CHECK-DAG:   %[[Y:.+]] = arith.constant 8 : index
// CHECK-DAG:   %[[Z:.+]] = arith.constant 1 : index
// CHECK:       stream.return %[[X]], %[[Y]], %[[Z]] : index, index, index
// CHECK: func.func @matmul({{.*}}) attributes {fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 64, 128, 0>}}
// CHECK-DAG: %[[ID_X:.+]] = stream.dispatch.workgroup.id[0] : index
// CHECK-DAG: %[[ID_Y:.+]] = stream.dispatch.workgroup.id[1] : index
// CHECK-DAG: %[[ROW:.+]] = arith.muli %[[ID_Y]], %{{.+}} : index
// CHECK-DAG: %[[COL:.+]] = arith.muli %[[ID_X]], %{{.+}} : index
// CHECK-DAG: %[[A:.+]] = tensor.extract_slice %{{.+}}[%[[ROW]], 0] [64, 256] [1, 1] : tensor<512x256xf32> to tensor<64x256xf32>
// CHECK-DAG: %[[B:.+]] = tensor.extract_slice %{{.+}}[0, %[[COL]]] [256, 128] [1, 1] : tensor<256x384xf32> to tensor<256x128xf32>
// CHECK: %[[FILL:.+]] = linalg.fill {{.*}} -> tensor<64x128xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[FILL]] : tensor<64x128xf32>)
// CHECK: %[[OUT:.+]] = memref.subview %{{.+}}[%[[ROW]], %[[COL]]] [64, 128] [1, 1] : memref<512x384xf32> to memref<64x128xf32, strided<[384, 1], offset: ?>>
// CHECK: bufferization.materialize_in_destination %[[MM]] in restrict writable %[[OUT]]
// CHECK-NOT: linalg.matmul
stream.executable private @matmul {
  stream.executable.export public @matmul workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @matmul(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<512x256xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<256x384xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<512x384xf32>
      %a = bufferization.to_tensor %0 restrict : memref<512x256xf32> to tensor<512x256xf32>
      %b = bufferization.to_tensor %1 restrict : memref<256x384xf32> to tensor<256x384xf32>
      %e = tensor.empty() : tensor<512x384xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<512x384xf32>) -> tensor<512x384xf32>
      %m = linalg.matmul ins(%a, %b : tensor<512x256xf32>, tensor<256x384xf32>) outs(%f : tensor<512x384xf32>) -> tensor<512x384xf32>
      bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<512x384xf32>, memref<512x384xf32>) -> ()
      return
    }
  }
}

// -----

// Matmul with a bias + relu epilogue: the epilogue is the root, the matmul
// and its fill are fused into its tile. M = 100 is no multiple of 64: the
// last row of workgroups gets a partial tile (affine.min).
// N = 96 fits one tile, so M tiles are the only distributed loop (x).
// CHECK-LABEL: stream.executable private @matmul_bias_relu
// CHECK-DAG:   %[[X:.+]] = arith.constant 2 : index
// CHECK-DAG:   %[[ONE:.+]] = arith.constant 1 : index
// CHECK:       stream.return %[[X]], %[[ONE]], %[[ONE]] : index, index, index
// CHECK: fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 64, 0>}
// CHECK: %[[ID_X:.+]] = stream.dispatch.workgroup.id[0] : index
// CHECK: %[[ROW:.+]] = arith.muli %[[ID_X]]
// CHECK: %[[ROWS:.+]] = affine.min #{{.+}}(%[[ROW]])
// CHECK: linalg.matmul {{.*}} -> tensor<?x96xf32>
// CHECK: %[[EPILOGUE:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<?x96xf32>, tensor<96xf32>)
// CHECK: %[[OUT:.+]] = memref.subview %{{.+}}[%[[ROW]], 0] [%[[ROWS]], 96] [1, 1]
// CHECK: bufferization.materialize_in_destination %[[EPILOGUE]] in restrict writable %[[OUT]]
stream.executable private @matmul_bias_relu {
  stream.executable.export public @matmul_bias_relu workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @matmul_bias_relu(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding, %arg3: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<100x32xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<32x96xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<96xf32>
      %3 = stream.binding.subspan %arg3[%c0] : !stream.binding -> memref<100x96xf32>
      %a = bufferization.to_tensor %0 restrict : memref<100x32xf32> to tensor<100x32xf32>
      %b = bufferization.to_tensor %1 restrict : memref<32x96xf32> to tensor<32x96xf32>
      %bias = bufferization.to_tensor %2 restrict : memref<96xf32> to tensor<96xf32>
      %e = tensor.empty() : tensor<100x96xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<100x96xf32>) -> tensor<100x96xf32>
      %m = linalg.matmul ins(%a, %b : tensor<100x32xf32>, tensor<32x96xf32>) outs(%f : tensor<100x96xf32>) -> tensor<100x96xf32>
      %e2 = tensor.empty() : tensor<100x96xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<100x96xf32>, tensor<96xf32>) outs(%e2 : tensor<100x96xf32>) {
      ^bb0(%x: f32, %y: f32, %out: f32):
        %s = arith.addf %x, %y : f32
        %v = arith.maximumf %s, %cst : f32
        linalg.yield %v : f32
      } -> tensor<100x96xf32>
      bufferization.materialize_in_destination %r in restrict writable %3 : (tensor<100x96xf32>, memref<100x96xf32>) -> ()
      return
    }
  }
}

// -----

// Elementwise over 200003 elements: 65536 per workgroup, 4 workgroups, the
// last one partial.
// CHECK-LABEL: stream.executable private @elementwise
// CHECK-DAG:   %[[X:.+]] = arith.constant 4 : index
// CHECK-DAG:   %[[ONE:.+]] = arith.constant 1 : index
// CHECK:       stream.return %[[X]], %[[ONE]], %[[ONE]] : index, index, index
// CHECK: fleet.codegen = {kind = "elementwise", workgroup_tiles = array<i64: 65536>}
// CHECK: %[[ID:.+]] = stream.dispatch.workgroup.id[0] : index
// CHECK: %[[OFFSET:.+]] = arith.muli %[[ID]]
// CHECK: %[[SIZE:.+]] = affine.min #{{.+}}(%[[OFFSET]])
// CHECK: tensor.extract_slice %{{.+}}[%[[OFFSET]]] [%[[SIZE]]] [1] : tensor<200003xf32> to tensor<?xf32>
// CHECK: math.absf
// CHECK: memref.subview %{{.+}}[%[[OFFSET]]] [%[[SIZE]]] [1] : memref<200003xf32> to memref<?xf32, strided<[1], offset: ?>>
stream.executable private @elementwise {
  stream.executable.export public @elementwise workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @elementwise(%arg0: !stream.binding, %arg1: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<200003xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<200003xf32>
      %2 = bufferization.to_tensor %0 restrict : memref<200003xf32> to tensor<200003xf32>
      %3 = tensor.empty() : tensor<200003xf32>
      %4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : tensor<200003xf32>) outs(%3 : tensor<200003xf32>) {
      ^bb0(%in: f32, %out: f32):
        %5 = math.absf %in : f32
        linalg.yield %5 : f32
      } -> tensor<200003xf32>
      bufferization.materialize_in_destination %4 in restrict writable %1 : (tensor<200003xf32>, memref<200003xf32>) -> ()
      return
    }
  }
}

// -----

// A tiny dispatch stays one workgroup: no workgroup ids, the grid 1x1x1.
// CHECK-LABEL: stream.executable private @tiny
// CHECK:       %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT:  stream.return %[[ONE]], %[[ONE]], %[[ONE]] : index, index, index
// CHECK: fleet.codegen = {kind = "elementwise", workgroup_tiles = array<i64>}
// CHECK-NOT: stream.dispatch.workgroup.id
// CHECK: bufferization.materialize_in_destination %{{.+}} in restrict writable %{{.+}} : (tensor<1x1xf32>, memref<1x1xf32>)
stream.executable private @tiny {
  stream.executable.export public @tiny workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @tiny(%arg0: !stream.binding, %arg1: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<1x1xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<1x1xf32>
      %2 = bufferization.to_tensor %0 restrict : memref<1x1xf32> to tensor<1x1xf32>
      %3 = tensor.empty() : tensor<1x1xf32>
      %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<1x1xf32>) outs(%3 : tensor<1x1xf32>) {
      ^bb0(%in: f32, %out: f32):
        %5 = math.absf %in : f32
        linalg.yield %5 : f32
      } -> tensor<1x1xf32>
      bufferization.materialize_in_destination %4 in restrict writable %1 : (tensor<1x1xf32>, memref<1x1xf32>) -> ()
      return
    }
  }
}

// -----

// Row sums of 1000x300: whole rows per workgroup (65536 / 300 = 218 rows),
// 5 workgroups; the reduction loop is never split.
// CHECK-LABEL: stream.executable private @row_sum
// CHECK-DAG:   %[[X:.+]] = arith.constant 5 : index
// CHECK-DAG:   %[[ONE:.+]] = arith.constant 1 : index
// CHECK:       stream.return %[[X]], %[[ONE]], %[[ONE]] : index, index, index
// CHECK: fleet.codegen = {kind = "reduction", workgroup_tiles = array<i64: 218, 0>}
// CHECK: tensor.extract_slice %{{.+}}[%{{.+}}, 0] [%{{.+}}, 300] [1, 1] : tensor<1000x300xf32> to tensor<?x300xf32>
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
stream.executable private @row_sum {
  stream.executable.export public @row_sum workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @row_sum(%arg0: !stream.binding, %arg1: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<1000x300xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<1000xf32>
      %2 = bufferization.to_tensor %0 restrict : memref<1000x300xf32> to tensor<1000x300xf32>
      %3 = tensor.empty() : tensor<1000xf32>
      %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1000xf32>) -> tensor<1000xf32>
      %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<1000x300xf32>) outs(%4 : tensor<1000xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %6 = arith.addf %in, %acc : f32
        linalg.yield %6 : f32
      } -> tensor<1000xf32>
      bufferization.materialize_in_destination %5 in restrict writable %1 : (tensor<1000xf32>, memref<1000xf32>) -> ()
      return
    }
  }
}

// -----

// Batch matmul 4x128x256x64: batch tiles of 1 (z), 64x128 (y, x).
// CHECK-LABEL: stream.executable private @batch_matmul
// CHECK-DAG:   %[[X:.+]] = arith.constant 2 : index
// CHECK-DAG:   %[[Z:.+]] = arith.constant 4 : index
// CHECK:       stream.return %[[X]], %[[X]], %[[Z]] : index, index, index
// CHECK: fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 1, 64, 128, 0>}
// CHECK-DAG: stream.dispatch.workgroup.id[0]
// CHECK-DAG: stream.dispatch.workgroup.id[1]
// CHECK-DAG: stream.dispatch.workgroup.id[2]
// CHECK: linalg.batch_matmul {{.*}} -> tensor<1x64x128xf32>
stream.executable private @batch_matmul {
  stream.executable.export public @batch_matmul workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @batch_matmul(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<4x128x64xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4x64x256xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<4x128x256xf32>
      %a = bufferization.to_tensor %0 restrict : memref<4x128x64xf32> to tensor<4x128x64xf32>
      %b = bufferization.to_tensor %1 restrict : memref<4x64x256xf32> to tensor<4x64x256xf32>
      %e = tensor.empty() : tensor<4x128x256xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
      %m = linalg.batch_matmul ins(%a, %b : tensor<4x128x64xf32>, tensor<4x64x256xf32>) outs(%f : tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
      bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<4x128x256xf32>, memref<4x128x256xf32>) -> ()
      return
    }
  }
}

// -----

// More distributed loops than grid dimensions: the outer ones share z
// (affine.delinearize_index over their tile counts).
// CHECK-LABEL: stream.executable private @rank6
// CHECK-DAG:   %[[X:.+]] = arith.constant 3 : index
// CHECK-DAG:   %[[Y:.+]] = arith.constant 2 : index
// CHECK-DAG:   %[[Z:.+]] = arith.constant 4 : index
// CHECK:       stream.return %[[X]], %[[Y]], %[[Z]] : index, index, index
// CHECK: fleet.codegen = {kind = "elementwise", workgroup_tiles = array<i64: 1, 1, 1, 1, 0, 0>}
// CHECK: %[[Z_ID:.+]] = stream.dispatch.workgroup.id[2] : index
// CHECK: affine.delinearize_index %[[Z_ID]] into (2, 2) : index, index
stream.executable private @rank6 {
  stream.executable.export public @rank6 workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @rank6(%arg0: !stream.binding, %arg1: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<2x2x2x3x64x1024xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<2x2x2x3x64x1024xf32>
      %2 = bufferization.to_tensor %0 restrict : memref<2x2x2x3x64x1024xf32> to tensor<2x2x2x3x64x1024xf32>
      %3 = tensor.empty() : tensor<2x2x2x3x64x1024xf32>
      %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<2x2x2x3x64x1024xf32>) outs(%3 : tensor<2x2x2x3x64x1024xf32>) {
      ^bb0(%in: f32, %out: f32):
        %5 = math.absf %in : f32
        linalg.yield %5 : f32
      } -> tensor<2x2x2x3x64x1024xf32>
      bufferization.materialize_in_destination %4 in restrict writable %1 : (tensor<2x2x2x3x64x1024xf32>, memref<2x2x2x3x64x1024xf32>) -> ()
      return
    }
  }
}

// -----

// Two results: no single root to tile, so one workgroup computes all.
// CHECK-LABEL: stream.executable private @two_results
// CHECK:       %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT:  stream.return %[[ONE]], %[[ONE]], %[[ONE]] : index, index, index
// CHECK: fleet.codegen = {kind = "generic", workgroup_tiles = array<i64>}
// CHECK-NOT: stream.dispatch.workgroup.id
stream.executable private @two_results {
  stream.executable.export public @two_results workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @two_results(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<8xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<8xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<8xf32>
      %3 = bufferization.to_tensor %0 restrict : memref<8xf32> to tensor<8xf32>
      bufferization.materialize_in_destination %3 in restrict writable %1 : (tensor<8xf32>, memref<8xf32>) -> ()
      bufferization.materialize_in_destination %3 in restrict writable %2 : (tensor<8xf32>, memref<8xf32>) -> ()
      return
    }
  }
}
