// A callee pinned with `stream.affinity` runs where it is pinned also after
// the inliner folded it into its caller (the inlined ops take the callee's
// affinity; docs/guide.md "Place tensors").

// RUN: fleet-compile %s --compile-to=stream | FileCheck %s
// CHECK-LABEL: util.func public @main
// CHECK: stream.cmd.execute on(#hal.device.affinity<@device_b>)
// CHECK: stream.cmd.dispatch @{{.+}}elementwise
// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=main --input=4xf32=1,2,3,4 --print_statistics 2>%t.stats | FileCheck %s --check-prefix=RESULT
// RESULT: 4xf32=1 4 9 16
// RUN: FileCheck %s --check-prefix=STATS --input-file=%t.stats
// STATS: device 'local-task:0'
// STATS: dispatches: 0
// STATS: device 'local-task:1'
// STATS: dispatches: 1

module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device

  func.func private @square(%x: tensor<4xf32>) -> tensor<4xf32>
      attributes {stream.affinity = #hal.device.affinity<@device_b>} {
    %0 = arith.mulf %x, %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }

  func.func @main(%x: tensor<4xf32>)
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %0 = call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
