// The pipeline, asynchronous form: module_a and module_b are compiled with
// --execution-model=async-external, so their exports take a wait and a signal
// fence (coarse-fences). The imports say so with iree.abi.model; the calls
// then chain on the device timelines: abs's signal fence is mul's wait, and
// the pipeline waits only for its own result.
//   run(x) = module_b.mul(module_a.abs(x), module_a.abs(x)) = x * x
func.func private @module_a.abs(%input: tensor<4096xf32>) -> tensor<4096xf32>
    attributes {iree.abi.model = "coarse-fences"}
func.func private @module_b.mul(%lhs: tensor<4096xf32>, %rhs: tensor<4096xf32>,
                                %out: tensor<4096xf32> {iree.abi.output = 0 : index}) -> tensor<4096xf32>
    attributes {iree.abi.model = "coarse-fences"}

func.func @run(%input: tensor<4096xf32>) -> tensor<4096xf32> {
  %input_abs = call @module_a.abs(%input) : (tensor<4096xf32>) -> tensor<4096xf32>
  // Storage for module_b's result, allocated by the caller.
  %storage = tensor.empty() : tensor<4096xf32>
  %result = call @module_b.mul(%input_abs, %input_abs, %storage)
      : (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  return %result : tensor<4096xf32>
}
