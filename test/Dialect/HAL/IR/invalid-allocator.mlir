// Verifier and parse errors of the memory-property and allocation ops, one
// case per rule.
// RUN: fleet-opt %s -split-input-file -verify-diagnostics

util.func public @select_count_mismatch(%d0: !hal.device, %d1: !hal.device, %q0: i64, %mt: i32, %bu: i32) {
  // The custom form cannot express unequal counts; the generic form can.
  // expected-error @+1 {{needs one queue affinity per candidate device; got 2 devices and 1 queue affinities}}
  %dev, %q = "hal.allocator.select"(%d0, %d1, %q0, %mt, %bu) <{operandSegmentSizes = array<i32: 2, 1, 1, 1>}> : (!hal.device, !hal.device, i64, i32, i32) -> (!hal.device, i64)
  util.return
}

// -----

util.func public @select_no_candidates(%mt: i32, %bu: i32) {
  // expected-error @+1 {{needs at least one candidate (device, queue affinity) pair}}
  %dev, %q = "hal.allocator.select"(%mt, %bu) <{operandSegmentSizes = array<i32: 0, 0, 1, 1>}> : (i32, i32) -> (!hal.device, i64)
  util.return
}

// -----

util.func public @select_empty_list(%mt: i32, %bu: i32) {
  // expected-error @+1 {{expected '('}}
  %dev, %q = hal.allocator.select from([]) type(%mt) usage(%bu) : !hal.device, i64
  util.return
}

// -----

util.func public @unknown_memory_type() {
  // expected-error @+1 {{for memory type, got: HostVisibel}}
  %mt = hal.memory_type<HostVisibel> : i32
  util.return
}

// -----

util.func public @unknown_usage_bit() {
  // expected-error @+1 {{for buffer usage, got: Transfer|Bogus}}
  %bu = hal.buffer_usage<"Transfer|Bogus"> : i32
  util.return
}

// -----

util.func public @memory_type_not_i32() {
  // expected-error @+1 {{result #0 must be 32-bit signless integer, but got 'i64'}}
  %mt = hal.memory_type<DeviceLocal> : i64
  util.return
}

// -----

util.func public @unknown_lifetime() {
  // expected-error @+1 {{for resource lifetime, got: forever}}
  %mt, %bu = hal.allocator.resolve_memory_properties lifetime(forever) : i32, i32
  util.return
}

// -----

util.func public @allocate_without_size(%alloc: !hal.allocator, %q: i64, %mt: i32, %bu: i32) {
  // Sizes in braces are required after a size-aware result type.
  // expected-error @+1 {{expected '{'}}
  %buf = hal.allocator.allocate<%alloc : !hal.allocator> affinity(%q) type(%mt) usage(%bu) : !hal.buffer
  util.return
}
