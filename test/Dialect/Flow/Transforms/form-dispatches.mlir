// RUN: fleet-opt %s --split-input-file --flow-form-dispatches --verify-diagnostics | FileCheck %s

// An elementwise chain fuses into one dispatch; the dispatch function
// follows the contract of docs/pipeline.md (bindings in, bindings out,
// tensor form, materialized into the result binding).
// CHECK-LABEL: util.func public @chain
// CHECK: %[[D:.+]] = flow.dispatch @chain_dispatch_0::@chain_dispatch_0_elementwise_4_f32(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: linalg
// CHECK: util.return %[[D]]
// CHECK: stream.executable private @chain_dispatch_0
// CHECK: stream.executable.export public @chain_dispatch_0_elementwise_4_f32 workgroups() -> (index, index, index)
// CHECK: func.func @chain_dispatch_0_elementwise_4_f32(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding)
// CHECK-DAG: stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<4xf32>
// CHECK-DAG: stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4xf32>
// CHECK-DAG: %[[OUT:.+]] = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<4xf32>
// CHECK-DAG: bufferization.to_tensor %{{.+}} restrict
// CHECK: linalg.generic
// CHECK: math.absf
// CHECK: arith.mulf
// CHECK: bufferization.materialize_in_destination %{{.+}} in restrict writable %[[OUT]]
util.func public @chain(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.absf %a : tensor<4xf32>
  %1 = arith.mulf %0, %b : tensor<4xf32>
  util.return %1 : tensor<4xf32>
}

// -----

// matmul + bias + relu: the zero fill of the accumulator and the matmul
// join their elementwise epilogue's dispatch (docs/pipeline.md
// "Epilogues"), which is named after the product.
// CHECK-LABEL: util.func public @mlp
// CHECK: %[[R:.+]] = flow.dispatch @mlp_dispatch_0::@mlp_dispatch_0_matmul_2x8x4_f32(%arg0, %arg1, %arg2) : (tensor<2x4xf32>, tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: util.return %[[R]]
// CHECK: func.func @mlp_dispatch_0_matmul_2x8x4_f32
// CHECK: linalg.fill
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: %[[EPI:.+]] = linalg.generic {{.*}} ins(%[[MM]],
// CHECK: arith.maximumf
// CHECK: bufferization.materialize_in_destination %[[EPI]]
util.func public @mlp(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x8xf32>) -> tensor<2x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %biased = arith.addf %mm, %b : tensor<2x8xf32>
  %cst = arith.constant dense<0.0> : tensor<2x8xf32>
  %relu = arith.maximumf %biased, %cst : tensor<2x8xf32>
  util.return %relu : tensor<2x8xf32>
}

// -----

// A product something else reads too, or an epilogue reading it through a
// transpose, stays a dispatch of its own.
// CHECK-LABEL: util.func public @epilogue_kept_apart
// CHECK: %[[MM:.+]] = flow.dispatch @epilogue_kept_apart_dispatch_0::@epilogue_kept_apart_dispatch_0_matmul_2x8x4_f32(%arg0, %arg1)
// CHECK: flow.dispatch @epilogue_kept_apart_dispatch_1::@epilogue_kept_apart_dispatch_1_elementwise_2x8_f32(%[[MM]], %arg2)
// CHECK: %[[MM2:.+]] = flow.dispatch @epilogue_kept_apart_dispatch_0::@epilogue_kept_apart_dispatch_0_matmul_2x8x4_f32(%arg0, %arg1)
// CHECK: flow.dispatch @epilogue_kept_apart_dispatch_3::@epilogue_kept_apart_dispatch_3_elementwise_8x2_f32(%[[MM2]])
util.func public @epilogue_kept_apart(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %b: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2x8xf32>) -> tensor<2x8xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %biased = arith.addf %mm, %b : tensor<2x8xf32>
  %mm2 = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  %tinit = tensor.empty() : tensor<8x2xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%mm2 : tensor<2x8xf32>) outs(%tinit : tensor<8x2xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = math.absf %v : f32
    linalg.yield %a : f32
  } -> tensor<8x2xf32>
  util.return %mm, %biased, %t : tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x2xf32>
}

// -----

// Identical computations share one executable.
// CHECK-LABEL: util.func public @twice
// CHECK: flow.dispatch @twice_dispatch_0::@twice_dispatch_0_elementwise_4_f32(%arg0)
// CHECK: flow.dispatch @twice_dispatch_0::@twice_dispatch_0_elementwise_4_f32(%arg1)
// CHECK: stream.executable private @twice_dispatch_0
// CHECK-NOT: @twice_dispatch_1
util.func public @twice(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = math.absf %a : tensor<4xf32>
  %1 = math.absf %b : tensor<4xf32>
  util.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Scalars the computation reads become push constants after the bindings.
// CHECK-LABEL: util.func public @scale
// CHECK: flow.dispatch @scale_dispatch_0::@scale_dispatch_0_elementwise_4_f32(%arg0, %arg1) : (tensor<4xf32>, f32) -> tensor<4xf32>
// CHECK: func.func @scale_dispatch_0_elementwise_4_f32(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: f32)
util.func public @scale(%a: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %init = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  util.return %0 : tensor<4xf32>
}

// -----

// A row reduction (softmax style) is a reduction dispatch.
// CHECK-LABEL: util.func public @rowsum
// CHECK: flow.dispatch @rowsum_dispatch_0::@rowsum_dispatch_0_reduction_8_f32(%arg0)
util.func public @rowsum(%a: tensor<8x16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8xf32>) -> tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<8x16xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  util.return %0 : tensor<8xf32>
}

// -----

util.func public @unsupported(%a: tensor<4xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.generate' is not supported: Fleet can neither run it in the host program nor form a dispatch from it}}
  %0 = tensor.generate {
  ^bb0(%i: index):
    tensor.yield %c0 : f32
  } : tensor<6xf32>
  util.return %0 : tensor<6xf32>
}

// -----

util.func public @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{has a dynamically shaped operand 'tensor<?xf32>'; Fleet supports static shapes only}}
  %0 = math.absf %a : tensor<?xf32>
  util.return %0 : tensor<?xf32>
}

// -----

// A decomposed softmax is one row group: its two reductions and the
// elementwise ops reading them form one dispatch (docs/pipeline.md "Row
// groups"); x is its only binding.
// CHECK-LABEL: util.func public @softmax_rows
// CHECK: %[[D:.+]] = flow.dispatch @softmax_rows_dispatch_0::@softmax_rows_dispatch_0_elementwise_4x16_f32(%arg0) : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT: flow.dispatch
// CHECK: util.return %[[D]]
// CHECK: func.func @softmax_rows_dispatch_0_elementwise_4x16_f32(%arg0: !stream.binding, %arg1: !stream.binding)
// CHECK-COUNT-4: linalg.generic
util.func public @softmax_rows(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  util.return %r : tensor<4x16xf32>
}

// -----

// A reduction whose result the function returns as well is not absorbed:
// it stays its own dispatch, and its consumer another.
// CHECK-LABEL: util.func public @shared_sum
// CHECK-COUNT-2: flow.dispatch
util.func public @shared_sum(%x: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x16xf32>, tensor<4xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  } -> tensor<4x16xf32>
  util.return %s, %d : tensor<4xf32>, tensor<4x16xf32>
}
