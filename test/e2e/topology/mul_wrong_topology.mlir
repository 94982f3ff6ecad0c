// The same program with a topology that wrongly claims each device can load
// and store the other's memory directly: the compiler trusts it (no copies,
// no sharing bits), and a run with a discrete device B must fail loudly,
// naming the operation and both devices -- never stage silently.
module attributes {stream.topology = #hal.device.topology<links = [(@device_a -> @device_b = {transparent_access = true}), (@device_b -> @device_a = {transparent_access = true})]>} {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device

  func.func @mul(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>)
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %0 = arith.mulf %lhs, %rhs : tensor<4xf32>
    %1 = flow.tensor.transfer %0 : tensor<4xf32> to #hal.device.affinity<@device_b>
    %2 = arith.mulf %1, %1 : tensor<4xf32>
    %3 = flow.tensor.transfer %2 : tensor<4xf32> to #hal.device.affinity<@device_a>
    return %3 : tensor<4xf32>
  }
}
