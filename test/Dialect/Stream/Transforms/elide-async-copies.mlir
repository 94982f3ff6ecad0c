// RUN: fleet-stream-opt %s --split-input-file --stream-elide-async-copies | FileCheck %s

// The pass asks stream::DeviceTopology, answered by the affinity's dialect;
// test devices are the same only when named alike and have no links. HAL's
// topology links: test/Dialect/HAL/Transforms/elide-async-copies-topology.mlir.

// A transfer between two affinities of one device: elided.
// CHECK-LABEL: @same_device
// CHECK-NOT: stream.async.transfer
// CHECK: util.return %arg0
util.func public @same_device(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"a">) !stream.resource<transient>{%sz}
  util.return %t : !stream.resource<transient>
}

// -----

// Two devices without a link: the copy stays.
// CHECK-LABEL: @other_device
// CHECK: stream.async.transfer
util.func public @other_device(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"b">) !stream.resource<transient>{%sz}
  util.return %t : !stream.resource<transient>
}

// -----

// A transfer that changes the lifetime stays, even on one device.
// CHECK-LABEL: @lifetime_change
// CHECK: stream.async.transfer
util.func public @lifetime_change(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<external> {
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"a">) !stream.resource<external>{%sz}
  util.return %t : !stream.resource<external>
}

// -----

// A set of candidate devices names no single device: kept.
// CHECK-LABEL: @candidate_set
// CHECK: stream.async.transfer
util.func public @candidate_set(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"a", "b">) -> to(#stream.test.affinity<"a">) !stream.resource<transient>{%sz}
  util.return %t : !stream.resource<transient>
}
