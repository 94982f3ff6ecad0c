// RUN: fleet-stream-opt %s --stream-elide-timepoints | FileCheck %s

// t2 was produced by a region that awaited t1: waiting for both is waiting
// for t2 alone.
// CHECK-LABEL: @covered
// CHECK: %[[T1:.+]] = stream.cmd.execute
// CHECK: %[[T2:.+]] = stream.cmd.execute on(#stream.test.affinity<"b">) await(%[[T1]])
// CHECK: stream.cmd.execute on(#stream.test.affinity<"a">) await(%[[T2]]) =>
// CHECK-NOT: stream.timepoint.join
util.func public @covered(%x: !stream.resource<transient>, %sz: index) {
  %t1 = stream.cmd.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<transient>{%sz}) {
  } => !stream.timepoint
  %t2 = stream.cmd.execute on(#stream.test.affinity<"b">) await(%t1) => with(%x as %cx: !stream.resource<transient>{%sz}) {
  } => !stream.timepoint
  %j = stream.timepoint.join max(%t1, %t2) => !stream.timepoint
  %t3 = stream.cmd.execute on(#stream.test.affinity<"a">) await(%j) => with(%x as %cx: !stream.resource<transient>{%sz}) {
  } => !stream.timepoint
  util.return
}

// An aware op's signal covers the waits exported into it: a region that
// awaits both the producer and the aware op's signal awaits the signal only.
// CHECK-LABEL: @aware_covers
// CHECK: %[[S:.+]] = stream.timepoint.import
// CHECK: stream.cmd.execute on(#stream.test.affinity<"a">) await(%[[S]]) =>
util.func public @aware_covers(%x: !stream.resource<transient>, %sz: index, %v: !util.buffer, %s: !stream.test.fence) {
  %t1 = stream.cmd.execute on(#stream.test.affinity<"a">) with(%x as %cx: !stream.resource<transient>{%sz}) {
  } => !stream.timepoint
  %w = stream.timepoint.export on(#stream.test.affinity<"a">) %t1 => (!stream.test.fence)
  %o = stream.test.timeline_aware(%v) waits(%w) signals(%s) : (!util.buffer) -> !util.buffer
  %ts = stream.timepoint.import on(#stream.test.affinity<"a">) %s : (!stream.test.fence) => !stream.timepoint
  %j = stream.timepoint.join max(%t1, %ts) => !stream.timepoint
  %t2 = stream.cmd.execute on(#stream.test.affinity<"a">) await(%j) => with(%x as %cx: !stream.resource<transient>{%sz}) {
  } => !stream.timepoint
  util.return
}

// A join whose result escapes is rewritten too: returned, the join of t1
// and t2 (which awaited t1) is t2.
// CHECK-LABEL: @escaping_join_returned
// CHECK: %[[T2:.+]] = stream.test.timeline_op await(
// CHECK-NOT: stream.timepoint.join
// CHECK: util.return %[[T2]]
util.func public @escaping_join_returned() -> !stream.timepoint {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %t2 = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  %j = stream.timepoint.join max(%t1, %t2) => !stream.timepoint
  util.return %j : !stream.timepoint
}

// Stored to a global and passed to a call: the join keeps what is not
// covered (t3 is independent of t2) and drops the immediate.
// CHECK-LABEL: @escaping_join_stored_and_passed
// CHECK: %[[T2:.+]] = stream.test.timeline_op await(
// CHECK: %[[T3:.+]] = stream.test.timeline_op with()
// CHECK: %[[J:.+]] = stream.timepoint.join max(%[[T2]], %[[T3]])
// CHECK: util.global.store %[[J]], @tp
// CHECK: util.call @sink(%[[J]])
util.global private mutable @tp : !stream.timepoint
util.func private @sink(%t: !stream.timepoint)
util.func public @escaping_join_stored_and_passed() {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %t2 = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  %t3 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %i = stream.timepoint.immediate => !stream.timepoint
  %j = stream.timepoint.join max(%t1, %t2, %i, %t3) => !stream.timepoint
  util.global.store %j, @tp : !stream.timepoint
  util.call @sink(%j) : (!stream.timepoint) -> ()
  util.return
}

// arith.select of two timepoints that both awaited t1 covers t1.
// CHECK-LABEL: @through_select
// CHECK: %[[S:.+]] = arith.select
// CHECK: stream.test.timeline_op await(%[[S]]) =>
util.func public @through_select(%c: i1) {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %a = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  %b = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  %s = arith.select %c, %a, %b : !stream.timepoint
  %u = stream.test.timeline_op await(%t1, %s) => with() : () -> () => !stream.timepoint
  util.return
}

// Only one choice awaited t1: the select does not cover it, both stay.
// CHECK-LABEL: @through_select_one_side
// CHECK: %[[T1:.+]] = stream.test.timeline_op with()
// CHECK: %[[S:.+]] = arith.select
// CHECK: stream.test.timeline_op await(%[[T1]], %[[S]]) =>
util.func public @through_select_one_side(%c: i1) {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %a = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  %b = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %s = arith.select %c, %a, %b : !stream.timepoint
  %u = stream.test.timeline_op await(%t1, %s) => with() : () -> () => !stream.timepoint
  util.return
}

// Branches: the block argument is t2 or t3, both after t1, so it covers t1.
// CHECK-LABEL: @through_branches
// CHECK: ^bb{{[0-9]+}}(%[[M:.+]]: !stream.timepoint):
// CHECK: stream.test.timeline_op await(%[[M]]) =>
util.func public @through_branches(%c: i1) {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %t2 = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  %t3 = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  cf.cond_br %c, ^bb1(%t2 : !stream.timepoint), ^bb1(%t3 : !stream.timepoint)
^bb1(%m: !stream.timepoint):
  %u = stream.test.timeline_op await(%t1, %m) => with() : () -> () => !stream.timepoint
  util.return
}

// A loop carrying a timepoint: the carried value is the initial one or one
// produced after it in the body, so after the loop it covers the initial.
// CHECK-LABEL: @through_loop
// CHECK: %[[L:.+]] = scf.for
// CHECK: stream.test.timeline_op await(%[[L]]) =>
util.func public @through_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %t2 = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%it = %t2) -> (!stream.timepoint) {
    %next = stream.test.timeline_op await(%it) => with() : () -> () => !stream.timepoint
    scf.yield %next : !stream.timepoint
  }
  %u = stream.test.timeline_op await(%t1, %l) => with() : () -> () => !stream.timepoint
  util.return
}

