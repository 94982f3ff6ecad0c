// A named module: its exports are found by plain and qualified names, and
// fleet-run prints the function's own name.

// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=module_a.abs --input=4xf32=-1,2,-3,4 | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 | FileCheck %s
// CHECK: EXEC @abs
// CHECK-NEXT: result[0]: hal.buffer_view
// CHECK-NEXT: 4xf32=1 2 3 4
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=module_b.abs 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: no exported function @module_b.abs; the modules export @module_a.abs

module @module_a {
  func.func @abs(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = math.absf %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
