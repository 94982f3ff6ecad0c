// Folds of the timepoint ops (the obviously safe ones; docs/ir-reference.md
// names none): each case shows the op going away.
// RUN: fleet-stream-opt %s -split-input-file --canonicalize | FileCheck %s

// Joining a single timepoint is that timepoint.
// CHECK-LABEL: util.func private @join_one
// CHECK-NEXT: util.return %arg0 : !stream.timepoint
util.func private @join_one(%tp: !stream.timepoint) -> !stream.timepoint {
  %j = stream.timepoint.join max(%tp) => !stream.timepoint
  util.return %j : !stream.timepoint
}

// -----

// Joining only reached timepoints is reached: an immediate timepoint.
// CHECK-LABEL: util.func private @join_immediate
// CHECK-NEXT: %[[I:.+]] = stream.timepoint.immediate => !stream.timepoint
// CHECK-NEXT: util.return %[[I]] : !stream.timepoint
util.func private @join_immediate() -> !stream.timepoint {
  %a = stream.timepoint.immediate => !stream.timepoint
  %b = stream.timepoint.immediate => !stream.timepoint
  %j = stream.timepoint.join max(%a, %b) => !stream.timepoint
  util.return %j : !stream.timepoint
}

// -----

// A join that waits on a pending timepoint stays.
// CHECK-LABEL: util.func private @join_kept
// CHECK: stream.timepoint.join max(%arg0, %arg1) => !stream.timepoint
util.func private @join_kept(%a: !stream.timepoint, %b: !stream.timepoint) -> !stream.timepoint {
  %j = stream.timepoint.join max(%a, %b) => !stream.timepoint
  util.return %j : !stream.timepoint
}

// -----

// Awaiting an immediate timepoint hands the resources through.
// CHECK-LABEL: util.func private @await_immediate
// CHECK-NOT: stream.timepoint.await
// CHECK: util.return %arg0, %arg2 : !stream.resource<external>, !stream.resource<staging>
util.func private @await_immediate(%r: !stream.resource<external>, %sz: index, %s: !stream.resource<staging>) -> (!stream.resource<external>, !stream.resource<staging>) {
  %i = stream.timepoint.immediate => !stream.timepoint
  %r2, %s2 = stream.timepoint.await %i => %r, %s : !stream.resource<external>{%sz}, !stream.resource<staging>{%sz}
  util.return %r2, %s2 : !stream.resource<external>, !stream.resource<staging>
}

// -----

// Awaiting a pending timepoint stays.
// CHECK-LABEL: util.func private @await_kept
// CHECK: stream.timepoint.await %arg0 => %arg1 : !stream.resource<external>{%arg2}
util.func private @await_kept(%tp: !stream.timepoint, %r: !stream.resource<external>, %sz: index) -> !stream.resource<external> {
  %r2 = stream.timepoint.await %tp => %r : !stream.resource<external>{%sz}
  util.return %r2 : !stream.resource<external>
}
