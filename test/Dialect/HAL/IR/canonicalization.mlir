// Folds of hal.memory_type / hal.buffer_usage and the canonicalization of
// hal.allocator.select.
// RUN: fleet-opt %s --canonicalize --split-input-file | FileCheck %s

// The bitfield constants fold to their i32 values, so bit arithmetic over
// them folds to an arith.constant (0x2|0x4 = 6, 0x3|0xC00 = 3075).
// CHECK-LABEL: @fold_bit_arithmetic
util.func public @fold_bit_arithmetic() -> (i32, i32, i1) {
  // CHECK-DAG: %[[MT:.+]] = arith.constant 6 : i32
  // CHECK-DAG: %[[BU:.+]] = arith.constant 3075 : i32
  // CHECK-DAG: %[[TRUE:.+]] = arith.constant true
  // CHECK-NOT: hal.memory_type
  // CHECK-NOT: hal.buffer_usage
  // CHECK: util.return %[[MT]], %[[BU]], %[[TRUE]]
  %hv = hal.memory_type<HostVisible> : i32
  %hc = hal.memory_type<HostCoherent> : i32
  %mt = arith.ori %hv, %hc : i32
  %t = hal.buffer_usage<Transfer> : i32
  %ds = hal.buffer_usage<DispatchStorage> : i32
  %bu = arith.ori %t, %ds : i32
  // DeviceLocal contains DeviceVisible: (0x30 & 0x10) == 0x10.
  %dl = hal.memory_type<DeviceLocal> : i32
  %dv = hal.memory_type<DeviceVisible> : i32
  %and = arith.andi %dl, %dv : i32
  %has = arith.cmpi eq, %and, %dv : i32
  util.return %mt, %bu, %has : i32, i32, i1
}

// -----

// A constant that is used stays as written (it is already a constant).
// CHECK-LABEL: @constants_stay
util.func public @constants_stay() -> (i32, i32) {
  // CHECK-DAG: hal.memory_type<"HostVisible|HostCoherent"> : i32
  // CHECK-DAG: hal.buffer_usage<SharingExport> : i32
  %mt = hal.memory_type<"HostVisible|HostCoherent"> : i32
  %bu = hal.buffer_usage<SharingExport> : i32
  util.return %mt, %bu : i32, i32
}

// -----

// Both ops are plain i32 constants to the folder, which keeps one op per
// (dialect, value): equal values merge even across the two ops (HostVisible
// and TransferTarget are both 2). Harmless (same i32), but a pass that reads
// the op kind back must not rely on it surviving canonicalization.
// CHECK-LABEL: @equal_values_merge
util.func public @equal_values_merge() -> (i32, i32) {
  // CHECK: %[[C:.+]] = hal.memory_type<HostVisible> : i32
  // CHECK-NOT: hal.buffer_usage
  // CHECK: util.return %[[C]], %[[C]]
  %mt = hal.memory_type<HostVisible> : i32
  %bu = hal.buffer_usage<TransferTarget> : i32
  util.return %mt, %bu : i32, i32
}

// -----

// One candidate is the selection.
// CHECK-LABEL: @select_single_candidate
// CHECK-SAME: (%[[DEV:.+]]: !hal.device, %[[Q:.+]]: i64, %{{.+}}: i32, %{{.+}}: i32)
util.func public @select_single_candidate(%d: !hal.device, %q: i64, %mt: i32, %bu: i32) -> (!hal.device, i64) {
  // CHECK-NOT: hal.allocator.select
  // CHECK: util.return %[[DEV]], %[[Q]]
  %dev, %queue = hal.allocator.select from([(%d, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
  util.return %dev, %queue : !hal.device, i64
}

// -----

// Several copies of one (device, affinity) pair are one candidate.
// CHECK-LABEL: @select_repeated_candidate
// CHECK-SAME: (%[[DEV:.+]]: !hal.device, %[[Q:.+]]: i64, %{{.+}}: i32, %{{.+}}: i32)
util.func public @select_repeated_candidate(%d: !hal.device, %q: i64, %mt: i32, %bu: i32) -> (!hal.device, i64) {
  // CHECK-NOT: hal.allocator.select
  // CHECK: util.return %[[DEV]], %[[Q]]
  %dev, %queue = hal.allocator.select from([(%d, %q : !hal.device, i64), (%d, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
  util.return %dev, %queue : !hal.device, i64
}

// -----

// All candidates on the same device value: the device is known, the queue
// still comes from the run-time selection.
// CHECK-LABEL: @select_common_device
// CHECK-SAME: (%[[DEV:.+]]: !hal.device, %[[Q0:.+]]: i64, %[[Q1:.+]]: i64, %[[MT:.+]]: i32, %[[BU:.+]]: i32)
util.func public @select_common_device(%d: !hal.device, %q0: i64, %q1: i64, %mt: i32, %bu: i32) -> (!hal.device, i64) {
  // CHECK: %{{.+}}, %[[QUEUE:.+]] = hal.allocator.select from([(%[[DEV]], %[[Q0]] : !hal.device, i64), (%[[DEV]], %[[Q1]] : !hal.device, i64)]) type(%[[MT]]) usage(%[[BU]])
  // CHECK: util.return %[[DEV]], %[[QUEUE]]
  %dev, %queue = hal.allocator.select from([(%d, %q0 : !hal.device, i64), (%d, %q1 : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
  util.return %dev, %queue : !hal.device, i64
}

// -----

// Distinct devices: nothing to fold.
// CHECK-LABEL: @select_distinct_devices
// CHECK-SAME: (%[[D0:.+]]: !hal.device, %[[Q0:.+]]: i64, %[[D1:.+]]: !hal.device, %[[Q1:.+]]: i64, %{{.+}}: i32, %{{.+}}: i32)
util.func public @select_distinct_devices(%d0: !hal.device, %q0: i64, %d1: !hal.device, %q1: i64, %mt: i32, %bu: i32) -> (!hal.device, i64) {
  // CHECK: %[[DEV:.+]], %[[QUEUE:.+]] = hal.allocator.select from([(%[[D0]], %[[Q0]] : !hal.device, i64), (%[[D1]], %[[Q1]] : !hal.device, i64)])
  // CHECK: util.return %[[DEV]], %[[QUEUE]]
  %dev, %queue = hal.allocator.select from([(%d0, %q0 : !hal.device, i64), (%d1, %q1 : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
  util.return %dev, %queue : !hal.device, i64
}

// -----

// An unused selection is dead (the op has no side effects).
// CHECK-LABEL: @select_unused
util.func public @select_unused(%d0: !hal.device, %q0: i64, %d1: !hal.device, %q1: i64, %mt: i32, %bu: i32) {
  // CHECK-NOT: hal.allocator.select
  %dev, %queue = hal.allocator.select from([(%d0, %q0 : !hal.device, i64), (%d1, %q1 : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
  util.return
}
