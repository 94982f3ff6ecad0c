// A coarse-fences export returning a constant: the copy into external
// storage runs before the signal fence is chained (no device work after
// stream.timepoint.chain_external) and the export does not wait on the
// host at all (Fleet issue 22).

// RUN: fleet-compile %s --execution-model=async-external --compile-to=stream | FileCheck %s
// CHECK-LABEL: util.func public @constant_result
// CHECK-NOT: stream.timepoint.await
// CHECK: stream.cmd.copy
// CHECK-NOT: stream.timepoint.await
// CHECK: stream.timepoint.chain_external
// CHECK-NOT: stream.cmd.execute
// CHECK-NOT: stream.timepoint.await
// CHECK: util.return

func.func @constant_result(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = arith.mulf %x, %x : tensor<4xf32>
  return %0, %c : tensor<4xf32>, tensor<4xf32>
}
// RUN: fleet-compile %s --execution-model=async-external -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-task --function=constant_result --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=VALUES
// VALUES-DAG: 4xf32=1 4 9 16
// VALUES-DAG: 4xf32=1 2 3 4
