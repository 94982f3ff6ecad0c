// RUN: fleet-stream-opt %s --split-input-file --stream-place-transfer-executions | FileCheck %s

// The seed case: B's result transferred into a result exported on A. Pushing
// from B would make B write A's result; the transfer runs on A instead.
// CHECK-LABEL: @pinned_to_a
// CHECK: stream.async.transfer on(#stream.test.affinity<"a">) %{{.+}} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">)
util.func public @pinned_to_a(%r: !stream.resource<transient>, %sz: index) -> !util.buffer {
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">) !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#stream.test.affinity<"a">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v : !util.buffer
}

// -----

// Unpinned result (read by a dispatch, not exported): no on(...).
stream.executable private @ex {
  stream.executable.export public @f workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @f(%arg0: !stream.binding, %arg1: !stream.binding) {
      return
    }
  }
}
// CHECK-LABEL: @unpinned
// CHECK: stream.async.transfer %{{.+}} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">)
util.func public @unpinned(%r: !stream.resource<transient>, %sz: index) {
  %c0 = arith.constant 0 : index
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">) !stream.resource<transient>{%sz}
  %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%t[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  util.return
}

// -----

// Same-device transfer (a lifetime change on A): its default already runs
// on A, nothing to do.
// CHECK-LABEL: @same_device
// CHECK: stream.async.transfer %{{.+}} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"a">)
util.func public @same_device(%r: !stream.resource<transient>, %sz: index) -> !util.buffer {
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"a">) !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#stream.test.affinity<"a">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v : !util.buffer
}

// -----

// A transfer already placed on a third device C is left as written.
// CHECK-LABEL: @already_placed
// CHECK: stream.async.transfer on(#stream.test.affinity<"c">) %{{.+}} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">)
util.func public @already_placed(%r: !stream.resource<transient>, %sz: index) -> !util.buffer {
  %t = stream.async.transfer on(#stream.test.affinity<"c">) %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">) !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#stream.test.affinity<"a">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v : !util.buffer
}

// -----

// A transfer result exported on A and on C: one transfer per pin, each
// placed on its pin and feeding that pin's export (Fleet extension).
// CHECK-LABEL: @two_pins
// CHECK-DAG: %[[TA:.+]] = stream.async.transfer on(#stream.test.affinity<"a">) %arg0 : {{.+}} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">)
// CHECK-DAG: %[[TC:.+]] = stream.async.transfer on(#stream.test.affinity<"c">) %arg0 : {{.+}} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"c">)
// CHECK-DAG: stream.tensor.export on(#stream.test.affinity<"a">) %[[TA]]
// CHECK-DAG: stream.tensor.export on(#stream.test.affinity<"c">) %[[TC]]
util.func public @two_pins(%r: !stream.resource<transient>, %sz: index) -> (!util.buffer, !util.buffer) {
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">) !stream.resource<external>{%sz}
  %va = stream.tensor.export on(#stream.test.affinity<"a">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %vc = stream.tensor.export on(#stream.test.affinity<"c">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %va, %vc : !util.buffer, !util.buffer
}
