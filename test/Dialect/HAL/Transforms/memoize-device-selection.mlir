// RUN: fleet-opt %s --split-input-file --hal-memoize-device-selection | FileCheck %s

// A select computed from immutable globals and constants runs once in an
// initializer (with the arithmetic feeding it) before its first user; the
// chosen device and queue and the bits it was given are stored in globals,
// and the allocation after the select reads the memoized bits (constant
// bits stay constants). The same selection in another function shares the
// globals. Names and layout are IREE's (docs/pipeline.md "Memoized
// globals"): @__allocator_select_device and _affinity, then Fleet's
// _memory_types and _buffer_usage, before the initializer.

// CHECK-LABEL: module
// CHECK: util.global private @__allocator_select_device : !hal.device
// CHECK-NEXT: util.global private @__allocator_select_affinity : i64
// CHECK-NEXT: util.global private @__allocator_select_memory_types : i32
// CHECK-NEXT: util.global private @__allocator_select_buffer_usage : i32
// CHECK-NEXT: util.initializer {
// CHECK-DAG:    %[[T:.+]] = util.global.load immutable @__link : i1
// CHECK-DAG:    %[[BITS:.+]] = hal.memory_type<HostVisible> : i32
// CHECK:        %[[MT:.+]] = arith.select %[[T]]
// CHECK:        %[[D:.+]], %[[Q:.+]] = hal.allocator.select from([{{.+}}]) type(%[[MT]]) usage(%{{.+}})
// CHECK-NEXT:   util.global.store %[[D]], @__allocator_select_device : !hal.device
// CHECK-NEXT:   util.global.store %[[Q]], @__allocator_select_affinity : i64
// CHECK-NEXT:   util.global.store %[[MT]], @__allocator_select_memory_types : i32
// CHECK-NEXT:   util.global.store %{{.+}}, @__allocator_select_buffer_usage : i32
// CHECK-NEXT:   util.return
// CHECK-NEXT: }
// CHECK-LABEL: util.func public @first
// CHECK-NOT: hal.allocator.select
// CHECK-NOT: arith.select
// CHECK: %[[DEV:.+]] = util.global.load immutable @__allocator_select_device : !hal.device
// CHECK-NEXT: %[[QUEUE:.+]] = util.global.load immutable @__allocator_select_affinity : i64
// CHECK-NEXT: %[[MTL:.+]] = util.global.load immutable @__allocator_select_memory_types : i32
// CHECK-NOT: @__allocator_select_buffer_usage
// CHECK: hal.device.queue.alloca<%[[DEV]] : !hal.device> affinity(%[[QUEUE]]) {{.+}} type(%[[MTL]]) usage(%[[BU:.+]]) flags
// CHECK-LABEL: util.func public @second
// CHECK-NOT: hal.allocator.select
// CHECK: util.global.load immutable @__allocator_select_device : !hal.device
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.global private @__link : i1
  util.initializer {
    %t = arith.constant true
    util.global.store %t, @__link : i1
    util.return
  }
  util.func public @first() -> !hal.buffer {
    %t = util.global.load immutable @__link : i1
    %visible = hal.memory_type<HostVisible> : i32
    %zero = arith.constant 0 : i32
    %mt = arith.select %t, %visible, %zero : i32
    %bu = hal.buffer_usage<Transfer> : i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    %none = util.null : !hal.fence
    %f = hal.fence.create device(%d : !hal.device) flags("None") : !hal.fence
    %pool = arith.constant 0 : i64
    %c16 = arith.constant 16 : index
    %buf = hal.device.queue.alloca<%d : !hal.device> affinity(%sq) wait(%none) signal(%f) pool(%pool) type(%mt) usage(%bu) flags("None") : !hal.buffer{%c16}
    util.return %buf : !hal.buffer
  }
  util.func public @second() -> !hal.device {
    %t = util.global.load immutable @__link : i1
    %visible = hal.memory_type<HostVisible> : i32
    %zero = arith.constant 0 : i32
    %mt = arith.select %t, %visible, %zero : i32
    %bu = hal.buffer_usage<Transfer> : i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d : !hal.device
  }
}

// -----

// A select fed by a function argument (or a mutable global) depends on the
// call: it stays.

// CHECK-LABEL: util.func public @argument
// CHECK-NOT: util.initializer
// CHECK: hal.allocator.select
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @argument(%mt: i32) -> !hal.device {
    %bu = hal.buffer_usage<Transfer> : i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d : !hal.device
  }
}

// -----

// The global feeding the select is stored by an initializer that comes
// after the function using it: hoisting before the function would read it
// unset, so the select stays.

// CHECK-LABEL: util.func public @late_global
// CHECK: hal.allocator.select
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.global private @late : i32
  util.func public @late_global() -> !hal.device {
    %mt = util.global.load immutable @late : i32
    %bu = hal.buffer_usage<Transfer> : i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d : !hal.device
  }
  util.initializer {
    %c = arith.constant 2 : i32
    util.global.store %c, @late : i32
    util.return
  }
}

// -----

// Different selections get their own globals, named as IREE's symbol table
// uniques them (`_0`, `_1`, ... after the first), each pair with its
// initializer right before the first function using it.

// CHECK-LABEL: module
// CHECK:      util.global private @__allocator_select_device : !hal.device
// CHECK-NEXT: util.global private @__allocator_select_affinity : i64
// CHECK:      util.initializer
// CHECK:        hal.allocator.select {{.+}} type(%[[T0:.+]]) usage
// CHECK:      util.func public @one
// CHECK:      util.global private @__allocator_select_device_0 : !hal.device
// CHECK-NEXT: util.global private @__allocator_select_affinity_0 : i64
// CHECK-NEXT: util.global private @__allocator_select_memory_types_0 : i32
// CHECK-NEXT: util.global private @__allocator_select_buffer_usage_0 : i32
// CHECK-NEXT: util.initializer
// CHECK:      util.func public @two
// CHECK:        util.global.load immutable @__allocator_select_device_0 : !hal.device
// CHECK:      util.global private @__allocator_select_device_1 : !hal.device
// CHECK:      util.func public @three
// CHECK:        util.global.load immutable @__allocator_select_device_1 : !hal.device
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @one() -> !hal.device {
    %mt = hal.memory_type<HostVisible> : i32
    %bu = hal.buffer_usage<Transfer> : i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d : !hal.device
  }
  util.func public @two() -> !hal.device {
    %mt = hal.memory_type<DeviceLocal> : i32
    %bu = hal.buffer_usage<Transfer> : i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%b, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d : !hal.device
  }
  util.func public @three() -> !hal.device {
    %mt = hal.memory_type<DeviceLocal> : i32
    %bu = hal.buffer_usage<Transfer> : i32
    %a = util.global.load immutable @a : !hal.device
    %b = util.global.load immutable @b : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%b, %q : !hal.device, i64), (%a, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d : !hal.device
  }
}

// -----

// A value used twice by the computation feeding a select (here the device
// load, both candidates) is erased once when the select moves.

// CHECK-LABEL: util.func public @shared_operand
// CHECK-NOT: hal.allocator.select
// CHECK-NOT: util.global.load immutable @a
// CHECK: util.global.load immutable @__allocator_select_device
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @shared_operand() -> !hal.device {
    %mt = hal.memory_type<HostVisible> : i32
    %bu = hal.buffer_usage<Transfer> : i32
    %a = util.global.load immutable @a : !hal.device
    %q = arith.constant -1 : i64
    %d, %sq = hal.allocator.select from([(%a, %q : !hal.device, i64), (%a, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    util.return %d : !hal.device
  }
}
