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

// hal.element_type and hal.encoding_type fold to their runtime codes,
// `(kind << 24) | bits` (docs/ir-reference.md); every comparison below folds to
// true exactly when the code is right.
// CHECK-LABEL: @element_type_codes
util.func public @element_type_codes() -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  // CHECK: %[[TRUE:.+]] = arith.constant true
  // CHECK-NEXT: util.return %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]], %[[TRUE]] :
  %f32 = hal.element_type<f32> : i32
  %f32_code = arith.constant 0x21000020 : i32
  %0 = arith.cmpi eq, %f32, %f32_code : i32
  // i1 is stored as 8 bits.
  %i1 = hal.element_type<i1> : i32
  %i1_code = arith.constant 0x13000008 : i32
  %1 = arith.cmpi eq, %i1, %i1_code : i32
  %i8 = hal.element_type<i8> : i32
  %i8_code = arith.constant 0x10000008 : i32
  %2 = arith.cmpi eq, %i8, %i8_code : i32
  %si32 = hal.element_type<si32> : i32
  %si32_code = arith.constant 0x11000020 : i32
  %3 = arith.cmpi eq, %si32, %si32_code : i32
  %ui16 = hal.element_type<ui16> : i32
  %ui16_code = arith.constant 0x12000010 : i32
  %4 = arith.cmpi eq, %ui16, %ui16_code : i32
  %bf16 = hal.element_type<bf16> : i32
  %bf16_code = arith.constant 0x22000010 : i32
  %5 = arith.cmpi eq, %bf16, %bf16_code : i32
  %f16 = hal.element_type<f16> : i32
  %f16_code = arith.constant 0x21000010 : i32
  %6 = arith.cmpi eq, %f16, %f16_code : i32
  %f64 = hal.element_type<f64> : i32
  %f64_code = arith.constant 0x21000040 : i32
  %7 = arith.cmpi eq, %f64, %f64_code : i32
  // Complex: twice the part width.
  %c64 = hal.element_type<complex<f32>> : i32
  %c64_code = arith.constant 0x23000040 : i32
  %8 = arith.cmpi eq, %c64, %c64_code : i32
  %e5m2 = hal.element_type<f8E5M2> : i32
  %e5m2_code = arith.constant 0x24000008 : i32
  %9 = arith.cmpi eq, %e5m2, %e5m2_code : i32
  %e4m3fn = hal.element_type<f8E4M3FN> : i32
  %e4m3fn_code = arith.constant 0x25000008 : i32
  %10 = arith.cmpi eq, %e4m3fn, %e4m3fn_code : i32
  %e5m2fnuz = hal.element_type<f8E5M2FNUZ> : i32
  %e5m2fnuz_code = arith.constant 0x26000008 : i32
  %11 = arith.cmpi eq, %e5m2fnuz, %e5m2fnuz_code : i32
  %e4m3fnuz = hal.element_type<f8E4M3FNUZ> : i32
  %e4m3fnuz_code = arith.constant 0x27000008 : i32
  %12 = arith.cmpi eq, %e4m3fnuz, %e4m3fnuz_code : i32
  %e8m0 = hal.element_type<f8E8M0FNU> : i32
  %e8m0_code = arith.constant 0x28000008 : i32
  %13 = arith.cmpi eq, %e8m0, %e8m0_code : i32
  %enc = hal.encoding_type<dense_row_major> : i32
  %c1 = arith.constant 1 : i32
  %14 = arith.cmpi eq, %enc, %c1 : i32
  util.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
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
