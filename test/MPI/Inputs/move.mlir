// One transfer into a remote device (test/MPI/usage.test).
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index, remote = true}> : !hal.device
  func.func @move(%x: tensor<4xf32>) -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_b>}) {
    %t = flow.tensor.transfer %x : tensor<4xf32> to #hal.device.affinity<@device_b>
    return %t : tensor<4xf32>
  }
}
