// NCHW convolutions on a Vulkan device: F = 12 (filter x im2col) and F = 32
// with a per-channel bias (im2col x filter^T, transposed back).
module {
  util.global private @dev = #hal.device.target<"vulkan", {ordinal = 0 : index}> : !hal.device
  func.func @conv12(%x: tensor<1x8x16x16xf32>, %w: tensor<12x8x3x3xf32>) -> (tensor<1x12x14x14xf32> {iree.abi.affinity = #hal.device.affinity<@dev>}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x12x14x14xf32>
    %i = linalg.fill ins(%zero : f32) outs(%e : tensor<1x12x14x14xf32>) -> tensor<1x12x14x14xf32>
    %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x16x16xf32>, tensor<12x8x3x3xf32>) outs(%i : tensor<1x12x14x14xf32>) -> tensor<1x12x14x14xf32>
    return %r : tensor<1x12x14x14xf32>
  }
  func.func @conv32(%x: tensor<1x8x16x16xf32>, %w: tensor<32x8x3x3xf32>, %b: tensor<32xf32>) -> (tensor<1x32x14x14xf32> {iree.abi.affinity = #hal.device.affinity<@dev>}) {
    %e = tensor.empty() : tensor<1x32x14x14xf32>
    %i = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<1x32x14x14xf32>) dimensions = [0, 2, 3]
    %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x16x16xf32>, tensor<32x8x3x3xf32>) outs(%i : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
    return %r : tensor<1x32x14x14xf32>
  }
}
