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

// An init the host awaited: the loop starts from the awaited timepoint and
// the await before the loop is gone.
// CHECK-LABEL: @awaited_init
// CHECK-NOT: stream.timepoint.await
// CHECK: %[[L:.+]]:2 = scf.for {{.+}} iter_args(%[[R:.+]] = %arg0, %[[T:.+]] = %arg1)
// CHECK: stream.async.execute on(#stream.test.affinity<"a">) await(%[[T]])
// CHECK: scf.yield
// CHECK: stream.timepoint.await %[[L]]#1 => %[[L]]#0
util.func public @awaited_init(%x: !stream.resource<transient>, %t0: !stream.timepoint, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = stream.timepoint.await %t0 => %x : !stream.resource<transient>{%sz}
  %out = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %init) -> (!stream.resource<transient>) {
    %n, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%r as %cr: !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz} {
      %d = stream.async.dispatch @ex::@f(%cr[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
      stream.yield %d : !stream.resource<transient>{%sz}
    } => !stream.timepoint
    %h = stream.timepoint.await %t => %n : !stream.resource<transient>{%sz}
    scf.yield %h : !stream.resource<transient>
  }
  util.return %out : !stream.resource<transient>
}

// Two resources carried on two devices: each gets its own timepoint, so
// device "b"'s region does not wait for device "a"'s.
// CHECK-LABEL: @two_devices
// CHECK: %[[L:.+]]:4 = scf.for {{.+}} iter_args(%{{.+}} = %arg0, %{{.+}} = %arg1, %[[TA:.+]] = %{{.+}}, %[[TB:.+]] = %{{.+}})
// CHECK-NOT: stream.timepoint.await
// CHECK: stream.async.execute on(#stream.test.affinity<"a">) await(%[[TA]])
// CHECK: stream.async.execute on(#stream.test.affinity<"b">) await(%[[TB]])
// CHECK: scf.yield
// CHECK-DAG: stream.timepoint.await %[[L]]#2 => %[[L]]#0
// CHECK-DAG: stream.timepoint.await %[[L]]#3 => %[[L]]#1
util.func public @two_devices(%x: !stream.resource<transient>, %y: !stream.resource<transient>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %x, %s = %y) -> (!stream.resource<transient>, !stream.resource<transient>) {
    %n, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%r as %cr: !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz} {
      %d = stream.async.dispatch @ex::@f(%cr[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
      stream.yield %d : !stream.resource<transient>{%sz}
    } => !stream.timepoint
    %m, %u = stream.async.execute on(#stream.test.affinity<"b">) with(%s as %cs: !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz} {
      %d = stream.async.dispatch @ex::@f(%cs[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
      stream.yield %d : !stream.resource<transient>{%sz}
    } => !stream.timepoint
    %h = stream.timepoint.await %t => %n : !stream.resource<transient>{%sz}
    %g = stream.timepoint.await %u => %m : !stream.resource<transient>{%sz}
    scf.yield %h, %g : !stream.resource<transient>, !stream.resource<transient>
  }
  util.return %out#0, %out#1 : !stream.resource<transient>, !stream.resource<transient>
}

// Nested loops: the inner loop starts from the outer loop's carried
// timepoint; no host wait inside either loop.
// CHECK-LABEL: @nested
// CHECK: %[[O:.+]]:2 = scf.for {{.+}} iter_args(%[[R:.+]] = %arg0, %[[T:.+]] = %{{.+}})
// CHECK-NOT: stream.timepoint.await
// CHECK: %[[I:.+]]:2 = scf.for {{.+}} iter_args(%{{.+}} = %[[R]], %[[U:.+]] = %[[T]])
// CHECK: stream.async.execute on(#stream.test.affinity<"a">) await(%[[U]])
// CHECK: scf.yield %[[I]]#0, %[[I]]#1
// CHECK: stream.timepoint.await %[[O]]#1 => %[[O]]#0
util.func public @nested(%x: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %x) -> (!stream.resource<transient>) {
    %in = scf.for %j = %c0 to %c4 step %c1 iter_args(%q = %r) -> (!stream.resource<transient>) {
      %n, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%q as %cq: !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz} {
        %d = stream.async.dispatch @ex::@f(%cq[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
        stream.yield %d : !stream.resource<transient>{%sz}
      } => !stream.timepoint
      %h = stream.timepoint.await %t => %n : !stream.resource<transient>{%sz}
      scf.yield %h : !stream.resource<transient>
    }
    scf.yield %in : !stream.resource<transient>
  }
  util.return %out : !stream.resource<transient>
}

// A host op inside the loop reads the carried value: the host waits right
// before it (and only there); the region awaits the timepoint itself.
// CHECK-LABEL: @host_read
// CHECK: scf.for {{.+}} iter_args(%[[R:.+]] = %arg0, %[[T:.+]] = %{{.+}})
// CHECK: %[[H:.+]] = stream.timepoint.await %[[T]] => %[[R]]
// CHECK: util.call @consume(%[[H]])
// CHECK: stream.async.execute on(#stream.test.affinity<"a">) await(%[[T]]) => with(%[[R]] as
util.func private @consume(%r: !stream.resource<transient>)
util.func public @host_read(%x: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out = scf.for %i = %c0 to %c4 step %c1 iter_args(%r = %x) -> (!stream.resource<transient>) {
    util.call @consume(%r) : (!stream.resource<transient>) -> ()
    %n, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%r as %cr: !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz} {
      %d = stream.async.dispatch @ex::@f(%cr[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
      stream.yield %d : !stream.resource<transient>{%sz}
    } => !stream.timepoint
    %h = stream.timepoint.await %t => %n : !stream.resource<transient>{%sz}
    scf.yield %h : !stream.resource<transient>
  }
  util.return %out : !stream.resource<transient>
}

// Negative: scf.if is not handled (Passes.td): the host wait before the
// branch stays.
// CHECK-LABEL: @branch
// CHECK: %[[H:.+]] = stream.timepoint.await
// CHECK: scf.if
// CHECK-NEXT: scf.yield %[[H]]
util.func public @branch(%c: i1, %x: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %n, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz} {
    %d = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %d : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h = stream.timepoint.await %t => %n : !stream.resource<transient>{%sz}
  %r = scf.if %c -> (!stream.resource<transient>) {
    scf.yield %h : !stream.resource<transient>
  } else {
    scf.yield %x : !stream.resource<transient>
  }
  util.return %r : !stream.resource<transient>
}

// Negative: a loop carrying no resource is left as it is.
// CHECK-LABEL: @no_resources
// CHECK-NOT: stream.timepoint
// CHECK: scf.for {{.+}} -> (index)
util.func public @no_resources(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    %b = arith.addi %a, %i : index
    scf.yield %b : index
  }
  util.return %s : index
}
