// RUN: fleet-opt %s --split-input-file '--codegen-configure-workgroups=target-cpu=haswell cache-sizes=32K,512K' | FileCheck %s
// RUN: fleet-opt %s --split-input-file '--codegen-configure-workgroups=target-cpu=skylake-avx512 cache-sizes=32K,1M' | FileCheck %s --check-prefix=AVX512

// A 16-register target with 512 KiB of L2 (Zen 3's; docs/kernels.md
// "Register tiles"). An unpacked 49 x 4608 x 512 matmul (a 3x3 convolution
// at 512 channels, 7 x 7 outputs): A is much shorter than B is wide, so
// each workgroup keeps all 49 rows (M not distributed) and B streams once.
// B is read in blocks ("B blocks"): B's panel (4608 rows of 1 KiB) does
// not fit half of L2; rows as long as leaves 2 workgroups (256 columns),
// as many as fill 128 KiB (128 of 1 KiB), so K = 4608 is walked in blocks
// of 128 steps, each tile prefetching the next block. Nine 6-row register
// tiles read each block: it is copied to a temporary first. With AVX-512
// (8-row tiles two lines wide) the tiles read B in place.
// CHECK-LABEL: stream.executable private @short_a
// CHECK: fleet.codegen = {copy_b_blocks, kind = "matmul", prefetch_b_blocks, reduction_block = 128 : i64, workgroup_tiles = array<i64: 0, 256, 0>}
// AVX512-LABEL: stream.executable private @short_a
// AVX512: fleet.codegen = {kind = "matmul", prefetch_b_blocks, reduction_block = 128 : i64, workgroup_tiles = array<i64: 0, 256, 0>}
stream.executable private @short_a {
  stream.executable.export public @short_a workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @short_a(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<49x4608xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4608x512xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<49x512xf32>
      %a = bufferization.to_tensor %0 restrict : memref<49x4608xf32> to tensor<49x4608xf32>
      %b = bufferization.to_tensor %1 restrict : memref<4608x512xf32> to tensor<4608x512xf32>
      %e = tensor.empty() : tensor<49x512xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<49x512xf32>) -> tensor<49x512xf32>
      %m = linalg.matmul ins(%a, %b : tensor<49x4608xf32>, tensor<4608x512xf32>) outs(%f : tensor<49x512xf32>) -> tensor<49x512xf32>
      bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<49x512xf32>, memref<49x512xf32>) -> ()
      return
    }
  }
}

// -----

// 8 rows, B's rows 16 KiB apart: blocks of 2048 columns (8 KiB rows) x 16
// rows (128 KiB), 2 workgroups; two 4-row register tiles read them in
// place.
// CHECK-LABEL: stream.executable private @eight_rows
// CHECK: fleet.codegen = {kind = "matmul", prefetch_b_blocks, reduction_block = 16 : i64, workgroup_tiles = array<i64: 0, 2048, 0>}
// AVX512-LABEL: stream.executable private @eight_rows
// AVX512: fleet.codegen = {kind = "matmul", prefetch_b_blocks, reduction_block = 16 : i64, workgroup_tiles = array<i64: 0, 2048, 0>}
stream.executable private @eight_rows {
  stream.executable.export public @eight_rows workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @eight_rows(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<8x4096xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4096x4096xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<8x4096xf32>
      %a = bufferization.to_tensor %0 restrict : memref<8x4096xf32> to tensor<8x4096xf32>
      %b = bufferization.to_tensor %1 restrict : memref<4096x4096xf32> to tensor<4096x4096xf32>
      %e = tensor.empty() : tensor<8x4096xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4096xf32>) -> tensor<8x4096xf32>
      %m = linalg.matmul ins(%a, %b : tensor<8x4096xf32>, tensor<4096x4096xf32>) outs(%f : tensor<8x4096xf32>) -> tensor<8x4096xf32>
      bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<8x4096xf32>, memref<8x4096xf32>) -> ()
      return
    }
  }
}

// -----

// One row: its register tile (1 x 64, 1 x 256 with AVX-512) reads B in
// place, in the blocks of @eight_rows.
// CHECK-LABEL: stream.executable private @one_row
// CHECK: fleet.codegen = {kind = "matmul", prefetch_b_blocks, reduction_block = 16 : i64, workgroup_tiles = array<i64: 0, 2048, 0>}
// AVX512-LABEL: stream.executable private @one_row
// AVX512: fleet.codegen = {kind = "matmul", prefetch_b_blocks, reduction_block = 16 : i64, workgroup_tiles = array<i64: 0, 2048, 0>}
stream.executable private @one_row {
  stream.executable.export public @one_row workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @one_row(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<1x4096xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4096x4096xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<1x4096xf32>
      %a = bufferization.to_tensor %0 restrict : memref<1x4096xf32> to tensor<1x4096xf32>
      %b = bufferization.to_tensor %1 restrict : memref<4096x4096xf32> to tensor<4096x4096xf32>
      %e = tensor.empty() : tensor<1x4096xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<1x4096xf32>) -> tensor<1x4096xf32>
      %m = linalg.matmul ins(%a, %b : tensor<1x4096xf32>, tensor<4096x4096xf32>) outs(%f : tensor<1x4096xf32>) -> tensor<1x4096xf32>
      bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<1x4096xf32>, memref<1x4096xf32>) -> ()
      return
    }
  }
}

