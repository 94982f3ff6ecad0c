// RUN: fleet-opt %s --split-input-file --flow-data-tiling | FileCheck %s
// RUN: fleet-opt %s --split-input-file --flow-data-tiling=enabled=false | FileCheck %s --check-prefix=OFF

// A constant weight (N = 33 >= 32) is packed at compile time into a new
// global: 33 columns padded to 2 x 32, zeros after the 33rd; the unpacked
// global, now unread, is gone. A (3 rows) is packed at run time (padded to
// 8 rows, a pad-like pack: pad + insert_slice).
// CHECK-LABEL: util.global private @w__packed = dense_resource<w__packed> : tensor<2x1x32x1xf32>
// CHECK-NOT: util.global private @w =
// CHECK-LABEL: util.func public @constant_weight
// CHECK: %[[A:.+]] = tensor.pad %arg0 low[0, 0] high[5, 0]
// CHECK: %[[A4:.+]] = tensor.insert_slice %[[A]]
// CHECK: %[[B4:.+]] = util.global.load immutable @w__packed : tensor<2x1x32x1xf32>
// CHECK: %[[C4:.+]] = linalg.fill {{.+}} -> tensor<1x2x8x32xf32>
// CHECK: %[[M:.+]] = linalg.mmt4d ins(%[[A4]], %[[B4]] : tensor<1x1x8x1xf32>, tensor<2x1x32x1xf32>) outs(%[[C4]] : tensor<1x2x8x32xf32>)
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[M]] : tensor<1x2x8x32xf32>) {{.+}} permutation = [0, 2, 1, 3]
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[T]] {{.+}} into tensor<8x64xf32>
// CHECK: %[[R:.+]] = tensor.extract_slice %[[F]][0, 0] [3, 33] [1, 1]
// CHECK-NOT: linalg.copy
// CHECK: util.return %[[R]]
// The packed bytes: 1.0 ... 33.0 (0x3F800000 ... 0x42040000), then zeros.
// CHECK: w__packed: "0x040000000000803F000000400000404000008040{{.+}}0000F84100000042000004420000000000000000
// OFF-LABEL: util.func public @constant_weight
// OFF: linalg.matmul
// OFF-NOT: linalg.mmt4d
util.global private @w = dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0]]> : tensor<1x33xf32>
util.func public @constant_weight(%a: tensor<3x1xf32>) -> tensor<3x33xf32> {
  %zero = arith.constant 0.0 : f32
  %w = util.global.load @w : tensor<1x33xf32>
  %e = tensor.empty() : tensor<3x33xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x33xf32>) -> tensor<3x33xf32>
  %m = linalg.matmul ins(%a, %w : tensor<3x1xf32>, tensor<1x33xf32>) outs(%f : tensor<3x33xf32>) -> tensor<3x33xf32>
  util.return %m : tensor<3x33xf32>
}

// -----

// A constant A (an NCHW convolution's filter: F = 9 >= 8 rows) with a
// runtime B of N = 33 >= 32 columns: A is packed at compile time (9 rows
// padded to 2 x 8, zeros after the 9th), B at run time.
// CHECK-LABEL: util.global private @filter__packed = dense_resource<filter__packed> : tensor<2x1x8x1xf32>
// CHECK-NOT: util.global private @filter =
// CHECK-LABEL: util.func public @constant_lhs
// CHECK: %[[A4:.+]] = util.global.load immutable @filter__packed : tensor<2x1x8x1xf32>
// CHECK: linalg.mmt4d ins(%[[A4]], %{{.+}} : tensor<2x1x8x1xf32>, tensor<2x1x32x1xf32>)
// The packed bytes: 1.0 ... 9.0 (0x3F800000 ... 0x41100000), then zeros.
// CHECK: filter__packed: "0x040000000000803F00000040{{.+}}0000104100000000
// OFF-LABEL: util.func public @constant_lhs
// OFF-NOT: linalg.mmt4d
util.global private @filter = dense<[[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0], [8.0], [9.0]]> : tensor<9x1xf32>
util.func public @constant_lhs(%b: tensor<1x33xf32>) -> tensor<9x33xf32> {
  %zero = arith.constant 0.0 : f32
  %a = util.global.load @filter : tensor<9x1xf32>
  %e = tensor.empty() : tensor<9x33xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<9x33xf32>) -> tensor<9x33xf32>
  %m = linalg.matmul ins(%a, %b : tensor<9x1xf32>, tensor<1x33xf32>) outs(%f : tensor<9x33xf32>) -> tensor<9x33xf32>
  util.return %m : tensor<9x33xf32>
}

