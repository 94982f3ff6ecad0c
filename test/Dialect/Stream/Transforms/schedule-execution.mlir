// RUN: fleet-stream-opt %s --split-input-file --stream-schedule-execution | FileCheck %s

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

// Two independent dispatches on A and B: two regions, neither awaits the
// other, so they run concurrently.
// CHECK-LABEL: @independent
// CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#stream.test.affinity<"a">) with(
// CHECK: %[[RB:.+]], %[[TB:.+]] = stream.async.execute on(#stream.test.affinity<"b">) with(
util.func public @independent(%x: !stream.resource<external>, %y: !stream.resource<external>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  %b = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%y[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %a, %b : !stream.resource<transient>, !stream.resource<transient>
}

// -----

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

// A chain A -> B -> A: three regions linked by await(...); the host waits
// only once, for the value it returns.
// CHECK-LABEL: @chain
// CHECK: %[[R1:.+]], %[[T1:.+]] = stream.async.execute on(#stream.test.affinity<"a">) with(
// CHECK-NOT: stream.timepoint.await
// CHECK: %[[R2:.+]], %[[T2:.+]] = stream.async.execute on(#stream.test.affinity<"b">) await(%[[T1]]) => with(%[[R1]] as
// CHECK-NOT: stream.timepoint.await
// CHECK: %[[R3:.+]], %[[T3:.+]] = stream.async.execute on(#stream.test.affinity<"a">) await(%[[T2]]) => with(%[[R2]] as
// CHECK: %[[H:.+]] = stream.timepoint.await %[[T3]] => %[[R3]]
// CHECK: util.return %[[H]]
util.func public @chain(%x: !stream.resource<external>, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  %b = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%a[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  %c = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%b[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %c : !stream.resource<transient>
}

// -----

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

// The seed case: a dispatch on B; the transfer into the result pinned to A
// runs on A, so it is its own region on A awaiting B's timepoint (it does
// not join B's region: its execution affinity is not compatible).
// CHECK-LABEL: @seed
// CHECK: %[[RB:.+]], %[[TB:.+]] = stream.async.execute on(#stream.test.affinity<"b">)
// CHECK-NEXT: stream.async.dispatch
// CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#stream.test.affinity<"a">) await(%[[TB]]) => with(%[[RB]] as
// CHECK-NEXT: stream.async.transfer on(#stream.test.affinity<"a">)
// CHECK: stream.timepoint.await %[[TA]] => %[[RA]]
util.func public @seed(%x: !stream.resource<external>, %sz: index) -> !util.buffer {
  %c0 = arith.constant 0 : index
  %b = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  %t = stream.async.transfer on(#stream.test.affinity<"a">) %b : !stream.resource<transient>{%sz} from(#stream.test.affinity<"b">) -> to(#stream.test.affinity<"a">) !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#stream.test.affinity<"a">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v : !util.buffer
}

// -----

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

// Four micro-batches through a two-stage pipeline A -> B: every stage of
// every micro-batch is its own region; B's first region awaits only A's
// first micro-batch, so B starts while A works on the next ones.
// CHECK-LABEL: @pipeline
// CHECK: %[[A1:.+]], %[[TA1:.+]] = stream.async.execute on(#stream.test.affinity<"a">) with(%arg0 as
// CHECK: %{{.+}}, %[[TB1:.+]] = stream.async.execute on(#stream.test.affinity<"b">) await(%[[TA1]]) => with(%[[A1]] as
// CHECK: %[[A2:.+]], %[[TA2:.+]] = stream.async.execute on(#stream.test.affinity<"a">) with(%arg1 as
// CHECK: %{{.+}}, %{{.+}} = stream.async.execute on(#stream.test.affinity<"b">) await(%[[TA2]]) => with(%[[A2]] as
// CHECK: %[[A3:.+]], %[[TA3:.+]] = stream.async.execute on(#stream.test.affinity<"a">) with(%arg2 as
// CHECK: %{{.+}}, %{{.+}} = stream.async.execute on(#stream.test.affinity<"b">) await(%[[TA3]]) => with(%[[A3]] as
// CHECK: %[[A4:.+]], %[[TA4:.+]] = stream.async.execute on(#stream.test.affinity<"a">) with(%arg3 as
// CHECK: %{{.+}}, %{{.+}} = stream.async.execute on(#stream.test.affinity<"b">) await(%[[TA4]]) => with(%[[A4]] as
util.func public @pipeline(%x1: !stream.resource<external>, %x2: !stream.resource<external>, %x3: !stream.resource<external>, %x4: !stream.resource<external>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %a1 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x1[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  %b1 = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%a1[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  %a2 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x2[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  %b2 = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%a2[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  %a3 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x3[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  %b3 = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%a3[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  %a4 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x4[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  %b4 = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%a4[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %b1, %b2, %b3, %b4 : !stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>
}

// -----

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

// Two results, exported in result order: the first export moves down to the
// return, so the second result's region on B is submitted before the host
// waits for A's.
// CHECK-LABEL: @two_results
// CHECK: %[[RA:.+]], %[[TA:.+]] = stream.async.execute on(#stream.test.affinity<"a">)
// CHECK: %[[RB:.+]], %[[TB:.+]] = stream.async.execute on(#stream.test.affinity<"b">)
// CHECK-NOT: stream.async.execute
// CHECK: stream.timepoint.await
// CHECK: stream.tensor.export
// CHECK: stream.timepoint.await
// CHECK: stream.tensor.export
// CHECK: util.return
util.func public @two_results(%x: !stream.resource<external>, %y: !stream.resource<external>, %sz: index) -> (!util.buffer, !util.buffer) {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %va = stream.tensor.export on(#stream.test.affinity<"a">) %a : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %b = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%y[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %vb = stream.tensor.export on(#stream.test.affinity<"b">) %b : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %va, %vb : !util.buffer, !util.buffer
}

// -----

// stream.async.load/store are host ops on staging resources (not
// streamable): the region ends at the staging copy, the host awaits it and
// reads; a store's result goes back to the device in a new region.
// CHECK-LABEL: util.func public @host_load_store
// CHECK: %[[R:.+]], %[[T:.+]] = stream.async.execute
// CHECK: stream.async.transfer
// CHECK: stream.yield
// CHECK: %[[A:.+]] = stream.timepoint.await %[[T]] => %[[R]] : !stream.resource<staging>
// CHECK: %[[V:.+]] = stream.async.load %[[A]]
// CHECK: %[[S:.+]] = stream.async.store %[[V]], %[[A]]
// CHECK: stream.async.execute {{.*}}with(%[[S]] as
util.func public @host_load_store(%x: !stream.resource<external>, %sz: index) -> (f32, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %st = stream.async.transfer %x : !stream.resource<external>{%sz} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"a">) !stream.resource<staging>{%sz}
  %v = stream.async.load %st[%c0] : !stream.resource<staging>{%sz} -> f32
  %w = stream.async.store %v, %st[%c0] : f32 -> %st as !stream.resource<staging>{%sz}
  %back = stream.async.transfer %w : !stream.resource<staging>{%sz} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"a">) !stream.resource<transient>{%sz}
  util.return %v, %back : f32, !stream.resource<transient>
}

// -----

// A splat without an affinity read on two devices is made on each (as IREE
// clones splats into each partition): two regions, one per device, neither
// waiting for the other, instead of one region with no device that held
// both devices' dispatches.
// CHECK-LABEL: util.func public @unplaced_splat
// CHECK: stream.async.execute on(#stream.test.affinity<"a">) with()
// CHECK-NEXT: stream.async.splat on(#stream.test.affinity<"a">)
// CHECK-NEXT: stream.async.dispatch on(#stream.test.affinity<"a">)
// CHECK: stream.async.execute on(#stream.test.affinity<"b">) with()
// CHECK-NEXT: stream.async.splat on(#stream.test.affinity<"b">)
// CHECK-NEXT: stream.async.dispatch on(#stream.test.affinity<"b">)
util.func public @unplaced_splat(%sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %s = stream.async.splat %c7 : i32 -> !stream.resource<transient>{%sz}
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%s[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  %b = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%s[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %a, %b : !stream.resource<transient>, !stream.resource<transient>
}

// -----

// A region opened by an op without an affinity takes the device of the
// first op that joins it; another device's op needs its own region.
// CHECK-LABEL: util.func public @unplaced_first
// CHECK: %[[R:.+]]:2, %[[T:.+]] = stream.async.execute on(#stream.test.affinity<"a">)
// CHECK: stream.async.clone
// CHECK: stream.async.dispatch on(#stream.test.affinity<"a">)
// CHECK: stream.async.execute on(#stream.test.affinity<"b">) await(%[[T]])
// CHECK-NEXT: stream.async.dispatch on(#stream.test.affinity<"b">)
util.func public @unplaced_first(%x: !stream.resource<transient>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %c = stream.async.clone %x : !stream.resource<transient>{%sz} -> !stream.resource<transient>{%sz}
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%c[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  %b = stream.async.dispatch on(#stream.test.affinity<"b">) @ex::@f(%c[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %a, %b : !stream.resource<transient>, !stream.resource<transient>
}

// -----

// An op's own await moves to the region it is scheduled into (the
// dependency on %t was dropped before).
// CHECK-LABEL: util.func public @op_await
// CHECK: stream.async.execute on(#stream.test.affinity<"a">) await(%arg0) => with()
// CHECK-NEXT: stream.async.splat on(#stream.test.affinity<"a">) %{{.+}} : i32
// CHECK-NOT: await
// CHECK: stream.async.dispatch
util.func public @op_await(%t: !stream.timepoint, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  %s = stream.async.splat on(#stream.test.affinity<"a">) await(%t) %c7 : i32 -> !stream.resource<transient>{%sz}
  %d = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%s[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %d : !stream.resource<transient>
}

// -----

// Device work never crosses a call that is not timeline-aware (it may
// write a resource in place): the dispatch after the call is in a region
// of its own, after it, not merged into the region before it.
// CHECK-LABEL: util.func public @call_barrier
// CHECK: stream.async.execute on(#stream.test.affinity<"a">)
// CHECK-NEXT: stream.async.dispatch
// CHECK: util.call @host_writes
// CHECK: stream.async.execute on(#stream.test.affinity<"a">)
// CHECK-NEXT: stream.async.dispatch
util.func private @host_writes(%r: !stream.resource<external>)
util.func public @call_barrier(%x: !stream.resource<external>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  util.call @host_writes(%x) : (!stream.resource<external>) -> ()
  %b = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %a, %b : !stream.resource<transient>, !stream.resource<transient>
}
