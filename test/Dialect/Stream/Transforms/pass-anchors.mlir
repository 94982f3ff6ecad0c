// stream-schedule-execution and stream-schedule-concurrency are anchored on
// callables, as IREE declares them (docs/contributing.md "Pass anchors"):
// nested under util.func they process only the functions; on a module they
// process every host callable, as before.

// RUN: fleet-stream-opt %s --pass-pipeline="builtin.module(util.func(stream-schedule-execution))" | FileCheck %s --check-prefix=FUNC
// RUN: fleet-stream-opt %s --pass-pipeline="builtin.module(util.initializer(stream-schedule-execution))" | FileCheck %s --check-prefix=INIT
// RUN: fleet-stream-opt %s --stream-schedule-execution | FileCheck %s --check-prefix=MODULE
// RUN: fleet-stream-opt %s --pass-pipeline="builtin.module(util.func(stream-schedule-execution, stream-schedule-concurrency))" | FileCheck %s --check-prefix=CONC
// A pass IREE anchors on modules still needs the module.
// RUN: not fleet-stream-opt %s --pass-pipeline="builtin.module(util.func(stream-refine-usage))" 2>&1 | FileCheck %s --check-prefix=NEST
// NEST: restricted to 'builtin.module' on a PassManager intended to run on 'util.func'

stream.executable private @ex {
  stream.executable.export public @f workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @f(%arg0: !stream.binding) {
      return
    }
  }
}

util.global private mutable @g : !stream.resource<transient>

// FUNC: util.initializer
// FUNC-NOT: stream.async.execute
// FUNC: util.func public @two
// FUNC: stream.async.execute on(#stream.test.affinity<"a">)
// INIT: util.initializer
// INIT: stream.async.execute on(#stream.test.affinity<"a">)
// INIT: util.func public @two
// INIT-NOT: stream.async.execute
// MODULE: util.initializer
// MODULE: stream.async.execute
// MODULE: util.func public @two
// MODULE: stream.async.execute
// CONC: util.func public @two
// CONC: stream.async.execute
// CONC: stream.async.concurrent
util.initializer {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0 : i32
  %0 = stream.async.splat on(#stream.test.affinity<"a">) %zero : i32 -> !stream.resource<transient>{%c16}
  %1 = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%0[%c0 to %c16 for %c16]) : (!stream.resource<transient>{%c16}) -> !stream.resource<transient>{%c16}
  util.global.store %1, @g : !stream.resource<transient>
  util.return
}

util.func public @two(%x: !stream.resource<transient>, %sz: index) -> (!stream.resource<transient>, !stream.resource<transient>) {
  %c0 = arith.constant 0 : index
  %a = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  %b = stream.async.dispatch on(#stream.test.affinity<"a">) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
  util.return %a, %b : !stream.resource<transient>, !stream.resource<transient>
}
