// RUN: fleet-opt %s --split-input-file --verify-diagnostics --flow-split-micro-batches=count=4
// RUN: not fleet-opt %s --split-input-file --flow-split-micro-batches=count=0 2>&1 | FileCheck %s --check-prefix=ZERO

// ZERO: error: --micro-batches=0: expected a count of at least 1

// A sum over the batch reads across batch rows.
#map = affine_map<(b, j) -> (b, j)>
#col = affine_map<(b, j) -> (j)>
util.func public @batch_sum(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  // expected-error @+1 {{'linalg.generic' op does not treat batch rows independently (it reads across the batch dimension: loop d0 is a reduction); --micro-batches needs every op on the batch to}}
  %s = linalg.generic {indexing_maps = [#map, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%f : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %r = hal.tensor.export %s "s" : tensor<16xf32> -> !hal.buffer_view
  util.return %r : !hal.buffer_view
}

// -----

// The batch index itself is read.
#map = affine_map<(b, j) -> (b, j)>
util.func public @batch_index(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  // expected-error @+1 {{its body reads the batch index (linalg.index 0)}}
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %b = linalg.index 0 : index
    %i = arith.index_cast %b : index to i32
    %f = arith.sitofp %i : i32 to f32
    %a = arith.addf %v, %f : f32
    linalg.yield %a : f32
  } -> tensor<8x16xf32>
  %r = hal.tensor.export %s "s" : tensor<8x16xf32> -> !hal.buffer_view
  util.return %r : !hal.buffer_view
}

// -----

// A slice of the batch is not split.
util.func public @slice(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<8x16xf32>
  // expected-error @+1 {{'tensor.extract_slice' op is not supported on the batch dimension by --micro-batches}}
  %s = tensor.extract_slice %x[0, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
  %r = hal.tensor.export %s "s" : tensor<4x16xf32> -> !hal.buffer_view
  util.return %r : !hal.buffer_view
}

// -----

util.func public @odd_batch(%arg0: !hal.buffer_view) -> !hal.buffer_view {
  // expected-error @+1 {{'hal.tensor.import' op has batch dimension 6, not a multiple of --micro-batches=4}}
  %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<6x16xf32>
  %y = arith.addf %x, %x : tensor<6x16xf32>
  %r = hal.tensor.export %y "y" : tensor<6x16xf32> -> !hal.buffer_view
  util.return %r : !hal.buffer_view
}

// -----

// Nothing to split.
// expected-error @+1 {{--micro-batches=4: no public function computes on a batched tensor input}}
module {
  util.func public @nothing() {
    util.return
  }
}
