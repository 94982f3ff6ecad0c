// Dispatches whose entry point does not resolve — the executable is not in
// the module, or it is but lacks the export — parse, verify and print as
// written (IREE checks an entry point only when it resolves;
// docs/ir-reference.md "Unresolved dispatches").

// RUN: fleet-stream-opt %s | FileCheck %s
// RUN: fleet-stream-opt %s | fleet-opt | FileCheck %s

stream.executable private @ex {
  stream.executable.export public @present workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func @present(%b: !stream.binding) {
      return
    }
  }
}

// CHECK-LABEL: util.func private @async
util.func private @async(%r: !stream.resource<*>, %sz: index) -> (!stream.resource<*>, !stream.resource<*>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // CHECK: stream.async.dispatch @absent::@fn[%{{.*}}, %{{.*}}](
  %0 = stream.async.dispatch @absent::@fn[%c4, %c4](%r[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> !stream.resource<*>{%sz}
  // CHECK: stream.async.dispatch @ex::@missing(
  %1 = stream.async.dispatch @ex::@missing(%r[%c0 to %sz for %sz]) : (!stream.resource<*>{%sz}) -> !stream.resource<*>{%sz}
  util.return %0, %1 : !stream.resource<*>, !stream.resource<*>
}

// CHECK-LABEL: util.func private @tensor
util.func private @tensor(%t: !stream.resource<*>, %sz: index) -> !stream.resource<*> {
  // CHECK: stream.tensor.dispatch @absent::@fn(
  %0 = stream.tensor.dispatch @absent::@fn(%t) : (tensor<4xf32> in !stream.resource<*>{%sz}) -> tensor<4xf32> in !stream.resource<*>{%sz}
  util.return %0 : !stream.resource<*>
}

// CHECK-LABEL: util.func private @cmd
util.func private @cmd(%r: !stream.resource<transient>, %sz: index) -> !stream.timepoint {
  %c0 = arith.constant 0 : index
  // CHECK: stream.cmd.dispatch @absent::@fn
  // CHECK: stream.cmd.dispatch @ex::@missing
  %0 = stream.cmd.execute with(%r as %capture: !stream.resource<transient>{%sz}) {
    stream.cmd.dispatch @absent::@fn {
      rw %capture[%c0 for %sz] : !stream.resource<transient>{%sz}
    }
    stream.cmd.dispatch @ex::@missing {
      ro %capture[%c0 for %sz] : !stream.resource<transient>{%sz}
    }
  } => !stream.timepoint
  util.return %0 : !stream.timepoint
}

// CHECK-LABEL: util.func private @flow
util.func private @flow(%t: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: flow.dispatch @absent::@fn(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = flow.dispatch @absent::@fn(%t) : (tensor<4xf32>) -> tensor<4xf32>
  util.return %0 : tensor<4xf32>
}
