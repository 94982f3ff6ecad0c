// util.func declarations may list argument types only, as IREE's util.func
// accepts; they print with IREE's %argN names. A types-only list cannot tie
// results, mix with names, or carry a body (docs/ir-reference.md "util").

// RUN: fleet-opt %s -split-input-file | FileCheck %s
// RUN: fleet-opt %s -split-input-file | fleet-opt -split-input-file | FileCheck %s
// RUN: not fleet-opt %S/Inputs/declarations-invalid.mlir -split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: util.func private @import(%arg0: !hal.buffer_view) -> !hal.buffer_view
util.func private @import(!hal.buffer_view) -> !hal.buffer_view

// CHECK: util.func private @attrs(%arg0: !stream.resource<*> {some.attr}, %arg1: index) -> (!stream.resource<*>, i32)
util.func private @attrs(!stream.resource<*> {some.attr}, index) -> (!stream.resource<*>, i32)

// CHECK: util.func private @named(%arg0: i32, %arg1: i32) -> %arg1
util.func private @named(%a: i32, %b: i32) -> %b

// CHECK: util.func private @none()
util.func private @none()

// -----

// Callers see the declaration's signature.
util.func private @callee(!hal.buffer_view, index) -> !hal.buffer_view
// CHECK-LABEL: util.func public @caller
util.func public @caller(%v: !hal.buffer_view, %n: index) -> !hal.buffer_view {
  // CHECK: util.call @callee(%{{.*}}, %{{.*}}) : (!hal.buffer_view, index) -> !hal.buffer_view
  %0 = util.call @callee(%v, %n) : (!hal.buffer_view, index) -> !hal.buffer_view
  util.return %0 : !hal.buffer_view
}

// ERR: declarations-invalid.mlir:2:43: error: custom op 'util.func' result tied to '%arg0' in a declaration whose arguments are types only
// ERR: declarations-invalid.mlir:5:40: error: custom op 'util.func' expected a type: the earlier arguments are types only
// ERR: declarations-invalid.mlir:8:33: error: custom op 'util.func' expected an SSA name: the earlier arguments are named
// ERR: declarations-invalid.mlir:11:29: error: custom op 'util.func' a function with a body needs named arguments
