// Verifier and parser errors of the explicit command ops: one case per rule.
// RUN: fleet-stream-opt %s -split-input-file -verify-diagnostics

util.func private @f(%r: !stream.resource<transient>, %sz: index) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // Only streamable (command) ops and the yield may appear in the body.
    // expected-error @+1 {{'arith.constant' op is not allowed in 'stream.cmd.execute'}}
    %c0 = arith.constant 0 : index
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%r: !stream.resource<transient>, %s: !stream.resource<transient>, %sz: index, %c0: index) {
  // expected-error @+1 {{body uses a resource that is not captured (operand 0 of 'stream.cmd.discard')}}
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // expected-note @+1 {{used here}}
    stream.cmd.discard %s[%c0 for %sz] : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%r: !stream.resource<transient>) {
  // expected-error @+1 {{resource operand size count mismatch: expected 1, got 0}}
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>) {
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f() {
  // expected-error @+1 {{expects parent op to be one of 'stream.cmd.execute, stream.cmd.serial, stream.cmd.concurrent'}}
  stream.cmd.serial {
  }
  util.return
}

// -----

util.func private @f() {
  // expected-error @+1 {{expects parent op to be one of 'stream.cmd.execute, stream.cmd.serial, stream.cmd.concurrent'}}
  stream.cmd.concurrent {
  }
  util.return
}

// -----

util.func private @f() {
  %tp = stream.cmd.execute with() {
    stream.cmd.concurrent {
      // expected-error @+1 {{'stream.timepoint.immediate' op is not allowed in 'stream.cmd.concurrent'}}
      %t = stream.timepoint.immediate => !stream.timepoint
    }
  } => !stream.timepoint
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {
    func.func @e(%a: !stream.binding, %b: !stream.binding) {
      return
    }
  }
}
util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // expected-error @+1 {{entry point function @e takes 2 !stream.binding arguments but the dispatch binds 1 resources}}
    stream.cmd.dispatch @ex::@e {
      rw %cr[%c0 for %sz] : !stream.resource<transient>{%sz}
    }
  } => !stream.timepoint
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {
    func.func @e(%a: !stream.binding, %n: index) {
      return
    }
  }
}
util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // expected-error @+1 {{entry point function @e takes 1 non-binding arguments but the dispatch passes 0 uniforms}}
    stream.cmd.dispatch @ex::@e {
      rw %cr[%c0 for %sz] : !stream.resource<transient>{%sz}
    }
  } => !stream.timepoint
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {
    func.func @e(%a: !stream.binding, %n: index) {
      return
    }
  }
}
util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index, %k: i32) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // expected-error @+1 {{uniform 0 has type 'i32' but entry point function @e expects 'index'}}
    stream.cmd.dispatch @ex::@e(%k : i32) {
      rw %cr[%c0 for %sz] : !stream.resource<transient>{%sz}
    }
  } => !stream.timepoint
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
  %tp = stream.cmd.execute with() {
    // expected-error @+1 {{workload count mismatch: entry point @ex::@e expects 2, got 1}}
    stream.cmd.dispatch @ex::@e[%n] {
    }
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%st: !stream.resource<staging>, %sz: index, %c0: index) {
  %tp = stream.cmd.execute with(%st as %cs: !stream.resource<staging>{%sz}) {
    // expected-error @+1 {{must be variadic of stream resource (any lifetime except staging)}}
    stream.cmd.dispatch @ex::@e {
      ro %cs[%c0 for %sz] : !stream.resource<staging>{%sz}
    }
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    stream.cmd.dispatch @ex::@e {
      // expected-error @+1 {{expected resource access ro, wo or rw, got 'rx'}}
      rx %cr[%c0 for %sz] : !stream.resource<transient>{%sz}
    }
  } => !stream.timepoint
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // expected-error @+1 {{resource size count mismatch: expected 1, got 0}}
    stream.cmd.dispatch @ex::@e {
      rw %cr[%c0 for %sz] : !stream.resource<transient>
    }
  } => !stream.timepoint
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  // Ranges and accesses: one of each per resource (generic form).
  // expected-error @+1 {{resource range length count mismatch: expected 1, got 0}}
  "stream.cmd.dispatch"(%r, %sz, %c0) <{entry_points = [@ex::@e], operandSegmentSizes = array<i32: 0, 0, 1, 1, 1, 0>, resource_accesses = [#stream.resource_access<Read>]}> : (!stream.resource<transient>, index, index) -> ()
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  // expected-error @+1 {{resource access count mismatch: expected 1, got 0}}
  "stream.cmd.dispatch"(%r, %sz, %c0, %sz) <{entry_points = [@ex::@e], operandSegmentSizes = array<i32: 0, 0, 1, 1, 1, 1>, resource_accesses = []}> : (!stream.resource<transient>, index, index, index) -> ()
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  // expected-error @+1 {{resource access 0 must be ro, wo or rw}}
  "stream.cmd.dispatch"(%r, %sz, %c0, %sz) <{entry_points = [@ex::@e], operandSegmentSizes = array<i32: 0, 0, 1, 1, 1, 1>, resource_accesses = [#stream.resource_access<None>]}> : (!stream.resource<transient>, index, index, index) -> ()
  util.return
}

// -----

// expected-error @+1 {{resource argument 0 must be followed by index offset and length arguments}}
stream.cmd.func private @ext(%r: !stream.resource<*>, %k: i32)

// -----

// expected-error @+1 {{only resource arguments take a [offset for length] range}}
stream.cmd.func private @ext(%k[%o for %l]: i32)

// -----

// expected-error @+1 {{is a declaration and must not have a body}}
"stream.cmd.func"() <{sym_name = "ext", function_type = () -> ()}> ({
  util.return
}) : () -> ()

// -----

util.func private @f() {
  %tp = stream.cmd.execute with() {
    // expected-error @+1 {{calls undefined function @nowhere}}
    stream.cmd.call @nowhere() : () -> ()
  } => !stream.timepoint
  util.return
}

// -----

stream.async.func private @ext()
util.func private @f() {
  %tp = stream.cmd.execute with() {
    // expected-error @+1 {{callee @ext is not a stream.cmd.func}}
    stream.cmd.call @ext() : () -> ()
  } => !stream.timepoint
  util.return
}

// -----

stream.cmd.func private @ext(%arg0[%arg1 for %arg2]: !stream.resource<*>)
util.func private @f(%r: !stream.resource<transient>, %sz: index) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // Each resource operand needs an access and a range.
    // expected-error @+1 {{resource range offset count mismatch: expected 1, got 0}}
    stream.cmd.call @ext(%cr) : (!stream.resource<transient>{%sz}) -> ()
  } => !stream.timepoint
  util.return
}

// -----

stream.cmd.func private @ext() -> !stream.resource<*>
util.func private @f(%sz: index) {
  %tp = stream.cmd.execute with() {
    // Results of cmd.call are primitives.
    // expected-error @+1 {{result #0 must be variadic of index or integer or floating-point or complex-type}}
    %x = stream.cmd.call @ext() : () -> !stream.resource<*>{%sz}
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index, %p: i64) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // cmd.fill has no i64 patterns.
    // expected-error @+1 {{operand #4 must be 8-bit signless integer or 16-bit signless integer or 32-bit signless integer}}
    stream.cmd.fill %p, %cr[%c0 for %sz] : i64 -> !stream.resource<transient>{%sz}
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%st: !stream.resource<staging>, %sz: index, %c0: index, %p: i32) {
  %tp = stream.cmd.execute with(%st as %cs: !stream.resource<staging>{%sz}) {
    // expected-error @+1 {{operand #0 must be stream resource (any lifetime except staging)}}
    stream.cmd.fill %p, %cs[%c0 for %sz] : i32 -> !stream.resource<staging>{%sz}
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // expected-error @+1 {{'source_affinity' failed to satisfy constraint: affinity attribute}}
    stream.cmd.flush to(unit) %cr[%c0 for %sz] : !stream.resource<transient>{%sz}
  } => !stream.timepoint
  util.return
}

// -----

stream.cmd.func private @ext(%arg0[%arg1 for %arg2]: !stream.resource<*>) -> i32
util.func private @f(%r: !stream.resource<transient>, %sz: index, %c0: index) {
  %tp = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%sz}) {
    // expected-error @+1 {{results are primitives and cannot be tied to operands}}
    %x = stream.cmd.call @ext(rw %cr[%c0 for %sz]) : (!stream.resource<transient>{%sz}) -> %cr as i32
  } => !stream.timepoint
  util.return
}
