// stream types and attributes, every lifetime spelling.
// RUN: fleet-stream-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-stream-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK: (%arg0: !stream.resource<*>, %arg1: !stream.resource<external>, %arg2: !stream.resource<staging>, %arg3: !stream.resource<transient>, %arg4: !stream.resource<variable>, %arg5: !stream.resource<constant>, %arg6: !stream.timepoint, %arg7: !stream.binding, %arg8: !stream.test.fence)
util.func private @types(%a: !stream.resource<*>, %b: !stream.resource<external>, %c: !stream.resource<staging>, %d: !stream.resource<transient>, %e: !stream.resource<variable>, %f: !stream.resource<constant>, %g: !stream.timepoint, %h: !stream.binding, %i: !stream.test.fence)

// CHECK-LABEL: @attrs
// CHECK-SAME: a = #stream.timepoint<immediate>
// CHECK-SAME: b = #stream.lifetime<"*">
// CHECK-SAME: c = #stream.lifetime<external>
// CHECK-SAME: d = #stream.lifetime<staging>
// CHECK-SAME: e = #stream.lifetime<transient>
// CHECK-SAME: f = #stream.lifetime<variable>
// CHECK-SAME: g = #stream.lifetime<constant>
// CHECK-SAME: h = #stream.resource_access<Read>
// CHECK-SAME: i = #stream.resource_access<"Read|Write">
// CHECK-SAME: j = #stream.resource_access<"None">
util.func private @attrs() attributes {
  a = #stream.timepoint<immediate>,
  b = #stream.lifetime<*>, c = #stream.lifetime<external>,
  d = #stream.lifetime<"staging">, e = #stream.lifetime<transient>,
  f = #stream.lifetime<variable>, g = #stream.lifetime<constant>,
  h = #stream.resource_access<Read>, i = #stream.resource_access<"Read|Write">,
  j = #stream.resource_access<None>
}
