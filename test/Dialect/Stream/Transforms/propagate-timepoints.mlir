// RUN: fleet-stream-opt %s --stream-propagate-timepoints | FileCheck %s

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

// A loop-carried resource carries its timepoint: iteration i+1's region
// awaits iteration i's timepoint, with no host wait inside the loop; the
// host waits once after the loop.
// CHECK-LABEL: @loop
// CHECK: %[[IMM:.+]] = stream.timepoint.immediate
// CHECK: %[[L:.+]]:2 = scf.for {{.+}} iter_args(%[[R:.+]] = %arg0, %[[T:.+]] = %[[IMM]])
// CHECK-NOT: stream.timepoint.await
// CHECK: %[[NR:.+]], %[[NT:.+]] = stream.async.execute on(#stream.test.affinity<"a">) await(%[[T]]) => with(%[[R]] as
// CHECK: scf.yield %[[NR]], %[[NT]]
// CHECK: stream.timepoint.await %[[L]]#1 => %[[L]]#0
util.func public @loop(%x: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %out = scf.for %i = %c0 to %c10 step %c1 iter_args(%r = %x) -> (!stream.resource<transient>) {
    %n, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%r as %cr: !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz} {
      %d = stream.async.dispatch @ex::@f(%cr[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
      stream.yield %d : !stream.resource<transient>{%sz}
    } => !stream.timepoint
    %h = stream.timepoint.await %t => %n : !stream.resource<transient>{%sz}
    scf.yield %h : !stream.resource<transient>
  }
  util.return %out : !stream.resource<transient>
}