// -----

// Runtime operands, B larger than 1 MiB (1024 x 512 f32 = 2 MiB), M >= 64:
// both packed by transposes at run time (A [64,1024] -> [8,1024,8,1],
// B [1024,512] -> [16,1024,32,1]), the result unpacked by one.
// CHECK-LABEL: util.func public @runtime_large
// CHECK: %[[AE:.+]] = tensor.expand_shape %{{.+}} {{.+}} output_shape [8, 8, 1024, 1]
// CHECK: %[[A4:.+]] = linalg.transpose ins(%[[AE]] : tensor<8x8x1024x1xf32>) {{.+}} permutation = [0, 2, 1, 3]
// CHECK: %[[BE:.+]] = tensor.expand_shape %{{.+}} {{.+}} output_shape [1024, 1, 16, 32]
// CHECK: %[[B4:.+]] = linalg.transpose ins(%[[BE]] : tensor<1024x1x16x32xf32>) {{.+}} permutation = [2, 0, 3, 1]
// CHECK: linalg.mmt4d ins(%[[A4]], %[[B4]] : tensor<8x1024x8x1xf32>, tensor<16x1024x32x1xf32>)
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape {{.+}} into tensor<64x512xf32>
util.func public @runtime_large(%a: tensor<64x1024xf32>, %b: tensor<1024x512xf32>) -> tensor<64x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x1024xf32>, tensor<1024x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  util.return %m : tensor<64x512xf32>
}

// -----

// C is a fill of an empty tensor moved to the matmul's device (the second
// half of a tensor-parallel matmul): the fill is made anew on a packed
// empty tensor, no pack of C, and nothing of C moves.
// CHECK-LABEL: util.func public @moved_empty_init
// CHECK-NOT: output_shape [8, 8, 16, 32]
// CHECK: %[[E4:.+]] = tensor.empty() : tensor<8x16x8x32xf32>
// CHECK-NEXT: %[[C4:.+]] = linalg.fill {{.+}} outs(%[[E4]] : tensor<8x16x8x32xf32>)
// CHECK-NEXT: linalg.mmt4d {{.+}} outs(%[[C4]] : tensor<8x16x8x32xf32>)
util.func public @moved_empty_init(%a: tensor<64x1024xf32>, %b: tensor<1024x512xf32>) -> tensor<64x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %eb = flow.tensor.transfer %e : tensor<64x512xf32> to #hal.device.affinity<@device_b>
  %f = linalg.fill ins(%zero : f32) outs(%eb : tensor<64x512xf32>) -> tensor<64x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x1024xf32>, tensor<1024x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
  util.return %m : tensor<64x512xf32>
}

// -----

