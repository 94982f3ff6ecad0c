// RUN: fleet-opt %s --split-input-file --preprocessing-convert-conv2d-to-img2col | FileCheck %s

// A 3x3 stride-2 convolution: the window copy reads input row oh*2 + kh and
// column ow*2 + kw, all C channels of a position contiguous; the matmul
// multiplies [OH*OW, KH*KW*C] by the filter viewed as [KH*KW*C, F].
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d0 * 2 + d2, d1 * 2 + d3, d4)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: util.func public @strided
// CHECK: %[[COL:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x9x9x8xf32>) outs(%{{.+}} : tensor<4x4x3x3x8xf32>)
// CHECK: %[[A:.+]] = tensor.collapse_shape %[[COL]] {{\[}}[0, 1], [2, 3, 4]] : tensor<4x4x3x3x8xf32> into tensor<16x72xf32>
// CHECK: %[[B:.+]] = tensor.collapse_shape %arg1 {{\[}}[0, 1, 2], [3]] : tensor<3x3x8x16xf32> into tensor<72x16xf32>
// CHECK: %[[C:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<16x16xf32>)
// CHECK: %[[M:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x72xf32>, tensor<72x16xf32>) outs(%[[C]] : tensor<16x16xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[M]] {{\[}}[0, 1, 2], [3]] output_shape [1, 4, 4, 16]
// CHECK: util.return %[[R]]
util.func public @strided(%x: tensor<1x9x9x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x4x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x9x9x8xf32>, tensor<3x3x8x16xf32>) outs(%i : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  util.return %r : tensor<1x4x4x16xf32>
}

// -----

// 1x1 stride 1: the input already is the [H*W, C] matrix; an init that is
// not a fill (a bias broadcast by the caller) is collapsed and accumulated
// into.
// CHECK-LABEL: util.func public @pointwise
// CHECK-NOT: linalg.generic
// CHECK: %[[A:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2], [3]] : tensor<1x5x5x8xf32> into tensor<25x8xf32>
// CHECK: %[[B:.+]] = tensor.collapse_shape %arg1 {{\[}}[0, 1, 2], [3]] : tensor<1x1x8x4xf32> into tensor<8x4xf32>
// CHECK: %[[C:.+]] = tensor.collapse_shape %arg2 {{\[}}[0, 1, 2], [3]] : tensor<1x5x5x4xf32> into tensor<25x4xf32>
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<25x8xf32>, tensor<8x4xf32>) outs(%[[C]] : tensor<25x4xf32>)
util.func public @pointwise(%x: tensor<1x5x5x8xf32>, %w: tensor<1x1x8x4xf32>, %init: tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x5x5x8xf32>, tensor<1x1x8x4xf32>) outs(%init : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  util.return %r : tensor<1x5x5x4xf32>
}

// -----

// Batch 2 and f16 are left alone (the generic convolution path).
// CHECK-LABEL: util.func public @left
// CHECK-COUNT-2: linalg.conv_2d_nhwc_hwcf
util.func public @left(%x: tensor<2x5x5x8xf32>, %w: tensor<1x1x8x4xf32>, %i: tensor<2x5x5x4xf32>, %h: tensor<1x5x5x8xf16>, %hw: tensor<1x1x8x4xf16>, %hi: tensor<1x5x5x4xf16>) -> (tensor<2x5x5x4xf32>, tensor<1x5x5x4xf16>) {
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<2x5x5x8xf32>, tensor<1x1x8x4xf32>) outs(%i : tensor<2x5x5x4xf32>) -> tensor<2x5x5x4xf32>
  %s = linalg.conv_2d_nhwc_hwcf ins(%h, %hw : tensor<1x5x5x8xf16>, tensor<1x1x8x4xf16>) outs(%hi : tensor<1x5x5x4xf16>) -> tensor<1x5x5x4xf16>
  util.return %r, %s : tensor<2x5x5x4xf32>, tensor<1x5x5x4xf16>
}

// -----

