// RUN: fleet-opt %s --split-input-file --stream-conversion --verify-diagnostics | FileCheck %s

// A column slice of a row-major 4x12 tensor: one copy per row (16 bytes at
// byte 16 + 48 i) into a fresh alloca on the device the source lives on.
// CHECK-LABEL: util.func public @slice
// CHECK: %[[A:.+]] = stream.async.alloca on(#hal.device.affinity<@a>) : !stream.resource<*>{%c64}
// CHECK: %[[C0:.+]] = stream.async.copy on(#hal.device.affinity<@a>) %[[S:.+]][%c16{{.*}} to %c32{{.*}}], %[[A]][%c0{{.*}} to %c16{{.*}}], %c16
// CHECK: %[[C1:.+]] = stream.async.copy on(#hal.device.affinity<@a>) %[[S]][%c64{{.*}} to %c80{{.*}}], %[[C0]][%c16{{.*}} to %c32{{.*}}], %c16
// CHECK: %[[C2:.+]] = stream.async.copy {{.*}}%[[S]][%c112{{.*}} to %c128{{.*}}], %[[C1]]
// CHECK: stream.async.copy {{.*}}%[[S]][%c160{{.*}} to %c176{{.*}}], %[[C2]]
// CHECK-NOT: stream.async.copy
// CHECK: stream.tensor.export
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @slice(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4x12xf32>
    %k = tensor.extract_slice %x[0, 4] [4, 4] [1, 1] : tensor<4x12xf32> to tensor<4x4xf32>
    %r = hal.tensor.export %k : tensor<4x4xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}

// -----

// A pad leaving more than 8 gaps between its runs (a column added to each
// of 10 rows) splats the whole result once, then copies the rows in.
// CHECK-LABEL: util.func public @pad_many_gaps
// CHECK-NOT: stream.async.fill
// CHECK: stream.async.splat on(#hal.device.affinity<@a>) %c0_i32 : i32 -> !stream.resource<*>{%c120}
// CHECK-COUNT-10: stream.async.copy
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @pad_many_gaps(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<10x2xf32>
    %zero = arith.constant 0.0 : f32
    %pad = tensor.pad %x low[0, 0] high[0, 1] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<10x2xf32> to tensor<10x3xf32>
    %r = hal.tensor.export %pad : tensor<10x3xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}

// -----

// Rows taken whole are one contiguous run: a single copy.
// CHECK-LABEL: util.func public @rows
// CHECK: stream.async.copy on(#hal.device.affinity<@a>) %{{.+}}[%c48{{.*}} to %c144{{.*}}], %{{.+}}[%c0{{.*}} to %c96{{.*}}], %c96
// CHECK-NOT: stream.async.copy
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @rows(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4x12xf32>
    %r2 = tensor.extract_slice %x[1, 0] [2, 12] [1, 1] : tensor<4x12xf32> to tensor<2x12xf32>
    %r = hal.tensor.export %r2 : tensor<2x12xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}

// -----

// insert_slice updates a clone of the destination; concat copies each
// input's runs into one alloca; pad fills only the bytes its rows do not
// cover with the padding value's bits (-1.0 = 0xBF800000; 3 gaps: the first
// row and the second's first element, between the rows, the last
// element and row) and copies the rows in; reshape is the same resource.
// CHECK-LABEL: util.func public @others
// CHECK: %[[CL:.+]] = stream.async.clone on(#hal.device.affinity<@a>)
// CHECK: stream.async.copy {{.*}}, %[[CL]][%c0{{.*}} to %c8{{.*}}], %c8
// CHECK: %[[CAT:.+]] = stream.async.alloca on(#hal.device.affinity<@a>) : !stream.resource<*>{%c32}
// CHECK-COUNT-4: stream.async.copy
// CHECK: %[[PAD:.+]] = stream.async.alloca on(#hal.device.affinity<@a>) : !stream.resource<*>{%c48}
// CHECK: stream.async.fill on(#hal.device.affinity<@a>) %c-1082130432_i32, %[[PAD]][%c0{{.*}} to %c12{{.*}} for %c12{{.*}}]
// CHECK: stream.async.fill on(#hal.device.affinity<@a>) %c-1082130432_i32, %{{.+}}[%c20{{.*}} to %c24{{.*}} for %c4{{.*}}]
// CHECK: stream.async.fill on(#hal.device.affinity<@a>) %c-1082130432_i32, %{{.+}}[%c32{{.*}} to %c48{{.*}} for %c16{{.*}}]
// CHECK-COUNT-2: stream.async.copy
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @others(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view, !hal.buffer_view) {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<2x2xf32>
    %y = hal.tensor.import %arg1 : !hal.buffer_view -> tensor<1x2xf32>
    %ins = tensor.insert_slice %y into %x[0, 0] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<2x2xf32>
    %cat = tensor.concat dim(1) %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
    %m1 = arith.constant -1.0 : f32
    %pad = tensor.pad %x low[1, 0] high[1, 1] {
    ^bb0(%i: index, %j: index):
      tensor.yield %m1 : f32
    } : tensor<2x2xf32> to tensor<4x3xf32>
    %shape = arith.constant dense<[4]> : tensor<1xindex>
    %flat = tensor.reshape %x(%shape) : (tensor<2x2xf32>, tensor<1xindex>) -> tensor<4xf32>
    %r0 = hal.tensor.export %ins : tensor<2x2xf32> -> !hal.buffer_view
    %r1 = hal.tensor.export %cat : tensor<2x4xf32> -> !hal.buffer_view
    %r2 = hal.tensor.export %pad : tensor<4x3xf32> -> !hal.buffer_view
    %r3 = hal.tensor.export %flat : tensor<4xf32> -> !hal.buffer_view
    util.return %r0, %r1, %r2, %r3 : !hal.buffer_view, !hal.buffer_view, !hal.buffer_view, !hal.buffer_view
  }
}