// An NCHW convolution computed transposed (preprocessing-convert-conv2d-
// to-img2col): its per-channel bias init is broadcast straight into the
// packed layout (bias[n1 * 32 + n0]; no pack of C), and the product, only
// transposed back, is unpacked by one transpose into [N, M] (no unpack).
// CHECK-LABEL: util.func public @transposed_back
// CHECK: %[[BIAS:.+]] = tensor.expand_shape %arg1 {{\[}}[0, 1]] output_shape [1, 32] : tensor<32xf32> into tensor<1x32xf32>
// CHECK: %[[C4:.+]] = linalg.broadcast ins(%[[BIAS]] : tensor<1x32xf32>) outs(%{{.+}} : tensor<2x1x8x32xf32>) dimensions = [0, 2]
// CHECK: %[[M:.+]] = linalg.mmt4d {{.+}} outs(%[[C4]] : tensor<2x1x8x32xf32>)
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[M]] : tensor<2x1x8x32xf32>) outs(%{{.+}} : tensor<1x32x2x8xf32>) permutation = [1, 3, 0, 2]
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[T]] {{\[}}[0, 1], [2, 3]] : tensor<1x32x2x8xf32> into tensor<32x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: util.return %[[R]]
util.global private @wt = dense<1.0> : tensor<72x32xf32>
util.func public @transposed_back(%a: tensor<16x72xf32>, %b: tensor<32xf32>) -> tensor<32x16xf32> {
  %w = util.global.load @wt : tensor<72x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %i = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<16x32xf32>) dimensions = [0]
  %m = linalg.matmul ins(%a, %w : tensor<16x72xf32>, tensor<72x32xf32>) outs(%i : tensor<16x32xf32>) -> tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<32x16xf32>
  %t = linalg.transpose ins(%m : tensor<16x32xf32>) outs(%e2 : tensor<32x16xf32>) permutation = [1, 0]
  util.return %t : tensor<32x16xf32>
}

// -----

// The same product, placed and also returned: the bias broadcast runs where
// the matmul does, and with a second use the product is unpacked as usual
// before the transpose back.
// CHECK-LABEL: util.func public @transposed_and_used
// CHECK: linalg.broadcast ins(%{{.+}} : tensor<1x32xf32>) outs(%{{.+}} : tensor<2x1x8x32xf32>) dimensions = [0, 2]  {stream.affinity = #hal.device.affinity<@device_b>}
// CHECK: %[[M:.+]] = linalg.mmt4d
// CHECK: %[[U:.+]] = linalg.transpose ins(%[[M]] : tensor<2x1x8x32xf32>) outs(%{{.+}} : tensor<2x8x1x32xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.transpose ins(%{{.+}} : tensor<16x32xf32>) outs(%{{.+}} : tensor<32x16xf32>) permutation = [1, 0]
util.global private @wt2 = dense<1.0> : tensor<72x32xf32>
util.func public @transposed_and_used(%a: tensor<16x72xf32>, %b: tensor<32xf32>) -> (tensor<32x16xf32>, tensor<16x32xf32>) {
  %w = util.global.load @wt2 : tensor<72x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %i = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<16x32xf32>) dimensions = [0]
  %m = linalg.matmul {stream.affinity = #hal.device.affinity<@device_b>} ins(%a, %w : tensor<16x72xf32>, tensor<72x32xf32>) outs(%i : tensor<16x32xf32>) -> tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<32x16xf32>
  %t = linalg.transpose ins(%m : tensor<16x32xf32>) outs(%e2 : tensor<32x16xf32>) permutation = [1, 0]
  util.return %t, %m : tensor<32x16xf32>, tensor<16x32xf32>
}

// -----

