// RUN: fleet-stream-opt %s --stream-schedule-concurrency | FileCheck %s

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

// Two independent dispatches in one region form a concurrent wave; the one
// that reads both runs after it.
// CHECK-LABEL: @waves
// CHECK: stream.async.execute
// CHECK: %[[P:.+]]:2 = stream.async.concurrent with(
// CHECK-COUNT-2: stream.async.dispatch
// CHECK: stream.yield
// CHECK: stream.async.dispatch @ex::@f(%[[P]]#0
util.func public @waves(%x: !stream.resource<external>, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %r, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz} {
    %a = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %c = stream.async.dispatch @ex::@f(%a[%c0 to %sz for %sz], %b[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %c : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h = stream.timepoint.await %t => %r : !stream.resource<transient>{%sz}
  util.return %h : !stream.resource<transient>
}
