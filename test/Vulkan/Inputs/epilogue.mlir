// A 128 x 512 x 512 matmul with a bias + relu epilogue in its dispatch
// (docs/kernels.md "Epilogues"), for test/Vulkan/programs.test: the
// workgroup tile is bounded counting the product's 512 reduction steps per
// element (without them the tile needs more than Vulkan's 16 KiB of
// temporaries in one workgroup and the kernel is refused).
func.func @main(%a: tensor<128x512xf32>, %b: tensor<512x512xf32>, %bias: tensor<512xf32>) -> tensor<128x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x512xf32>) outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<128x512xf32>, tensor<512xf32>) outs(%e : tensor<128x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<128x512xf32>
  return %r : tensor<128x512xf32>
}
