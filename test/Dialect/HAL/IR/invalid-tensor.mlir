// Verifier and parse errors of the buffer view, element/encoding type and
// tensor boundary ops, one case per rule.
// RUN: fleet-opt %s -split-input-file -verify-diagnostics

util.func public @element_type_index() {
  // expected-error @+1 {{type 'index' has no runtime element-type code}}
  %et = hal.element_type<index> : i32
  util.return
}

// -----

util.func public @element_type_too_wide() {
  // The bit count is one byte of the code.
  // expected-error @+1 {{type 'i256' has no runtime element-type code}}
  %et = hal.element_type<i256> : i32
  util.return
}

// -----

util.func public @element_type_complex_int() {
  // expected-error @+1 {{type 'complex<i32>' has no runtime element-type code}}
  %et = hal.element_type<complex<i32>> : i32
  util.return
}

// -----

util.func public @encoding_type_attribute() {
  // expected-error @+1 {{encoding "tiled" has no runtime code; only dense row-major contents}}
  %enc = hal.encoding_type<"tiled"> : i32
  util.return
}

// -----

util.func public @import_missing_dims(%bv: !hal.buffer_view) {
  // expected-error @+1 {{dynamic dimension count mismatch: expected 1, got 0}}
  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x16xf32>
  util.return
}

// -----

util.func public @import_encoding_dims(%bv: !hal.buffer_view, %n: index) {
  // expected-error @+1 {{encoding 'tensor<4xf32>' has 0 dynamic dims but 'tensor<?xf32>' has 1}}
  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32> as tensor<?xf32>{%n}
  util.return
}

// -----

util.func public @import_bad_brace(%bv: !hal.buffer_view) {
  // After the type, `{` starts the dims or the attribute dictionary.
  // expected-error @+1 {{expected a value (dynamic dimension) or an attribute name after '{'}}
  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<4xf32> {1}
  util.return
}

// -----

util.func public @import_source_type(%f: !hal.fence) {
  // expected-error @+1 {{operand #0 must be Device-visible buffer or Buffer with shape, element type and encoding, but got '!hal.fence'}}
  %t = hal.tensor.import %f : !hal.fence -> tensor<4xf32>
  util.return
}

// -----

util.func public @export_extra_dims(%t: tensor<4xf32>, %n: index) {
  // expected-error @+1 {{dynamic dimension count mismatch: expected 0, got 1}}
  %bv = hal.tensor.export %t : tensor<4xf32>{%n} -> !hal.buffer_view
  util.return
}

// -----

util.func public @export_encoding_dims(%t: tensor<?xf32>, %n: index) {
  // expected-error @+1 {{encoding 'tensor<?x?xf32>' has 2 dynamic dims but 'tensor<?xf32>' has 1}}
  %bv = hal.tensor.export %t : tensor<?x?xf32> as tensor<?xf32>{%n} -> !hal.buffer_view
  util.return
}

// -----

util.func public @alias_dims(%t: tensor<?x?xf32>, %n: index, %b: !hal.buffer) {
  // expected-error @+1 {{dynamic dimension count mismatch: expected 2, got 1}}
  %t2 = hal.tensor.alias %t : tensor<?x?xf32>{%n} to %b : !hal.buffer
  util.return
}

// -----

util.func public @barrier_result_types(%a: tensor<4xf32>, %f: !hal.fence) {
  // Results are the operands: same types.
  // expected-error @+1 {{all of {sources, results} have same type}}
  %r = "hal.tensor.barrier"(%a, %f) : (tensor<4xf32>, !hal.fence) -> tensor<8xf32>
  util.return
}
