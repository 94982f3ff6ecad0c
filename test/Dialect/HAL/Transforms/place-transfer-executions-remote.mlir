// RUN: fleet-opt %s --split-input-file --stream-place-transfer-executions | FileCheck %s

// A transfer touching a device declared `remote = true` (another MPI rank,
// docs/distributed.md) executes on a remote side: a pull into a remote
// target, a push out of a remote source, even when the result is pinned
// (exported) elsewhere; between two remote devices, on the target.
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index, remote = true}> : !hal.device
  util.global private @c = #hal.device.target<"local", {ordinal = 2 : index, remote = true}> : !hal.device
  util.global private @d = #hal.device.target<"local", {ordinal = 3 : index}> : !hal.device
  // CHECK-LABEL: @into_remote
  // CHECK: stream.async.transfer on(#hal.device.affinity<@b>) %{{.+}} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>)
  util.func public @into_remote(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
  // The result is exported on A, which would place the transfer on A.
  // CHECK-LABEL: @out_of_remote_pinned
  // CHECK: stream.async.transfer on(#hal.device.affinity<@b>) %{{.+}} from(#hal.device.affinity<@b>) -> to(#hal.device.affinity<@a>)
  util.func public @out_of_remote_pinned(%r: !stream.resource<transient>, %sz: index) -> !util.buffer {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@b>) -> to(#hal.device.affinity<@a>) !stream.resource<external>{%sz}
    %v = stream.tensor.export on(#hal.device.affinity<@a>) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
    util.return %v : !util.buffer
  }
  // CHECK-LABEL: @remote_to_remote
  // CHECK: stream.async.transfer on(#hal.device.affinity<@c>) %{{.+}} from(#hal.device.affinity<@b>) -> to(#hal.device.affinity<@c>)
  util.func public @remote_to_remote(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@b>) -> to(#hal.device.affinity<@c>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
  // Between two local devices nothing changes: no on(...).
  // CHECK-LABEL: @local_to_local
  // CHECK: stream.async.transfer %{{.+}} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@d>)
  util.func public @local_to_local(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@d>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
}