// Runtime operands that fit L2 (B = 512 x 512 f32 = 1 MiB), a skinny M and
// a non-f32 matmul stay unpacked: packing would cost more than it saves.
// CHECK-LABEL: util.func public @stays
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: linalg.mmt4d
util.func public @stays(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %s: tensor<8x4096xf32>, %t: tensor<4096x4096xf32>, %h: tensor<64x64xf16>) -> (tensor<512x512xf32>, tensor<8x4096xf32>, tensor<64x64xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  %e2 = tensor.empty() : tensor<8x4096xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %m2 = linalg.matmul ins(%s, %t : tensor<8x4096xf32>, tensor<4096x4096xf32>) outs(%f2 : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %zh = arith.constant 0.0 : f16
  %e3 = tensor.empty() : tensor<64x64xf16>
  %f3 = linalg.fill ins(%zh : f16) outs(%e3 : tensor<64x64xf16>) -> tensor<64x64xf16>
  %m3 = linalg.matmul ins(%h, %h : tensor<64x64xf16>, tensor<64x64xf16>) outs(%f3 : tensor<64x64xf16>) -> tensor<64x64xf16>
  util.return %m, %m2, %m3 : tensor<512x512xf32>, tensor<8x4096xf32>, tensor<64x64xf16>
}

// -----

// Q K^T: B read transposed ([b, n, k]) becomes one transpose to [b, k, n]
// and a batch_matmul with the default maps.
// CHECK-LABEL: util.func public @qk
// CHECK: %[[T:.+]] = linalg.transpose ins(%arg1 : tensor<2x16x8xf32>) outs(%{{.+}} : tensor<2x8x16xf32>) permutation = [0, 2, 1]
// CHECK: linalg.batch_matmul ins(%arg0, %[[T]] : tensor<2x16x8xf32>, tensor<2x8x16xf32>)
// CHECK-NOT: indexing_maps
util.func public @qk(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>) -> tensor<2x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%q, %k : tensor<2x16x8xf32>, tensor<2x16x8xf32>) outs(%f : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  util.return %s : tensor<2x16x16xf32>
}

// -----

