// Round trip of the queue ops (docs/ir-reference.md, "Queue ops"), every flag
// spelling kind included. Function arguments print as %argN:
// %arg0 device, %arg1 queue affinity, %arg2 wait fence, %arg3 signal fence.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @alloca_dealloca
util.func public @alloca_dealloca(%dev: !hal.device, %q: i64, %wf: !hal.fence, %sf: !hal.fence, %pool: i64, %mt: i32, %bu: i32, %sz: index) {
  // CHECK: hal.device.queue.alloca<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) pool(%arg4) type(%arg5) usage(%arg6) flags("None") : !hal.buffer{%arg7}
  %b = hal.device.queue.alloca<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) pool(%pool) type(%mt) usage(%bu) flags("None") : !hal.buffer{%sz}
  // CHECK: hal.device.queue.alloca<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) pool(%arg4) type(%arg5) usage(%arg6) flags(IndeterminateLifetime) : !hal.buffer{%arg7} attributes {note}
  %b1 = hal.device.queue.alloca<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) pool(%pool) type(%mt) usage(%bu) flags("IndeterminateLifetime") : !hal.buffer{%sz} attributes {note}
  // CHECK: hal.device.queue.dealloca<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) buffer(%transient_buffer : !hal.buffer) flags(PreferOrigin)
  hal.device.queue.dealloca<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) buffer(%b : !hal.buffer) flags(PreferOrigin)
  // CHECK: hal.device.queue.dealloca<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) buffer(%transient_buffer_0 : !hal.buffer) flags("None")
  hal.device.queue.dealloca<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) buffer(%b1 : !hal.buffer) flags(None)
  util.return
}

// CHECK-LABEL: @execute_barrier_flush
util.func public @execute_barrier_flush(%dev: !hal.device, %q: i64, %wf: !hal.fence, %sf: !hal.fence, %cmd: !hal.command_buffer) {
  // `commands` takes the command buffer without a type.
  // CHECK: hal.device.queue.execute<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) commands(%arg4) flags("None")
  hal.device.queue.execute<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) commands(%cmd) flags("None")
  // CHECK: hal.device.queue.execute<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) commands(%arg4) flags(Reserved) attributes {note}
  hal.device.queue.execute<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) commands(%cmd) flags(Reserved) attributes {note}
  // CHECK: hal.device.queue.barrier<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) flags("None")
  hal.device.queue.barrier<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) flags("None")
  // CHECK: hal.device.queue.flush<%arg0 : !hal.device> affinity(%arg1)
  hal.device.queue.flush<%dev : !hal.device> affinity(%q)
  // CHECK: hal.device.queue.flush<%arg0 : !hal.device> affinity(%arg1) attributes {note}
  hal.device.queue.flush<%dev : !hal.device> affinity(%q) attributes {note}
  util.return
}

// CHECK-LABEL: @transfers
util.func public @transfers(%dev: !hal.device, %q: i64, %wf: !hal.fence, %sf: !hal.fence, %src: !hal.buffer, %dst: !hal.buffer, %hb: !util.buffer, %so: index, %do: index, %len: index, %p8: i8, %p16: i16, %p32: i32) {
  // CHECK: hal.device.queue.copy<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) source(%arg4 : !hal.buffer)[%arg7] target(%arg5 : !hal.buffer)[%arg8] length(%arg9) flags("None")
  hal.device.queue.copy<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) source(%src : !hal.buffer)[%so] target(%dst : !hal.buffer)[%do] length(%len) flags("None")
  // Fill patterns are i8, i16 or i32.
  // CHECK: hal.device.queue.fill<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) target(%arg5 : !hal.buffer)[%arg8] length(%arg9) pattern(%arg12 : i32) flags("None")
  hal.device.queue.fill<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) target(%dst : !hal.buffer)[%do] length(%len) pattern(%p32 : i32) flags("None")
  // CHECK: pattern(%arg10 : i8) flags(Reserved)
  hal.device.queue.fill<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) target(%dst : !hal.buffer)[%do] length(%len) pattern(%p8 : i8) flags(Reserved)
  // CHECK: pattern(%arg11 : i16) flags("None")
  hal.device.queue.fill<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) target(%dst : !hal.buffer)[%do] length(%len) pattern(%p16 : i16) flags("None")
  // CHECK: hal.device.queue.update<%arg0 : !hal.device> affinity(%arg1) wait(%arg2) signal(%arg3) source(%arg6 : !util.buffer)[%arg7] target(%arg5 : !hal.buffer)[%arg8] length(%arg9) flags("None")
  hal.device.queue.update<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) source(%hb : !util.buffer)[%so] target(%dst : !hal.buffer)[%do] length(%len) flags("None")
  util.return
}

// The same fence as wait and signal is allowed when it is util.null.
// CHECK-LABEL: @null_fences
util.func public @null_fences(%dev: !hal.device, %q: i64) {
  // CHECK: %[[NULL:.+]] = util.null : !hal.fence
  // CHECK: hal.device.queue.barrier<%arg0 : !hal.device> affinity(%arg1) wait(%[[NULL]]) signal(%[[NULL]]) flags("None")
  %none = util.null : !hal.fence
  hal.device.queue.barrier<%dev : !hal.device> affinity(%q) wait(%none) signal(%none) flags("None")
  util.return
}
