// RUN: fleet-opt %s --split-input-file --hal-conversion | FileCheck %s

// An imported buffer view is checked against the compiled shape, element
// type and encoding (the message names the input), then its buffer is the
// resource; an exported resource is wrapped in a new view of its bytes.
// Dynamic dims come from the encoding's dim operands.

// CHECK-LABEL: util.func public @views
// CHECK-SAME: (%[[VIEW:.+]]: !hal.buffer_view, %[[N:.+]]: index) -> !hal.buffer_view
// CHECK: %[[C16:.+]] = arith.constant 16 : index
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[F32:.+]] = hal.element_type<f32> : i32
// CHECK: %[[DENSE:.+]] = hal.encoding_type<dense_row_major> : i32
// CHECK: hal.buffer_view.assert<%[[VIEW]] : !hal.buffer_view> message("input0") shape([%[[N]], %[[C4]]]) type(%[[F32]]) encoding(%[[DENSE]])
// CHECK: %[[BUF:.+]] = hal.buffer_view.buffer<%[[VIEW]] : !hal.buffer_view> : !hal.buffer
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[I32:.+]] = hal.element_type<i32> : i32
// CHECK: %[[DENSE2:.+]] = hal.encoding_type<dense_row_major> : i32
// CHECK: %[[ZERO:.+]] = arith.constant 0 : index
// CHECK: %[[OUT:.+]] = hal.buffer_view.create buffer(%[[BUF]] : !hal.buffer)[%[[ZERO]], %[[C16]]] shape([%[[C2]], %{{.+}}]) type(%[[I32]]) encoding(%[[DENSE2]]) : !hal.buffer_view
// CHECK: util.return %[[OUT]] : !hal.buffer_view
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @views(%view: !hal.buffer_view, %n: index) -> !hal.buffer_view {
    %c16 = arith.constant 16 : index
    %r = stream.tensor.import on(#hal.device.affinity<@dev>) %view : !hal.buffer_view -> tensor<?x4xf32>{%n} in !stream.resource<external>{%c16}
    %v = stream.tensor.export on(#hal.device.affinity<@dev>) %r : tensor<2x2xi32> in !stream.resource<external>{%c16} -> !hal.buffer_view
    util.return %v : !hal.buffer_view
  }
}

// -----

// Plain buffers cross the boundary unchanged.

// CHECK-LABEL: util.func public @buffers
// CHECK-SAME: (%[[B:.+]]: !hal.buffer) -> !hal.buffer
// CHECK-NEXT: %{{.+}} = arith.constant 32 : index
// CHECK-NEXT: util.return %[[B]] : !hal.buffer
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @buffers(%b: !hal.buffer) -> !hal.buffer {
    %c32 = arith.constant 32 : index
    %r = stream.tensor.import consume %b : !hal.buffer -> tensor<8xi32> in !stream.resource<external>{%c32}
    %o = stream.tensor.export %r : tensor<8xi32> in !stream.resource<external>{%c32} -> !hal.buffer
    util.return %o : !hal.buffer
  }
}
