// Round trip of stream executables, the ops used inside dispatch functions,
// stream.context.resolve and the test-only ops.
// RUN: fleet-stream-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-stream-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1


// The reference example.
// CHECK-LABEL: stream.executable private @ex {
// CHECK-NEXT:   stream.executable.export public @entry workgroups(%arg0: index) -> (index, index, index) {
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     stream.return %arg0, %c1, %c1 : index, index, index
// CHECK-NEXT:   }
// CHECK-NEXT:   stream.executable.export public @entry as("entry_v2"){{$}}
// CHECK-NEXT:   builtin.module {
// CHECK-NEXT:     func.func @entry(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: index) {
// CHECK-NEXT:       %c0 = arith.constant 0 : index
// CHECK-NEXT:       %{{.+}} = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<?xf32>{%arg2}
stream.executable private @ex {
  stream.executable.export public @entry workgroups(%x: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %x, %c1, %c1 : index, index, index
  }
  stream.executable.export public @entry as("entry_v2")
  builtin.module {
    func.func @entry(%in: !stream.binding, %acc: !stream.binding, %n: index) {
      %c0 = arith.constant 0 : index
      %v = stream.binding.subspan %in[%c0] : !stream.binding -> memref<?xf32>{%n}
      // Static result type, attributes before `:`.
      // CHECK: stream.binding.subspan %arg1[%c0] {b} : !stream.binding -> memref<16xf32>
      %w = stream.binding.subspan %acc[%c0] {b} : !stream.binding -> memref<16xf32>
      // Any result type.
      // CHECK: stream.binding.subspan %arg1[%c0] : !stream.binding -> tensor<?x?xi8>{%arg2, %arg2}
      %t = stream.binding.subspan %acc[%c0] : !stream.binding -> tensor<?x?xi8>{%n, %n}
      // CHECK: stream.dispatch.workgroup.id[0] : index
      %id0 = stream.dispatch.workgroup.id[0] : index
      // CHECK: stream.dispatch.workgroup.count[1] : index
      %count1 = stream.dispatch.workgroup.count[1] : index
      // CHECK: stream.dispatch.workgroup.size[2] {s} : index
      %size2 = stream.dispatch.workgroup.size[2] {s} : index
      return
    }
  }
}

// Visibility is always printed; attributes go before the body.
// CHECK-LABEL: stream.executable public @ex2 attributes {e} {
// CHECK-NEXT:   stream.executable.export private @f workgroups(%arg0: index, %arg1: index) -> (index, index, index) {
// CHECK-NEXT:     stream.return {r} %arg0, %arg1, %arg1 : index, index, index
// CHECK-NEXT:   } attributes {x}
// CHECK-NEXT:   stream.executable.export public @f as("g") attributes {y}
stream.executable @ex2 attributes {e} {
  stream.executable.export private @f workgroups(%a: index, %b: index) -> (index, index, index) {
    stream.return {r} %a, %b, %b : index, index, index
  } attributes {x}
  stream.executable.export public @f as("g") attributes {y}
  builtin.module {
    util.func private @f(%arg0: !stream.binding)
  }
}

// CHECK-LABEL: util.func private @resolve
util.func private @resolve() {
  // CHECK: stream.context.resolve : !util.buffer
  %alloc = stream.context.resolve : !util.buffer
  // CHECK: stream.context.resolve on(#stream.test.affinity<"gpu0">) : !util.buffer, i64
  %dev, %q = stream.context.resolve on(#stream.test.affinity<"gpu0">) : !util.buffer, i64
  // CHECK: stream.context.resolve on(#stream.test.affinity<"later">) {c} : !util.buffer
  %dev2 = stream.context.resolve on(#stream.test.affinity<"later">) {c} : !util.buffer
  util.return
}

// CHECK-LABEL: util.func private @test_ops
util.func private @test_ops(%v: !util.buffer, %w0: !stream.test.fence, %w1: !stream.test.fence, %s: !stream.test.fence, %a: !stream.timepoint, %b: !stream.timepoint, %x: !stream.resource<*>, %sz: index) {
  // CHECK: stream.test.timeline_aware(%arg0) waits(%arg1, %arg2) signals(%arg3) : (!util.buffer) -> !util.buffer
  %o = stream.test.timeline_aware(%v) waits(%w0, %w1) signals(%s) : (!util.buffer) -> !util.buffer
  // CHECK: stream.test.timeline_aware() waits() signals(%arg3) {t} : () -> ()
  stream.test.timeline_aware() waits() signals(%s) {t} : () -> ()
  // CHECK: stream.test.timeline_op await_limit(2) await(%arg4, %arg5) => with(%arg6) : (!stream.resource<*>{%arg7}) -> %arg6{%arg7} => !stream.timepoint
  %r, %t = stream.test.timeline_op await_limit(2) await(%a, %b) => with(%x) : (!stream.resource<*>{%sz}) -> %x{%sz} => !stream.timepoint
  // CHECK: stream.test.timeline_op with() : () -> () => !stream.timepoint attributes {o}
  %t2 = stream.test.timeline_op with() : () -> () => !stream.timepoint attributes {o}
  util.return
}
