// RUN: fleet-opt %s --split-input-file --stream-conversion --verify-diagnostics | FileCheck %s

// An immutable weight read on its home and on another device: one constant
// resource global stored at initialization, one replica for the other
// device made there too (a transfer elide-async-copies removes when the
// device reaches the home's memory); loads on each device read their copy.

// CHECK: util.global private @w : !stream.resource<constant>
// CHECK: util.global private @w__on_b : !stream.resource<constant>
// CHECK: util.initializer {
// CHECK:   %[[C:.+]] = stream.async.constant on(#hal.device.affinity<@a>) : !stream.resource<constant>{%c16} = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK:   util.global.store %[[C]], @w : !stream.resource<constant>
// CHECK:   %[[R:.+]] = stream.async.transfer %[[C]] : !stream.resource<constant>{%c16} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<constant>{%c16}
// CHECK:   util.global.store %[[R]], @w__on_b : !stream.resource<constant>
// CHECK-LABEL: util.func public @two
// CHECK-DAG: %[[WA:.+]] = util.global.load @w : !stream.resource<constant>
// CHECK-DAG: %[[WB:.+]] = util.global.load immutable @w__on_b : !stream.resource<constant>
// CHECK-DAG: stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%[[WA]]
// CHECK-DAG: stream.async.dispatch on(#hal.device.affinity<@b>) @ex::@f(%[[WB]]
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.global private @w = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  util.func public @two() -> (!hal.buffer_view, !hal.buffer_view) {
    %w = util.global.load @w : tensor<4xf32>
    %0 = flow.dispatch @ex::@f(%w) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = flow.dispatch @ex::@f(%w) {stream.affinity = #hal.device.affinity<@b>} : (tensor<4xf32>) -> tensor<4xf32>
    %v0 = hal.tensor.export %0 : tensor<4xf32> -> !hal.buffer_view
    %v1 = hal.tensor.export on(#hal.device.affinity<@b>) %1 : tensor<4xf32> -> !hal.buffer_view
    util.return %v0, %v1 : !hal.buffer_view, !hal.buffer_view
  }
}

// -----

// A mutable global: a variable resource, its initial value copied into it,
// and the timepoint its value is ready at (@acc__timepoint). A store
// transfers the new value to the home as a variable and stores it with its
// timepoint (a barrier, no host wait); a load awaits that timepoint (moved
// into the reading regions by schedule-execution).
// CHECK: util.global private mutable @acc : !stream.resource<variable>
// CHECK: util.global private mutable @acc__timepoint : !stream.timepoint
// CHECK: util.initializer {
// CHECK:   %[[I:.+]] = stream.timepoint.immediate => !stream.timepoint
// CHECK:   util.global.store %[[I]], @acc__timepoint : !stream.timepoint
// CHECK:   %[[C:.+]] = stream.async.constant on(#hal.device.affinity<@a>)
// CHECK:   %[[V:.+]] = stream.async.transfer %[[C]] : !stream.resource<constant>{%c16} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@a>) !stream.resource<variable>{%{{.+}}}
// CHECK:   util.global.store %[[V]], @acc : !stream.resource<variable>
// CHECK-LABEL: util.func public @step
// CHECK: %[[L:.+]] = util.global.load @acc : !stream.resource<variable>
// CHECK: %[[LT:.+]] = util.global.load @acc__timepoint : !stream.timepoint
// CHECK: %[[R:.+]] = stream.timepoint.await %[[LT]] => %[[L]] : !stream.resource<variable>
// CHECK: %[[D:.+]] = stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%[[R]]
// CHECK: %[[S:.+]] = stream.async.transfer %[[D]] : !stream.resource<*>{%{{.+}}} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@a>) !stream.resource<variable>{%{{.+}}}
// CHECK: %[[B:.+]], %[[BT:.+]] = stream.timepoint.barrier on(#hal.device.affinity<@a>) %[[S]]
// CHECK: util.global.store %[[BT]], @acc__timepoint : !stream.timepoint
// CHECK: util.global.store %[[B]], @acc : !stream.resource<variable>
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private mutable @acc = dense<0.0> : tensor<4xf32>
  util.func public @step() {
    %v = util.global.load @acc : tensor<4xf32>
    %0 = flow.dispatch @ex::@f(%v) : (tensor<4xf32>) -> tensor<4xf32>
    util.global.store %0, @acc : tensor<4xf32>
    util.return
  }
}

// -----

// The verifier compares shapes only (as IREE); the stream phase stores the
// bytes as they are, so the element types must agree.
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  // expected-error @+1 {{has an initial value of element type 'i32' but the global holds 'f32'}}
  util.global private @bad : tensor<4xf32> = dense<1> : tensor<4xi32>
}

// -----

// Without a device to live on, a tensor global is an error.
module {
  // expected-error @+1 {{is a tensor global without an affinity}}
  util.global private @nowhere = dense<1.0> : tensor<4xf32>
}

// -----

// A non-splat constant in host code is placed once at load like an
// immutable global (hoisted into @__constant_0); a splat stays a constant
// materialized where it is used.
// CHECK: util.global private @__constant_0 : !stream.resource<constant>
// CHECK: util.initializer {
// CHECK:   stream.async.constant on(#hal.device.affinity<@a>) : !stream.resource<constant>{%c16} = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-LABEL: util.func public @consts
// CHECK: %[[W:.+]] = util.global.load immutable @__constant_0 : !stream.resource<constant>
// CHECK: %[[S:.+]] = stream.async.constant on(#hal.device.affinity<@a>) : !stream.resource<constant>{%{{.+}}} = dense<2.000000e+00> : tensor<4xf32>
// CHECK: stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%[[W]][{{.+}}], %[[S]][{{.+}}])
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @consts() -> !hal.buffer_view {
    %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %s = arith.constant dense<2.0> : tensor<4xf32>
    %0 = flow.dispatch @ex::@f(%w, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = hal.tensor.export %0 : tensor<4xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}
