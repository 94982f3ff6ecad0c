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
