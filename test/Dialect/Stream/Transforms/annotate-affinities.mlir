// RUN: fleet-stream-opt %s --split-input-file --stream-annotate-affinities | FileCheck %s

// The analysis at input level: the second dispatch reads a value moved to
// "b", so it executes on "b"; a result with iree.abi.affinity pins its value.
// (HAL's import/export ops: test/Dialect/HAL/Transforms/annotate-affinities-hal-ops.mlir.)
module attributes {stream.affinity.default = #stream.test.affinity<"a">} {
  util.func private @f() attributes {stream.affinity = #stream.test.affinity<"a">}
  util.func public @mul(%arg0: tensor<4xf32>) -> (tensor<4xf32> {iree.abi.affinity = #stream.test.affinity<"a">}) {
    // CHECK: flow.tensor.transfer {{.+}} {stream.affinities = [#stream.test.affinity<"a">], stream.affinities.operands = [#stream.test.affinity<"a">], stream.affinities.results = [#stream.test.affinity<"b">]
    %1 = flow.tensor.transfer %arg0 : tensor<4xf32> to #stream.test.affinity<"b">
    // CHECK: flow.dispatch {{.+}} {stream.affinities = [#stream.test.affinity<"b">]
    %2 = flow.dispatch @f::@g(%1) : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: flow.tensor.transfer {{.+}} stream.affinities.results.pins = {{\[\[}}#stream.test.affinity<"a">]]
    %3 = flow.tensor.transfer %2 : tensor<4xf32> to #stream.test.affinity<"a">
    util.return %3 : tensor<4xf32>
  }
}

// -----

// A value exported on two devices is pinned to both (stream.tensor.export
// pins its operand, AffinityOpInterface::pinsOperandPlacement).
// CHECK-LABEL: @two_pins
util.func public @two_pins(%r: !stream.resource<external>, %sz: index) -> (!util.buffer, !util.buffer) {
  %c0 = arith.constant 0 : index
  // CHECK: stream.async.dispatch {{.+}}stream.affinities.results.pins = {{\[\[}}#stream.test.affinity<"b">, #stream.test.affinity<"a">]]
  %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%r[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %ta = stream.tensor.export on(#stream.test.affinity<"a">) %d : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %tb = stream.tensor.export on(#stream.test.affinity<"b">) %d : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %ta, %tb : !util.buffer, !util.buffer
}
