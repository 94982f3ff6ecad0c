// f16 and bf16 scalars are arguments and results (held by the host program,
// passed to kernels as push constants, extended and truncated on the host),
// and bf16 tensors round-trip through .npy as ml_dtypes writes them ('|V2')
// or as raw '<u2' bits. References: numpy (Inputs/boundary_reference.py).

// RUN: %python %S/../Inputs/boundary_reference.py halves %t.
// RUN: fleet-compile %s -o %t.fleet

// f16: a scalar scales a tensor in a kernel and comes back as a result.
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=scale --input=@%t.x_f16.npy --input=f16=2.5 --expected_output=@%t.scaled_f16.npy --expected_output=f16=2.5 | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=scale --input=8xf16=1,2,3,4,0,0,0,0 --input=f16=0.5 | FileCheck %s --check-prefix=F16
// F16: 8xf16=0.5 1 1.5 2 0 0 0 0
// F16-NEXT: result[1]: f16=0.5
// CHECK: [SUCCESS] all function outputs matched their expected values.

// bf16 from '|V2' and '<u2' files, written back as '|V2'.
// RUN: fleet-run --module=%t.fleet --device=local-task --function=bscale --input=@%t.x_v2.npy --input=bf16=2.5 --expected_output=@%t.scaled_v2.npy --expected_output=bf16=2.5 | FileCheck %s
// RUN: fleet-run --module=%t.fleet --device=local-task --function=bscale --input=@%t.x_u2.npy --input=bf16=2.5 --output=@%t.out_v2.npy --output=-
// RUN: %python %S/../Inputs/boundary_reference.py check-bf16 %t.out_v2.npy %t.scaled_v2.npy | FileCheck %s --check-prefix=BF16NPY
// BF16NPY: |V2 (8,) True

// Host-side conversions: extf / truncf between the half types and f32/f64.
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=widen --input=f16=1.5 --input=bf16=-3 | FileCheck %s --check-prefix=WIDEN
// WIDEN: result[0]: f32=1.5
// WIDEN-NEXT: result[1]: f64=-3
// RUN: fleet-run --module=%t.fleet --device=local-sync --function=narrow --input=f32=0.1 | FileCheck %s --check-prefix=NARROW
// NARROW: result[0]: f16=0.0999756
// NARROW-NEXT: result[1]: bf16=0.100098

// A mistyped scalar is an error before the run.
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=bscale --input=@%t.x_v2.npy --input=f16=2 2>&1 | FileCheck %s --check-prefix=MISTYPED
// MISTYPED: input 1 ('f16=2'): 'f16=2' is f16, but the argument is bf16

// An .npy output for a result without a numpy dtype is refused up front.
// RUN: not fleet-run --module=%t.fleet --device=local-sync --function=fp8 --output=@%t.fp8.npy 2>&1 | FileCheck %s --check-prefix=NODTYPE
// NODTYPE-NOT: EXEC
// NODTYPE: --output '@{{.*}}fp8.npy': result 0 has element type f8E4M3FN, which has no .npy dtype

func.func @scale(%x: tensor<8xf16>, %s: f16) -> (tensor<8xf16>, f16) {
  %e = tensor.empty() : tensor<8xf16>
  %f = linalg.fill ins(%s : f16) outs(%e : tensor<8xf16>) -> tensor<8xf16>
  %0 = arith.mulf %x, %f : tensor<8xf16>
  return %0, %s : tensor<8xf16>, f16
}

func.func @bscale(%x: tensor<8xbf16>, %s: bf16) -> (tensor<8xbf16>, bf16) {
  %e = tensor.empty() : tensor<8xbf16>
  %f = linalg.fill ins(%s : bf16) outs(%e : tensor<8xbf16>) -> tensor<8xbf16>
  %0 = arith.mulf %x, %f : tensor<8xbf16>
  return %0, %s : tensor<8xbf16>, bf16
}

func.func @widen(%h: f16, %b: bf16) -> (f32, f64) {
  %0 = arith.extf %h : f16 to f32
  %1 = arith.extf %b : bf16 to f64
  return %0, %1 : f32, f64
}

func.func @narrow(%x: f32) -> (f16, bf16) {
  %0 = arith.truncf %x : f32 to f16
  %1 = arith.truncf %x : f32 to bf16
  return %0, %1 : f16, bf16
}

func.func @fp8() -> tensor<4xf8E4M3FN> {
  %0 = arith.constant dense<1.0> : tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}
