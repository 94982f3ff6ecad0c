// RUN: fleet-opt %s --util-attribute-call-graph | FileCheck %s

// The callee's ABI convention (a CallAnnotationAttrInterface value) and
// nosideeffects reach every call; other callee attributes do not; an
// attribute the call already has is kept.
util.func private @annotated(%arg0: !hal.fence, %arg1: !hal.fence) attributes {hal.abi.convention = #hal.abi.convention<coarse_fences>, nosideeffects, other = 1 : i32}
util.func private @plain(%arg0: i32)

// CHECK-LABEL: @caller
util.func private @caller(%w: !hal.fence, %s: !hal.fence, %i: i32) {
  // CHECK: util.call @annotated(%arg0, %arg1) {hal.abi.convention = #hal.abi.convention<coarse_fences>, nosideeffects} :
  util.call @annotated(%w, %s) : (!hal.fence, !hal.fence) -> ()
  // CHECK: util.call @annotated(%arg0, %arg1) {hal.abi.convention = #hal.abi.convention<synchronous>, nosideeffects} :
  util.call @annotated(%w, %s) {hal.abi.convention = #hal.abi.convention<synchronous>} : (!hal.fence, !hal.fence) -> ()
  // CHECK: util.call @plain(%arg2) : (i32) -> ()
  util.call @plain(%i) : (i32) -> ()
  util.return
}

// func.call sites are annotated too; external declarations are callees
// like any other.
func.func private @ext() attributes {hal.abi.convention = #hal.abi.convention<coarse_fences>}
// CHECK-LABEL: func.func @func_caller
// CHECK: call @ext() {hal.abi.convention = #hal.abi.convention<coarse_fences>}
func.func @func_caller() {
  func.call @ext() : () -> ()
  return
}
