// Kernels whose workgroup tiles are shared by 64 invocations in different
// ways (test/Vulkan/distribution.test): odd sizes leave a partial last
// step; the column sum distributes inside its serial reduction loop; the
// total is a 0-d result that invocation 0 writes alone.

util.global private @device = #hal.device.target<"vulkan", {ordinal = 0 : index}> : !hal.device

func.func @mm(%a: tensor<129x37xf32>, %b: tensor<37x257xf32>) -> tensor<129x257xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<129x257xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<129x257xf32>) -> tensor<129x257xf32>
  %r = linalg.matmul ins(%a, %b : tensor<129x37xf32>, tensor<37x257xf32>) outs(%f : tensor<129x257xf32>) -> tensor<129x257xf32>
  return %r : tensor<129x257xf32>
}

func.func @sums(%a: tensor<37x129xf32>) -> (tensor<129xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<129xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<129xf32>) -> tensor<129xf32>
  %col = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%a : tensor<37x129xf32>) outs(%f : tensor<129xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<129xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %total = linalg.reduce ins(%col : tensor<129xf32>) outs(%f0 : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %col, %total : tensor<129xf32>, tensor<f32>
}

func.func @transpose(%a: tensor<37x129xf32>) -> tensor<129x37xf32> {
  %e = tensor.empty() : tensor<129x37xf32>
  %t = linalg.transpose ins(%a : tensor<37x129xf32>) outs(%e : tensor<129x37xf32>) permutation = [1, 0]
  return %t : tensor<129x37xf32>
}
