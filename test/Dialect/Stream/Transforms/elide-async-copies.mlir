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

// -----

// No from(...): the producer's affinity is where the value lives. The import
// puts it on "a", the transfer goes to "a": elided.
// CHECK-LABEL: @source_from_producer
// CHECK-NOT: stream.async.transfer
// CHECK: util.return %[[I:.+]] :
util.func public @source_from_producer(%b: !util.buffer, %sz: index) -> !stream.resource<external> {
  %i = stream.tensor.import on(#stream.test.affinity<"a">) %b : !util.buffer -> tensor<4xf32> in !stream.resource<external>{%sz}
  %t = stream.async.transfer %i : !stream.resource<external>{%sz} -> to(#stream.test.affinity<"a">) !stream.resource<external>{%sz}
  util.return %t : !stream.resource<external>
}

// -----

// A producing transfer puts its result at its to(...): a second transfer to
// the same place is elided, the first (a -> b) stays.
// CHECK-LABEL: @source_from_producing_transfer
// CHECK: %[[X:.+]] = stream.async.transfer {{.*}} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"b">)
// CHECK-NOT: stream.async.transfer
// CHECK: util.return %[[X]]
util.func public @source_from_producing_transfer(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %x = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#stream.test.affinity<"a">) -> to(#stream.test.affinity<"b">) !stream.resource<transient>{%sz}
  %y = stream.async.transfer %x : !stream.resource<transient>{%sz} -> to(#stream.test.affinity<"b">) !stream.resource<transient>{%sz}
  util.return %y : !stream.resource<transient>
}

// -----

// No from(...) and the producer another device: the copy stays.
// CHECK-LABEL: @source_from_producer_other_device
// CHECK: stream.async.transfer
util.func public @source_from_producer_other_device(%b: !util.buffer, %sz: index) -> !stream.resource<external> {
  %i = stream.tensor.import on(#stream.test.affinity<"a">) %b : !util.buffer -> tensor<4xf32> in !stream.resource<external>{%sz}
  %t = stream.async.transfer %i : !stream.resource<external>{%sz} -> to(#stream.test.affinity<"b">) !stream.resource<external>{%sz}
  util.return %t : !stream.resource<external>
}

// -----

// No from(...) on an argument: where it lives is not proven, kept.
// CHECK-LABEL: @source_unknown
// CHECK: stream.async.transfer
util.func public @source_unknown(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
  %t = stream.async.transfer %r : !stream.resource<transient>{%sz} -> to(#stream.test.affinity<"a">) !stream.resource<transient>{%sz}
  util.return %t : !stream.resource<transient>
}

// -----

// No affinities at all, but provably local: the producer and every consumer
// are on "a". Elided; the consumers read the import.
// CHECK-LABEL: @no_affinities_local
// CHECK: %[[I:.+]] = stream.tensor.import
// CHECK-NOT: stream.async.transfer
// CHECK: stream.tensor.export on(#stream.test.affinity<"a">) %[[I]]
// CHECK: stream.tensor.export on(#stream.test.affinity<"a">) %[[I]]
util.func public @no_affinities_local(%b: !util.buffer, %sz: index) -> (!util.buffer, !util.buffer) {
  %i = stream.tensor.import on(#stream.test.affinity<"a">) %b : !util.buffer -> tensor<4xf32> in !stream.resource<external>{%sz}
  %t = stream.async.transfer %i : !stream.resource<external>{%sz} -> !stream.resource<external>{%sz}
  %v0 = stream.tensor.export on(#stream.test.affinity<"a">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %v1 = stream.tensor.export on(#stream.test.affinity<"a">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v0, %v1 : !util.buffer, !util.buffer
}

// -----

// No affinities, consumers on two devices: not local, kept.
// CHECK-LABEL: @no_affinities_two_consumers
// CHECK: stream.async.transfer
util.func public @no_affinities_two_consumers(%b: !util.buffer, %sz: index) -> (!util.buffer, !util.buffer) {
  %i = stream.tensor.import on(#stream.test.affinity<"a">) %b : !util.buffer -> tensor<4xf32> in !stream.resource<external>{%sz}
  %t = stream.async.transfer %i : !stream.resource<external>{%sz} -> !stream.resource<external>{%sz}
  %v0 = stream.tensor.export on(#stream.test.affinity<"a">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  %v1 = stream.tensor.export on(#stream.test.affinity<"b">) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
  util.return %v0, %v1 : !util.buffer, !util.buffer
}

// -----

// No to(...) and the result leaves the function: where it is read is not
// known, kept.
// CHECK-LABEL: @no_target_escapes
// CHECK: stream.async.transfer
util.func public @no_target_escapes(%b: !util.buffer, %sz: index) -> !stream.resource<external> {
  %i = stream.tensor.import on(#stream.test.affinity<"a">) %b : !util.buffer -> tensor<4xf32> in !stream.resource<external>{%sz}
  %t = stream.async.transfer %i : !stream.resource<external>{%sz} from(#stream.test.affinity<"a">) -> !stream.resource<external>{%sz}
  util.return %t : !stream.resource<external>
}
