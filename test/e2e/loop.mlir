// A loop carrying a tensor through 100 device iterations: the result is
// x + 100 * y, and the loop frees each iteration's buffer once the next has
// read it: a handful of 4 KiB buffers are live at once (the two inputs, the
// carried one, the next one, the exported result; under 30,000 bytes)
// instead of one per iteration (over 400,000 bytes).

// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-task --function=loop --input=1024xf32=0.5 --input=1024xf32=0.25 --input=100 --print_max_element_count=4 --print_statistics 2> %t.stats | FileCheck %s
// CHECK: EXEC @loop
// CHECK: 1024xf32=25.5 25.5 25.5 25.5...
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// STATS: allocations: {{[0-9]+}} (peak {{([0-9]{4}|[12][0-9]{4})}} bytes live)
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=loop --input=1024xf32=0.5 --input=1024xf32=0.25 --input=0 --print_max_element_count=4 | FileCheck %s --check-prefix=ZERO
// ZERO: 1024xf32=0.5 0.5 0.5 0.5...

func.func @loop(%x: tensor<1024xf32>, %y: tensor<1024xf32>, %n: index) -> tensor<1024xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<1024xf32> {
    %e = tensor.empty() : tensor<1024xf32>
    %s = linalg.add ins(%acc, %y : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
    scf.yield %s : tensor<1024xf32>
  }
  return %r : tensor<1024xf32>
}
