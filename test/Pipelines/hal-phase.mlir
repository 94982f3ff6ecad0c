// The HAL phase on the 2- and 3-device samples: host programs of util, hal
// and arith ops only; buffers shared by plain local devices (unified by the
// materialized topology) are allocated on the first device with the base
// bits, decided at compile time; devices order each other's work with
// fences, and the host waits once, for the result.
// RUN: fleet-compile %fleet_src_root/samples/multi_device_mul/multi_device_mul.mlir --compile-to=hal | FileCheck %s --check-prefix=TWO
// RUN: fleet-compile %fleet_src_root/samples/three_devices/three_devices.mlir --compile-to=hal | FileCheck %s --check-prefix=THREE

// TWO-LABEL: util.func public @mul
// TWO-NOT: stream.
// TWO-NOT: hal.allocator.resolve_memory_properties
// TWO-NOT: hal.allocator.select
// TWO-NOT: hal.device.query
// TWO: %[[A:.+]] = util.global.load immutable @device_a : !hal.device
// TWO: hal.device.queue.execute<%[[A]] : !hal.device> affinity(%{{.+}}) wait(%{{.+}}) signal(%[[FA:.+]]) commands
// TWO: %[[B:.+]] = util.global.load immutable @device_b : !hal.device
// TWO: hal.device.queue.execute<%[[B]] : !hal.device> affinity(%{{.+}}) wait(%{{.+}}) signal(%[[FB:.+]]) commands
// TWO-NOT: hal.fence.await
// TWO: hal.device.queue.execute<%[[A]] : !hal.device> affinity(%{{.+}}) wait(%{{.+}}) signal(%[[DONE:.+]]) commands
// TWO: hal.fence.await until([%[[DONE]]])
// TWO-NOT: hal.fence.await
// TWO: util.return
// Both devices are the host's CPU: one variant, for the target both device
// globals were given (codegen-resolve-executable-targets), tiled for it.
// TWO-LABEL: hal.executable private @mul_dispatch_0
// TWO: hal.executable.variant public @fleet_object target(<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: {{[0-9]+}}, {{[0-9]+}}>, cpu = "host", native_vector_size = {{16|32|64}} : i64}>) {
// TWO-NOT: hal.executable.variant
// TWO: func.func @mul_dispatch_0_elementwise_4_f32({{.+}} attributes {fleet.codegen = {kind = "elementwise"

// THREE-LABEL: util.func public @three
// THREE-NOT: stream.
// THREE-NOT: hal.allocator.resolve_memory_properties
// THREE: hal.device.queue.execute<%{{.+}} : !hal.device>
// THREE: hal.fence.await
// THREE-NOT: hal.fence.await
// THREE: util.return
