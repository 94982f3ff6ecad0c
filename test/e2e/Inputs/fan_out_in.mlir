// Fan-out/fan-in over four devices: A scales the input, B, C and D each
// apply a different elementwise function to a copy, A sums the three.
module {
  util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = ORDINAL_B : index}> : !hal.device
  util.global private @c = #hal.device.target<"local", {ordinal = ORDINAL_C : index}> : !hal.device
  util.global private @d = #hal.device.target<"local", {ordinal = ORDINAL_D : index}> : !hal.device

  func.func @fan(%x: tensor<1024xf32>) -> (tensor<1024xf32> {iree.abi.affinity = #hal.device.affinity<@a>}) {
    %half = arith.constant dense<0.5> : tensor<1024xf32>
    %s = arith.mulf %x, %half : tensor<1024xf32>
    %sb = flow.tensor.transfer %s : tensor<1024xf32> to #hal.device.affinity<@b>
    %sc = flow.tensor.transfer %s : tensor<1024xf32> to #hal.device.affinity<@c>
    %sd = flow.tensor.transfer %s : tensor<1024xf32> to #hal.device.affinity<@d>
    %rb = math.absf %sb : tensor<1024xf32>
    %rc = arith.mulf %sc, %sc : tensor<1024xf32>
    %rd = math.tanh %sd : tensor<1024xf32>
    %ba = flow.tensor.transfer %rb : tensor<1024xf32> to #hal.device.affinity<@a>
    %ca = flow.tensor.transfer %rc : tensor<1024xf32> to #hal.device.affinity<@a>
    %da = flow.tensor.transfer %rd : tensor<1024xf32> to #hal.device.affinity<@a>
    %t0 = arith.addf %ba, %ca : tensor<1024xf32>
    %t1 = arith.addf %t0, %da : tensor<1024xf32>
    return %t1 : tensor<1024xf32>
  }
}
