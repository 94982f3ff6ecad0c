// Every stream pass accepts dispatches whose export is not in the module
// (docs/ir-reference.md "Unresolved dispatches") and assumes they read and
// write every resource operand: schedule-allocation binds them read-write,
// schedule-concurrency keeps them out of concurrent regions.

// RUN: fleet-stream-opt --stream-annotate-affinities %s | FileCheck %s --check-prefix=KEEP
// RUN: fleet-stream-opt --stream-refine-usage %s | FileCheck %s --check-prefix=KEEP
// RUN: fleet-stream-opt --stream-elide-async-copies %s | FileCheck %s --check-prefix=KEEP
// RUN: fleet-stream-opt --stream-place-transfer-executions %s | FileCheck %s --check-prefix=KEEP
// RUN: fleet-stream-opt --stream-schedule-execution %s | FileCheck %s --check-prefix=KEEP
// RUN: fleet-stream-opt --stream-propagate-timepoints %s | FileCheck %s --check-prefix=KEEP
// RUN: fleet-stream-opt --stream-elide-timepoints %s | FileCheck %s --check-prefix=KEEP
// KEEP: stream.async.dispatch @absent::@fn
// KEEP: stream.async.dispatch @ex::@missing
// KEEP: stream.async.dispatch @ex::@present

// RUN: fleet-stream-opt --stream-refine-usage --stream-schedule-execution --stream-schedule-concurrency %s | FileCheck %s --check-prefix=CONC
// The resolved dispatch and the copy run concurrently; the unresolved one,
// which may write %r, runs alone.
// CONC: stream.async.execute
// CONC: stream.async.dispatch @absent::@fn
// CONC-NOT: stream.async.concurrent
// CONC: stream.async.dispatch @ex::@missing
// CONC: stream.async.concurrent
// CONC-DAG: stream.async.dispatch @ex::@present
// CONC-DAG: stream.async.clone

// RUN: fleet-stream-opt --stream-refine-usage --stream-schedule-execution --stream-schedule-concurrency --stream-schedule-allocation %s | FileCheck %s --check-prefix=ALLOC
// ALLOC: stream.cmd.dispatch @absent::@fn {
// ALLOC-NEXT: rw
// ALLOC: stream.cmd.dispatch @ex::@missing {
// ALLOC-NEXT: rw
// ALLOC: stream.cmd.dispatch @ex::@present {
// ALLOC-NEXT: ro

stream.executable private @ex {
  stream.executable.export public @present workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @present(%a: !stream.binding, %b: !stream.binding) {
      return
    }
  }
}

util.func private @f(%r: !stream.resource<*>, %sz: index) -> (!stream.resource<*>, !stream.resource<*>, !stream.resource<*>, !stream.resource<*>) {
  %c0 = arith.constant 0 : index
  %0 = stream.async.dispatch @absent::@fn(%r[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> !stream.resource<*>{%sz}
  %1 = stream.async.dispatch @ex::@missing(%0[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> !stream.resource<*>{%sz}
  %2 = stream.async.dispatch @ex::@present(%1[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> !stream.resource<*>{%sz}
  %3 = stream.async.clone %1 : !stream.resource<*>{%sz} -> !stream.resource<*>{%sz}
  util.return %0, %1, %2, %3 : !stream.resource<*>, !stream.resource<*>, !stream.resource<*>, !stream.resource<*>
}
