// docs/pipeline.md's abs, compiled to an artifact and run from a pipe on
// both local drivers.

// RUN: fleet-compile %s | fleet-run --module=- --device=local-sync --function=abs --input=4xf32=-1,2,-3,4 | FileCheck %s
// RUN: fleet-compile %s | fleet-run --module=- --device=local-task --function=abs --input=4xf32=-1,2,-3,4 | FileCheck %s
// RUN: fleet-compile %s | fleet-run --module=- --device=local-task?task_topology_group_count=4 --function=abs --input=4xf32=-1,2,-3,4 --expected_output=4xf32=1,2,3,4 | FileCheck %s --check-prefix=EXPECTED
// CHECK: EXEC @abs
// CHECK-NEXT: result[0]: hal.buffer_view
// CHECK-NEXT: 4xf32=1 2 3 4
// EXPECTED: [SUCCESS]

func.func @abs(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.absf %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