// -----

module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @strided(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4x12xf32>
    // expected-error @+1 {{has non-unit strides; host-side slices copy contiguous runs only}}
    %k = tensor.extract_slice %x[0, 0] [4, 4] [1, 2] : tensor<4x12xf32> to tensor<4x4xf32>
    %r = hal.tensor.export %k : tensor<4x4xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}

// -----

module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @padvalue(%arg0: !hal.buffer_view, %v: f32) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<2xf32>
    // expected-error @+1 {{pads with a value that is not a constant}}
    %p = tensor.pad %x low[1] high[1] {
    ^bb0(%i: index):
      tensor.yield %v : f32
    } : tensor<2xf32> to tensor<4xf32>
    %r = hal.tensor.export %p : tensor<4xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}

// -----

// A scalar read on the host goes through a staging copy on the tensor's
// device (element 2 of f32: byte 8); an insert writes a staging copy and
// sends it back.
// CHECK-LABEL: util.func public @scalars
// CHECK: %[[ST:.+]] = stream.async.transfer %{{.+}} : !stream.resource<external>{%{{.+}}} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@a>) !stream.resource<staging>{%{{.+}}}
// CHECK: %[[V:.+]] = stream.async.load %[[ST]][%{{.+}}] : !stream.resource<staging>{%{{.+}}} -> f32
// CHECK: %[[ST2:.+]] = stream.async.transfer {{.*}} !stream.resource<staging>{%{{.+}}}
// CHECK: %[[W:.+]] = stream.async.store %[[V]], %[[ST2]][%{{.+}}] : f32 -> %[[ST2]] as !stream.resource<staging>{%{{.+}}}
// CHECK: stream.async.transfer %[[W]] : !stream.resource<staging>{%{{.+}}} from(#hal.device.affinity<@a>) -> to(#hal.device.affinity<@a>) !stream.resource<*>{%{{.+}}}
module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @scalars(%arg0: !hal.buffer_view) -> (f32, !hal.buffer_view) {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4xf32>
    %c2 = arith.constant 2 : index
    %v = tensor.extract %x[%c2] : tensor<4xf32>
    %c0 = arith.constant 0 : index
    %y = tensor.insert %v into %x[%c0] : tensor<4xf32>
    %r = hal.tensor.export %y : tensor<4xf32> -> !hal.buffer_view
    util.return %v, %r : f32, !hal.buffer_view
  }
}

// -----

module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @insert_strided(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4x4xf32>
    %y = hal.tensor.import %arg1 : !hal.buffer_view -> tensor<2x2xf32>
    // expected-error @+1 {{has non-unit strides; host-side slices copy contiguous runs only}}
    %z = tensor.insert_slice %y into %x[0, 0] [2, 2] [2, 2] : tensor<2x2xf32> into tensor<4x4xf32>
    %r = hal.tensor.export %z : tensor<4x4xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}

// -----

module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @concat_columns(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<5000x1xf32>
    // expected-error @+1 {{would copy more than 4096 separate runs on the host; compute it in a kernel}}
    %c = tensor.concat dim(1) %x, %x : (tensor<5000x1xf32>, tensor<5000x1xf32>) -> tensor<5000x2xf32>
    %r = hal.tensor.export %c : tensor<5000x2xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}

// -----

module attributes {stream.affinity.default = #hal.device.affinity<@a>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @reshape_dynamic(%arg0: !hal.buffer_view) {
    %x = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<2x2xf32>
    %shape = arith.constant dense<[4]> : tensor<1xindex>
    // expected-error @+1 {{has a dynamic result shape; host-side reshapes need a static one}}
    %f = tensor.reshape %x(%shape) : (tensor<2x2xf32>, tensor<1xindex>) -> tensor<?xf32>
    util.return
  }
}
