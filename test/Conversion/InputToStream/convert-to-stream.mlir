// RUN: fleet-opt %s --split-input-file --stream-conversion --verify-diagnostics | FileCheck %s

// Imports, dispatches and exports on one device: resources sized by their
// static byte count, external at the ABI, a lifetime-changing transfer
// before the export (RefineUsage removes it later).
module attributes {stream.affinity.default = #hal.device.affinity<@d>} {
  util.global private @d = #hal.device.target<"local"> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @abs workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @abs(%arg0: !stream.binding, %arg1: !stream.binding) {
        return
      }
    }
  }
  // CHECK-LABEL: util.func public @abs
  util.func public @abs(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    // CHECK: %[[IN:.+]] = stream.tensor.import on(#hal.device.affinity<@d>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%[[SZ:.+]]}
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4xf32>
    // CHECK: %[[R:.+]] = stream.async.dispatch on(#hal.device.affinity<@d>) @ex::@abs(%[[IN]][%{{.+}} to %{{.+}} for %{{.+}}]) : (!stream.resource<external>{%{{.+}}}) -> !stream.resource<*>{%{{.+}}}
    %1 = flow.dispatch @ex::@abs(%0) : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: %[[E:.+]] = stream.async.transfer %[[R]] : !stream.resource<*>{%{{.+}}} from(#hal.device.affinity<@d>) -> to(#hal.device.affinity<@d>) !stream.resource<external>
    // CHECK: stream.tensor.export on(#hal.device.affinity<@d>) %[[E]] : tensor<4xf32> in !stream.resource<external>{%{{.+}}} -> !hal.buffer_view
    %2 = hal.tensor.export %1 "output0" : tensor<4xf32> -> !hal.buffer_view
    util.return %2 : !hal.buffer_view
  }
}

// -----

// Placement follows the data: the second dispatch reads a value transferred
// to @b, so it runs on @b; constants are materialized where they are read.
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @f workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @f(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
        return
      }
    }
  }
  // CHECK-LABEL: util.func public @two_devices
  util.func public @two_devices(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %cst = arith.constant dense<2.0> : tensor<4xf32>
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4xf32>
    // CHECK-DAG: %[[CA:.+]] = stream.async.constant on(#hal.device.affinity<@a>) : !stream.resource<constant>{%{{.+}}} = dense<2.000000e+00> : tensor<4xf32>
    // CHECK-DAG: %[[CB:.+]] = stream.async.constant on(#hal.device.affinity<@b>) : !stream.resource<constant>{%{{.+}}} = dense<2.000000e+00> : tensor<4xf32>
    // CHECK: %[[X:.+]] = stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%{{.+}}[{{.+}}], %[[CA]][{{.+}}])
    %1 = flow.dispatch @ex::@f(%0, %cst) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    // CHECK: %[[T:.+]] = stream.async.transfer %[[X]] : !stream.resource<*>{%{{.+}}} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<*>
    %2 = flow.tensor.transfer %1 : tensor<4xf32> to #hal.device.affinity<@b>
    // CHECK: %[[Y:.+]] = stream.async.dispatch on(#hal.device.affinity<@b>) @ex::@f(%[[T]][{{.+}}], %[[CB]][{{.+}}])
    %3 = flow.dispatch @ex::@f(%2, %cst) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    // Exported on @a: read on @a, so transferred back.
    // CHECK: %[[BACK:.+]] = stream.async.transfer %[[Y]] : !stream.resource<*>{%{{.+}}} from(#hal.device.affinity<@b>) -> to(#hal.device.affinity<@a>)
    // CHECK: stream.async.transfer %[[BACK]] {{.+}} -> to(#hal.device.affinity<@a>) !stream.resource<external>
    %4 = hal.tensor.export on(#hal.device.affinity<@a>) %3 "output0" : tensor<4xf32> -> !hal.buffer_view
    util.return %4 : !hal.buffer_view
  }
}

// -----

util.func private @internal(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @-1 {{functions with tensor arguments must be inlined into an ABI wrapper before the stream phase}}
  util.return %arg0 : tensor<4xf32>
}

// -----