// -----

// B transposed (N x K, Q K^T's form): a register tile's walk over K reads
// B's rows front to back already; no copy.
// CHECK-LABEL: stream.executable private @b_transposed
// CHECK-NOT: copy_b_blocks
// CHECK: fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 0, 16, 0>}
stream.executable private @b_transposed {
  stream.executable.export public @b_transposed workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @b_transposed(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<8x4096xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4096x4096xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<8x4096xf32>
      %a = bufferization.to_tensor %0 restrict : memref<8x4096xf32> to tensor<8x4096xf32>
      %b = bufferization.to_tensor %1 restrict : memref<4096x4096xf32> to tensor<4096x4096xf32>
      %e = tensor.empty() : tensor<8x4096xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4096xf32>) -> tensor<8x4096xf32>
      %m = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<8x4096xf32>, tensor<4096x4096xf32>) outs(%f : tensor<8x4096xf32>) -> tensor<8x4096xf32>
      bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<8x4096xf32>, memref<8x4096xf32>) -> ()
      return
    }
  }
}

// -----

// Packed 2048^3 (mmt4d, M0 x N0 = 6 x 16): 8 whole A panels (6 x 2048)
// would take 384 KiB, more than half of L2, so the reduction is walked in
// blocks of 256 and a workgroup takes as many A panel blocks as fill half
// of L2 (42; 38 divides the 342 panels) and 2 B panels.
// CHECK-LABEL: stream.executable private @packed
// CHECK: fleet.codegen = {kind = "matmul", reduction_block = 256 : i64, workgroup_tiles = array<i64: 38, 2, 0, 0, 0, 0>}
stream.executable private @packed {
  stream.executable.export public @packed workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @packed(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<342x2048x6x1xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<128x2048x16x1xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<342x128x6x16xf32>
      %a = bufferization.to_tensor %0 restrict : memref<342x2048x6x1xf32> to tensor<342x2048x6x1xf32>
      %b = bufferization.to_tensor %1 restrict : memref<128x2048x16x1xf32> to tensor<128x2048x16x1xf32>
      %e = tensor.empty() : tensor<342x128x6x16xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<342x128x6x16xf32>) -> tensor<342x128x6x16xf32>
      %m = linalg.mmt4d ins(%a, %b : tensor<342x2048x6x1xf32>, tensor<128x2048x16x1xf32>) outs(%f : tensor<342x128x6x16xf32>) -> tensor<342x128x6x16xf32>
      bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<342x128x6x16xf32>, memref<342x128x6x16xf32>) -> ()
      return
    }
  }
}

// -----

// @short_a with a bias + relu epilogue as the dispatch's root (docs/kernels.md
// "Epilogues"): the epilogue gets the product's configuration, its tiles
// on the epilogue's two loops (M, N), the reduction's dropped.
// CHECK-LABEL: stream.executable private @short_a_epilogue
// CHECK: fleet.codegen = {copy_b_blocks, kind = "matmul", prefetch_b_blocks, reduction_block = 128 : i64, workgroup_tiles = array<i64: 0, 256>}
stream.executable private @short_a_epilogue {
  stream.executable.export public @short_a_epilogue workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @short_a_epilogue(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding, %arg3: !stream.binding) {
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.0 : f32
      %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<49x4608xf32>
      %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4608x512xf32>
      %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<512xf32>
      %3 = stream.binding.subspan %arg3[%c0] : !stream.binding -> memref<49x512xf32>
      %a = bufferization.to_tensor %0 restrict : memref<49x4608xf32> to tensor<49x4608xf32>
      %b = bufferization.to_tensor %1 restrict : memref<4608x512xf32> to tensor<4608x512xf32>
      %bias = bufferization.to_tensor %2 restrict : memref<512xf32> to tensor<512xf32>
      %e = tensor.empty() : tensor<49x512xf32>
      %f = linalg.fill ins(%cst : f32) outs(%e : tensor<49x512xf32>) -> tensor<49x512xf32>
      %m = linalg.matmul ins(%a, %b : tensor<49x4608xf32>, tensor<4608x512xf32>) outs(%f : tensor<49x512xf32>) -> tensor<49x512xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<49x512xf32>, tensor<512xf32>) outs(%e : tensor<49x512xf32>) {
      ^bb0(%x: f32, %y: f32, %o: f32):
        %s = arith.addf %x, %y : f32
        %z = arith.maximumf %s, %cst : f32
        linalg.yield %z : f32
      } -> tensor<49x512xf32>
      bufferization.materialize_in_destination %r in restrict writable %3 : (tensor<49x512xf32>, memref<49x512xf32>) -> ()
      return
    }
  }
}
