// flow.dispatch to an executable that is not in the module, or to an
// export its executable lacks: the stream phase compiles it (as IREE does;
// docs/ir-reference.md "Unresolved dispatches"), StreamToHAL reports it at
// the dispatch.

// RUN: fleet-compile %s --compile-to=stream | FileCheck %s
// CHECK: stream.cmd.execute
// CHECK: stream.cmd.dispatch @absent::@fn {
// CHECK-NEXT: rw
// CHECK: stream.cmd.dispatch @ex::@missing {
// CHECK-NEXT: rw

// RUN: not fleet-compile %s --compile-to=hal 2>&1 | FileCheck %s --check-prefix=HAL
// HAL: unresolved-dispatch.mlir:[[@LINE+15]]:8: error: 'stream.cmd.dispatch' op dispatch to @absent::@fn: no such executable

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

func.func @f(%t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = flow.dispatch @absent::@fn(%t) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = flow.dispatch @ex::@missing(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
