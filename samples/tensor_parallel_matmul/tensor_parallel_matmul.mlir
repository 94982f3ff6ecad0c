// Tensor parallelism: y = x @ w with w split by columns over two devices.
// Device A computes the left half of y with its half of w; x is transferred
// to device B, which computes the right half with its half; B's half comes
// back to A, where one linalg.generic gathers both halves into y (pinned to A
// by iree.abi.affinity). The two matmuls run at the same time.
#x_half = affine_map<(i, h, j) -> (i, j)>
#y3 = affine_map<(i, h, j) -> (i, h, j)>
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device

  func.func @matmul(
      %x: tensor<512x1024xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>},
      %w_left: tensor<1024x1024xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>},
      %w_right: tensor<1024x1024xf32> {iree.abi.affinity = #hal.device.affinity<@device_b>})
      -> (tensor<512x2048xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %zero = arith.constant 0.0 : f32
    // Left half on A.
    %empty_a = tensor.empty() : tensor<512x1024xf32>
    %init_a = linalg.fill ins(%zero : f32) outs(%empty_a : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %y_left = linalg.matmul ins(%x, %w_left : tensor<512x1024xf32>, tensor<1024x1024xf32>)
        outs(%init_a : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    // Right half on B.
    %x_b = flow.tensor.transfer %x : tensor<512x1024xf32> to #hal.device.affinity<@device_b>
    %empty_b = tensor.empty() : tensor<512x1024xf32>
    %init_b = linalg.fill ins(%zero : f32) outs(%empty_b : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %y_right_b = linalg.matmul ins(%x_b, %w_right : tensor<512x1024xf32>, tensor<1024x1024xf32>)
        outs(%init_b : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %y_right = flow.tensor.transfer %y_right_b : tensor<512x1024xf32> to #hal.device.affinity<@device_a>
    // Gather on A: y viewed as [rows, half, column in half]; half 0 comes
    // from the left product, half 1 from the right one.
    %y_empty = tensor.empty() : tensor<512x2x1024xf32>
    %y3 = linalg.generic {indexing_maps = [#x_half, #x_half, #y3],
                          iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%y_left, %y_right : tensor<512x1024xf32>, tensor<512x1024xf32>)
        outs(%y_empty : tensor<512x2x1024xf32>) {
    ^bb0(%l: f32, %r: f32, %out: f32):
      %h = linalg.index 1 : index
      %c0 = arith.constant 0 : index
      %is_left = arith.cmpi eq, %h, %c0 : index
      %v = arith.select %is_left, %l, %r : f32
      linalg.yield %v : f32
    } -> tensor<512x2x1024xf32>
    %y = tensor.collapse_shape %y3 [[0], [1, 2]] : tensor<512x2x1024xf32> into tensor<512x2048xf32>
    return %y : tensor<512x2048xf32>
  }
}
