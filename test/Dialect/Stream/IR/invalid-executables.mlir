// Verifier and parser errors of executables, the dispatch-side ops and the
// test ops: one case per rule.
// RUN: fleet-stream-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expects parent op 'stream.executable'}}
stream.executable.export public @e

// -----

stream.executable private @ex {
  // expected-error @+1 {{workgroups region must declare exactly three index results}}
  stream.executable.export public @e workgroups(%x: index) -> (index, index) {
    stream.return %x, %x : index, index
  }
}

// -----

stream.executable private @ex {
  stream.executable.export public @e workgroups(%x: index) -> (index, index, index) {
    // expected-error @+1 {{must return three index values (the workgroup count), got 2 values}}
    stream.return %x, %x : index, index
  }
}

// -----

stream.executable private @ex {
  stream.executable.export public @e workgroups(%x: i32) -> (index, index, index) {
    // expected-error @+1 {{must return three index values (the workgroup count), got 3 values}}
    stream.return %x, %x, %x : i32, i32, i32
  }
}

// -----

util.func private @f(%x: index) {
  // expected-error @+1 {{expects parent op 'stream.executable.export'}}
  stream.return %x, %x, %x : index, index, index
}

// -----

stream.executable private @ex {
  // expected-error @+1 {{expected '('}}
  stream.executable.export public @e as "name"
}

// -----

// expected-error @+1 {{holds more than one inner builtin.module}}
stream.executable private @ex {
  builtin.module {}
  builtin.module {}
}

// -----

util.func private @f(%b: !stream.binding, %c0: index) {
  // expected-error @+1 {{dynamic dimension count mismatch: expected 2, got 1}}
  %v = stream.binding.subspan %b[%c0] : !stream.binding -> memref<?x?xf32>{%c0}
  util.return
}

// -----

util.func private @f(%b: !stream.binding, %c0: index) {
  // A non-shaped view has no dims.
  // expected-error @+1 {{dynamic dimension count mismatch: expected 0, got 1}}
  %v = stream.binding.subspan %b[%c0] : !stream.binding -> !util.buffer{%c0}
  util.return
}

// -----

stream.executable private @ex {
  builtin.module {
    func.func @e() {
      // expected-error @+1 {{dimension 3 is out of range [0, 2]}}
      %id = stream.dispatch.workgroup.id[3] : index
      return
    }
  }
}

// -----

util.func private @f() {
  // expected-error @+1 {{is only valid inside a function of a stream.executable's inner module}}
  %n = stream.dispatch.workgroup.count[0] : index
  util.return
}

// -----

builtin.module {
  func.func @e() {
    // expected-error @+1 {{is only valid inside a function of a stream.executable's inner module}}
    %n = stream.dispatch.workgroup.size[1] : index
    return
  }
}

// -----

util.func private @f(%a: !stream.timepoint, %b: !stream.timepoint, %c: !stream.timepoint) {
  // expected-error @+1 {{awaits 3 timepoints but await_limit is 2}}
  %t = stream.test.timeline_op await_limit(2) await(%a, %b, %c) => with() : () -> () => !stream.timepoint
  util.return
}

// -----

util.func private @f(%x: !stream.resource<*>) {
  // expected-error @+1 {{resource operand size count mismatch: expected 1, got 0}}
  %t = stream.test.timeline_op with(%x) : (!stream.resource<*>) -> () => !stream.timepoint
  util.return
}

// -----

util.func private @f(%w: !util.buffer, %s: !stream.test.fence) {
  // expected-error @+1 {{must be variadic of !stream.test.fence}}
  "stream.test.timeline_aware"(%w, %s) <{operandSegmentSizes = array<i32: 0, 1, 1>}> : (!util.buffer, !stream.test.fence) -> ()
  util.return
}

// -----

util.func private @f() {
  // expected-error @+1 {{'affinity' failed to satisfy constraint: affinity attribute}}
  %d = stream.context.resolve on(#stream.timepoint<immediate>) : !util.buffer
  util.return
}

// -----

util.func private @f(%x: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{result 0 is tied to operand 0 but is not a resource}}
  %r, %t = stream.test.timeline_op with(%x) : (!stream.resource<*>{%sz}) -> %x as i32 => !stream.timepoint
  util.return
}

// -----

util.func private @f(%n: index) {
  // expected-error @+1 {{result 0 is tied to operand 0, which is not a resource}}
  %r, %t = stream.test.timeline_op with(%n) : (index) -> %n => !stream.timepoint
  util.return
}
