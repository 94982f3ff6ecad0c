// RUN: fleet-opt %s --hal-conversion | FileCheck %s

// Globals: a resource global holds a buffer, a timepoint global a fence.
// CHECK: util.global private mutable @var : !hal.buffer
// CHECK: util.global private mutable @ready : !hal.fence

// Queue-ordered allocation on one device and queue: the memory properties
// come from resolve_memory_properties for the affinity (folded later by
// hal-resolve-topology-queries), the alloca waits on the awaited fence and
// signals a new fence on its device; `indeterminate` becomes the
// IndeterminateLifetime flag; the dealloca waits on the alloca's fence and
// keeps `origin` as PreferOrigin.
// CHECK-LABEL: util.func public @allocs
// CHECK-SAME: (%[[WAIT:.+]]: !hal.fence) -> !hal.fence
// CHECK: %[[MT:.+]], %[[BU:.+]] = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@b, [0]>) lifetime(transient) : i32, i32
// CHECK: %[[DEV:.+]] = util.global.load immutable @b : !hal.device
// CHECK: %[[Q:.+]] = arith.constant 1 : i64
// CHECK: %[[ALLOCATED:.+]] = hal.fence.create device(%[[DEV]] : !hal.device) flags("None") : !hal.fence
// CHECK: %[[POOL:.+]] = arith.constant 0 : i64
// CHECK: %[[BUF:.+]] = hal.device.queue.alloca<%[[DEV]] : !hal.device> affinity(%[[Q]]) wait(%[[WAIT]]) signal(%[[ALLOCATED]]) pool(%[[POOL]]) type(%[[MT]]) usage(%[[BU]]) flags(IndeterminateLifetime) : !hal.buffer{%{{.+}}}
// CHECK: %[[DEV2:.+]] = util.global.load immutable @b : !hal.device
// CHECK: %[[FREED:.+]] = hal.fence.create device(%[[DEV2]] : !hal.device)
// CHECK: hal.device.queue.dealloca<%[[DEV2]] : !hal.device> affinity(%{{.+}}) wait(%[[ALLOCATED]]) signal(%[[FREED]]) buffer(%[[BUF]] : !hal.buffer) flags(PreferOrigin)
// CHECK: util.return %[[FREED]] : !hal.fence

// A resource shared by several devices: hal.allocator.select picks the
// device and queue among the members in declaration order (@a before @b,
// whatever the written order), fed by the resolved bits; the alloca runs on
// the selected device and queue. The dealloca asks the same question.
// CHECK-LABEL: util.func public @optimal
// CHECK: %[[MT:.+]], %[[BU:.+]] = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@b>, #hal.device.affinity<@a, [1]>]>) lifetime(external) : i32, i32
// CHECK: %[[A:.+]] = util.global.load immutable @a : !hal.device
// CHECK: %[[QA:.+]] = arith.constant 2 : i64
// CHECK: %[[B:.+]] = util.global.load immutable @b : !hal.device
// CHECK: %[[QB:.+]] = arith.constant -1 : i64
// CHECK: %[[DEV:.+]], %[[Q:.+]] = hal.allocator.select from([(%[[A]], %[[QA]] : !hal.device, i64), (%[[B]], %[[QB]] : !hal.device, i64)]) type(%[[MT]]) usage(%[[BU]]) : !hal.device, i64
// CHECK: %[[NONE:.+]] = util.null : !hal.fence
// CHECK: %[[SIGNAL:.+]] = hal.fence.create device(%[[DEV]] : !hal.device)
// CHECK: hal.device.queue.alloca<%[[DEV]] : !hal.device> affinity(%[[Q]]) wait(%[[NONE]]) signal(%[[SIGNAL]]) pool(%{{.+}}) type(%[[MT]]) usage(%[[BU]]) flags("None")
// CHECK: hal.allocator.select
// CHECK: hal.device.queue.dealloca<%{{.+}} : !hal.device> affinity(%{{.+}}) wait(%[[SIGNAL]]) signal(%{{.+}}) buffer(%{{.+}} : !hal.buffer) flags("None")

// Synchronous allocation on the module's default affinity; resource.size
// is the size that travels with the resource; globals load and store
// buffers and fences.
// CHECK-LABEL: util.func public @sync_alloc_and_globals
// CHECK: %[[MT:.+]], %[[BU:.+]] = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@a>) lifetime(variable)
// CHECK: %[[DEV:.+]] = util.global.load immutable @a : !hal.device
// CHECK: %[[ALLOC:.+]] = hal.device.allocator<%[[DEV]] : !hal.device> : !hal.allocator
// CHECK: %[[BUF:.+]] = hal.allocator.allocate<%[[ALLOC]] : !hal.allocator> affinity(%{{.+}}) type(%[[MT]]) usage(%[[BU]]) : !hal.buffer{%c32}
// CHECK: util.global.store %[[BUF]], @var : !hal.buffer
// CHECK: util.global.load @var : !hal.buffer
// CHECK: util.global.load @ready : !hal.fence
// CHECK-NOT: stream.resource.size

