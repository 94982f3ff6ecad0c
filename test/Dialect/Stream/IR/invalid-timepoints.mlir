// Verifier and parser errors of the stream timepoint ops: one case per rule.
// RUN: fleet-stream-opt %s -split-input-file -verify-diagnostics

util.func private @f(%tp: !stream.timepoint) {
  // The text form needs at least one resource.
  // expected-error @+1 {{expected non-function type}}
  stream.timepoint.await %tp => : 
  util.return
}

// -----

util.func private @f(%tp: !stream.timepoint, %a: !stream.resource<external>) {
  // expected-error @+1 {{resource size count mismatch: expected 1, got 0}}
  %r = stream.timepoint.await %tp => %a : !stream.resource<external>
  util.return
}

// -----

util.func private @f(%tp: !stream.timepoint, %a: !stream.resource<external>, %sz: index) {
  // Results alias the operands: same count and types (generic form).
  // expected-error @+1 {{result 0 has type '!stream.resource<transient>' but its operand has type '!stream.resource<external>'}}
  %r = "stream.timepoint.await"(%a, %sz, %tp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<external>, index, !stream.timepoint) -> !stream.resource<transient>
  util.return
}

// -----

util.func private @f(%tp: !stream.timepoint, %a: !stream.resource<external>, %sz: index) {
  // expected-error @+1 {{has 0 results for 1 resource operands}}
  "stream.timepoint.await"(%a, %sz, %tp) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!stream.resource<external>, index, !stream.timepoint) -> ()
  util.return
}

// -----

util.func private @f(%x: index) {
  // expected-error @+1 {{operand #0 must be variadic of !stream.timepoint}}
  %j = "stream.timepoint.join"(%x) : (index) -> !stream.timepoint
  util.return
}

// -----

util.func private @f(%a: !stream.resource<external>, %sz: index) {
  // expected-error @+1 {{'affinity' failed to satisfy constraint: affinity attribute}}
  %r, %t = stream.timepoint.barrier on(#stream.timepoint<immediate>) %a : !stream.resource<external>{%sz} => !stream.timepoint
  util.return
}

// -----

util.func private @f(%f: !stream.test.fence) {
  // expected-error @+1 {{invalid kind of type specified: expected stream.timepoint, but found 'index'}}
  %t = stream.timepoint.import %f : (!stream.test.fence) => index
  util.return
}

// -----

util.func private @f(%t: index, %f: !stream.test.fence) {
  // expected-error @+1 {{operand #0 must be !stream.timepoint}}
  "stream.timepoint.chain_external"(%t, %f) : (index, !stream.test.fence) -> ()
  util.return
}
