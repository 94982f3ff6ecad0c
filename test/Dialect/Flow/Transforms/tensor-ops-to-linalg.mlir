// RUN: fleet-opt %s --split-input-file --flow-form-dispatches | FileCheck %s

// Tensor ops that belong in a kernel (TensorOpsToLinalg.cpp): a strided
// slice reads through an affine map; a small constant pad returned as is
// stays a host copy.
// CHECK: #[[MAP:.+]] = affine_map<(d0, d1) -> (d0 * 2 + 1, d1 * 3 + 2)>
// CHECK-LABEL: util.func public @strided
// CHECK: flow.dispatch @strided_dispatch_0
// CHECK-NOT: tensor.extract_slice
// CHECK: util.return
// CHECK: func.func @strided_dispatch_0
// CHECK: linalg.generic {indexing_maps = [#[[MAP]], #{{.+}}]
util.func public @strided(%x: tensor<9x9xf32>) -> tensor<4x3xf32> {
  %s = tensor.extract_slice %x[1, 2] [4, 3] [2, 3] : tensor<9x9xf32> to tensor<4x3xf32>
  util.return %s : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: util.func public @host_pad
// CHECK: tensor.pad
// CHECK-NOT: flow.dispatch
// CHECK: util.return
util.func public @host_pad(%x: tensor<4x5xf32>) -> tensor<6x5xf32> {
  %c = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<4x5xf32> to tensor<6x5xf32>
  util.return %p : tensor<6x5xf32>
}

// -----

// A pad feeding an elementwise op fuses into its kernel: one dispatch
// whose generic reads the source at clamped indices and selects the
// padding value outside it.
// CHECK-LABEL: util.func public @fused_pad
// CHECK: flow.dispatch @fused_pad_dispatch_0
// CHECK-NOT: flow.dispatch
// CHECK-NOT: tensor.pad
// CHECK: util.return
// CHECK: func.func @fused_pad_dispatch_0
// CHECK: linalg.generic
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract
// CHECK: arith.select
// CHECK: arith.mulf
util.func public @fused_pad(%x: tensor<4x5xf32>) -> tensor<6x5xf32> {
  %c = arith.constant -1.0 : f32
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<4x5xf32> to tensor<6x5xf32>
  %m = arith.mulf %p, %p : tensor<6x5xf32>
  util.return %m : tensor<6x5xf32>
}

// -----

// linalg.softmax is decomposed (AggregatedOpInterface) into generics; its
// f32 exp of x - max(row), at most 0, is expanded for that range: clamped
// at ln(FLT_MIN) (NaN kept), n = roundeven(a * log2 e) from a NaN-free
// clamp, r = a - n ln 2 in two steps, a degree-5 polynomial, 2^n in the
// exponent bits, 0 below the clamp. The last generic multiplies each exp
// by the reciprocal of its row's sum.
// CHECK-LABEL: util.func public @softmax
// CHECK-NOT: linalg.softmax
// CHECK: flow.dispatch
// CHECK-LABEL: func.func @softmax_dispatch_0
// CHECK-NOT: math.exp
// CHECK: %[[A:.+]] = arith.subf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT: %[[LOW:.+]] = arith.cmpf olt, %[[A]], %[[MIN:.+]] : f32
// CHECK-NEXT: %[[C:.+]] = arith.select %[[LOW]], %[[MIN]], %[[A]] : f32
// CHECK-NEXT: %[[F:.+]] = arith.maxnumf %[[A]], %[[MIN]] : f32
// CHECK-NEXT: %[[L:.+]] = arith.mulf %[[F]], %{{.+}} : f32
// CHECK-NEXT: %[[N:.+]] = math.roundeven %[[L]] : f32
// CHECK-NEXT: %[[R1:.+]] = math.fma %[[N]], %{{.+}}, %[[C]] : f32
// CHECK-NEXT: %[[R:.+]] = math.fma %[[N]], %{{.+}}, %[[R1]] : f32
// CHECK-COUNT-5: math.fma %{{.+}}, %[[R]], %{{.+}} : f32
// CHECK-NOT: math.fma
// CHECK: %[[NI:.+]] = arith.fptosi %[[N]] : f32 to i32
// CHECK-NEXT: %[[SH:.+]] = arith.shli %[[NI]], %c23_i32 : i32
// CHECK-NEXT: %[[EB:.+]] = arith.addi %[[SH]], %c1065353216_i32 : i32
// CHECK-NEXT: %[[S:.+]] = arith.bitcast %[[EB]] : i32 to f32
// CHECK-NEXT: %[[Y:.+]] = arith.mulf %{{.+}}, %[[S]] : f32
// CHECK-NEXT: %[[E:.+]] = arith.select %[[LOW]], %{{.+}}, %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[E]]
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<3x7xf32>, tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[E:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[R:.+]] = arith.divf %cst{{.*}}, %[[S]] : f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[E]], %[[R]] : f32
// CHECK-NEXT: linalg.yield %[[P]]
util.func public @softmax(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %e = tensor.empty() : tensor<3x7xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<3x7xf32>) outs(%e : tensor<3x7xf32>) -> tensor<3x7xf32>
  util.return %s : tensor<3x7xf32>
}

