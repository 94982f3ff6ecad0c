// fleet-compile's diagnostics point at the user's source and stop there: no
// generic-form dump of the op they are attached to (fleet-opt and
// --mlir-print-op-on-diagnostic still give it), exit code 1.

// RUN: not fleet-compile %s -o %t.fleet 2>&1 | FileCheck %s
// CHECK: errors.mlir:[[# @LINE + 4]]:1: error: argument 0 of @dyn has the dynamically shaped type 'tensor<?xf32>'; Fleet supports static shapes only
// CHECK-NOT: see current operation
// RUN: not fleet-compile %s -o %t.fleet --mlir-print-op-on-diagnostic 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: see current operation
func.func @dyn(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
