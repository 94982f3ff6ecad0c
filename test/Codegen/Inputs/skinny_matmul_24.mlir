func.func @main(%a: tensor<24x1024xf32>, %b: tensor<1024x512xf32>) -> tensor<24x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<24x512xf32>) -> tensor<24x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<24x1024xf32>, tensor<1024x512xf32>) outs(%f : tensor<24x512xf32>) -> tensor<24x512xf32>
  return %r : tensor<24x512xf32>
}
