// Round trip of the command buffer ops (docs/ir-reference.md, "Command
// buffers"), every optional part included: buffers and binding-table slots,
// with and without constants. Function arguments print as %argN.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @create
util.func public @create(%dev: !hal.device, %q: i64, %cap: index) {
  // CHECK: hal.command_buffer.create device(%arg0 : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%arg1) : !hal.command_buffer
  %cmd = hal.command_buffer.create device(%dev : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%q) : !hal.command_buffer
  // CHECK: hal.command_buffer.create device(%arg0 : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%arg1) bindings(%arg2) : !hal.command_buffer
  %ind = hal.command_buffer.create device(%dev : !hal.device) mode("OneShot|AllowInlineExecution") categories(Dispatch) affinity(%q) bindings(%cap) : !hal.command_buffer
  // CHECK: hal.command_buffer.create device(%arg0 : !hal.device) mode("None") categories(Transfer) affinity(%arg1) : !hal.command_buffer attributes {note}
  %t = hal.command_buffer.create device(%dev : !hal.device) mode(None) categories(Transfer) affinity(%q) : !hal.command_buffer attributes {note}
  // CHECK: %device = hal.command_buffer.device<%cmd : !hal.command_buffer> : !hal.device
  %d = hal.command_buffer.device<%cmd : !hal.command_buffer> : !hal.device
  // CHECK: hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  hal.command_buffer.finalize<%cmd : !hal.command_buffer>
  // CHECK: hal.command_buffer.finalize<%cmd_0 : !hal.command_buffer> attributes {note}
  hal.command_buffer.finalize<%ind : !hal.command_buffer> attributes {note}
  util.return
}

// Bindings print one per line.
// CHECK-LABEL: @dispatch
util.func public @dispatch(%cmd: !hal.command_buffer, %exe: !hal.executable, %ord: i64, %x: index, %y: index, %z: index, %k0: i32, %k1: i32, %inb: !hal.buffer, %slot: index, %isz: index, %osz: index) {
  %c0 = arith.constant 0 : index
  // CHECK:      hal.command_buffer.dispatch<%arg0 : !hal.command_buffer> target(%arg1 : !hal.executable)[%arg2] workgroups([%arg3, %arg4, %arg5]) constants([%arg6, %arg7]) bindings([
  // CHECK-NEXT:   (%arg8 : !hal.buffer)[%c0, %arg10],
  // CHECK-NEXT:   (%arg9 : index)[%c0, %arg11]
  // CHECK-NEXT: ]) flags("None")
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%ord] workgroups([%x, %y, %z]) constants([%k0, %k1]) bindings([
    (%inb : !hal.buffer)[%c0, %isz],
    (%slot : index)[%c0, %osz]
  ]) flags("None")
  // No constants; one binding; the whole op on one line parses too.
  // CHECK:      hal.command_buffer.dispatch<%arg0 : !hal.command_buffer> target(%arg1 : !hal.executable)[%arg2] workgroups([%arg3, %arg4, %arg5]) bindings([
  // CHECK-NEXT:   (%arg8 : !hal.buffer)[%c0, %arg10]
  // CHECK-NEXT: ]) flags(Reserved) attributes {note}
  hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%ord] workgroups([%x, %y, %z]) bindings([(%inb : !hal.buffer)[%c0, %isz]]) flags(Reserved) attributes {note}
  util.return
}

// CHECK-LABEL: @transfers
util.func public @transfers(%cmd: !hal.command_buffer, %src: !hal.buffer, %dst: !hal.buffer, %slot: index, %hb: !util.buffer, %hsz: index, %so: index, %do: index, %len: index, %pat: i32, %p8: i8) {
  // CHECK: hal.command_buffer.copy_buffer<%arg0 : !hal.command_buffer> source(%arg1 : !hal.buffer)[%arg6] target(%arg2 : !hal.buffer)[%arg7] length(%arg8) flags("None")
  hal.command_buffer.copy_buffer<%cmd : !hal.command_buffer> source(%src : !hal.buffer)[%so] target(%dst : !hal.buffer)[%do] length(%len) flags("None")
  // Either side may be a binding-table slot.
  // CHECK: hal.command_buffer.copy_buffer<%arg0 : !hal.command_buffer> source(%arg3 : index)[%arg6] target(%arg2 : !hal.buffer)[%arg7] length(%arg8) flags(Reserved)
  hal.command_buffer.copy_buffer<%cmd : !hal.command_buffer> source(%slot : index)[%so] target(%dst : !hal.buffer)[%do] length(%len) flags(Reserved)
  // CHECK: hal.command_buffer.fill_buffer<%arg0 : !hal.command_buffer> target(%arg2 : !hal.buffer)[%arg7, %arg8] pattern(%arg9 : i32) flags("None")
  hal.command_buffer.fill_buffer<%cmd : !hal.command_buffer> target(%dst : !hal.buffer)[%do, %len] pattern(%pat : i32) flags("None")
  // CHECK: hal.command_buffer.fill_buffer<%arg0 : !hal.command_buffer> target(%arg3 : index)[%arg7, %arg8] pattern(%arg10 : i8) flags("None")
  hal.command_buffer.fill_buffer<%cmd : !hal.command_buffer> target(%slot : index)[%do, %len] pattern(%p8 : i8) flags("None")
  // The host source carries its size in `{}`.
  // CHECK: hal.command_buffer.update_buffer<%arg0 : !hal.command_buffer> source(%arg4 : !util.buffer{%arg5})[%arg6] target(%arg2 : !hal.buffer)[%arg7] length(%arg8) flags("None")
  hal.command_buffer.update_buffer<%cmd : !hal.command_buffer> source(%hb : !util.buffer{%hsz})[%so] target(%dst : !hal.buffer)[%do] length(%len) flags("None")
  // CHECK: hal.command_buffer.update_buffer<%arg0 : !hal.command_buffer> source(%arg4 : !util.buffer{%arg5})[%arg6] target(%arg3 : index)[%arg7] length(%arg8) flags("None")
  hal.command_buffer.update_buffer<%cmd : !hal.command_buffer> source(%hb : !util.buffer{%hsz})[%so] target(%slot : index)[%do] length(%len) flags("None")
  // Stage masks use ExecutionStage.
  // CHECK: hal.command_buffer.execution_barrier<%arg0 : !hal.command_buffer> source("Dispatch|Transfer") target(CommandIssue) flags("None")
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source("Dispatch|Transfer") target(CommandIssue) flags("None")
  // CHECK: hal.command_buffer.execution_barrier<%arg0 : !hal.command_buffer> source(Host) target("CommandProcess|CommandRetire") flags(Reserved) attributes {note}
  hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source(Host) target("CommandRetire|CommandProcess") flags(Reserved) attributes {note}
  util.return
}
