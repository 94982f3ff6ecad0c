// RUN: fleet-opt %s --split-input-file --hal-conversion | FileCheck %s

// Immediate is the null fence, join is a fence join, await is a host wait
// whose status is checked (the message names the function), and the
// resources awaited are the buffers themselves.

// CHECK-LABEL: util.func public @timepoints
// CHECK-SAME: (%[[R:.+]]: !hal.buffer, %[[F0:.+]]: !hal.fence, %[[F1:.+]]: !hal.fence)
// CHECK: %[[NONE:.+]] = util.null : !hal.fence
// CHECK: %[[JOIN:.+]] = hal.fence.join at([%[[F0]], %[[F1]], %[[NONE]]]) flags("None") -> !hal.fence
// CHECK: %[[INFINITE:.+]] = arith.constant -1 : i32
// CHECK: %[[STATUS:.+]] = hal.fence.await until([%[[JOIN]]]) timeout_millis(%[[INFINITE]]) flags("None") : i32
// CHECK: util.status.check_ok %[[STATUS]], "timepoints: device work failed"
// CHECK: util.return %[[R]] : !hal.buffer
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @timepoints(%r: !stream.resource<external>, %t0: !stream.timepoint, %t1: !stream.timepoint) -> !stream.resource<external> {
    %c16 = arith.constant 16 : index
    %now = stream.timepoint.immediate => !stream.timepoint
    %j = stream.timepoint.join max(%t0, %t1, %now) => !stream.timepoint
    %r2 = stream.timepoint.await sync %j => %r : !stream.resource<external>{%c16}
    util.return %r2 : !stream.resource<external>
  }
}

// -----

// Cross-device ordering: the execute on @b waits on the fence the execute
// on @a signals — no host wait in between.

// CHECK-LABEL: util.func public @cross_device
// CHECK: %[[A:.+]] = util.global.load immutable @a : !hal.device
// CHECK: %[[FA:.+]] = hal.fence.create device(%[[A]] : !hal.device)
// CHECK: hal.device.queue.execute<%[[A]] : !hal.device> affinity(%{{.+}}) wait(%{{.+}}) signal(%[[FA]])
// CHECK: %[[B:.+]] = util.global.load immutable @b : !hal.device
// CHECK: %[[FB:.+]] = hal.fence.create device(%[[B]] : !hal.device)
// CHECK: hal.device.queue.execute<%[[B]] : !hal.device> affinity(%{{.+}}) wait(%[[FA]]) signal(%[[FB]])
// CHECK-NOT: hal.fence.await
// CHECK: util.return %[[FB]] : !hal.fence
module attributes {stream.topology = #hal.device.topology<links = [(@a -> @b = {unified_memory = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @cross_device(%r: !stream.resource<transient>) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c1_i32 = arith.constant 1 : i32
    %t0 = stream.cmd.execute on(#hal.device.affinity<@a>) with(%r as %cr: !stream.resource<transient>{%c16}) {
      stream.cmd.fill %c1_i32, %cr[%c0 for %c16] : i32 -> !stream.resource<transient>{%c16}
    } => !stream.timepoint
    %t1 = stream.cmd.execute on(#hal.device.affinity<@b>) await(%t0) => with(%r as %cr: !stream.resource<transient>{%c16}) {
      stream.cmd.fill %c1_i32, %cr[%c0 for %c16] : i32 -> !stream.resource<transient>{%c16}
    } => !stream.timepoint
    util.return %t1 : !stream.timepoint
  }
}

// -----

// Fences at the boundary of coarse-fences functions: import and export are
// the fence itself; chain_external signals the caller's fence from a queue
// barrier on the affinity's device once the timepoint's fence is reached.

// CHECK-LABEL: util.func public @external_fences
// CHECK-SAME: (%[[WAIT:.+]]: !hal.fence, %[[SIGNAL:.+]]: !hal.fence) -> !hal.fence
// CHECK: %[[DEV:.+]] = util.global.load immutable @dev : !hal.device
// CHECK: %[[Q:.+]] = arith.constant -1 : i64
// CHECK: hal.device.queue.barrier<%[[DEV]] : !hal.device> affinity(%[[Q]]) wait(%[[WAIT]]) signal(%[[SIGNAL]]) flags("None")
// CHECK: util.return %[[WAIT]] : !hal.fence
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @external_fences(%wait: !hal.fence, %signal: !hal.fence) -> !hal.fence {
    %t = stream.timepoint.import on(#hal.device.affinity<@dev>) %wait : (!hal.fence) => !stream.timepoint
    stream.timepoint.chain_external on(#hal.device.affinity<@dev>) %t => (%signal : !hal.fence)
    %f = stream.timepoint.export on(#hal.device.affinity<@dev>) %t => (!hal.fence)
    util.return %f : !hal.fence
  }
}

// -----

// Timepoints through control flow: block arguments and scf results become
// fences.

// CHECK-LABEL: util.func public @control_flow
// CHECK-SAME: (%[[C:.+]]: i1, %[[T0:.+]]: !hal.fence, %[[T1:.+]]: !hal.fence) -> !hal.fence
// CHECK: %[[SEL:.+]] = scf.if %[[C]] -> (!hal.fence) {
// CHECK: scf.yield %[[T0]] : !hal.fence
// CHECK: scf.yield %[[T1]] : !hal.fence
// CHECK: cf.br ^bb1(%[[SEL]] : !hal.fence)
// CHECK: ^bb1(%[[ARG:.+]]: !hal.fence):
// CHECK: util.return %[[ARG]] : !hal.fence
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @control_flow(%c: i1, %t0: !stream.timepoint, %t1: !stream.timepoint) -> !stream.timepoint {
    %t = scf.if %c -> !stream.timepoint {
      scf.yield %t0 : !stream.timepoint
    } else {
      scf.yield %t1 : !stream.timepoint
    }
    cf.br ^bb1(%t : !stream.timepoint)
  ^bb1(%arg: !stream.timepoint):
    util.return %arg : !stream.timepoint
  }
}
