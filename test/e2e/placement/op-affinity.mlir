// `stream.affinity` on a single op places it (docs/guide.md "Place
// tensors"): its operands are transferred there as for flow.tensor.transfer,
// it runs there and its results live there; ops of different affinities are
// never fused into one dispatch.

// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=on_b --input=4xf32=1,2,3,4 --input=4xf32=2 --print_statistics 2>%t.stats | FileCheck %s --check-prefix=ONB
// (a * b) on B, + a following it there: a*b + a.
// ONB: 4xf32=3 6 9 12
// RUN: FileCheck %s --check-prefix=ONB-STATS --input-file=%t.stats
// ONB-STATS: device 'local-task:0'
// ONB-STATS: dispatches: 0
// ONB-STATS: device 'local-task:1'
// ONB-STATS: dispatches: 1

// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=split --input=4xf32=1,2,3,4 --input=4xf32=2 --print_statistics 2>%t.split | FileCheck %s --check-prefix=SPLIT
// SPLIT: 4xf32=3 6 9 12
// RUN: FileCheck %s --check-prefix=SPLIT-STATS --input-file=%t.split
// SPLIT-STATS: device 'local-task:0'
// SPLIT-STATS: dispatches: 1
// SPLIT-STATS: device 'local-task:1'
// SPLIT-STATS: dispatches: 1

// A linalg op (with its body) is placed the same way (what fleet-import's
// --place writes): the generic runs on B, the elementwise op after it on A.
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=generic_on_b --input=4xf32=1,2,3,4 --input=4xf32=2 --print_statistics 2>%t.generic | FileCheck %s --check-prefix=ONB
// RUN: FileCheck %s --check-prefix=SPLIT-STATS --input-file=%t.generic

// RUN: fleet-compile %s --compile-to=stream | FileCheck %s --check-prefix=IR
// IR-LABEL: util.func public @split
// IR: stream.cmd.execute on(#hal.device.affinity<@device_b>)
// IR: stream.cmd.dispatch
// IR: stream.cmd.execute on(#hal.device.affinity<@device_a>)
// IR: stream.cmd.dispatch

module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device

  func.func @on_b(%a: tensor<4xf32>, %b: tensor<4xf32>)
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %0 = arith.mulf %a, %b {stream.affinity = #hal.device.affinity<@device_b>} : tensor<4xf32>
    %1 = arith.addf %0, %a : tensor<4xf32>
    return %1 : tensor<4xf32>
  }

  func.func @split(%a: tensor<4xf32>, %b: tensor<4xf32>)
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %0 = arith.mulf %a, %b {stream.affinity = #hal.device.affinity<@device_b>} : tensor<4xf32>
    %1 = arith.addf %0, %a {stream.affinity = #hal.device.affinity<@device_a>} : tensor<4xf32>
    return %1 : tensor<4xf32>
  }

  func.func @generic_on_b(%a: tensor<4xf32>, %b: tensor<4xf32>)
      -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %e = tensor.empty() : tensor<4xf32>
    %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) attrs = {stream.affinity = #hal.device.affinity<@device_b>} {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %m = arith.mulf %x, %y : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    %1 = arith.addf %0, %a {stream.affinity = #hal.device.affinity<@device_a>} : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