// A loop carrying a tensor carries a resource (undecided lifetime) instead;
// an import entering the loop goes through a lifetime transfer.
module attributes {stream.affinity.default = #hal.device.affinity<@d>} {
  util.global private @d = #hal.device.target<"local"> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @inc workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @inc(%arg0: !stream.binding, %arg1: !stream.binding) {
        return
      }
    }
  }
  // CHECK-LABEL: util.func public @loop
  util.func public @loop(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<1xf32>
    // CHECK: %[[INIT:.+]] = stream.async.transfer %{{.+}} : !stream.resource<external>{%{{.+}}} from(#hal.device.affinity<@d>) -> to(#hal.device.affinity<@d>) !stream.resource<*>
    // CHECK: %[[L:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (!stream.resource<*>)
    %1 = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %0) -> (tensor<1xf32>) {
      // CHECK: %[[N:.+]] = stream.async.dispatch on(#hal.device.affinity<@d>) @ex::@inc(%[[ACC]][
      %n = flow.dispatch @ex::@inc(%acc) : (tensor<1xf32>) -> tensor<1xf32>
      // CHECK: scf.yield %[[N]] : !stream.resource<*>
      scf.yield %n : tensor<1xf32>
    }
    // CHECK: stream.async.transfer %[[L]] : !stream.resource<*>{%{{.+}}} {{.+}} !stream.resource<external>
    %2 = hal.tensor.export %1 "output0" : tensor<1xf32> -> !hal.buffer_view
    util.return %2 : !hal.buffer_view
  }
}

// -----

// A branch (scf.if) yielding tensors: both arms yield resources at the
// result's affinity, as `*` (what the if carries); the dispatch stays in
// its arm.
module attributes {stream.affinity.default = #hal.device.affinity<@d>} {
  util.global private @d = #hal.device.target<"local"> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @inc workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @inc(%arg0: !stream.binding, %arg1: !stream.binding) {
        return
      }
    }
  }
  // CHECK-LABEL: util.func public @branch
  util.func public @branch(%arg0: !hal.buffer_view, %p: i1) -> !hal.buffer_view {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<1xf32>
    // CHECK: %[[IF:.+]] = scf.if %{{.+}} -> (!stream.resource<*>) {
    %1 = scf.if %p -> (tensor<1xf32>) {
      // CHECK: %[[N:.+]] = stream.async.dispatch on(#hal.device.affinity<@d>) @ex::@inc(
      %n = flow.dispatch @ex::@inc(%0) : (tensor<1xf32>) -> tensor<1xf32>
      // CHECK: scf.yield %[[N]] : !stream.resource<*>
      scf.yield %n : tensor<1xf32>
    } else {
      // CHECK: %[[U:.+]] = stream.async.transfer %{{.+}} : !stream.resource<external>{%{{.+}}} from(#hal.device.affinity<@d>) -> to(#hal.device.affinity<@d>) !stream.resource<*>
      // CHECK: scf.yield %[[U]] : !stream.resource<*>
      scf.yield %0 : tensor<1xf32>
    }
    // CHECK: stream.async.transfer %[[IF]] : !stream.resource<*>{%{{.+}}} {{.+}} !stream.resource<external>
    %2 = hal.tensor.export %1 "output0" : tensor<1xf32> -> !hal.buffer_view
    util.return %2 : !hal.buffer_view
  }
}

// -----

// A cf branch carrying a tensor is refused where the block argument is.
module attributes {stream.affinity.default = #hal.device.affinity<@d>} {
  util.global private @d = #hal.device.target<"local"> : !hal.device
  util.func public @cfg(%arg0: !hal.buffer_view, %p: i1) -> !hal.buffer_view {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<1xf32>
    cf.cond_br %p, ^bb1(%0 : tensor<1xf32>), ^bb1(%0 : tensor<1xf32>)
  // expected-error @+1 {{a block argument of type 'tensor<1xf32>' (a branch carrying a tensor) is not supported by the stream phase; carry tensors with scf.if or scf.for}}
  ^bb1(%b: tensor<1xf32>):
    %2 = hal.tensor.export %b "output0" : tensor<1xf32> -> !hal.buffer_view
    util.return %2 : !hal.buffer_view
  }
}

// -----

// A call passing tensors (the pipeline inlines such callees first) is
// refused at the call.
module attributes {stream.affinity.default = #hal.device.affinity<@d>} {
  util.global private @d = #hal.device.target<"local"> : !hal.device
  util.func private @callee(%arg0: tensor<1xf32>) -> tensor<1xf32>
  util.func public @caller(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<1xf32>
    // expected-error @+1 {{takes or returns tensors that the stream phase cannot convert}}
    %1 = util.call @callee(%0) : (tensor<1xf32>) -> tensor<1xf32>
    %2 = hal.tensor.export %1 "output0" : tensor<1xf32> -> !hal.buffer_view
    util.return %2 : !hal.buffer_view
  }
}
