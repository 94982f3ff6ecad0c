// RUN: fleet-opt %s --stream-annotate-affinities | FileCheck %s

// The analysis at input level: the second dispatch reads a value moved to
// @b, so it executes on @b; exports pin their operand.
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func private @f() attributes {stream.affinity = #hal.device.affinity<@a>}
  util.func public @mul(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    // CHECK: hal.tensor.import {{.+}} {stream.affinities = [#hal.device.affinity<@a>], stream.affinities.operands = [unit], stream.affinities.results = [#hal.device.affinity<@a>], stream.affinities.results.pins = {{\[\[\]\]}}}
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4xf32>
    // CHECK: flow.tensor.transfer {{.+}} stream.affinities.results = [#hal.device.affinity<@b>]
    %1 = flow.tensor.transfer %0 : tensor<4xf32> to #hal.device.affinity<@b>
    // CHECK: flow.dispatch {{.+}} {stream.affinities = [#hal.device.affinity<@b>]
    %2 = flow.dispatch @f::@g(%1) : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: flow.tensor.transfer {{.+}} stream.affinities.results.pins = {{\[\[}}#hal.device.affinity<@a>]]
    %3 = flow.tensor.transfer %2 : tensor<4xf32> to #hal.device.affinity<@a>
    %4 = hal.tensor.export on(#hal.device.affinity<@a>) %3 "output0" : tensor<4xf32> -> !hal.buffer_view
    util.return %4 : !hal.buffer_view
  }
}
