// Verifier and parser errors of the stream async ops, execution regions
// and stream.yield: one case per rule.
// RUN: fleet-stream-opt %s -split-input-file -verify-diagnostics

util.func private @f(%sz: index) {
  // expected-error @+1 {{result #0 must be stream resource (any lifetime except staging)}}
  %a = stream.async.alloca : !stream.resource<staging>{%sz}
  util.return
}

// -----

util.func private @f(%sz: index, %v: f32) {
  // expected-error @+1 {{operand #0 must be 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer}}
  %s = stream.async.splat %v : f32 -> !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index, %c0: index) {
  // expected-error @+1 {{failed to verify that all of {source, result} have same type}}
  %s = stream.async.slice %a[%c0 to %sz] : !stream.resource<*>{%sz} -> !stream.resource<transient>{%sz}
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index, %c0: index) {
  // The tie makes the result the target's type; only the generic form can differ.
  // expected-error @+1 {{failed to verify that all of {target, result} have same type}}
  %u = "stream.async.update"(%a, %sz, %c0, %sz, %a, %sz) : (!stream.resource<*>, index, index, index, !stream.resource<*>, index) -> !stream.resource<transient>
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // Every resource operand needs a range.
  // expected-error @+1 {{resource range offset count mismatch: expected 1, got 0}}
  stream.async.dispatch @ex::@e(%a) : (!stream.resource<*>{%sz}) -> ()
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%n: index, %c0: index) {
  // Primitive operands carry no range.
  // expected-error @+1 {{resource range offset count mismatch: expected 0, got 1}}
  stream.async.dispatch @ex::@e(%n[%c0 to %n for %n]) : (index) -> ()
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%a: !stream.resource<*>, %sz: index, %c0: index) {
  // expected-error @+1 {{resource operand size count mismatch: expected 1, got 0}}
  stream.async.dispatch @ex::@e(%a[%c0 to %sz for %sz]) : (!stream.resource<*>) -> ()
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e
  builtin.module {}
}
util.func private @f(%sz: index) {
  // expected-error @+1 {{result size count mismatch: expected 2, got 1}}
  %r:2 = stream.async.dispatch @ex::@e() : () -> (!stream.resource<*>{%sz}, !stream.resource<*>)
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e workgroups(%x: index) -> (index, index, index) {
    stream.return %x, %x, %x : index, index, index
  }
  builtin.module {}
}
util.func private @f() {
  // The workload feeds the export's workgroups region.
  // expected-error @+1 {{workload count mismatch: entry point @ex::@e expects 1, got 0}}
  stream.async.dispatch @ex::@e() : () -> ()
  util.return
}

// -----

