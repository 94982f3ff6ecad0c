// Verifier and parse errors of the device and queue ops, one case per rule.
// RUN: fleet-opt %s -split-input-file -verify-diagnostics

util.func public @query_default_type(%dev: !hal.device) {
  // expected-error @+1 {{default value type 'i1' must equal the value type 'i32'}}
  %ok, %v = hal.device.query<%dev : !hal.device> key("hal.dispatch" :: "concurrency") : i1, i32 = false
  util.return
}

// -----

util.func public @query_single_colon(%dev: !hal.device) {
  // expected-error @+1 {{expected ':'}}
  %ok, %v = hal.device.query<%dev : !hal.device> key("hal.device.id" : "local*") : i1, i1
  util.return
}

// -----

util.func public @query_link_unknown_key(%a: !hal.device, %b: !hal.device) {
  // expected-error @+1 {{unknown link key 'bandwidth' (expected unified_memory, transparent_access or export_import)}}
  %ok, %v = hal.device.query.link<%a : !hal.device, %b : !hal.device> key("bandwidth") : i1, i1
  util.return
}

// -----

util.func public @query_link_default_type(%a: !hal.device, %b: !hal.device) {
  // expected-error @+1 {{default value type 'i32' must equal the value type 'i1'}}
  %ok, %v = hal.device.query.link<%a : !hal.device, %b : !hal.device> key("unified_memory") : i1, i1 = 0 : i32
  util.return
}

// -----

util.func public @queue_same_fence(%dev: !hal.device, %q: i64, %f: !hal.fence) {
  // expected-error @+1 {{wait and signal fences must be different values (unless they come from util.null)}}
  hal.device.queue.barrier<%dev : !hal.device> affinity(%q) wait(%f) signal(%f) flags("None")
  util.return
}

// -----

util.func public @queue_same_created_fence(%dev: !hal.device, %q: i64, %cmd: !hal.command_buffer) {
  %f = hal.fence.create device(%dev : !hal.device) flags("None") : !hal.fence
  // Every queue op has the rule, not only barrier.
  // expected-error @+1 {{wait and signal fences must be different values}}
  hal.device.queue.execute<%dev : !hal.device> affinity(%q) wait(%f) signal(%f) commands(%cmd) flags("None")
  util.return
}

// -----

util.func public @queue_fill_pattern_i64(%dev: !hal.device, %q: i64, %wf: !hal.fence, %sf: !hal.fence, %b: !hal.buffer, %off: index, %len: index, %pat: i64) {
  // expected-error @+1 {{operand #7 must be 8-bit signless integer or 16-bit signless integer or 32-bit signless integer, but got 'i64'}}
  hal.device.queue.fill<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) target(%b : !hal.buffer)[%off] length(%len) pattern(%pat : i64) flags("None")
  util.return
}

// -----

util.func public @queue_unknown_flag(%dev: !hal.device, %q: i64, %wf: !hal.fence, %sf: !hal.fence, %b: !hal.buffer) {
  // expected-error @+1 {{for DeallocaFlags, got: PreferOrgin}}
  hal.device.queue.dealloca<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) buffer(%b : !hal.buffer) flags(PreferOrgin)
  util.return
}