// Host memory used in place when the device imports it; otherwise a
// device allocation filled by a queue update, waited for on the host. The
// result is usable either way, so `%ok` is true.
// CHECK-LABEL: util.func public @map
// CHECK-SAME: (%[[HB:.+]]: !util.buffer)
// CHECK: %[[MT:.+]], %[[BU:.+]] = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@a>) lifetime(constant)
// CHECK: %[[DEV:.+]] = util.global.load immutable @a
// CHECK: %[[ALLOC:.+]] = hal.device.allocator<%[[DEV]] : !hal.device>
// CHECK: %[[OK:.+]], %[[IMPORTED:.+]] = hal.allocator.import<%[[ALLOC]] : !hal.allocator> source(%[[HB]] : !util.buffer)[%{{.+}}, %[[LEN:.+]]] affinity(%{{.+}}) type(%[[MT]]) usage(%[[BU]]) : i1, !hal.buffer
// CHECK: %[[RESULT:.+]] = scf.if %[[OK]] -> (!hal.buffer) {
// CHECK-NEXT: scf.yield %[[IMPORTED]] : !hal.buffer
// CHECK-NEXT: } else {
// CHECK: %[[ALLOCATED:.+]] = hal.fence.create device(%[[DEV]]
// CHECK: %[[UPLOAD:.+]] = hal.device.queue.alloca<%[[DEV]] : !hal.device> {{.+}} signal(%[[ALLOCATED]]) {{.+}} : !hal.buffer{%[[LEN]]}
// CHECK: %[[DONE:.+]] = hal.fence.create device(%[[DEV]]
// CHECK: hal.device.queue.update<%[[DEV]] : !hal.device> affinity(%{{.+}}) wait(%[[ALLOCATED]]) signal(%[[DONE]]) source(%[[HB]] : !util.buffer)[%{{.+}}] target(%[[UPLOAD]] : !hal.buffer)[%{{.+}}] length(%[[LEN]])
// CHECK: %[[STATUS:.+]] = hal.fence.await until([%[[DONE]]])
// CHECK: util.status.check_ok %[[STATUS]], "map: device work failed"
// CHECK: scf.yield %[[UPLOAD]] : !hal.buffer
// CHECK: %[[TRUE:.+]] = arith.constant true
// CHECK: util.return %[[TRUE]], %[[RESULT]] : i1, !hal.buffer

// stream.context.resolve answers by result type.
// CHECK-LABEL: util.func public @context
// CHECK: %[[D:.+]] = util.global.load immutable @b : !hal.device
// CHECK: %[[Q:.+]] = arith.constant 4 : i64
// CHECK: %[[D2:.+]] = util.global.load immutable @b : !hal.device
// CHECK: %[[ALLOC:.+]] = hal.device.allocator<%[[D2]] : !hal.device> : !hal.allocator
// CHECK: util.return %[[D]], %[[Q]], %[[ALLOC]] : !hal.device, i64, !hal.allocator

module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.global private mutable @var : !stream.resource<variable>
  util.global private mutable @ready : !stream.timepoint
  util.func public @allocs(%tp: !stream.timepoint) -> !stream.timepoint {
    %c16 = arith.constant 16 : index
    %r, %t = stream.resource.alloca uninitialized indeterminate on(#hal.device.affinity<@b, [0]>) await(%tp) => !stream.resource<transient>{%c16} => !stream.timepoint
    %d = stream.resource.dealloca origin on(#hal.device.affinity<@b, [0]>) await(%t) => %r : !stream.resource<transient>{%c16} => !stream.timepoint
    util.return %d : !stream.timepoint
  }
  util.func public @optimal() -> !stream.timepoint {
    %c16 = arith.constant 16 : index
    %r, %t = stream.resource.alloca uninitialized on(#hal.device.optimal<[#hal.device.affinity<@b>, #hal.device.affinity<@a, [1]>]>) : !stream.resource<external>{%c16} => !stream.timepoint
    %d = stream.resource.dealloca on(#hal.device.optimal<[#hal.device.affinity<@b>, #hal.device.affinity<@a, [1]>]>) await(%t) => %r : !stream.resource<external>{%c16} => !stream.timepoint
    util.return %d : !stream.timepoint
  }
  util.func public @sync_alloc_and_globals() {
    %c32 = arith.constant 32 : index
    %r = stream.resource.alloc uninitialized : !stream.resource<variable>{%c32}
    %sz = stream.resource.size %r : !stream.resource<variable>
    util.global.store %r, @var : !stream.resource<variable>
    %v = util.global.load @var : !stream.resource<variable>
    %tp = util.global.load @ready : !stream.timepoint
    util.return
  }
  util.func public @map(%hb: !util.buffer) -> (i1, !stream.resource<constant>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %ok, %r = stream.resource.try_map on(#hal.device.affinity<@a>) %hb[%c0] : !util.buffer -> i1, !stream.resource<constant>{%c64}
    util.return %ok, %r : i1, !stream.resource<constant>
  }
  util.func public @context() -> (!hal.device, i64, !hal.allocator) {
    %d, %q = stream.context.resolve on(#hal.device.affinity<@b, [2]>) : !hal.device, i64
    %alloc = stream.context.resolve on(#hal.device.affinity<@b>) : !hal.allocator
    util.return %d, %q, %alloc : !hal.device, i64, !hal.allocator
  }
}
