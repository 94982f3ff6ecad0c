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

// Negative: a dependent chain has no two ops in one wave: no concurrent
// region.
// CHECK-LABEL: @chain
// CHECK-NOT: stream.async.concurrent
// CHECK: util.return
util.func public @chain(%x: !stream.resource<external>, %sz: index) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %r, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz} {
    %a = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b = stream.async.dispatch @ex::@f(%a[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %b : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h = stream.timepoint.await %t => %r : !stream.resource<transient>{%sz}
  util.return %h : !stream.resource<transient>
}

// Program order is kept: two micro-batches written one after the other
// (a0, b0 reading a0, a1, b1 reading a1) are not regrouped by depth into
// {a0, a1}, {b0, b1}; only neighbours that do not use each other share a
// wave: {a0}, {b0, a1}, {b1}.
// CHECK-LABEL: @program_order
// CHECK: %[[A0:[a-z0-9_]+]] = stream.async.dispatch @ex::@f(%[[X:[a-z0-9_]+]][
// CHECK-NEXT: %[[P:[a-z0-9_]+]]:2 = stream.async.concurrent with(%[[A0]] as %[[W:[a-z0-9_]+]]: {{.+}}, %[[X]] as %[[V:[a-z0-9_]+]]:
// CHECK-NEXT: stream.async.dispatch @ex::@f(%[[W]][
// CHECK-NEXT: stream.async.dispatch @ex::@f(%[[V]][
// CHECK-NEXT: stream.yield
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: %[[B1:[a-z0-9_]+]] = stream.async.dispatch @ex::@f(%[[P]]#1[
// CHECK-NEXT: stream.yield %[[P]]#0, %[[B1]] :
util.func public @program_order(%x: !stream.resource<external>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %r:2, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%sz}) -> (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) {
    %a0 = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b0 = stream.async.dispatch @ex::@f(%a0[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    %a1 = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b1 = stream.async.dispatch @ex::@f(%a1[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %b0, %b1 : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  util.return %h#0, %h#1 : !stream.resource<transient>, !stream.resource<transient>
}

// A copy writing %v in place does not share a wave with the dispatch
// reading %v just before it: {v, z}, {a}, {b}.
// CHECK-LABEL: @in_place_write
// CHECK: stream.async.concurrent
// CHECK: stream.yield
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: stream.async.dispatch @ex::@f(%{{.+}}#0[
// CHECK-NEXT: stream.async.copy
// CHECK-NEXT: stream.yield
util.func public @in_place_write(%x: !stream.resource<external>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %r:2, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%sz}) -> (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) {
    %v = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %z = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %a = stream.async.dispatch @ex::@f(%v[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    %b = stream.async.copy %z[%c0 to %sz], %v[%c0 to %sz], %sz : !stream.resource<transient>{%sz} -> %v as !stream.resource<transient>{%sz}
    stream.yield %a, %b : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  util.return %h#0, %h#1 : !stream.resource<transient>, !stream.resource<transient>
}

// Three independent dispatches form one wave of three.
// CHECK-LABEL: @three_wide
// CHECK: %[[P:.+]]:3 = stream.async.concurrent
// CHECK-COUNT-3: stream.async.dispatch
// CHECK: stream.yield
// CHECK: stream.yield %[[P]]#0, %[[P]]#1, %[[P]]#2
util.func public @three_wide(%x: !stream.resource<external>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %r:3, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%sz}) -> (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) {
    %a = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %c = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %a, %b, %c : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h:3 = stream.timepoint.await %t => %r#0, %r#1, %r#2 : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  util.return %h#0, %h#1, %h#2 : !stream.resource<transient>, !stream.resource<transient>, !stream.resource<transient>
}

// Regions on two devices are scheduled each on its own: one wave in each.
// CHECK-LABEL: @two_regions
// CHECK: stream.async.execute on(#stream.test.affinity<"a">)
// CHECK: stream.async.concurrent
// CHECK: stream.async.execute on(#stream.test.affinity<"b">)
// CHECK: stream.async.concurrent
util.func public @two_regions(%x: !stream.resource<external>, %y: !stream.resource<external>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %r, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz} {
    %a = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %c = stream.async.dispatch @ex::@f(%a[%c0 to %sz for %sz], %b[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %c : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %s, %u = stream.async.execute on(#stream.test.affinity<"b">) with(%y as %cy: !stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz} {
    %a = stream.async.dispatch @ex::@f(%cy[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b = stream.async.dispatch @ex::@f(%cy[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %c = stream.async.dispatch @ex::@f(%a[%c0 to %sz for %sz], %b[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %c : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h = stream.timepoint.await %t => %r : !stream.resource<transient>{%sz}
  %g = stream.timepoint.await %u => %s : !stream.resource<transient>{%sz}
  util.return %h, %g : !stream.resource<transient>, !stream.resource<transient>
}

// A region inside a loop body is scheduled like any other.
// CHECK-LABEL: @in_loop
// CHECK: scf.for
// CHECK: stream.async.execute
// CHECK: %[[P:.+]]:2 = stream.async.concurrent
// CHECK: stream.async.dispatch @ex::@f(%[[P]]#0{{.+}}, %[[P]]#1
util.func public @in_loop(%x: !stream.resource<external>, %sz: index) -> !stream.resource<external> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out = scf.for %i = %c0 to %c4 step %c1 iter_args(%v = %x) -> (!stream.resource<external>) {
    %r, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%v as %cx: !stream.resource<external>{%sz}) -> !stream.resource<external>{%sz} {
      %a = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
      %b = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
      %c = stream.async.dispatch @ex::@f(%a[%c0 to %sz for %sz], %b[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) -> !stream.resource<external>{%sz}
      stream.yield %c : !stream.resource<external>{%sz}
    } => !stream.timepoint
    %h = stream.timepoint.await %t => %r : !stream.resource<external>{%sz}
    scf.yield %h : !stream.resource<external>
  }
  util.return %out : !stream.resource<external>
}

// A dispatch whose export is not in the module may touch anything
// (docs/ir-reference.md "Unresolved dispatches"): kept out of concurrent
// regions, so its wave of two stays serial.
// CHECK-LABEL: @unresolved
// CHECK-NOT: stream.async.concurrent
// CHECK: @missing::@g
util.func public @unresolved(%x: !stream.resource<external>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %r:2, %t = stream.async.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<external>{%sz}) -> (!stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}) {
    %a = stream.async.dispatch @ex::@f(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b = stream.async.dispatch @missing::@g(%cx[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    stream.yield %a, %b : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  } => !stream.timepoint
  %h:2 = stream.timepoint.await %t => %r#0, %r#1 : !stream.resource<transient>{%sz}, !stream.resource<transient>{%sz}
  util.return %h#0, %h#1 : !stream.resource<transient>, !stream.resource<transient>
}