// NCHW (ONNX's layout) with F a multiple of 32: computed transposed, the
// window copy col[oh, ow, c, kh, kw] = input[0, c, oh*2 + kh, ow*2 + kw]
// viewed as [OH*OW, C*KH*KW] times the filter viewed as [F, C*KH*KW] and
// transposed; a per-channel bias init is broadcast along the rows of
// [OH*OW, F]; the product is transposed back to [F, OH*OW].
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d2, d0 * 2 + d3, d1 * 2 + d4)>
// CHECK-LABEL: util.func public @nchw_by_position
// CHECK: %[[COL:.+]] = linalg.generic {indexing_maps = [#[[IN]], #{{.+}}], {{.+}}} ins(%arg0 : tensor<1x8x9x9xf32>) outs(%{{.+}} : tensor<4x4x8x3x3xf32>)
// CHECK: %[[A:.+]] = tensor.collapse_shape %[[COL]] {{\[}}[0, 1], [2, 3, 4]] : tensor<4x4x8x3x3xf32> into tensor<16x72xf32>
// CHECK: %[[W:.+]] = tensor.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : tensor<32x8x3x3xf32> into tensor<32x72xf32>
// CHECK: %[[B:.+]] = linalg.transpose ins(%[[W]] : tensor<32x72xf32>) outs(%{{.+}} : tensor<72x32xf32>) permutation = [1, 0]
// CHECK: %[[C:.+]] = linalg.broadcast ins(%arg2 : tensor<32xf32>) outs(%{{.+}} : tensor<16x32xf32>) dimensions = [0]
// CHECK: %[[M:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x72xf32>, tensor<72x32xf32>) outs(%[[C]] : tensor<16x32xf32>)
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[M]] : tensor<16x32xf32>) outs(%{{.+}} : tensor<32x16xf32>) permutation = [1, 0]
// CHECK: %[[R:.+]] = tensor.expand_shape %[[T]] {{\[}}[0, 1], [2, 3]] output_shape [1, 32, 4, 4]
// CHECK: util.return %[[R]]
util.func public @nchw_by_position(%x: tensor<1x8x9x9xf32>, %w: tensor<32x8x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x4x4xf32> {
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %i = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x4x4xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<32x8x3x3xf32>) outs(%i : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  util.return %r : tensor<1x32x4x4xf32>
}

// -----

// Strides 2 x 1 and dilations 1 x 2 on a 9 x 11 input (4 x 7 outputs): each
// goes to its own dimension of the window map; a fill init is refilled as
// [OH*OW, F].
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d2, d0 * 2 + d3, d1 + d4 * 2)>
// CHECK-LABEL: util.func public @nchw_strides_dilations
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.+}}], {{.+}}} ins(%arg0 : tensor<1x8x9x11xf32>) outs(%{{.+}} : tensor<4x7x8x3x3xf32>)
// CHECK: %[[C:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<28x32xf32>)
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<28x72xf32>, tensor<72x32xf32>) outs(%[[C]] : tensor<28x32xf32>)
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2, 3]] output_shape [1, 32, 4, 7]
util.func public @nchw_strides_dilations(%x: tensor<1x8x9x11xf32>, %w: tensor<32x8x3x3xf32>) -> tensor<1x32x4x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x4x7xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x4x7xf32>) -> tensor<1x32x4x7xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x11xf32>, tensor<32x8x3x3xf32>) outs(%i : tensor<1x32x4x7xf32>) -> tensor<1x32x4x7xf32>
  util.return %r : tensor<1x32x4x7xf32>
}

// -----

// Any other init of the transposed form is transposed to [OH*OW, F].
// CHECK-LABEL: util.func public @nchw_accumulate
// CHECK: %[[I:.+]] = tensor.collapse_shape %arg2 {{\[}}[0, 1], [2, 3]] : tensor<1x32x4x4xf32> into tensor<32x16xf32>
// CHECK: %[[C:.+]] = linalg.transpose ins(%[[I]] : tensor<32x16xf32>) {{.+}} permutation = [1, 0]
// CHECK: linalg.matmul ins({{.+}}) outs(%[[C]] : tensor<16x32xf32>)
util.func public @nchw_accumulate(%x: tensor<1x8x9x9xf32>, %w: tensor<32x8x3x3xf32>, %i: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<32x8x3x3xf32>) outs(%i : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  util.return %r : tensor<1x32x4x4xf32>
}

// -----

// Other NCHW ones (F = 12, not a multiple of 32): the filter viewed as [F, C*KH*KW] times the
// window copy col[c, kh, kw, oh, ow] = input[0, c, oh*2 + kh, ow*2 + kw]
// viewed as [C*KH*KW, OH*OW]; its innermost loop reads along an input row.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d0, d3 * 2 + d1, d4 * 2 + d2)>
// CHECK-LABEL: util.func public @nchw
// CHECK: %[[COL:.+]] = linalg.generic {indexing_maps = [#[[IN]], #{{.+}}], {{.+}}} ins(%arg0 : tensor<1x8x9x9xf32>) outs(%{{.+}} : tensor<8x3x3x4x4xf32>)
// CHECK: %[[B:.+]] = tensor.collapse_shape %[[COL]] {{\[}}[0, 1, 2], [3, 4]] : tensor<8x3x3x4x4xf32> into tensor<72x16xf32>
// CHECK: %[[A:.+]] = tensor.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : tensor<12x8x3x3xf32> into tensor<12x72xf32>
// CHECK: %[[C:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<12x16xf32>)
// CHECK: %[[M:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<12x72xf32>, tensor<72x16xf32>) outs(%[[C]] : tensor<12x16xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[M]] {{\[}}[0, 1], [2, 3]] output_shape [1, 12, 4, 4]
// CHECK: util.return %[[R]]
util.func public @nchw(%x: tensor<1x8x9x9xf32>, %w: tensor<12x8x3x3xf32>) -> tensor<1x12x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x12x4x4xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x12x4x4xf32>) -> tensor<1x12x4x4xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<12x8x3x3xf32>) outs(%i : tensor<1x12x4x4xf32>) -> tensor<1x12x4x4xf32>
  util.return %r : tensor<1x12x4x4xf32>
}

// -----

// NCHW 1x1 stride 1: the input already is the [C, H*W] matrix.
// CHECK-LABEL: util.func public @nchw_pointwise
// CHECK-NOT: linalg.generic
// CHECK: %[[B:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2, 3]] : tensor<1x8x5x5xf32> into tensor<8x25xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %[[B]] : tensor<4x8xf32>, tensor<8x25xf32>)
util.func public @nchw_pointwise(%x: tensor<1x8x5x5xf32>, %w: tensor<4x8x1x1xf32>) -> tensor<1x4x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x5x5xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x5x5xf32>, tensor<4x8x1x1xf32>) outs(%i : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  util.return %r : tensor<1x4x5x5xf32>
}
