// Device failures end the call with the runtime's status, never a hang: a
// kernel returning non-zero and an injected queue-op failure fail the
// signal fence, the host's hal.fence.await sees it and util.status.check_ok
// reports it with the failure's cause and the host stack; exit code 1.

// RUN: %llc %kernels -o %t.o
// RUN: %embed %s %t.o | fleet-opt --hal-link-executables | fleet-compile - --compile-from-host -o %t.fleet

// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=run_kernel --input=i64=5 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: not fleet-run --module=%t.fleet --device=local-task --function=run_kernel --input=i64=5 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL: EXEC @run_kernel
// KERNEL-NEXT: error: INTERNAL: device work failed: hal.command_buffer.dispatch of 'fail' (executable 'kernels') on device 'local-{{sync|task}}:0' failed: kernel returned 7 at workgroup ({{[0-3]}}, 0, 0)
// KERNEL-NEXT: at util.status.check_ok ({{.*}}:{{[0-9]+}}:{{[0-9]+}}) in @run_kernel

// The working kernel on the same path succeeds.
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=run_kernel --input=i64=4 | FileCheck %s --check-prefix=OK
// OK: result[0]: hal.buffer_view
// OK-NEXT: 4xf32=0 1 2 3

// fail_after=2: the execute (the device's second queue op) fails.
// RUN: not fleet-run --module=%t.fleet --device=local-sync?fail_after=2 --function=run_kernel --input=i64=4 2>&1 | FileCheck %s --check-prefix=INJECTED
// RUN: not fleet-run --module=%t.fleet --device=local-task?fail_after=2 --function=run_kernel --input=i64=4 2>&1 | FileCheck %s --check-prefix=INJECTED
// INJECTED: error: ABORTED: device work failed: hal.device.queue.execute on device '{{.*}}' failed: injected failure (fail_after=2)

// fail_after=1: the alloca fails; the execute waiting on it does not run and
// fails its signal fence with the cause appended.
// RUN: not fleet-run --module=%t.fleet --device=local-task?fail_after=1 --function=run_kernel --input=i64=4 2>&1 | FileCheck %s --check-prefix=ALLOCA
// ALLOCA: hal.device.queue.execute on device '{{.*}}' did not run: its wait fence failed: hal.device.queue.alloca on device '{{.*}}' failed: injected failure (fail_after=1)

// A failing hal.fence.fail from the host program itself.
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=host_fail 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: error: CANCELLED: host gave up: failed by the host program (hal.fence.fail in @host_fail)

// A program that waits on a fence nothing signals: --host_wait_timeout_ms
// bounds the wait (the default waits as long as the program says).
// RUN: not fleet-run --module=%t.fleet --device=local-task --function=deadlock --host_wait_timeout_ms=100 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// DEADLOCK: error: DEADLINE_EXCEEDED: waiting forever: {{.*}}
// DEADLOCK-NEXT: at util.status.check_ok

// A queue op that fails after the function returned (nothing waits for it,
// like a trailing dealloca) still fails the run.
// RUN: not fleet-run --module=%t.fleet --device=local-task?fail_after=1 --function=trailing 2>&1 | FileCheck %s --check-prefix=TRAILING
// RUN: fleet-run --module=%t.fleet --device=local-task --function=trailing
// TRAILING: EXEC @trailing
// TRAILING: error: 1 queue op(s) on device 'local-task:0' failed (see --trace or --print_statistics)

module attributes {fleet.artifact_version = 1 : i64, fleet.kernel_abi_version = 2 : i64} {
  util.global private @__device_0 = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  hal.executable private @kernels {
    hal.executable.variant public @fleet_object target(<"llvm-cpu", "fleet-object-x86_64">) objects([#hal.executable.object<{data = @OBJECT@}>]) {
      hal.executable.export public @iota ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
      hal.executable.export public @fail ordinal(1) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    }
  }

  // Export 0 (iota over 4 workgroups) for n = 4; export 1 (fail) otherwise.
  util.func public @run_kernel(%n: i64) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c4_i64 = arith.constant 4 : i64
    %cm1_i32 = arith.constant -1 : i32
    %q = arith.constant -1 : i64
    %f32 = hal.element_type<f32> : i32
    %dense = hal.encoding_type<dense_row_major> : i32
    %device = util.global.load immutable @__device_0 : !hal.device
    %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
    %usage = hal.buffer_usage<"Transfer|DispatchStorage"> : i32
    %none = util.null : !hal.fence
    %f0 = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    %out = hal.device.queue.alloca<%device : !hal.device> affinity(%q) wait(%none) signal(%f0) pool(%c0_i64) type(%memory_type) usage(%usage) flags("None") : !hal.buffer{%c16}
    %is_iota = arith.cmpi eq, %n, %c4_i64 : i64
    %ordinal = arith.select %is_iota, %c0_i64, %c1_i64 : i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%q) : !hal.command_buffer
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@kernels) : !hal.executable
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%ordinal] workgroups([%c4, %c1, %c1]) bindings([
      (%out : !hal.buffer)[%c0, %c16]
    ]) flags("None")
    hal.command_buffer.finalize<%cmd : !hal.command_buffer>
    %f1 = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    hal.device.queue.execute<%device : !hal.device> affinity(%q) wait(%f0) signal(%f1) commands(%cmd) flags("None")
    %status = hal.fence.await until([%f1]) timeout_millis(%cm1_i32) flags("None") : i32
    util.status.check_ok %status, "device work failed"
    %view = hal.buffer_view.create buffer(%out : !hal.buffer)[%c0, %c16] shape([%c4]) type(%f32) encoding(%dense) : !hal.buffer_view
    util.return %view : !hal.buffer_view
  }

  util.func public @deadlock() {
    %cm1_i32 = arith.constant -1 : i32
    %q = arith.constant -1 : i64
    %device = util.global.load immutable @__device_0 : !hal.device
    %never = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    %done = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    hal.device.queue.barrier<%device : !hal.device> affinity(%q) wait(%never) signal(%done) flags("None")
    %status = hal.fence.await until([%done]) timeout_millis(%cm1_i32) flags("None") : i32
    util.status.check_ok %status, "waiting forever"
    util.return
  }

  util.func public @trailing() {
    %q = arith.constant -1 : i64
    %device = util.global.load immutable @__device_0 : !hal.device
    %none = util.null : !hal.fence
    %done = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    hal.device.queue.barrier<%device : !hal.device> affinity(%q) wait(%none) signal(%done) flags("None")
    util.return
  }

  util.func public @host_fail() {
    %cm1_i32 = arith.constant -1 : i32
    %cancelled = arith.constant 1 : i32
    %device = util.global.load immutable @__device_0 : !hal.device
    %f = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    hal.fence.fail<%f : !hal.fence> status(%cancelled)
    %status = hal.fence.await until([%f]) timeout_millis(%cm1_i32) flags("None") : i32
    util.status.check_ok %status, "host gave up"
    util.return
  }
}
