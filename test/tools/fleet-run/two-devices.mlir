// Two devices: a product on device A feeds a dispatch on device B that
// waits on A's fence (a cross-device wait, no host wait in between), the
// runtime topology through hal.device.query.link and hal.allocator.select,
// --trace and --print_statistics.

// RUN: %llc %kernels -o %t.o
// RUN: %embed %s %t.o | fleet-opt --hal-link-executables | fleet-compile - --compile-from-host -o %t.fleet

// (a*b)^2 with a on device A, the square on device B.
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-sync --function=mul --input=4xf32=1,2,3,4 --input=4xf32=1,1,2,2 | FileCheck %s --check-prefix=MUL
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=mul --input=4xf32=1,2,3,4 --input=4xf32=1,1,2,2 | FileCheck %s --check-prefix=MUL
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-sync --function=mul --input=4xf32=1,2,3,4 --input=4xf32=1,1,2,2 | FileCheck %s --check-prefix=MUL
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task?discrete=true --function=mul --input=4xf32=1,2,3,4 --input=4xf32=1,1,2,2 | FileCheck %s --check-prefix=MUL
// MUL: EXEC @mul
// MUL-NEXT: result[0]: hal.buffer_view
// MUL-NEXT: 4xf32=1 4 36 64

// One device is too few.
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=mul --input=4xf32=1 --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=FEW
// FEW: not enough devices: the module needs
// FEW-NEXT: @device_a = local[0]
// FEW-NEXT: @device_b = local[1]  <- no such device
// FEW-NEXT: given 1 device(s): local-sync (local-sync:0, backend 'local')

// The runtime topology: two plain local devices are unified; a discrete
// one is reached only by export/import, and select then picks the
// candidate the other reaches.
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-task --function=topology | FileCheck %s --check-prefix=PLAIN
// PLAIN: result[0]: index=2
// PLAIN-NEXT: result[1]: i1=1
// PLAIN-NEXT: result[2]: i1=0
// PLAIN-NEXT: result[3]: i1=1
// PLAIN-NEXT: result[4]: i1=0
// PLAIN-NEXT: result[5]: i1=0
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-task?discrete=true --function=topology | FileCheck %s --check-prefix=DISCRETE
// DISCRETE: result[0]: index=2
// DISCRETE-NEXT: result[1]: i1=0
// DISCRETE-NEXT: result[2]: i1=1
// DISCRETE-NEXT: result[3]: i1=1
// DISCRETE-NEXT: result[4]: i1=0
// DISCRETE-NEXT: result[5]: i1=1

// A failure on device A reaches the host through device B's op.
// RUN: not fleet-run --module=%t.fleet --device=local-task?fail_after=2 --device=local-task --function=mul --input=4xf32=1 --input=4xf32=1 2>&1 | FileCheck %s --check-prefix=CHAIN
// CHAIN: error: ABORTED: (a*b)^2 failed: hal.device.queue.execute on device 'local-task:{{[0-9]+}}' did not run: its wait fence failed: hal.device.queue.execute on device 'local-task:{{[0-9]+}}' failed: injected failure (fail_after=2)

// --trace: valid JSON, one track per device queue plus the host, one slice
// per queue op named after its dispatch, flow arrows for the cross-device
// wait.
// RUN: fleet-run --module=%t.fleet --device=local-task?name=a --device=local-task?name=b --function=mul --input=4xf32=1 --input=4xf32=1 --trace=%t.json
// RUN: %python %S/Inputs/check_trace.py %t.json | FileCheck %s --check-prefix=TRACE
// TRACE: tracks: a queue 0, b queue 0, host
// TRACE-DAG: track a queue 0: alloca mul
// TRACE-DAG: track b queue 0: alloca mul
// TRACE: flows: {{[1-9][0-9]*}} start(s), {{[1-9][0-9]*}} finish(es)

// --timed_runs: one warm-up and four timed calls run after it (six
// dispatches per device with the measured call), their times on stderr.
// RUN: fleet-run --module=%t.fleet --device=local-task?name=a --device=local-task?name=b --function=mul --input=4xf32=1,2,3,4 --input=4xf32=1,1,2,2 --warmup_runs=1 --timed_runs=4 --print_statistics 2> %t.timed.stats | FileCheck %s --check-prefix=MUL
// RUN: FileCheck %s --check-prefix=TIMED < %t.timed.stats
// TIMED: fleet-run: call times (invoke until idle): first {{[0-9.]+}} ms; 4 timed calls: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms
// TIMED: device 'a' (local-task)
// TIMED: dispatches: 6

