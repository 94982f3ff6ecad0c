// Round trip of every util op and type, each optional part included:
// custom form twice (printing what was parsed and parsing it again gives
// identical text) and the generic form back to custom.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK: util.global private @limit = 64 : index
util.global private @limit = 64 : index
// CHECK: util.global private mutable @weights : !stream.resource<variable>
util.global private mutable @weights : !stream.resource<variable>
// CHECK: util.global private @gpu0 = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
util.global private @gpu0 = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
// CHECK: util.global public @bias = dense<0.000000e+00> : tensor<4xf32>
util.global public @bias = dense<0.000000e+00> : tensor<4xf32>
// Absent visibility prints as public.
// CHECK: util.global public @implicit_public : i32
util.global @implicit_public : i32
// Initial value of another (compatible) type keeps `: T`.
// CHECK: util.global private @odd : tensor<?xf32> = dense<1.000000e+00> : tensor<4xf32>
util.global private @odd : tensor<?xf32> = dense<1.0> : tensor<4xf32>
// CHECK: util.global nested mutable @with_attrs {foo = 1 : i32} : i32
util.global nested mutable @with_attrs {foo = 1 : i32} : i32

// Declarations: tied result, several results, argument/result attributes.
// CHECK: util.func private @ext(%arg0: !stream.resource<*>, %arg1: index) -> (%arg0, i32)
util.func private @ext(%arg0: !stream.resource<*>, %arg1: index) -> (%arg0, i32)
// CHECK: util.func private @ext_as(%arg0: !stream.resource<*>) -> %arg0 as !stream.resource<transient>
util.func private @ext_as(%arg0: !stream.resource<*>) -> %arg0 as !stream.resource<transient>
// CHECK: util.func private @ext_res_attrs(%arg0: i32 {a.b = 1 : i32}) -> (i32 {c.d})
util.func private @ext_res_attrs(%x: i32 {a.b = 1 : i32}) -> (i32 {c.d})
// `-> ()` is accepted and printed as no arrow.
// CHECK: util.func private @no_results(%arg0: i32){{$}}
util.func private @no_results(%arg0: i32) -> ()

// CHECK-LABEL: util.func public @body
// CHECK-SAME: (%arg0: tensor<?x16xf32> {iree.abi.affinity = #hal.device.affinity<@gpu0>}, %arg1: index) -> tensor<?x16xf32>
// CHECK-SAME: attributes {iree.abi.model = "coarse-fences"}
util.func public @body(%t: tensor<?x16xf32> {iree.abi.affinity = #hal.device.affinity<@gpu0>}, %n: index) -> tensor<?x16xf32> attributes {iree.abi.model = "coarse-fences"} {
  // CHECK: %[[W:.+]] = util.global.load @weights : !stream.resource<variable>
  %w = util.global.load @weights : !stream.resource<variable>
  // CHECK: util.global.load immutable @gpu0 : !hal.device
  %d = util.global.load immutable @gpu0 : !hal.device
  // CHECK: util.global.load @weights {foo} : !stream.resource<variable>
  %w1 = util.global.load @weights {foo} : !stream.resource<variable>
  // CHECK: util.global.store %[[W]], @weights : !stream.resource<variable>
  util.global.store %w, @weights : !stream.resource<variable>
  // CHECK: %[[P:.+]] = util.global.address @weights : !util.ptr<!stream.resource<variable>>
  %p = util.global.address @weights : !util.ptr<!stream.resource<variable>>
  // CHECK: util.global.address immutable @limit : !util.ptr<index>
  %q = util.global.address immutable @limit : !util.ptr<index>
  // CHECK: %[[W2:.+]] = util.global.load.indirect %[[P]] : !util.ptr<!stream.resource<variable>> -> !stream.resource<variable>
  %w2 = util.global.load.indirect %p : !util.ptr<!stream.resource<variable>> -> !stream.resource<variable>
  // CHECK: util.global.load.indirect immutable %{{.+}} : !util.ptr<index> -> index
  %l = util.global.load.indirect immutable %q : !util.ptr<index> -> index
  // CHECK: util.global.store.indirect %[[W2]], %[[P]] : !stream.resource<variable> -> !util.ptr<!stream.resource<variable>>
  util.global.store.indirect %w2, %p : !stream.resource<variable> -> !util.ptr<!stream.resource<variable>>
  // CHECK: util.null : !hal.fence
  %nf = util.null : !hal.fence
  // CHECK: util.null {tag} : !util.buffer
  %nb = util.null {tag} : !util.buffer
  // CHECK: util.return %arg0 : tensor<?x16xf32>
  util.return %t : tensor<?x16xf32>
}

// CHECK-LABEL: util.func private @calls
util.func private @calls(%r: !stream.resource<*>, %s: index) {
  // CHECK: util.call @ext(%arg0, %arg1) : (!stream.resource<*>, index) -> (%arg0, i32)
  %a:2 = util.call @ext(%r, %s) : (!stream.resource<*>, index) -> (%r, i32)
  // CHECK: util.call @ext_as(%arg0) : (!stream.resource<*>) -> %arg0 as !stream.resource<transient>
  %b = util.call @ext_as(%r) : (!stream.resource<*>) -> %r as !stream.resource<transient>
  // CHECK: util.call @log() {hal.abi.convention = #hal.abi.convention<synchronous>} : () -> ()
  util.call @log() {hal.abi.convention = #hal.abi.convention<synchronous>} : () -> ()
  // CHECK: util.return {tag}
  util.return {tag}
}
util.func private @log()

// CHECK: util.initializer {
util.initializer {
  util.return
}
// CHECK: util.initializer attributes {stream.affinity = #hal.device.affinity<@gpu0>} {
util.initializer attributes {stream.affinity = #hal.device.affinity<@gpu0>} {
  %c = util.global.load @limit : index
  util.return
}

// CHECK-LABEL: @buffer_type
// CHECK-SAME: !util.buffer
util.func private @buffer_type(%arg0: !util.buffer)

// CHECK-LABEL: @buffers
util.func private @buffers() {
  // CHECK: util.buffer.constant "weights" {alignment = 64 : index} : !util.buffer = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = util.buffer.constant "weights" {alignment = 64 : index} : !util.buffer = dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: util.buffer.constant : !util.buffer = "bytes"
  %1 = util.buffer.constant : !util.buffer = "bytes"
  util.return
}

// CHECK-LABEL: @status
util.func private @status(%s: i32) {
  // CHECK: util.status.check_ok %arg0, "device work failed"
  util.status.check_ok %s, "device work failed"
  // CHECK: util.status.check_ok %arg0{{$}}
  util.status.check_ok %s
  util.return
}
