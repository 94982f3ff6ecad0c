// Round trip of the buffer view ops and the element/encoding type codes
// (docs/ir-reference.md, "Buffer views and tensors"). Function arguments print
// as %argN; results take IREE's default names (docs/ir-reference.md "Result
// names").
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK-LABEL: @buffer_views
util.func public @buffer_views(%b: !hal.buffer, %off: index, %len: index, %d0: index, %et: i32, %enc: i32, %n: index) {
  %c16 = arith.constant 16 : index
  // CHECK: %view = hal.buffer_view.create buffer(%arg0 : !hal.buffer)[%arg1, %arg2] shape([%arg3, %c16]) type(%arg4) encoding(%arg5) : !hal.buffer_view
  %bv = hal.buffer_view.create buffer(%b : !hal.buffer)[%off, %len] shape([%d0, %c16]) type(%et) encoding(%enc) : !hal.buffer_view
  // Rank 0.
  // CHECK: %view_0 = hal.buffer_view.create buffer(%arg0 : !hal.buffer)[%arg1, %arg2] shape([]) type(%arg4) encoding(%arg5) : !hal.buffer_view attributes {note}
  %bv0 = hal.buffer_view.create buffer(%b : !hal.buffer)[%off, %len] shape([]) type(%et) encoding(%enc) : !hal.buffer_view attributes {note}
  // CHECK: %buffer = hal.buffer_view.buffer<%view : !hal.buffer_view> : !hal.buffer
  %b2 = hal.buffer_view.buffer<%bv : !hal.buffer_view> : !hal.buffer
  // CHECK: hal.buffer.length<%arg0 : !hal.buffer> : index
  %blen = hal.buffer.length<%b : !hal.buffer> : index
  // CHECK: %[[LD:.+]] = hal.buffer.load<%arg0 : !hal.buffer>[%arg1] : f32
  %ld = hal.buffer.load<%b : !hal.buffer>[%off] : f32
  // CHECK: hal.buffer.store<%arg0 : !hal.buffer>[%arg1] value(%[[LD]] : f32)
  hal.buffer.store<%b : !hal.buffer>[%off] value(%ld : f32)
  // CHECK: hal.buffer_view.rank<%view : !hal.buffer_view> : index
  %rk = hal.buffer_view.rank<%bv : !hal.buffer_view> : index
  // The dimension is an integer literal without a type.
  // CHECK: hal.buffer_view.dim<%view : !hal.buffer_view>[1] : index
  %d1 = hal.buffer_view.dim<%bv : !hal.buffer_view>[1] : index
  // CHECK: hal.buffer_view.assert<%view : !hal.buffer_view> message("input0") shape([%arg6, %c16]) type(%arg4) encoding(%arg5)
  hal.buffer_view.assert<%bv : !hal.buffer_view> message("input0") shape([%n, %c16]) type(%et) encoding(%enc)
  // CHECK: hal.buffer_view.assert<%view_0 : !hal.buffer_view> message("scalar") shape([]) type(%arg4) encoding(%arg5) attributes {note}
  hal.buffer_view.assert<%bv0 : !hal.buffer_view> message("scalar") shape([]) type(%et) encoding(%enc) attributes {note}
  util.return
}

// Every element-type kind; [ad] goes before `:`.
// CHECK-LABEL: @element_and_encoding_types
util.func public @element_and_encoding_types() {
  // CHECK: %element_type_f32 = hal.element_type<f32> : i32
  %f32 = hal.element_type<f32> : i32
  // CHECK: hal.element_type<i1> : i32
  %i1 = hal.element_type<i1> : i32
  // CHECK: hal.element_type<i8> : i32
  %i8 = hal.element_type<i8> : i32
  // CHECK: hal.element_type<si32> : i32
  %si32 = hal.element_type<si32> : i32
  // CHECK: hal.element_type<ui16> : i32
  %ui16 = hal.element_type<ui16> : i32
  // CHECK: hal.element_type<bf16> : i32
  %bf16 = hal.element_type<bf16> : i32
  // CHECK: hal.element_type<f16> : i32
  %f16 = hal.element_type<f16> : i32
  // CHECK: hal.element_type<f64> {note} : i32
  %f64 = hal.element_type<f64> {note} : i32
  // CHECK: hal.element_type<complex<f32>> : i32
  %c64 = hal.element_type<complex<f32>> : i32
  // CHECK: hal.element_type<f8E5M2> : i32
  %e5m2 = hal.element_type<f8E5M2> : i32
  // CHECK: hal.element_type<f8E4M3FN> : i32
  %e4m3fn = hal.element_type<f8E4M3FN> : i32
  // CHECK: hal.element_type<f8E5M2FNUZ> : i32
  %e5m2fnuz = hal.element_type<f8E5M2FNUZ> : i32
  // CHECK: hal.element_type<f8E4M3FNUZ> : i32
  %e4m3fnuz = hal.element_type<f8E4M3FNUZ> : i32
  // CHECK: hal.element_type<f8E8M0FNU> : i32
  %e8m0 = hal.element_type<f8E8M0FNU> : i32
  // CHECK: %dense_row_major = hal.encoding_type<dense_row_major> : i32
  %enc = hal.encoding_type<dense_row_major> : i32
  // CHECK: hal.encoding_type<dense_row_major> {note} : i32
  %enc1 = hal.encoding_type<dense_row_major> {note} : i32
  util.return
}