// --warmup_runs: the warm-up calls run (statistics count three dispatches
// per device) but only the measured call is in the trace.
// RUN: fleet-run --module=%t.fleet --device=local-task?name=a --device=local-task?name=b --function=mul --input=4xf32=1,2,3,4 --input=4xf32=1,1,2,2 --warmup_runs=2 --trace=%t.warm.json --print_statistics 2> %t.warm.stats | FileCheck %s --check-prefix=MUL
// RUN: FileCheck %s --check-prefix=WARMSTATS < %t.warm.stats
// WARMSTATS: device 'a' (local-task)
// WARMSTATS: dispatches: 3
// WARMSTATS: device 'b' (local-task)
// WARMSTATS: dispatches: 3
// RUN: %python %S/Inputs/check_trace.py %t.warm.json | FileCheck %s --check-prefix=WARMTRACE
// WARMTRACE-DAG: track a queue 0: alloca mul{{$}}
// WARMTRACE-DAG: track b queue 0: alloca mul{{( copy)?$}}

// --print_statistics: per-device queue ops and imports, host waits, link
// queries, module load times.
// RUN: fleet-run --module=%t.fleet --device=local-task?name=a --device=local-task?name=b\&discrete=true --function=mul --input=4xf32=1 --input=4xf32=1 --print_statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// STATS: device 'a' (local-task)
// STATS-NEXT: queue ops executed: 2 of 2 submitted (0 failed)
// STATS-NEXT: dispatches: 1
// The discrete device's result is not host-visible: fleet-run reads it with
// a third queue op (a staging copy).
// STATS: device 'b' (local-task, discrete)
// STATS-NEXT: queue ops executed: 3 of 3 submitted (0 failed)
// STATS-NEXT: dispatches: 1
// STATS: imports: {{[1-9]}}
// STATS: host
// STATS-NEXT: waits: {{[1-9]}}
// STATS: topology
// STATS-NEXT: link queries: 0
// STATS: module <unnamed> ({{.*}})
// STATS-NEXT: load time:
// STATS-NEXT: read artifact:
// STATS-NEXT: compile host code: {{.*}} (3 functions, {{[0-9]+}} op records)
// STATS-NEXT: load executables: {{.*}} (1 loaded)
// STATS-NEXT: run initializers:

module attributes {fleet.artifact_version = 1 : i64, fleet.kernel_abi_version = 2 : i64} {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  hal.executable private @kernels {
    hal.executable.variant public @fleet_object target(<"llvm-cpu", "fleet-object-x86_64">) objects([#hal.executable.object<{data = @OBJECT@}>]) {
      hal.executable.export public @mul ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
    }
  }