// A convolution's window copy (preprocessing-convert-conv2d-to-img2col) as
// A, 14 x 14 outputs: 7 divides the width, so the copy itself writes A
// packed in 7-row tiles, w = 7 * whi + wlo, with no padding and no pack of
// A left. The copy's innermost loop is wlo (A's unit dimension is a view).
// CHECK: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (0, d0 + d2, d1 * 7 + d5 + d3, d4)>
// CHECK-LABEL: util.func public @window_copy
// CHECK-NOT: tensor.pad
// CHECK: %[[E:.+]] = tensor.empty() : tensor<14x2x3x3x128x7xf32>
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[IN]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x16x16x128xf32>) outs(%[[E]] : tensor<14x2x3x3x128x7xf32>)
// CHECK: %[[A3:.+]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1], [2, 3, 4], [5]] : tensor<14x2x3x3x128x7xf32> into tensor<28x1152x7xf32>
// CHECK: %[[A4:.+]] = tensor.expand_shape %[[A3]] {{\[\[}}0], [1], [2, 3]] output_shape [28, 1152, 7, 1] : tensor<28x1152x7xf32> into tensor<28x1152x7x1xf32>
// B's pad adds nothing (256 = 8 x 32); A has none.
// CHECK-NOT: tensor.pad
// CHECK: tensor.pad %arg1 low[0, 0] high[0, 0]
// CHECK-NOT: tensor.pad
// CHECK: %[[M:.+]] = linalg.mmt4d ins(%[[A4]], %{{.+}} : tensor<28x1152x7x1xf32>, tensor<8x1152x32x1xf32>) outs(%{{.+}} : tensor<28x8x7x32xf32>)
// CHECK: util.return
// OFF-LABEL: util.func public @window_copy
// OFF-NOT: linalg.mmt4d
#window = affine_map<(d0, d1, d2, d3, d4) -> (0, d0 + d2, d1 + d3, d4)>
#identity = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
util.func public @window_copy(%x: tensor<1x16x16x128xf32>, %w: tensor<1152x256xf32>) -> tensor<196x256xf32> {
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<14x14x3x3x128xf32>
  %col = linalg.generic {indexing_maps = [#window, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x16x16x128xf32>) outs(%ce : tensor<14x14x3x3x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<14x14x3x3x128xf32>
  %a = tensor.collapse_shape %col [[0, 1], [2, 3, 4]] : tensor<14x14x3x3x128xf32> into tensor<196x1152xf32>
  %e = tensor.empty() : tensor<196x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<196x256xf32>) -> tensor<196x256xf32>
  %m = linalg.matmul ins(%a, %w : tensor<196x1152xf32>, tensor<1152x256xf32>) outs(%f : tensor<196x256xf32>) -> tensor<196x256xf32>
  util.return %m : tensor<196x256xf32>
}

// -----

// A transpose of a constant (ONNX Gemm's transB: a 2 x 3 weight read as
// 3 x 2) folds into a constant global, `@wt__transposed`, and the unread
// original is gone; a matmul with too few columns to pack (N = 2) reads
// it unpacked. Its bytes: [[1, 2, 3], [4, 5, 6]] transposed is
// 1, 4, 2, 5, 3, 6 (0x3F800000, 0x40800000, 0x40000000, 0x40A00000,
// 0x40400000, 0x40C00000). With the pass off the transpose stays.
// CHECK-NOT: util.global private @wt =
// CHECK: util.global private @wt__transposed = dense_resource<wt__transposed> : tensor<3x2xf32>
// CHECK-NOT: util.global private @wt =
// CHECK-LABEL: util.func public @transposed_weight
// CHECK-NOT: linalg.transpose
// CHECK: %[[W:.+]] = util.global.load immutable @wt__transposed : tensor<3x2xf32>
// CHECK: linalg.matmul ins(%arg0, %[[W]] : tensor<4x3xf32>, tensor<3x2xf32>)
// CHECK: wt__transposed: "0x040000000000803F00008040000000400000A040000040400000C040"
// OFF-LABEL: util.func public @transposed_weight
// OFF: linalg.transpose
util.global private @wt = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
util.func public @transposed_weight(%a: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %w = util.global.load @wt : tensor<2x3xf32>
  %te = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%te : tensor<3x2xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<4x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %m = linalg.matmul ins(%a, %t : tensor<4x3xf32>, tensor<3x2xf32>) outs(%f : tensor<4x2xf32>) -> tensor<4x2xf32>
  util.return %m : tensor<4x2xf32>
}

// -----

// Two transposes of one weight (as in a matmul's micro-batch copies) share
// one transposed global.
// CHECK-NOT: util.global
// CHECK: util.global private @wt2__transposed = dense_resource<wt2__transposed> : tensor<3x2xf32>
// CHECK-NOT: util.global
// CHECK-LABEL: util.func public @transposed_twice
// CHECK-COUNT-2: util.global.load immutable @wt2__transposed :
// CHECK-NOT: linalg.transpose
// CHECK: util.return
util.global private @wt2 = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
util.func public @transposed_twice() -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = util.global.load @wt2 : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t0 = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %t1 = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  util.return %t0, %t1 : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// A rank-3 permutation [1, 2, 0] of a weight read through a reshape (2 x 6
// as 2 x 3 x 2): result[j][k][i] = w[i][j][k], so the bytes are w's
// elements 1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12.
// CHECK-NOT: util.global private @w3 =
// CHECK: util.global private @w3__transposed = dense_resource<w3__transposed> : tensor<3x2x2xf32>
// CHECK-LABEL: util.func public @transposed_rank3
// CHECK: util.global.load immutable @w3__transposed : tensor<3x2x2xf32>
// CHECK-NOT: linalg.transpose
// CHECK: w3__transposed: "0x040000000000803F0000E0400000004000000041000040400000104100008040000020410000A040000030410000C04000004041"
util.global private @w3 = dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0]]> : tensor<2x6xf32>
util.func public @transposed_rank3() -> tensor<3x2x2xf32> {
  %w = util.global.load @w3 : tensor<2x6xf32>
  %r = tensor.expand_shape %w [[0], [1, 2]] output_shape [2, 3, 2] : tensor<2x6xf32> into tensor<2x3x2xf32>
  %e = tensor.empty() : tensor<3x2x2xf32>
  %t = linalg.transpose ins(%r : tensor<2x3x2xf32>) outs(%e : tensor<3x2x2xf32>) permutation = [1, 2, 0]
  util.return %t : tensor<3x2x2xf32>
}
