// The whole stream phase on the 2- and 3-device samples: cmd-level IR, every
// device region ordered by timepoints, the host waiting only for the result.
// RUN: fleet-compile %fleet_src_root/samples/multi_device_mul/multi_device_mul.mlir --compile-to=stream | FileCheck %s --check-prefix=TWO
// RUN: fleet-compile %fleet_src_root/samples/three_devices/three_devices.mlir --compile-to=stream | FileCheck %s --check-prefix=THREE

// TWO-LABEL: util.func public @mul
// TWO-NOT: stream.async
// TWO: stream.resource.alloca uninitialized on(#hal.device.optimal<[#hal.device.affinity<@device_a>, #hal.device.affinity<@device_b>]>)
// TWO: %[[A:.+]] = stream.cmd.execute on(#hal.device.affinity<@device_a>)
// TWO-NOT: stream.timepoint.await
// TWO: %[[B:.+]] = stream.cmd.execute on(#hal.device.affinity<@device_b>) await(%{{.+}})
// TWO-NOT: stream.timepoint.await
// TWO: %[[BACK:.+]] = stream.cmd.execute on(#hal.device.affinity<@device_a>) await(%{{.+}})
// TWO-NEXT: stream.cmd.invalidate from(#hal.device.affinity<@device_b>)
// TWO-NEXT: stream.cmd.copy
// TWO: stream.timepoint.await %[[BACK]]
// TWO-NOT: stream.timepoint.await
// TWO: util.return

// THREE-LABEL: util.func public @three
// THREE-NOT: stream.async
// THREE: stream.cmd.execute on(#hal.device.affinity<@device_a>)
// THREE-NOT: stream.timepoint.await
// THREE: stream.cmd.execute on(#hal.device.affinity<@device_b>) await(
// THREE-NOT: stream.timepoint.await
// THREE: stream.cmd.execute on(#hal.device.affinity<@device_c>) await(
// THREE-NOT: stream.timepoint.await
// THREE: stream.cmd.execute on(#hal.device.affinity<@device_a>) await(
// THREE: stream.timepoint.await
// THREE-NOT: stream.timepoint.await
// THREE: util.return
