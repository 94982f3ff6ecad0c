// Verifier and parse errors of the fence and command buffer ops, one case
// per rule.
// RUN: fleet-opt %s -split-input-file -verify-diagnostics

util.func public @dispatch_binding_counts(%cmd: !hal.command_buffer, %exe: !hal.executable, %ord: i64, %x: index, %b: !hal.buffer, %off: index) {
  // The custom form always pairs buffers with ranges; the generic form can
  // leave a length out.
  // expected-error @+1 {{binding buffer, offset and length counts must be equal; got 1 buffers, 1 offsets and 0 lengths}}
  "hal.command_buffer.dispatch"(%cmd, %exe, %ord, %x, %x, %x, %b, %off) <{flags = #hal.dispatch_flags<"None">, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 1, 1, 0>}> : (!hal.command_buffer, !hal.executable, i64, index, index, index, !hal.buffer, index) -> ()
  util.return
}

// -----

util.func public @dispatch_no_bindings(%cmd: !hal.command_buffer, %exe: !hal.executable, %ord: i64, %x: index) {
  // At least one binding is needed to parse.
  // expected-error @+1 {{expected '('}}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%ord] workgroups([%x, %x, %x]) bindings([]) flags("None")
  util.return
}

// -----

util.func public @dispatch_binding_type(%cmd: !hal.command_buffer, %exe: !hal.executable, %ord: i64, %x: index, %f: !hal.fence) {
  // A binding is a !hal.buffer or an index slot.
  // expected-error @+1 {{operand #6 must be variadic of index or Device-visible buffer, but got '!hal.fence'}}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%ord] workgroups([%x, %x, %x]) bindings([(%f : !hal.fence)[%x, %x]]) flags("None")
  util.return
}

// -----

util.func public @update_buffer_without_size(%cmd: !hal.command_buffer, %hb: !util.buffer, %dst: !hal.buffer, %off: index) {
  // The host source needs its size in braces.
  // expected-error @+1 {{expected '{'}}
  hal.command_buffer.update_buffer<%cmd : !hal.command_buffer> source(%hb : !util.buffer)[%off] target(%dst : !hal.buffer)[%off] length(%off) flags("None")
  util.return
}

// -----

util.func public @barrier_unknown_stage(%cmd: !hal.command_buffer) {
  // expected-error @+1 {{for execution stage, got: Dispatch|Compute}}
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source("Dispatch|Compute") target(CommandIssue) flags("None")
  util.return
}

// -----

// expected-note @+1 {{prior use here}}
util.func public @fence_await_timeout_type(%f: !hal.fence, %ms: i64) {
  // expected-error @+1 {{use of value '%ms' expects different type than prior uses: 'i32' vs 'i64'}}
  %st = hal.fence.await until([%f]) timeout_millis(%ms) flags("None") : i32
  util.return
}
