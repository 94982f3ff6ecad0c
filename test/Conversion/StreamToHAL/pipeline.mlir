// RUN: fleet-opt %s --fleet-hal-pipeline | FileCheck %s
// RUN: fleet-opt %s --fleet-hal-pipeline | FileCheck %s --check-prefix=HOST
// IREE's --iree-stream-external-resources-mappable (StreamToHAL's bits for
// external allocations): the result buffer becomes host-visible, mappable.
// RUN: fleet-opt %s --fleet-hal-pipeline --stream-external-resources-mappable | FileCheck %s --check-prefix=MAPPABLE

// The HAL phase end to end on docs/pipeline.md's `abs` at cmd level: the
// single-device memory properties are folded to constants and the host
// function holds only util, hal and arith ops.

// CHECK-LABEL: hal.executable private @abs_dispatch_0
// CHECK-LABEL: util.func public @abs
// CHECK-DAG: %[[BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// CHECK-DAG: %[[MT:.+]] = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// CHECK: hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input0")
// CHECK: %[[IN:.+]] = hal.buffer_view.buffer<%arg0 : !hal.buffer_view> : !hal.buffer
// CHECK: %[[DEV:.+]] = util.global.load immutable @__device_0 : !hal.device
// CHECK: %[[ALLOCATED:.+]] = hal.fence.create device(%[[DEV]] : !hal.device)
// CHECK: %[[OUT:.+]] = hal.device.queue.alloca<%[[DEV]] : !hal.device> {{.+}} signal(%[[ALLOCATED]]) {{.+}} type(%[[MT]]) usage(%[[BU]])
// CHECK: hal.command_buffer.dispatch
// CHECK: %[[DONE:.+]] = hal.fence.create device(%[[DEV]] : !hal.device)
// CHECK: hal.device.queue.execute<%[[DEV]] : !hal.device> affinity(%{{.+}}) wait(%[[ALLOCATED]]) signal(%[[DONE]])
// CHECK: hal.fence.await until([%[[DONE]]])
// CHECK: %[[VIEW:.+]] = hal.buffer_view.create buffer(%[[OUT]] : !hal.buffer)
// CHECK: util.return %[[VIEW]] : !hal.buffer_view

// MAPPABLE-LABEL: util.func public @abs
// MAPPABLE-DAG: %[[BU:.+]] = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|MappingScoped|MappingAccessRandom|Mapping"> : i32
// MAPPABLE-DAG: %[[MT:.+]] = hal.memory_type<"HostVisible|DeviceVisible|DeviceLocal"> : i32
// MAPPABLE: hal.device.queue.alloca<{{.+}} type(%[[MT]]) usage(%[[BU]])

// HOST-LABEL: util.func public @abs
// HOST-NOT: stream.
// HOST-NOT: hal.allocator.resolve_memory_properties
// HOST: util.return
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  stream.executable private @abs_dispatch_0 {
    stream.executable.export public @abs_dispatch_0_elementwise_4_f32 workgroups() -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @abs_dispatch_0_elementwise_4_f32(%arg0: !stream.binding, %arg1: !stream.binding) {
        return
      }
    }
  }
  util.func public @abs(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %0 = stream.tensor.import on(#hal.device.affinity<@__device_0>) %arg0 : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%c16}
    %1, %t0 = stream.resource.alloca uninitialized on(#hal.device.affinity<@__device_0>) : !stream.resource<external>{%c16} => !stream.timepoint
    %t1 = stream.cmd.execute on(#hal.device.affinity<@__device_0>) await(%t0) => with(%0 as %in: !stream.resource<external>{%c16}, %1 as %out: !stream.resource<external>{%c16}) {
      stream.cmd.dispatch @abs_dispatch_0::@abs_dispatch_0_elementwise_4_f32 {
        ro %in[%c0 for %c16] : !stream.resource<external>{%c16},
        wo %out[%c0 for %c16] : !stream.resource<external>{%c16}
      }
    } => !stream.timepoint
    %2 = stream.timepoint.await %t1 => %1 : !stream.resource<external>{%c16}
    %3 = stream.tensor.export on(#hal.device.affinity<@__device_0>) %2 : tensor<4xf32> in !stream.resource<external>{%c16} -> !hal.buffer_view
    util.return %3 : !hal.buffer_view
  }
}
