// Cross-device wait latency (docs/fleet-run.md "Performance"): 1-element
// dispatches alternating between two devices, each waiting on the other
// device's signal fence. scripts/host-bench embeds the kernel object
// (@OBJECT@) and runs it.
module attributes {fleet.artifact_version = 1 : i64, fleet.kernel_abi_version = 1 : i64} {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  hal.executable private @kernels {
    hal.executable.variant public @fleet_object target(<"llvm-cpu", "fleet-object-x86_64">) objects([#hal.executable.object<{data = @OBJECT@}>]) {
      hal.executable.export public @inc ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
    }
  }

  // One submission: dispatch `inc` from %src to %dst on %device after %wait.
  util.func private @step(%device: !hal.device, %src: !hal.buffer, %dst: !hal.buffer, %wait: !hal.fence) -> !hal.fence {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c0_i64 = arith.constant 0 : i64
    %q = arith.constant -1 : i64
    %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%q) : !hal.command_buffer
    %exe = hal.executable.lookup device(%device : !hal.device) executable(@kernels) : !hal.executable
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%c0_i64] workgroups([%c1, %c1, %c1]) bindings([
      (%src : !hal.buffer)[%c0, %c4],
      (%dst : !hal.buffer)[%c0, %c4]
    ]) flags("None")
    hal.command_buffer.finalize<%cmd : !hal.command_buffer>
    %signal = hal.fence.create device(%device : !hal.device) flags("None") : !hal.fence
    hal.device.queue.execute<%device : !hal.device> affinity(%q) wait(%wait) signal(%signal) commands(%cmd) flags("None")
    util.return %signal : !hal.fence
  }

  util.func private @buffer(%device: !hal.device) -> !hal.buffer {
    %c4 = arith.constant 4 : index
    %q = arith.constant -1 : i64
    %type = hal.memory_type<"HostVisible|DeviceVisible|DeviceLocal"> : i32
    %usage = hal.buffer_usage<"Transfer|DispatchStorage|MappingScoped"> : i32
    %allocator = hal.device.allocator<%device : !hal.device> : !hal.allocator
    %b = hal.allocator.allocate<%allocator : !hal.allocator> affinity(%q) type(%type) usage(%usage) : !hal.buffer{%c4}
    util.return %b : !hal.buffer
  }

  util.func private @result(%fence: !hal.fence, %buffer: !hal.buffer) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %cm1_i32 = arith.constant -1 : i32
    %f32 = hal.element_type<f32> : i32
    %dense = hal.encoding_type<dense_row_major> : i32
    %status = hal.fence.await until([%fence]) timeout_millis(%cm1_i32) flags("None") : i32
    util.status.check_ok %status, "dispatch loop failed"
    %view = hal.buffer_view.create buffer(%buffer : !hal.buffer)[%c0, %c4] shape([%c1]) type(%f32) encoding(%dense) : !hal.buffer_view
    util.return %view : !hal.buffer_view
  }

  // n dispatches alternating between devices A and B: every one waits on
  // the other device's signal (a cross-device wait per hop).
  util.func public @pingpong(%n: index) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %device_a = util.global.load immutable @device_a : !hal.device
    %device_b = util.global.load immutable @device_b : !hal.device
    %a = util.call @buffer(%device_a) : (!hal.device) -> !hal.buffer
    %b = util.call @buffer(%device_a) : (!hal.device) -> !hal.buffer
    %none = util.null : !hal.fence
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%src = %a, %dst = %b, %wait = %none) -> (!hal.buffer, !hal.buffer, !hal.fence) {
      %parity = arith.remui %i, %c2 : index
      %on_a = arith.cmpi eq, %parity, %c0 : index
      %device = arith.select %on_a, %device_a, %device_b : !hal.device
      %signal = util.call @step(%device, %src, %dst, %wait) : (!hal.device, !hal.buffer, !hal.buffer, !hal.fence) -> !hal.fence
      scf.yield %dst, %src, %signal : !hal.buffer, !hal.buffer, !hal.fence
    }
    %view = util.call @result(%r#2, %r#0) : (!hal.fence, !hal.buffer) -> !hal.buffer_view
    util.return %view : !hal.buffer_view
  }
}
