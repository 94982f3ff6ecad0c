// flow.tensor.transfer of a value to the device it already lives on is a
// no-op: the program compiles to the same host program (op for op) as
// without the transfer — no same-device copy, no extra allocation.

// RUN: split-file %s %t
// RUN: fleet-compile %t/with.mlir --compile-to=hal -o %t/with.hal
// RUN: fleet-compile %t/without.mlir --compile-to=hal -o %t/without.hal
// RUN: %python %S/Inputs/op_counts.py %t/with.hal %t/without.hal | FileCheck %s
// CHECK: same op counts
// RUN: fleet-compile %t/with.mlir -o %t/with.fleet
// RUN: fleet-run --module=%t/with.fleet --device=local-task --device=local-task --function=f --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=RESULT
// RUN: FileCheck %s --check-prefix=NOCOPY --input-file=%t/with.hal
// RESULT: 4xf32=1 4 9 16
// NOCOPY-NOT: hal.command_buffer.copy_buffer

//--- with.mlir
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  func.func @f(%x: tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>})
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %0 = flow.tensor.transfer %x : tensor<4xf32> to #hal.device.affinity<@device_a>
    %1 = arith.mulf %0, %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
//--- without.mlir
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  func.func @f(%x: tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>})
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %1 = arith.mulf %x, %x : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
