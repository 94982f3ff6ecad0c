// Multiply on A, transfer to B, multiply on B, back to A; device B is
// declared discrete, so no static link reaches it: the memory properties of
// the buffers A and B share are decided by memoized run-time link queries.
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {discrete = true, ordinal = 1 : index}> : !hal.device

  func.func @mul(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>)
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %0 = arith.mulf %lhs, %rhs : tensor<4xf32>
    %1 = flow.tensor.transfer %0 : tensor<4xf32> to #hal.device.affinity<@device_b>
    %2 = arith.mulf %1, %1 : tensor<4xf32>
    %3 = flow.tensor.transfer %2 : tensor<4xf32> to #hal.device.affinity<@device_a>
    return %3 : tensor<4xf32>
  }
}
