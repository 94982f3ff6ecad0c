// Verifier and parser errors of the stream resource ops: one case per rule.
// RUN: fleet-stream-opt %s -split-input-file -verify-diagnostics

util.func private @f(%sz: index) {
  // The word `uninitialized` is required on resource.alloca.
  // expected-error @+1 {{expected 'uninitialized'}}
  %r, %t = stream.resource.alloca on(#stream.test.affinity<"d">) : !stream.resource<transient>{%sz} => !stream.timepoint
  util.return
}

// -----

util.func private @f(%sz: index) {
  // expected-error @+1 {{'affinity' failed to satisfy constraint: affinity attribute}}
  %r = stream.resource.alloc on("gpu0") : !stream.resource<external>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<transient>, %sz: index, %off: index) {
  // A subview has the source's type.
  // expected-error @+1 {{failed to verify that all of {source, result} have same type}}
  %v = stream.resource.subview %r[%off] : !stream.resource<transient>{%sz} -> !stream.resource<external>{%sz}
  util.return
}

// -----

util.func private @f(%r: !stream.resource<transient>, %sz: index, %off: index) {
  // expected-error @+1 {{operand #0 must be staging resource}}
  %x = stream.resource.load %r[%off] : !stream.resource<transient>{%sz} -> i32
  util.return
}

// -----

util.func private @f(%st: !stream.resource<staging>, %sz: index, %off: index) {
  // expected-error @+1 {{result #0 must be index or integer or floating-point or complex-type or vector of any type values}}
  %x = stream.resource.load %st[%off] : !stream.resource<staging>{%sz} -> !util.buffer
  util.return
}

// -----

util.func private @f(%r: !stream.resource<external>, %sz: index, %off: index, %x: i32) {
  // expected-error @+1 {{operand #0 must be staging resource}}
  stream.resource.store %x, %r[%off] : i32 -> !stream.resource<external>{%sz}
  util.return
}

// -----

util.func private @f(%hb: !util.buffer, %sz: index, %off: index) {
  // expected-error @+1 {{result #1 must be stream resource (any lifetime except staging)}}
  %ok, %r = stream.resource.try_map %hb[%off] : !util.buffer -> i1, !stream.resource<staging>{%sz}
  util.return
}

// -----

util.func private @f(%s0: index) {
  // Two lifetime bounds per slice (generic form).
  // expected-error @+1 {{has 3 lifetime bounds for 1 slices (expected two per slice)}}
  %t, %o = "stream.resource.pack"(%s0) <{lifetime_intervals = [0, 1, 2], operandSegmentSizes = array<i32: 0, 1>}> : (index) -> (index, index)
  util.return
}

// -----

util.func private @f(%s0: index) {
  // One offset result per slice (generic form).
  // expected-error @+1 {{packed offset count mismatch: expected 1, got 2}}
  %t, %o:2 = "stream.resource.pack"(%s0) <{lifetime_intervals = [0, 1], operandSegmentSizes = array<i32: 0, 1>}> : (index) -> (index, index, index)
  util.return
}

// -----

util.func private @f(%s0: index) {
  // Slice bounds are integer literals.
  // expected-error @+1 {{expected integer value}}
  %t, %o = stream.resource.pack slices({[%s0, 1] = %s0}) : index
  util.return
}
