// Two device globals with different kernel targets bound to one runtime
// device (the same backend and ordinal): the host program computes each
// dispatch's grid for its global's variant, and one device can load only
// one variant of an executable, so loading fails with a message instead of
// running a grid with the other variant's tiles. (Both products are
// results: an add reading one would join its dispatch.)

// RUN: fleet-compile %s -o %t.fleet
// RUN: not fleet-run --module=%t.fleet --device=local-task --function=twice --input=64x64xf32=1 2>&1 | FileCheck %s
// CHECK: device 'local-task:0' is bound to device globals @device_a and @device_b, which executable @twice_dispatch_0 compiles for different variants (@fleet_object, @fleet_object_1); bind them to different --device flags

module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cpu = "haswell", cache_sizes = array<i64: 32768, 65536>}>]> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cpu = "haswell", cache_sizes = array<i64: 32768, 1048576>}>]> : !hal.device

  func.func @twice(%a: tensor<64x64xf32>)
      -> (tensor<64x64xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>},
          tensor<64x64xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %ma = linalg.matmul ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %ab = flow.tensor.transfer %a : tensor<64x64xf32> to #hal.device.affinity<@device_b>
    %mb = linalg.matmul ins(%ab, %ab : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %back = flow.tensor.transfer %mb : tensor<64x64xf32> to #hal.device.affinity<@device_a>
    return %ma, %back : tensor<64x64xf32>, tensor<64x64xf32>
  }
}