// A branch where one path bypasses t1: the argument does not cover it.
// CHECK-LABEL: @through_branches_one_path
// CHECK: ^bb{{[0-9]+}}(%[[M:.+]]: !stream.timepoint):
// CHECK: stream.test.timeline_op await(%{{.+}}, %[[M]]) =>
util.func public @through_branches_one_path(%c: i1) {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %t2 = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
  %t3 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  cf.cond_br %c, ^bb1(%t2 : !stream.timepoint), ^bb1(%t3 : !stream.timepoint)
^bb1(%m: !stream.timepoint):
  %u = stream.test.timeline_op await(%t1, %m) => with() : () -> () => !stream.timepoint
  util.return
}

// Calls: @after returns a timepoint reached after its argument on every
// return, so the call's result covers the operand passed.
// CHECK-LABEL: @through_call
// CHECK: %[[R:.+]] = util.call @after
// CHECK: stream.test.timeline_op await(%[[R]]) =>
util.func private @after(%t: !stream.timepoint, %c: i1) -> !stream.timepoint {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %a = stream.test.timeline_op await(%t) => with() : () -> () => !stream.timepoint
  util.return %a : !stream.timepoint
^bb2:
  %b = stream.test.timeline_op await(%t) => with() : () -> () => !stream.timepoint
  %j = stream.timepoint.join max(%b, %t) => !stream.timepoint
  util.return %j : !stream.timepoint
}
util.func public @through_call(%c: i1) {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %r = util.call @after(%t1, %c) : (!stream.timepoint, i1) -> !stream.timepoint
  %u = stream.test.timeline_op await(%t1, %r) => with() : () -> () => !stream.timepoint
  util.return
}

// A callee with a return that does not wait for its argument: no coverage.
// CHECK-LABEL: @through_call_not_covering
// CHECK: %[[T1:.+]] = stream.test.timeline_op with()
// CHECK: %[[R:.+]] = util.call @sometimes_after
// CHECK: stream.test.timeline_op await(%[[T1]], %[[R]]) =>
util.func private @sometimes_after(%t: !stream.timepoint, %c: i1) -> !stream.timepoint {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %a = stream.test.timeline_op await(%t) => with() : () -> () => !stream.timepoint
  util.return %a : !stream.timepoint
^bb2:
  %b = stream.test.timeline_op with() : () -> () => !stream.timepoint
  util.return %b : !stream.timepoint
}
util.func public @through_call_not_covering(%c: i1) {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %r = util.call @sometimes_after(%t1, %c) : (!stream.timepoint, i1) -> !stream.timepoint
  %u = stream.test.timeline_op await(%t1, %r) => with() : () -> () => !stream.timepoint
  util.return
}

// A recursive callee: every return is after its argument (the recursive
// call's result is after %b, which is after %t), so the call covers %t1. A
// callee without a body says nothing: both waits stay.
// CHECK-LABEL: @through_recursion
// CHECK: %[[T1:.+]] = stream.test.timeline_op with()
// CHECK: %[[R:.+]] = util.call @rec
// CHECK: %[[E:.+]] = util.call @ext
// CHECK: stream.test.timeline_op await(%[[R]]) =>
// CHECK: stream.test.timeline_op await(%[[T1]], %[[E]]) =>
util.func private @rec(%t: !stream.timepoint, %c: i1) -> !stream.timepoint {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %a = stream.test.timeline_op await(%t) => with() : () -> () => !stream.timepoint
  util.return %a : !stream.timepoint
^bb2:
  %b = stream.test.timeline_op await(%t) => with() : () -> () => !stream.timepoint
  %r = util.call @rec(%b, %c) : (!stream.timepoint, i1) -> !stream.timepoint
  util.return %r : !stream.timepoint
}
util.func private @ext(%t: !stream.timepoint) -> !stream.timepoint
util.func public @through_recursion(%c: i1) {
  %t1 = stream.test.timeline_op with() : () -> () => !stream.timepoint
  %r = util.call @rec(%t1, %c) : (!stream.timepoint, i1) -> !stream.timepoint
  %e = util.call @ext(%t1) : (!stream.timepoint) -> !stream.timepoint
  %u = stream.test.timeline_op await(%t1, %r) => with() : () -> () => !stream.timepoint
  %v = stream.test.timeline_op await(%t1, %e) => with() : () -> () => !stream.timepoint
  util.return
}
