// RUN: fleet-opt %s --split-input-file --stream-elide-async-copies | FileCheck %s

// A unified link lets the consumer use the producer's memory: elided.
// CHECK-LABEL: @unified
// CHECK-NOT: stream.async.transfer
// CHECK: util.return %arg0
module attributes {stream.topology = #hal.device.topology<links = [(@a -> @b = {unified_memory = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @unified(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    // unified_memory written a -> b holds both ways: b reads a's memory too.
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
}

// -----

// No link: the copy stays.
// CHECK-LABEL: @absent
// CHECK: stream.async.transfer
module attributes {stream.topology = #hal.device.topology<links = []>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @absent(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
}

// -----

// transparent_access (@b -> @a): b, the consumer, reaches a's memory, so a
// transfer a -> b is elided...
// CHECK-LABEL: @consumer_reaches_producer
// CHECK-NOT: stream.async.transfer
module attributes {stream.topology = #hal.device.topology<links = [(@b -> @a = {transparent_access = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @consumer_reaches_producer(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
}

// -----

// ...but not the other direction: a consumer a cannot reach b's memory.
// CHECK-LABEL: @producer_reaches_consumer
// CHECK: stream.async.transfer
module attributes {stream.topology = #hal.device.topology<links = [(@b -> @a = {transparent_access = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @producer_reaches_consumer(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@b>) -> to(#hal.device.affinity<@a>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
}

// -----

// export_import alone is not direct access: the copy stays. Lifetime
// changes always stay. The same device (backend and ordinal) needs no copy.
// CHECK-LABEL: @kept_and_same
// CHECK: stream.async.transfer %arg0 {{.+}} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>)
// CHECK: stream.async.transfer %arg0 {{.+}} -> to(#hal.device.affinity<@a>) !stream.resource<external>
// CHECK-NOT: stream.async.transfer
module attributes {stream.topology = #hal.device.topology<links = [(@b -> @a = {}, {export_import = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.global private @a_too = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.func public @kept_and_same(%r: !stream.resource<transient>, %sz: index) -> (!stream.resource<transient>, !stream.resource<external>, !stream.resource<transient>) {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<transient>{%sz}
    %e = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@a>) !stream.resource<external>{%sz}
    %s = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@a_too>) !stream.resource<transient>{%sz}
    util.return %t, %e, %s : !stream.resource<transient>, !stream.resource<external>, !stream.resource<transient>
  }
}

// -----

// A value imported on a promise of @b lives on @b: a transfer to @b (no
// from(...), inferred from the import) moves nothing and is elided.
// CHECK-LABEL: @promised_source
// CHECK: %[[I:.+]] = stream.tensor.import
// CHECK-NOT: stream.async.transfer
// CHECK: util.return %[[I]]
module attributes {stream.topology = #hal.device.topology<links = []>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @promised_source(%v: !hal.buffer_view, %sz: index) -> !stream.resource<external> {
    %i = stream.tensor.import on(#hal.device.promise<@b>) %v : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%sz}
    %t = stream.async.transfer %i : !stream.resource<external>{%sz} -> to(#hal.device.affinity<@b>) !stream.resource<external>{%sz}
    util.return %t : !stream.resource<external>
  }
}

// -----

// Promises on both sides stand for their devices: a unified link elides.
// CHECK-LABEL: @promises_unified
// CHECK-NOT: stream.async.transfer
// CHECK: util.return %arg0
module attributes {stream.topology = #hal.device.topology<links = [(@a -> @b = {unified_memory = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @promises_unified(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.promise<@a>) -> to(#hal.device.promise<@b>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
}

// -----

// A promise of @a and @b without a link: the copy stays.
// CHECK-LABEL: @promise_other_device
// CHECK: stream.async.transfer
module attributes {stream.topology = #hal.device.topology<links = []>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @promise_other_device(%r: !stream.resource<transient>, %sz: index) -> !stream.resource<transient> {
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#hal.device.promise<@a>) -> to(#hal.device.affinity<@b>) !stream.resource<transient>{%sz}
    util.return %t : !stream.resource<transient>
  }
}