  // Records a one-dispatch command buffer for `mul` on `device`.
  util.func private @record_mul(%device: !hal.device, %a: !hal.buffer, %b: !hal.buffer, %out: !hal.buffer) -> !hal.command_buffer {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c0_i64 = arith.constant 0 : i64
    %q = arith.constant -1 : i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%q) : !hal.command_buffer
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@kernels) : !hal.executable
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0_i64] workgroups([%c1, %c1, %c1]) bindings([
      (%a : !hal.buffer)[%c0, %c16],
      (%b : !hal.buffer)[%c0, %c16],
      (%out : !hal.buffer)[%c0, %c16]
    ]) flags("None")
    hal.command_buffer.finalize<%cmd : !hal.command_buffer>
    util.return %cmd : !hal.command_buffer
  }

  util.func public @mul(%lhs: !hal.buffer_view, %rhs: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c0_i64 = arith.constant 0 : i64
    %cm1_i32 = arith.constant -1 : i32
    %q = arith.constant -1 : i64
    %f32 = hal.element_type<f32> : i32
    %dense = hal.encoding_type<dense_row_major> : i32
    hal.buffer_view.assert<%lhs : !hal.buffer_view> message("input0") shape([%c4]) type(%f32) encoding(%dense)
    hal.buffer_view.assert<%rhs : !hal.buffer_view> message("input1") shape([%c4]) type(%f32) encoding(%dense)
    %a = util.global.load immutable @device_a : !hal.device
    %b = util.global.load immutable @device_b : !hal.device
    %lhs_buffer = hal.buffer_view.buffer<%lhs : !hal.buffer_view> : !hal.buffer
    %rhs_buffer = hal.buffer_view.buffer<%rhs : !hal.buffer_view> : !hal.buffer
    // Shared between A and B: SharingExport lets a discrete B import it.
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %usage = hal.buffer_usage<"Transfer|DispatchStorage|SharingExport"> : i32
    %none = util.null : !hal.fence
    %a0 = hal.fence.create device(%a : !hal.device) flags("None") : !hal.fence
    %product = hal.device.queue.alloca<%a : !hal.device> affinity(%q) wait(%none) signal(%a0) pool(%c0_i64) type(%memory_type) usage(%usage) flags("None") : !hal.buffer{%c16}
    %cmd_a = util.call @record_mul(%a, %lhs_buffer, %rhs_buffer, %product) : (!hal.device, !hal.buffer, !hal.buffer, !hal.buffer) -> !hal.command_buffer
    %a1 = hal.fence.create device(%a : !hal.device) flags("None") : !hal.fence
    hal.device.queue.execute<%a : !hal.device> affinity(%q) wait(%a0) signal(%a1) commands(%cmd_a) flags("None")
    %b0 = hal.fence.create device(%b : !hal.device) flags("None") : !hal.fence
    %square = hal.device.queue.alloca<%b : !hal.device> affinity(%q) wait(%none) signal(%b0) pool(%c0_i64) type(%memory_type) usage(%usage) flags("None") : !hal.buffer{%c16}
    %cmd_b = util.call @record_mul(%b, %product, %product, %square) : (!hal.device, !hal.buffer, !hal.buffer, !hal.buffer) -> !hal.command_buffer
    // B waits on A's product and its own allocation: a cross-device wait.
    %ready = hal.fence.join at([%a1, %b0]) flags("None") -> !hal.fence
    %b1 = hal.fence.create device(%b : !hal.device) flags("None") : !hal.fence
    hal.device.queue.execute<%b : !hal.device> affinity(%q) wait(%ready) signal(%b1) commands(%cmd_b) flags("None")
    %status = hal.fence.await until([%b1]) timeout_millis(%cm1_i32) flags("None") : i32
    util.status.check_ok %status, "(a*b)^2 failed"
    %view = hal.buffer_view.create buffer(%square : !hal.buffer)[%c0, %c16] shape([%c4]) type(%f32) encoding(%dense) : !hal.buffer_view
    util.return %view : !hal.buffer_view
  }

  // (device count, unified(a->b), export_import(b->a), a is local-*,
  //  a discrete, the device select picks for [b, a] discrete)
  util.func public @topology() -> (index, i1, i1, i1, i1, i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %q = arith.constant -1 : i64
    %count = hal.devices.count : index
    %a = hal.devices.get %c0 : !hal.device
    %b = hal.devices.get %c1 : !hal.device
    %ok0, %unified = hal.device.query.link<%a : !hal.device, %b : !hal.device> key("unified_memory") : i1, i1 = false
    %ok1, %exchange = hal.device.query.link<%b : !hal.device, %a : !hal.device> key("export_import") : i1, i1 = false
    %ok2, %local = hal.device.query<%a : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
    %ok3, %discrete = hal.device.query<%a : !hal.device> key("hal.device" :: "discrete") : i1, i1 = false
    %memory_type = hal.memory_type<"DeviceLocal"> : i32
    %usage = hal.buffer_usage<"Transfer|DispatchStorage"> : i32
    %selected, %selected_q = hal.allocator.select from([(%b, %q : !hal.device, i64), (%a, %q : !hal.device, i64)]) type(%memory_type) usage(%usage) : !hal.device, i64
    %ok4, %selected_discrete = hal.device.query<%selected : !hal.device> key("hal.device" :: "discrete") : i1, i1 = false
    util.return %count, %unified, %exchange, %local, %discrete, %selected_discrete : index, i1, i1, i1, i1, i1
  }
}
