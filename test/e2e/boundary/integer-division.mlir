// Integer division and remainder never trap (docs/kernels.md "Integer
// division"): x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0,
// in kernels (tensors) and in the host-program executor (scalars), for i8,
// i32 and i64, signed and unsigned. The reference is Python integer
// arithmetic (Inputs/boundary_reference.py); each width has every zero
// divisor, INT_MIN / -1 and sign case plus random pairs.

// RUN: %python %S/../Inputs/boundary_reference.py division %t.
// RUN: fleet-compile %s -o %t.fleet
// RUN: fleet-run --module=%t.fleet --device=local-task --function=divide_i8 --input=@%t.a_i8.npy --input=@%t.b_i8.npy --expected_output=@%t.divsi_i8.npy --expected_output=@%t.remsi_i8.npy --expected_output=@%t.divui_i8.npy --expected_output=@%t.remui_i8.npy --expected_output=@%t.floordivsi_i8.npy --expected_output=@%t.ceildivsi_i8.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --function=divide_i32 --input=@%t.a_i32.npy --input=@%t.b_i32.npy --expected_output=@%t.divsi_i32.npy --expected_output=@%t.remsi_i32.npy --expected_output=@%t.divui_i32.npy --expected_output=@%t.remui_i32.npy --expected_output=@%t.floordivsi_i32.npy --expected_output=@%t.ceildivsi_i32.npy | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --function=divide_i64 --input=@%t.a_i64.npy --input=@%t.b_i64.npy --expected_output=@%t.divsi_i64.npy --expected_output=@%t.remsi_i64.npy --expected_output=@%t.divui_i64.npy --expected_output=@%t.remui_i64.npy --expected_output=@%t.floordivsi_i64.npy --expected_output=@%t.ceildivsi_i64.npy | FileCheck %s
// CHECK: [SUCCESS] all function outputs matched their expected values.

// Scalars: the host executor applies the same rule.
// RUN: %python %S/../Inputs/boundary_reference.py host-module %t.host.mlir
// RUN: fleet-compile %t.host.mlir -o %t.host.fleet
// RUN: %python %S/../Inputs/boundary_reference.py host-division %fleet_tools/fleet-run %t.host.fleet | FileCheck %s --check-prefix=HOST
// HOST: host i8: 42 pairs, 0 wrong
// HOST-NEXT: host i32: 42 pairs, 0 wrong
// HOST-NEXT: host i64: 42 pairs, 0 wrong

func.func @divide_i8(%a: tensor<200xi8>, %b: tensor<200xi8>) -> (tensor<200xi8>, tensor<200xi8>, tensor<200xi8>, tensor<200xi8>, tensor<200xi8>, tensor<200xi8>) {
  %divsi = arith.divsi %a, %b : tensor<200xi8>
  %remsi = arith.remsi %a, %b : tensor<200xi8>
  %divui = arith.divui %a, %b : tensor<200xi8>
  %remui = arith.remui %a, %b : tensor<200xi8>
  %floordivsi = arith.floordivsi %a, %b : tensor<200xi8>
  %ceildivsi = arith.ceildivsi %a, %b : tensor<200xi8>
  return %divsi, %remsi, %divui, %remui, %floordivsi, %ceildivsi : tensor<200xi8>, tensor<200xi8>, tensor<200xi8>, tensor<200xi8>, tensor<200xi8>, tensor<200xi8>
}

func.func @divide_i32(%a: tensor<200xi32>, %b: tensor<200xi32>) -> (tensor<200xi32>, tensor<200xi32>, tensor<200xi32>, tensor<200xi32>, tensor<200xi32>, tensor<200xi32>) {
  %divsi = arith.divsi %a, %b : tensor<200xi32>
  %remsi = arith.remsi %a, %b : tensor<200xi32>
  %divui = arith.divui %a, %b : tensor<200xi32>
  %remui = arith.remui %a, %b : tensor<200xi32>
  %floordivsi = arith.floordivsi %a, %b : tensor<200xi32>
  %ceildivsi = arith.ceildivsi %a, %b : tensor<200xi32>
  return %divsi, %remsi, %divui, %remui, %floordivsi, %ceildivsi : tensor<200xi32>, tensor<200xi32>, tensor<200xi32>, tensor<200xi32>, tensor<200xi32>, tensor<200xi32>
}

func.func @divide_i64(%a: tensor<200xi64>, %b: tensor<200xi64>) -> (tensor<200xi64>, tensor<200xi64>, tensor<200xi64>, tensor<200xi64>, tensor<200xi64>, tensor<200xi64>) {
  %divsi = arith.divsi %a, %b : tensor<200xi64>
  %remsi = arith.remsi %a, %b : tensor<200xi64>
  %divui = arith.divui %a, %b : tensor<200xi64>
  %remui = arith.remui %a, %b : tensor<200xi64>
  %floordivsi = arith.floordivsi %a, %b : tensor<200xi64>
  %ceildivsi = arith.ceildivsi %a, %b : tensor<200xi64>
  return %divsi, %remsi, %divui, %remui, %floordivsi, %ceildivsi : tensor<200xi64>, tensor<200xi64>, tensor<200xi64>, tensor<200xi64>, tensor<200xi64>, tensor<200xi64>
}