stream.executable private @ex {
  stream.executable.export public @e workgroups(%x: i32) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {}
}
util.func private @f(%n: index) {
  // expected-error @+1 {{workload 0 has type 'index' but entry point @ex::@e expects 'i32'}}
  stream.async.dispatch @ex::@e[%n]() : () -> ()
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index, %c0: index) {
  // expected-error @+1 {{tied result names '%b', which is not an operand of this op}}
  %o = stream.async.dispatch @ex::@e(%a[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> %b{%sz}
  util.return
}

// -----

util.func private @f() {
  // expected-error @+1 {{calls undefined function @nowhere}}
  stream.async.call @nowhere() : () -> ()
  util.return
}

// -----

util.func private @g()
util.func private @f() {
  // expected-error @+1 {{callee @g is not a stream.async.func}}
  stream.async.call @g() : () -> ()
  util.return
}

// -----

stream.async.func private @ext(%arg0: !stream.resource<*>, %arg1: index) -> %arg0
util.func private @f(%a: !stream.resource<*>, %sz: index, %c0: index) {
  // expected-error @+1 {{passes 1 operands but callee @ext takes 2}}
  %o = stream.async.call @ext(%a[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> %a{%sz}
  util.return
}

// -----

stream.async.func private @ext(%arg0: !stream.resource<*>) -> %arg0
util.func private @f(%a: !stream.resource<*>, %sz: index, %c0: index) {
  // expected-error @+1 {{has 0 results but callee @ext returns 1}}
  stream.async.call @ext(%a[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> ()
  util.return
}

// -----

stream.async.func private @ext(%arg0: !stream.resource<external>) -> !stream.resource<*>
util.func private @f(%a: !stream.resource<transient>, %sz: index, %c0: index) {
  // Only a callee `!stream.resource<*>` accepts any lifetime.
  // expected-error @+1 {{operand 0 has type '!stream.resource<transient>' but callee @ext expects '!stream.resource<external>'}}
  %o = stream.async.call @ext(%a[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  util.return
}

// -----

stream.async.func private @ext(%arg0: index) -> !stream.resource<transient>
util.func private @f(%n: index, %sz: index) {
  // expected-error @+1 {{result 0 has type '!stream.resource<external>' but callee @ext returns '!stream.resource<transient>'}}
  %o = stream.async.call @ext(%n) : (index) -> !stream.resource<external>{%sz}
  util.return
}

// -----

stream.async.func private @ext(%arg0: index) -> index
util.func private @f(%n: index) {
  // Every result of a call is a resource.
  // expected-error @+1 {{result #0 must be variadic of any stream resource}}
  %o = stream.async.call @ext(%n) : (index) -> index
  util.return
}

// -----

// expected-error @+1 {{result 0 is tied to operand 3, which does not exist}}
"stream.async.func"() <{sym_name = "ext", function_type = (index) -> index, tied_operands = [3 : index]}> ({
}) : () -> ()

// -----

// expected-error @+1 {{is a declaration and must not have a body}}
"stream.async.func"() <{sym_name = "ext", function_type = () -> ()}> ({
  util.return
}) : () -> ()

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{'execution_affinity' failed to satisfy constraint: affinity attribute}}
  %t = stream.async.transfer on(#stream.timepoint<immediate>) %a : !stream.resource<*>{%sz} -> !stream.resource<*>{%sz}
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %b: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{body uses a resource that is not captured (operand 0 of 'stream.async.clone')}}
  %r, %tp = stream.async.execute with(%a as %ca: !stream.resource<*>{%sz}) -> !stream.resource<*>{%sz} {
    // expected-note @+1 {{used here}}
    %c = stream.async.clone %b : !stream.resource<*>{%sz} -> !stream.resource<*>{%sz}
    stream.yield %c : !stream.resource<*>{%sz}
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  %r, %tp = stream.async.execute with(%a as %ca: !stream.resource<*>{%sz}) -> !stream.resource<*>{%sz} {
    // expected-error @+1 {{yields 0 resources but the parent has 1 results}}
    stream.yield
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  %r, %tp = stream.async.execute with(%a as %ca: !stream.resource<*>{%sz}) -> !stream.resource<transient>{%sz} {
    // expected-error @+1 {{resource 0 has type '!stream.resource<*>' but the parent result has type '!stream.resource<transient>'}}
    stream.yield %ca : !stream.resource<*>{%sz}
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index, %other: index) {
  %r, %tp = stream.async.execute with(%a as %ca: !stream.resource<*>{%sz}) -> !stream.resource<*>{%sz} {
    // expected-error @+1 {{size 0 is not the parent's result size value for that result}}
    stream.yield %ca : !stream.resource<*>{%other}
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{result size count mismatch: expected 1, got 0}}
  %r, %tp = stream.async.execute with(%a as %ca: !stream.resource<*>{%sz}) -> (!stream.resource<*>) {
    stream.yield %ca : !stream.resource<*>{%sz}
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>) {
  // expected-error @+1 {{resource operand size count mismatch: expected 1, got 0}}
  %tp = stream.async.execute with(%a as %ca: !stream.resource<*>) {
    stream.yield
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // Captures and body arguments correspond one to one (generic form).
  // expected-error @+1 {{body has 0 arguments but 1 resources are captured}}
  %tp = "stream.async.execute"(%a, %sz) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> ({
    "stream.yield"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> ()
  }) : (!stream.resource<*>, index) -> !stream.timepoint
  util.return
}

// -----

util.func private @f() {
  // expected-error @+1 {{'stream.async.execute' op requires a body block}}
  %tp = stream.async.execute with() {
  } => !stream.timepoint
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{expects parent op to be one of 'stream.async.execute, stream.async.concurrent'}}
  stream.async.concurrent with() {
    stream.yield
  }
  util.return
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  // expected-error @+1 {{'stream.yield' op expects parent op to be one of}}
  stream.yield
}

// -----

util.func private @f(%a: !stream.resource<*>, %sz: index) {
  %tp = stream.async.execute with(%a as %ca: !stream.resource<*>{%sz}) {
    // expected-error @+1 {{resource size count mismatch: expected 1, got 0}}
    stream.yield %ca : !stream.resource<*>
  } => !stream.timepoint
  util.return
}
