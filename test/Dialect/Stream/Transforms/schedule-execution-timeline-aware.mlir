// RUN: fleet-opt %s --split-input-file --stream-schedule-execution | FileCheck %s

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
// CHECK: %[[V:.+]] = stream.tensor.export on(#hal.device.affinity<@a>) %[[R]]
// CHECK: %[[W:.+]] = stream.timepoint.export on(#hal.device.affinity<@a>) %[[T]] => (!stream.test.fence)
// CHECK: %[[O:.+]] = stream.test.timeline_aware(%[[V]]) waits(%[[W]]) signals(%arg2)
// CHECK: %[[I:.+]] = stream.tensor.import on(#hal.device.affinity<@a>) %[[O]]
// CHECK: %[[S:.+]] = stream.timepoint.import on(#hal.device.affinity<@a>) %arg2 : (!stream.test.fence) => !stream.timepoint
// CHECK-NOT: stream.timepoint.await
// CHECK: stream.async.execute on(#hal.device.affinity<@a>) await(%[[S]]) => with(%[[I]] as
util.func public @aware_call(%x: !stream.resource<external>, %sz: index, %s: !stream.test.fence) -> !stream.resource<transient> {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#hal.device.affinity<@a>) %a : tensor<4xf32> in !stream.resource<external>{%sz} -> !hal.buffer_view
  %o = stream.test.timeline_aware(%v) waits() signals(%s) : (!hal.buffer_view) -> !hal.buffer_view
  %r = stream.tensor.import on(#hal.device.affinity<@a>) %o : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%sz}
  %b = stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%r[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
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
// CHECK: %[[S1:.+]] = stream.timepoint.import on(#hal.device.affinity<@a>) %arg2
// CHECK: %[[W2:.+]] = stream.timepoint.export on(#hal.device.affinity<@a>) %[[S1]] => (!stream.test.fence)
// CHECK: stream.test.timeline_aware(%{{.+}}) waits(%[[W2]]) signals(%arg3)
// CHECK-NOT: stream.timepoint.await
// CHECK: util.return
util.func public @two_calls(%x: !stream.resource<external>, %sz: index, %s1: !stream.test.fence, %s2: !stream.test.fence) -> !hal.buffer_view {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#hal.device.affinity<@a>) %a : tensor<4xf32> in !stream.resource<external>{%sz} -> !hal.buffer_view
  %o1 = stream.test.timeline_aware(%v) waits() signals(%s1) : (!hal.buffer_view) -> !hal.buffer_view
  %r1 = stream.tensor.import on(#hal.device.affinity<@a>) %o1 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%sz}
  %v1 = stream.tensor.export on(#hal.device.affinity<@a>) %r1 : tensor<4xf32> in !stream.resource<external>{%sz} -> !hal.buffer_view
  %o2 = stream.test.timeline_aware(%v1) waits() signals(%s2) : (!hal.buffer_view) -> !hal.buffer_view
  util.return %o2 : !hal.buffer_view
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
// CHECK: stream.timepoint.export on(#hal.device.affinity<@a>) %[[T]]
// CHECK: stream.test.timeline_aware
// CHECK: stream.async.execute on(#hal.device.affinity<@a>) await(%[[T]]) => with(%[[R]] as
util.func public @shared(%x: !stream.resource<external>, %sz: index, %s: !stream.test.fence) -> (!hal.buffer_view, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<external>{%sz}
  %v = stream.tensor.export on(#hal.device.affinity<@a>) %a : tensor<4xf32> in !stream.resource<external>{%sz} -> !hal.buffer_view
  %o = stream.test.timeline_aware(%v) waits() signals(%s) : (!hal.buffer_view) -> !hal.buffer_view
  %b = stream.async.dispatch on(#hal.device.affinity<@a>) @ex::@f(%a[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %o, %b : !hal.buffer_view, !stream.resource<transient>
}
