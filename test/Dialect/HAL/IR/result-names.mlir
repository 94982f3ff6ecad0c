// HAL ops print IREE's default result names (docs/ir-reference.md "Result
// names"): the names survive a round trip, and repeated names are uniqued
// with a suffix. Ops IREE names nothing print %N.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @names
util.func public @names(%dev: !hal.device, %q: i64, %mt: i32, %bu: i32, %sz: index, %hb: !util.buffer, %off: index, %f0: !hal.fence, %ms: i32, %et: i32, %enc: i32) {
  %c0 = arith.constant 0 : index
  // CHECK: %device_count = hal.devices.count : index
  %n = hal.devices.count : index
  // CHECK: %device_0 = hal.devices.get %c0 : !hal.device
  %d0 = hal.devices.get %c0 : !hal.device
  // CHECK: %device_n = hal.devices.get %arg4 : !hal.device
  %dn = hal.devices.get %sz : !hal.device
  // CHECK: %allocator = hal.device.allocator<%arg0 : !hal.device> : !hal.allocator
  %a = hal.device.allocator<%dev : !hal.device> : !hal.allocator
  // CHECK: %buffer = hal.allocator.allocate<%allocator : !hal.allocator>
  %b = hal.allocator.allocate<%a : !hal.allocator> affinity(%q) type(%mt) usage(%bu) : !hal.buffer{%sz}
  // CHECK: %did_import, %mapped = hal.allocator.import<%allocator : !hal.allocator>
  %ok, %m = hal.allocator.import<%a : !hal.allocator> source(%hb : !util.buffer)[%off, %sz] affinity(%q) type(%mt) usage(%bu) : i1, !hal.buffer
  // CHECK: %fence = hal.fence.create device(%arg0 : !hal.device)
  %f = hal.fence.create device(%dev : !hal.device) flags("None") : !hal.fence
  // CHECK: %fence_0 = hal.fence.join at([%arg7, %fence])
  %fj = hal.fence.join at([%f0, %f]) flags("None") -> !hal.fence
  // CHECK: %transient_buffer = hal.device.queue.alloca<%arg0 : !hal.device> affinity(%arg1) wait(%arg7) signal(%fence)
  %t = hal.device.queue.alloca<%dev : !hal.device> affinity(%q) wait(%f0) signal(%f) pool(%q) type(%mt) usage(%bu) flags("None") : !hal.buffer{%sz}
  // CHECK: %cmd = hal.command_buffer.create device(%arg0 : !hal.device)
  %cmd = hal.command_buffer.create device(%dev : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%q) : !hal.command_buffer
  // CHECK: %device = hal.command_buffer.device<%cmd : !hal.command_buffer> : !hal.device
  %cd = hal.command_buffer.device<%cmd : !hal.command_buffer> : !hal.device
  // CHECK: %exe = hal.executable.lookup device(%device : !hal.device) executable(@ex) : !hal.executable
  %exe = hal.executable.lookup device(%cd : !hal.device) executable(@ex) : !hal.executable
  // CHECK: %element_type_f32 = hal.element_type<f32> : i32
  %etf = hal.element_type<f32> : i32
  // CHECK: %dense_row_major = hal.encoding_type<dense_row_major> : i32
  %dense = hal.encoding_type<dense_row_major> : i32
  // CHECK: %view = hal.buffer_view.create buffer(%buffer : !hal.buffer)[%c0, %arg4] shape([%arg4]) type(%element_type_f32) encoding(%dense_row_major) : !hal.buffer_view
  %v = hal.buffer_view.create buffer(%b : !hal.buffer)[%c0, %sz] shape([%sz]) type(%etf) encoding(%dense) : !hal.buffer_view
  // CHECK: %buffer_1 = hal.buffer_view.buffer<%view : !hal.buffer_view> : !hal.buffer
  %vb = hal.buffer_view.buffer<%v : !hal.buffer_view> : !hal.buffer
  // CHECK: %status = hal.fence.await until([%fence_0]) timeout_millis(%arg8) flags("None") : i32
  %s = hal.fence.await until([%fj]) timeout_millis(%ms) flags("None") : i32
  // No IREE name: numbered.
  // CHECK: %0 = hal.memory_type<HostVisible> : i32
  %hv = hal.memory_type<HostVisible> : i32
  // Named by their ODS results, as in IREE.
  // CHECK: %selected_device, %selected_queue_affinity = hal.allocator.select
  %sd, %sq = hal.allocator.select from([(%dev, %q : !hal.device, i64), (%d0, %q : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
  // CHECK: %ok, %value = hal.device.query<%arg0 : !hal.device>
  %qok, %qv = hal.device.query<%dev : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
  util.return
}
hal.executable private @ex {
}