// -----

// A softmax over the outer dimension keeps its division: the divisor
// changes along the innermost loop, so a reciprocal would be one more
// division per element, not one per row.
// CHECK-LABEL: func.func @softmax_columns_dispatch_3
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[E:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: arith.divf %[[E]], %[[S]] : f32
// CHECK-NOT: arith.mulf
util.func public @softmax_columns(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
  %e = tensor.empty() : tensor<3x7xf32>
  %s = linalg.softmax dimension(0) ins(%x : tensor<3x7xf32>) outs(%e : tensor<3x7xf32>) -> tensor<3x7xf32>
  util.return %s : tensor<3x7xf32>
}

// -----

// In f64 the softmax keeps math.exp (the expansion is f32's).
// CHECK-LABEL: func.func @softmax_f64_dispatch_0
// CHECK: math.exp %{{.+}} : f64
util.func public @softmax_f64(%x: tensor<3x7xf64>) -> tensor<3x7xf64> {
  %e = tensor.empty() : tensor<3x7xf64>
  %s = linalg.softmax dimension(1) ins(%x : tensor<3x7xf64>) outs(%e : tensor<3x7xf64>) -> tensor<3x7xf64>
  util.return %s : tensor<3x7xf64>
}

// -----

// A gather's computed index is clamped into the table's rows.
// CHECK-LABEL: func.func @gather_dispatch_0
// CHECK: %[[I:.+]] = arith.index_cast
// CHECK: %[[LO:.+]] = arith.maxsi %[[I]], %c0
// CHECK: %[[HI:.+]] = arith.minsi %[[LO]], %c36
// CHECK: tensor.extract %{{.+}}[%[[HI]], %{{.+}}]
util.func public @gather(%table: tensor<37x5xf32>, %idx: tensor<4xi64>) -> tensor<4x5xf32> {
  %e = tensor.empty() : tensor<4x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%idx : tensor<4xi64>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%i: i64, %o: f32):
    %row = arith.index_cast %i : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<37x5xf32>
    linalg.yield %v : f32
  } -> tensor<4x5xf32>
  util.return %r : tensor<4x5xf32>
}

// -----

// A dynamic reshape of a static source gets the shape its reduction pins
// down (the element count gives the reduced dimension); cf.assert becomes
// util.status.check_ok.
// CHECK-LABEL: util.func public @reshape_reduce
// CHECK: util.status.check_ok %{{.+}}, "shape"
// CHECK: tensor.reshape %{{.+}}(%{{.+}}) : (tensor<3x2x2xf32>, tensor<3xi64>) -> tensor<3x2x2xf32>
// CHECK: flow.dispatch {{.+}} : (tensor<3x2x2xf32>) -> tensor<3x1x2xf32>
util.func public @reshape_reduce(%x: tensor<3x2x2xf32>, %shape: tensor<3xi64>, %ok: i1) -> tensor<3x1x2xf32> {
  cf.assert %ok, "shape"
  %r = tensor.reshape %x(%shape) : (tensor<3x2x2xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x1x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x1x2xf32>) -> tensor<3x1x2xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%r : tensor<?x?x?xf32>) outs(%f : tensor<3x1x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<3x1x2xf32>
  util.return %s : tensor<3x1x2xf32>
}

// -----

// A pad feeding a window copy (im2col's input map reads `oh + kh`) is a
// kernel of its own: fused, the copy would gather every element at
// clamped indices; apart, it reads the padded rows as vectors.
// CHECK-LABEL: util.func public @pad_under_window_copy
// CHECK: %[[P:.+]] = flow.dispatch @pad_under_window_copy_dispatch_0
// CHECK: flow.dispatch @pad_under_window_copy_dispatch_1::{{.+}}(%[[P]])
// CHECK: func.func @pad_under_window_copy_dispatch_0
// CHECK: tensor.extract
// CHECK: func.func @pad_under_window_copy_dispatch_1
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic
util.func public @pad_under_window_copy(%x: tensor<4x5xf32>) -> tensor<3x4x5xf32> {
  %c = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<4x5xf32> to tensor<6x5xf32>
  %e = tensor.empty() : tensor<3x4x5xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(k, h, w) -> (h + k, w)>, affine_map<(k, h, w) -> (k, h, w)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : tensor<6x5xf32>) outs(%e : tensor<3x4x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4x5xf32>
  util.return %w : tensor<3x4x5xf32>
}
