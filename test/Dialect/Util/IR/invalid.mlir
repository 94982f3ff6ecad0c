// Verifier and parser rules of the util ops (docs/ir-reference.md, "util").
// RUN: fleet-opt %s -split-input-file -verify-diagnostics

// Shapes are compared, element types are not (as IREE).
// expected-error @+1 {{initial value type 'tensor<8xf32>' is not compatible with global type 'tensor<4xf32>'}}
util.global private @g : tensor<4xf32> = dense<1.0> : tensor<8xf32>

// -----

util.func private @f() {
  // expected-error @+1 {{references undefined global @missing}}
  %0 = util.global.load @missing : i32
  util.return
}

// -----

util.global private @g : i32
util.func private @f() {
  // expected-error @+1 {{result type 'i64' is not compatible with global type 'i32'}}
  %0 = util.global.load @g : i64
  util.return
}

// -----

util.global private mutable @g : i32
util.func private @f() {
  // expected-error @+1 {{marked immutable but global @g is mutable}}
  %0 = util.global.load immutable @g : i32
  util.return
}

// -----

util.global private mutable @g : tensor<?xf32>
util.func private @f(%t: tensor<4xf32>) {
  // Direct stores need the exact type.
  // expected-error @+1 {{value type 'tensor<4xf32>' does not match global type 'tensor<?xf32>'}}
  util.global.store %t, @g : tensor<4xf32>
  util.return
}

// -----

util.global private mutable @g : i32
util.func private @f() {
  // expected-error @+1 {{marked immutable but global @g is mutable}}
  %p = util.global.address immutable @g : !util.ptr<i32>
  util.return
}

// -----

util.func private @f(%p: !util.ptr<i32>) {
  // expected-error @+1 {{result type 'f32' is not compatible with pointee type 'i32'}}
  %0 = util.global.load.indirect %p : !util.ptr<i32> -> f32
  util.return
}

// -----

util.func private @f(%p: !util.ptr<i32>, %v: f32) {
  // expected-error @+1 {{value type 'f32' is not compatible with pointee type 'i32'}}
  util.global.store.indirect %v, %p : f32 -> !util.ptr<i32>
  util.return
}

// -----

// expected-error @+1 {{tied result names '%x', which is not an argument}}
util.func private @f(%arg0: i32) -> %x

// -----

// expected-error @+1 {{expected non-empty function body}}
util.func private @f() {}

// -----

// expected-error @+1 {{'function_type' may not appear in the attribute dict}}
util.func private @f() attributes {function_type = () -> ()}

// -----

util.func private @f() -> i32 {
  %c = arith.constant 1 : i64
  // expected-error @+1 {{operand 0 has type 'i64' but the function returns 'i32'}}
  util.return %c : i64
}

// -----

util.func private @f() -> i32 {
  // expected-error @+1 {{returns 0 values but the enclosing function has 1 results}}
  util.return
}

// -----

util.func private @callee(%arg0: i32) -> i32
util.func private @f(%a: i64) {
  // expected-error @+1 {{call type '(i64) -> i32' does not match callee type '(i32) -> i32'}}
  %0 = util.call @callee(%a) : (i64) -> i32
  util.return
}

// -----

util.func private @callee(%arg0: i32) -> %arg0
util.func private @f(%a: i32) {
  // expected-error @+1 {{result 0 tied operand does not match the callee}}
  %0 = util.call @callee(%a) : (i32) -> i32
  util.return
}

// -----

util.func private @f(%a: i32) {
  // expected-error @+1 {{calls undefined function @nowhere}}
  util.call @nowhere(%a) : (i32) -> ()
  util.return
}

// -----

util.global private @g : i32
util.func private @f(%a: i32) {
  // expected-error @+1 {{callee @g is not a util.func}}
  util.call @g(%a) : (i32) -> ()
  util.return
}

// -----

util.func private @f(%a: i32) {
  // expected-error @+1 {{tied result names '%b', which is not an operand of this op}}
  %0 = util.call @g(%a) : (i32) -> %b
  util.return
}

// -----

util.func private @f() {
  // expected-error @+1 {{value must be a dense elements, dense_resource or string attribute}}
  %0 = util.buffer.constant : !util.buffer = 1 : i32
  util.return
}

// -----

util.func private @f() {
  // expected-error @+1 {{value element type 'index' has no defined byte layout}}
  %0 = util.buffer.constant : !util.buffer = dense<1> : tensor<2xindex>
  util.return
}

// -----

// A store needs the global's type exactly (IREE too).
util.global private mutable @exact : tensor<?xf32>
util.func private @store(%t: tensor<4xf32>) {
  // expected-error @+1 {{value type 'tensor<4xf32>' does not match global type 'tensor<?xf32>'}}
  util.global.store %t, @exact : tensor<4xf32>
  util.return
}
