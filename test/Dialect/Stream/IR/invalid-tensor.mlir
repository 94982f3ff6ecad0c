// Verifier and parser errors of the stream tensor ops: one case per rule.
// RUN: fleet-stream-opt %s -split-input-file -verify-diagnostics

util.func private @f(%v: !util.buffer, %sz: index) {
  // expected-error @+1 {{result_encoding dimension count mismatch: expected 1, got 0}}
  %r = stream.tensor.import %v : !util.buffer -> tensor<?x16xf32> in !stream.resource<external>{%sz}
  util.return
}

// -----

util.func private @f(%v: !util.buffer, %sz: index) {
  // expected-error @+1 {{result_encoding must be a ranked tensor type, got '!util.buffer'}}
  %r = stream.tensor.import %v : !util.buffer -> !util.buffer in !stream.resource<external>{%sz}
  util.return
}

// -----

util.func private @f(%v: !util.buffer, %sz: index) {
  // expected-error @+1 {{'affinity' failed to satisfy constraint: affinity attribute}}
  %r = stream.tensor.import on(@gpu0) %v : !util.buffer -> tensor<4xf32> in !stream.resource<external>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<external>, %n: index, %sz: index) {
  // expected-error @+1 {{source_encoding dimension count mismatch: expected 0, got 1}}
  %v = stream.tensor.export %r : tensor<4xf32>{%n} in !stream.resource<external>{%sz} -> !util.buffer
  util.return
}

// -----

util.func private @f(%n: index) {
  // expected-error @+1 {{encoding dimension count mismatch: expected 2, got 1}}
  %sz = stream.tensor.sizeof tensor<?x?xf32>{%n} : index
  util.return
}

// -----

util.func private @f(%sz: index) {
  // expected-error @+1 {{result_encoding dimension count mismatch: expected 1, got 0}}
  %e = stream.tensor.empty : tensor<?xf32> in !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%n: index) {
  // expected-error @+1 {{result_encoding dimension count mismatch: expected 0, got 1}}
  %k = stream.tensor.constant : tensor<2xi32>{%n} in !stream.resource<constant> = dense<[1, 2]> : tensor<2xi32>
  util.return
}

// -----

util.func private @f(%v: vector<4xf32>, %sz: index) {
  // expected-error @+1 {{operand #0 must be index or integer or floating-point or complex-type}}
  %s = stream.tensor.splat %v : vector<4xf32> -> tensor<4xf32> in !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{have different encoding attributes}}
  %c = stream.tensor.clone %r : tensor<4xf32, "a"> in !stream.resource<*>{%sz} -> tensor<4xf32> in !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<staging>, %sz: index) {
  // expected-error @+1 {{operand #0 must be stream resource (any lifetime except staging)}}
  %c = stream.tensor.clone %r : tensor<4xf32> in !stream.resource<staging>{%sz} -> tensor<4xf32> in !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<*>, %sz: index, %c0: index) {
  // expected-error @+1 {{start index count mismatch: expected 2, got 1}}
  %s = stream.tensor.slice %r[%c0 for %c0] : tensor<4x4xf32> in !stream.resource<*>{%sz} -> tensor<1x4xf32> in !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<*>, %sz: index, %c0: index) {
  // expected-error @+1 {{length count mismatch: expected 2, got 1}}
  %s = stream.tensor.slice %r[%c0, %c0 for %c0] : tensor<4x4xf32> in !stream.resource<*>{%sz} -> tensor<1x4xf32> in !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<*>, %sz: index, %c0: index, %v: f32) {
  // expected-error @+1 {{start index count mismatch: expected 2, got 1}}
  %f = stream.tensor.fill %v, %r[%c0 for %c0, %c0] : f32 -> tensor<4x4xf32> in %r as !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<*>, %sz: index, %c0: index) {
  // expected-error @+1 {{start index count mismatch: expected 2, got 1}}
  %u = stream.tensor.update %r, %r[%c0] : tensor<1x4xf32> in !stream.resource<*>{%sz} -> tensor<4x4xf32> in %r as !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%st: !stream.resource<staging>, %sz: index, %i: index) {
  // expected-error @+1 {{index count mismatch: expected 2, got 1}}
  %x = stream.tensor.load %st[%i] : tensor<4x4xf32> in !stream.resource<staging>{%sz} -> f32
  util.return
}

// -----

util.func private @f(%r: !stream.resource<transient>, %sz: index) {
  // expected-error @+1 {{operand #0 must be staging resource}}
  %x = stream.tensor.load %r : tensor<f32> in !stream.resource<transient>{%sz} -> f32
  util.return
}

// -----

util.func private @f(%st: !stream.resource<staging>, %sz: index, %x: f32) {
  // expected-error @+1 {{index count mismatch: expected 1, got 0}}
  %s = stream.tensor.store %x, %st : f32 -> tensor<4xf32> in %st as !stream.resource<staging>{%sz}
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{result 0 is tied to operand 0 but its encoding 'tensor<8xf32>' differs from the operand's 'tensor<4xf32>'}}
  %o = stream.tensor.dispatch @ex::@e(%a) : (tensor<4xf32> in !stream.resource<*>{%sz}) -> tensor<8xf32> in %a{%sz}
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{operand encoding dimension count mismatch: expected 1, got 0}}
  stream.tensor.dispatch @ex::@e(%a) : (tensor<?xf32> in !stream.resource<*>{%sz}) -> ()
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{operand size count mismatch: expected 1, got 0}}
  stream.tensor.dispatch @ex::@e(%a) : (tensor<4xf32> in !stream.resource<*>) -> ()
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{result size count mismatch: expected 1, got 0}}
  %o = stream.tensor.dispatch @ex::@e(%a) : (tensor<4xf32> in !stream.resource<*>{%sz}) -> tensor<4xf32> in !stream.resource<*>
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e workgroups(%x: index, %y: index) -> (index, index, index) {
    stream.return %x, %y, %y : index, index, index
  }
  builtin.module {}
}
util.func private @f(%n: index) {
  // expected-error @+1 {{workload count mismatch: entry point @ex::@e expects 2, got 1}}
  stream.tensor.dispatch @ex::@e[%n]() : () -> ()
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{tied result names '%b', which is not an operand of this op}}
  %o = stream.tensor.dispatch @ex::@e(%a) : (tensor<4xf32> in !stream.resource<*>{%sz}) -> tensor<4xf32> in %b{%sz}
  util.return
}

// -----

util.func private @f(%k: i32, %n: index) {
  // expected-error @+1 {{expected 'in' and a resource type after an encoding with dims}}
  stream.tensor.dispatch @ex::@e(%k) : (tensor<?xf32>{%n}) -> ()
  util.return
}
