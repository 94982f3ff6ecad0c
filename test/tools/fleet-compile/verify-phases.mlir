// fleet-compile verifies the IR once per phase (docs/pipeline.md
// "Verification"): a VerifyPhasePass ends the input, stream and HAL phases,
// and the pass manager does not verify after each pass. --verify-each
// verifies after every pass instead (no phase verifiers), with the same
// output.

// RUN: fleet-compile %s --compile-to=hal --mlir-timing --mlir-timing-display=list -o %t.phases.mlir 2>&1 | FileCheck %s --check-prefix=PHASES
// PHASES: VerifyPhasePass
// RUN: fleet-compile %s --compile-to=hal --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE
// TREE: FormDispatchesPass
// TREE: VerifyPhasePass
// TREE: ConvertToStreamPass
// TREE: VerifyPhasePass
// TREE: ConvertStreamToHALPass
// TREE: VerifyPhasePass
// TREE-NOT: VerifyPhasePass
// RUN: fleet-compile %s --compile-to=hal --verify-each --mlir-timing -o %t.each.mlir 2>&1 | FileCheck %s --check-prefix=EACH
// EACH-NOT: VerifyPhasePass
// RUN: diff %t.phases.mlir %t.each.mlir
func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %y = arith.mulf %x, %two : tensor<4xf32>
  return %y : tensor<4xf32>
}
