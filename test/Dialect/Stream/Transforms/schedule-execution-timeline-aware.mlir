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

// An aware call between two regions: no host await before it (the
// producer's timepoint is exported into its waits) and the next region
// awaits its imported signal instead of the host.
// CHECK-LABEL: @aware_call
// CHECK: %[[R:.+]], %[[T:.+]] = stream.async.execute
// CHECK-NOT: stream.timepoint.await
// CHECK: %[[V:.+]] = stream.tensor.export on(#stream.test.affinity<"a">) %[[R]]
// CHECK: %[[W:.+]] = stream.timepoint.export on(#stream.test.affinity<"a">) %[[T]] => (!stream.test.fence)
// CHECK: %[[O:.+]] = stream.test.timeline_aware(%[[V]]) waits(%[[W]]) signals(%arg2)
// CHECK: %[[I:.+]] = stream.tensor.import on(#stream.test.affinity<"a">) %[[O]]
// CHECK: %[[S:.+]] = stream.timepoint.import on(#stream.test.affinity<"a">) %arg2 : (!stream.test.fence) => !stream.timepoint
// CHECK-NOT: stream.timepoint.await
// CHECK: stream.async.execute on(#stream.test.affinity<"a">) await(%[[S]]) => with(%[[I]] as
util.func public @aware_call(%x: !stream.resource<external>, %sz: index, %s: !stream.test.fence) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#stream.test.affinity<"a">) %a : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %o = stream.test.timeline_aware(%v) waits() signals(%s) : (!util.buffer) -> !util.buffer
  %r = stream.tensor.import on(#stream.test.affinity<"a">) %o : !util.buffer -> tensor<4xf32> in !stream.resource<external>{%sz}
  %b = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%r[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %b : !stream.resource<transient>
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

// Two aware calls in sequence: the second waits on the first's signal
// through its own wait fence, with no host wait in between.
// CHECK-LABEL: @two_calls
// CHECK: %[[O1:.+]] = stream.test.timeline_aware(%{{.+}}) waits(%{{.+}}) signals(%arg2)
// CHECK: %[[S1:.+]] = stream.timepoint.import on(#stream.test.affinity<"a">) %arg2
// CHECK: %[[W2:.+]] = stream.timepoint.export on(#stream.test.affinity<"a">) %[[S1]] => (!stream.test.fence)
// CHECK: stream.test.timeline_aware(%{{.+}}) waits(%[[W2]]) signals(%arg3)
// CHECK-NOT: stream.timepoint.await
// CHECK: util.return
util.func public @two_calls(%x: !stream.resource<external>, %sz: index, %s1: !stream.test.fence, %s2: !stream.test.fence) -> !util.buffer {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#stream.test.affinity<"a">) %a : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %o1 = stream.test.timeline_aware(%v) waits() signals(%s1) : (!util.buffer) -> !util.buffer
  %r1 = stream.tensor.import on(#stream.test.affinity<"a">) %o1 : !util.buffer -> tensor<4xf32> in !stream.resource<external>{%sz}
  %v1 = stream.tensor.export on(#stream.test.affinity<"a">) %r1 : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %o2 = stream.test.timeline_aware(%v1) waits() signals(%s2) : (!util.buffer) -> !util.buffer
  util.return %o2 : !util.buffer
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

// A value read by an aware call and by a normal op: only the aware use is
// rewritten; the normal op keeps the producer's own timepoint (its region
// awaits the producer, not the call's signal), so no wait cycle forms.
// CHECK-LABEL: @shared
// CHECK: %[[R:.+]], %[[T:.+]] = stream.async.execute
// CHECK: stream.timepoint.export on(#stream.test.affinity<"a">) %[[T]]
// CHECK: stream.test.timeline_aware
// CHECK: stream.async.execute on(#stream.test.affinity<"a">) await(%[[T]]) => with(%[[R]] as
util.func public @shared(%x: !stream.resource<external>, %sz: index, %s: !stream.test.fence) -> (!util.buffer, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#stream.test.affinity<"a">) %a : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %o = stream.test.timeline_aware(%v) waits() signals(%s) : (!util.buffer) -> !util.buffer
  %b = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%a[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %o, %b : !util.buffer, !stream.resource<transient>
}
