// Three devices: scale on A, add on B, square on C, result back on A.
// Device C is declared discrete, so no static link reaches it: its
// transfers stay real copies and its shared buffers are decided at run time.
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.global private @device_c = #hal.device.target<"local", {discrete = true, ordinal = 2 : index}> : !hal.device

  func.func @three(%x: tensor<8xf32>, %y: tensor<8xf32>)
      -> (tensor<8xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %two = arith.constant dense<2.0> : tensor<8xf32>
    %0 = arith.mulf %x, %two : tensor<8xf32>
    %1 = flow.tensor.transfer %0 : tensor<8xf32> to #hal.device.affinity<@device_b>
    %2 = flow.tensor.transfer %y : tensor<8xf32> to #hal.device.affinity<@device_b>
    %3 = arith.addf %1, %2 : tensor<8xf32>
    %4 = flow.tensor.transfer %3 : tensor<8xf32> to #hal.device.affinity<@device_c>
    %5 = arith.mulf %4, %4 : tensor<8xf32>
    %6 = flow.tensor.transfer %5 : tensor<8xf32> to #hal.device.affinity<@device_a>
    return %6 : tensor<8xf32>
  }
}
