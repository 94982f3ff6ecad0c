// RUN: fleet-stream-opt %s --split-input-file --stream-schedule-allocation | FileCheck %s

module {
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

// The seed case after scheduling: B's intermediate is read by the transfer
// on A, so it is allocated optimal<[A, B]> (declaration order); the final
// result is touched by A only and stays on(A); the region on A starts with
// an invalidate from B, then the copy.
// CHECK-LABEL: @seed
// An alloca awaits what its region awaits (queues are not in order: that
// bounds memory without ordering it behind unrelated work), and the region
// then awaits its allocas alone; allocas are issued before the command
// regions they do not wait for.
// CHECK: %[[MID:.+]], %[[MT:.+]] = stream.resource.alloca uninitialized on(#stream.test.affinity<"a", "b">) : !stream.resource<transient>
// CHECK: %[[TB:.+]] = stream.cmd.execute on(#stream.test.affinity<"b">) await(%[[MT]]) => with(%arg0 as %{{.+}}: !stream.resource<external>{%arg1}, %[[MID]] as %[[W:.+]]: !stream.resource<transient>{%arg1})
// CHECK: stream.cmd.dispatch @ex::@f {
// CHECK: wo %[[W]]
// CHECK: %[[OUT:.+]], %[[OT:.+]] = stream.resource.alloca uninitialized on(#stream.test.affinity<"a">) await(%[[TB]]) => !stream.resource<external>
// CHECK: %[[TA:.+]] = stream.cmd.execute on(#stream.test.affinity<"a">) await(%[[OT]]) => with(%[[MID]] as %[[S:.+]]: !stream.resource<transient>{%arg1}, %[[OUT]] as %[[D:.+]]: !stream.resource<external>{%arg1})
// CHECK-NEXT: stream.cmd.invalidate from(#stream.test.affinity<"b">) %[[S]]
// CHECK-NEXT: stream.cmd.copy %[[S]][%{{.+}}], %[[D]][%{{.+}}], %arg1
// CHECK: stream.resource.dealloca {{.+}} await(%{{.+}}) => %[[MID]]
// CHECK: stream.timepoint.await %[[TA]] => %[[OUT]]
util.func public @seed(%x: !stream.resource<external>, %sz: index) -> !util.buffer {
  %c0 = arith.constant 0 : index
  %rb, %tb = stream.async.execute on(#stream.test.affinity<"b">) with(%x as %cx: !stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz} {
    %d = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %d : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %ra, %ta = stream.async.execute on(#stream.test.affinity<"a">) await(%tb) => with(%rb as %crb: !stream.resource<transient>{%sz}) -> !stream.resource<external>{%sz} {
    %t = stream.async.transfer on(#stream.test.affinity<"a">) %crb : !stream.resource<transient>{%sz} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">) !stream.resource<external>{%sz}
    stream.yield %t : !stream.resource<external>{%sz}
  } => !stream.timepoint
  %r = stream.timepoint.await %ta => %ra : !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#stream.test.affinity<"a">) %r : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v : !util.buffer
}
}

// -----

module {
// A transfer pushed from A to B: the copy runs on A and flushes the result
// to B; the result is allocated where both reach it (its target reads it,
// whoever holds it). Temporaries get an alloca before the region and a
// dealloca after it. Constants become mapped host buffers.
// CHECK-LABEL: @push
// CHECK: %[[HB:.+]] = util.buffer.constant : !util.buffer = dense<1.000000e+00> : tensor<4xf32>
// CHECK: stream.resource.try_map on(#stream.test.affinity<"a">) %[[HB]][%{{.+}}] : !util.buffer -> i1, !stream.resource<constant>
// CHECK: stream.resource.alloca uninitialized on(#stream.test.affinity<"a", "b">) : !stream.resource<transient>
// CHECK: %[[TMP:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#stream.test.affinity<"a">) : !stream.resource<transient>
// CHECK: %[[T:.+]] = stream.cmd.execute on(#stream.test.affinity<"a">)
// CHECK: stream.cmd.fill
// CHECK: stream.cmd.copy
// CHECK: stream.cmd.flush to(#stream.test.affinity<"b">)
// CHECK: stream.resource.dealloca origin on(#stream.test.affinity<"a">) await(%[[T]]) => %[[TMP]]
util.func public @push(%sz: index) -> (!stream.resource<transient>, !stream.resource<constant>) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %k = stream.async.constant on(#stream.test.affinity<"a">) : !stream.resource<constant>{%sz} = dense<1.0> : tensor<4xf32>
  %r, %t = stream.async.execute on(#stream.test.affinity<"a">) with() -> !stream.resource<transient>{%sz} {
    %s = stream.async.splat %c7 : i32 -> !stream.resource<transient>{%sz}
    %x = stream.async.transfer %s : !stream.resource<transient>{%sz} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"b">) !stream.resource<transient>{%sz}
    stream.yield %x : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h = stream.timepoint.await %t => %r : !stream.resource<transient>{%sz}
  util.return %h, %k : !stream.resource<transient>, !stream.resource<constant>
}
}

// -----

module {
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
// A chain of temporaries in one region: %t0 dies (last read) in step 1 where
// %t1 is born, so %t1 cannot take its storage; %t2 is born in step 2, after
// %t0's last read, and shares %t0's allocation; %t3 shares %t1's. %big has
// another size and keeps its own. Two allocations are freed after the region
// instead of four (plus %big's).
// CHECK-LABEL: @share
// CHECK-COUNT-3: stream.resource.alloca uninitialized on(#stream.test.affinity<"a">) : !stream.resource<transient>
// CHECK-NOT: stream.resource.alloca
// CHECK: stream.cmd.execute on(#stream.test.affinity<"a">) await(%{{.+}}) => with(%arg0 as %[[X:.+]]: !stream.resource<external>{%c16}, %{{.+}} as %[[OUT:.+]]: !stream.resource<external>{%c16}, %{{.+}} as %[[S0:.+]]: !stream.resource<transient>{%c16}, %{{.+}} as %[[S1:.+]]: !stream.resource<transient>{%c16}, %{{.+}} as %[[BIG:.+]]: !stream.resource<transient>{%c64})
// CHECK-NEXT: stream.cmd.dispatch @ex::@f {
// CHECK-NEXT: ro %[[X]]
// CHECK-NEXT: wo %[[S0]]
// CHECK: stream.cmd.dispatch @ex::@f {
// CHECK-NEXT: ro %[[S0]]
// CHECK-NEXT: wo %[[S1]]
// CHECK: stream.cmd.dispatch @ex::@f {
// CHECK-NEXT: ro %[[S1]]
// CHECK-NEXT: wo %[[S0]]
// CHECK: stream.cmd.dispatch @ex::@f {
// CHECK-NEXT: ro %[[S0]]
// CHECK-NEXT: wo %[[S1]]
// CHECK: stream.cmd.dispatch @ex::@f {
// CHECK-NEXT: ro %[[S1]]
// CHECK-NEXT: wo %[[BIG]]
// CHECK: stream.cmd.dispatch @ex::@f {
// CHECK-NEXT: ro %[[BIG]]
// CHECK-NEXT: wo %[[OUT]]
// CHECK-COUNT-3: stream.resource.dealloca
// CHECK-NOT: stream.resource.dealloca
util.func public @share(%x: !stream.resource<external>) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%c16}) -> !stream.resource<external>{%c16} {
    %t0 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cx[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    %t1 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%t0[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
    %t2 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%t1[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
    %t3 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%t2[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
    %big = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%t3[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c64}
    %out = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%big[%c0 to %c64 for %c64]) : (!stream.resource<transient>{%c64}) -> !stream.resource<external>{%c16}
    stream.yield %out : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %h = stream.timepoint.await %t => %r : !stream.resource<external>{%c16}
  util.return %h : !stream.resource<external>
}
}

// -----

module {
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
// A loop that owns the buffer it carries: each iteration frees the previous
// iteration's buffer once its region has read it, and the loop's result is
// freed after the region that copies it out. Without this every iteration's
// buffer would stay allocated until the program ends.
// CHECK-LABEL: @carried
// CHECK: %[[INIT:.+]], %{{.+}} = stream.resource.alloca uninitialized on(#stream.test.affinity<"a">) : !stream.resource<transient>
// CHECK: %[[LOOP:.+]]:2 = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[CARRIED:.+]] = %[[INIT]], %[[TP:.+]] = %{{.+}})
// The next iteration's buffer is allocated once the previous iteration is
// done (its alloca awaits the carried timepoint), so a handful are live.
// CHECK: %[[NEXT:.+]], %[[NT:.+]] = stream.resource.alloca uninitialized on(#stream.test.affinity<"a">) await(%[[TP]]) => !stream.resource<transient>
// CHECK: %[[STEP:.+]] = stream.cmd.execute on(#stream.test.affinity<"a">) await(%[[NT]]) => with(%[[CARRIED]] as
// CHECK: stream.resource.dealloca origin on(#stream.test.affinity<"a">) await(%[[STEP]]) => %[[CARRIED]]
// CHECK-NEXT: scf.yield %[[NEXT]], %[[STEP]]
// CHECK: %[[OUT:.+]] = stream.cmd.execute on(#stream.test.affinity<"a">) {{.+}} with(%[[LOOP]]#0 as
// CHECK: stream.resource.dealloca origin on(#stream.test.affinity<"a">) await(%[[OUT]]) => %[[LOOP]]#0
// The host owns what it reads: no dealloca of the exported result.
// CHECK-NOT: stream.resource.dealloca
// CHECK: util.return
util.func public @carried(%x: !stream.resource<external>, %n: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %init, %t0 = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cx[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %d : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %loop:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %t = %t0) -> (!stream.resource<transient>, !stream.timepoint) {
    %next, %tn = stream.async.execute on(#stream.test.affinity<"a">) await(%t) => with(%acc as %ca: !stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16} {
      %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%ca[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
      stream.yield %d : !stream.resource<transient>{%c16}
    } => !stream.timepoint
    scf.yield %next, %tn : !stream.resource<transient>, !stream.timepoint
  }
  %r, %tr = stream.async.execute on(#stream.test.affinity<"a">) await(%loop#1) => with(%loop#0 as %cl: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
    %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cl[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %d : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %h = stream.timepoint.await %tr => %r : !stream.resource<external>{%c16}
  util.return %h : !stream.resource<external>
}
}

// -----

module {
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
// The init is read again after the loop: the loop does not own it, so no
// iteration frees the buffer it carries.
// CHECK-LABEL: @shared_init
// CHECK: scf.for
// CHECK-NOT: stream.resource.dealloca
// CHECK: scf.yield
util.func public @shared_init(%x: !stream.resource<external>, %n: index) -> (!stream.resource<external>, !stream.resource<external>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %init, %t0 = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cx[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %d : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %loop:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %t = %t0) -> (!stream.resource<transient>, !stream.timepoint) {
    %next, %tn = stream.async.execute on(#stream.test.affinity<"a">) await(%t) => with(%acc as %ca: !stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16} {
      %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%ca[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
      stream.yield %d : !stream.resource<transient>{%c16}
    } => !stream.timepoint
    scf.yield %next, %tn : !stream.resource<transient>, !stream.timepoint
  }
  %r, %tr = stream.async.execute on(#stream.test.affinity<"a">) await(%loop#1) => with(%loop#0 as %cl: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
    %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cl[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %d : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %r2, %tr2 = stream.async.execute on(#stream.test.affinity<"a">) await(%t0) => with(%init as %ci: !stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16} {
    %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%ci[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<external>{%c16}
    stream.yield %d : !stream.resource<external>{%c16}
  } => !stream.timepoint
  %h = stream.timepoint.await %tr => %r : !stream.resource<external>{%c16}
  %h2 = stream.timepoint.await %tr2 => %r2 : !stream.resource<external>{%c16}
  util.return %h, %h2 : !stream.resource<external>, !stream.resource<external>
}
}

// -----

module {
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
// Loops that do not own what they carry: one buffer is the init of two
// iter_args (freeing it per iter_arg would free it twice), and each
// iteration's buffer is also read by a region on B in the iteration that
// made it (the next iteration's dealloca would not wait for B).
// CHECK-LABEL: @not_owned
// CHECK: scf.for
// CHECK-NOT: stream.resource.dealloca
// CHECK: scf.yield
// CHECK: scf.for
// CHECK-NOT: stream.resource.dealloca
// CHECK: scf.yield
util.func public @not_owned(%x: !stream.resource<external>, %n: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %init, %t0 = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cx[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %d : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %twice:3 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %init, %q = %init, %t = %t0) -> (!stream.resource<transient>, !stream.resource<transient>, !stream.timepoint) {
    %np, %nq, %tn = stream.async.execute on(#stream.test.affinity<"a">) await(%t) => with(%p as %cp: !stream.resource<transient>{%c16}, %q as %cq: !stream.resource<transient>{%c16}) -> (!stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}) {
      %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cp[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
      %e = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cq[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
      stream.yield %d, %e : !stream.resource<transient>{%c16}, !stream.resource<transient>{%c16}
    } => !stream.timepoint
    scf.yield %np, %nq, %tn : !stream.resource<transient>, !stream.resource<transient>, !stream.timepoint
  }
  %init2, %t2 = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16} {
    %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%cx[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<transient>{%c16}
    stream.yield %d : !stream.resource<transient>{%c16}
  } => !stream.timepoint
  %shared:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init2, %t = %t2) -> (!stream.resource<transient>, !stream.timepoint) {
    %next, %tn = stream.async.execute on(#stream.test.affinity<"a">) await(%t) => with(%acc as %ca: !stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16} {
      %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%ca[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
      stream.yield %d : !stream.resource<transient>{%c16}
    } => !stream.timepoint
    %side, %ts = stream.async.execute on(#stream.test.affinity<"b">) await(%tn) => with(%next as %cn: !stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16} {
      %d = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%cn[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
      stream.yield %d : !stream.resource<transient>{%c16}
    } => !stream.timepoint
    scf.yield %next, %tn : !stream.resource<transient>, !stream.timepoint
  }
  %h = stream.timepoint.await %twice#2 => %twice#0 : !stream.resource<transient>{%c16}
  %h2 = stream.timepoint.await %shared#1 => %shared#0 : !stream.resource<transient>{%c16}
  util.return %h, %h2 : !stream.resource<transient>, !stream.resource<transient>
}
}

// -----

// One producer on dev0 feeds transfers to dev1, dev2 and dev3 in dev0's
// region: each result is allocated where its to(...) target reaches it
// (with the producer that writes it), not on dev0 alone.
module {
// CHECK-LABEL: @fan_out
// CHECK-DAG: stream.resource.alloca uninitialized on(#stream.test.affinity<"d0", "d1">)
// CHECK-DAG: stream.resource.alloca uninitialized on(#stream.test.affinity<"d0", "d2">)
// CHECK-DAG: stream.resource.alloca uninitialized on(#stream.test.affinity<"d0", "d3">)
// CHECK: stream.cmd.execute on(#stream.test.affinity<"d0">)
util.func public @fan_out(%sz: index) -> (!stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>) {
  %c7 = arith.constant 7 : i32
  %r:3, %t = stream.async.execute on(#stream.test.affinity<"d0">) with() -> (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) {
    %s = stream.async.splat %c7 : i32 -> !stream.resource<transient>{%sz}
    %x1 = stream.async.transfer %s : !stream.resource<transient>{%sz} from(#stream.test.affinity<"d0">) -> to(#stream.test.affinity<"d1">) !stream.resource<transient>{%sz}
    %x2 = stream.async.transfer %s : !stream.resource<transient>{%sz} from(#stream.test.affinity<"d0">) -> to(#stream.test.affinity<"d2">) !stream.resource<transient>{%sz}
    %x3 = stream.async.transfer %s : !stream.resource<transient>{%sz} from(#stream.test.affinity<"d0">) -> to(#stream.test.affinity<"d3">) !stream.resource<transient>{%sz}
    stream.yield %x1, %x2, %x3 : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h:3 = stream.timepoint.await %t => %r#0, %r#1, %r#2 : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  util.return %h#0, %h#1, %h#2 : !stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>
}
}
