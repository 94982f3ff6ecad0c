// RUN: fleet-opt %s --split-input-file --flow-partition-pipeline="cost-model=%S/Inputs/unit-costs.json" | FileCheck %s
// RUN: fleet-opt %s --split-input-file --flow-partition-pipeline="cost-model=%S/Inputs/unit-costs.json explain=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN

// Costs (Inputs/unit-costs.json: FLOP in ns, 10 MB/s between the devices,
// which share no memory): the matmul 524 us, its row sums 4 us, the
// broadcast 459 us. An equal-compute cut puts the 16 KiB matmul result on
// the wire (1.6 ms); the optimum cuts after the row sums (256 B, 26 us):
// stage 0 = matmul + row sums (528 us), stage 1 = broadcast + transfer.

#map = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
module attributes {stream.affinity.default = #hal.device.affinity<@device_a>} {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {discrete = true, ordinal = 1 : index}> : !hal.device
  // CHECK-LABEL: util.func public @greedy_is_wrong
  util.func public @greedy_is_wrong(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
    // Inputs without an affinity are imported where they are first used.
    // CHECK: %[[X:.+]] = hal.tensor.import on(#hal.device.affinity<@device_a>) %arg0
    // CHECK: %[[W:.+]] = hal.tensor.import on(#hal.device.affinity<@device_a>) %arg1
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<64x64xf32>
    %w = hal.tensor.import %arg1 "w" : !hal.buffer_view -> tensor<64x64xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    // CHECK: %[[M:.+]] = linalg.matmul ins(%[[X]], %[[W]]
    %m = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %re = tensor.empty() : tensor<64xf32>
    %rf = linalg.fill ins(%zero : f32) outs(%re : tensor<64xf32>) -> tensor<64xf32>
    // CHECK: %[[S:.+]] = linalg.generic {{.*}} ins(%[[M]]
    %s = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
        ins(%m : tensor<64x64xf32>) outs(%rf : tensor<64xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %a = arith.addf %v, %acc : f32
      linalg.yield %a : f32
    } -> tensor<64xf32>
    // CHECK: linalg.yield
    // CHECK-NEXT: }
    // CHECK-NEXT: %[[T:.+]] = flow.tensor.transfer %[[S]] : tensor<64xf32> to #hal.device.affinity<@device_b>
    // CHECK-NOT: flow.tensor.transfer
    // CHECK: linalg.generic {{.*}} ins(%[[T]]
    %be = tensor.empty() : tensor<64x1024xf32>
    %b = linalg.generic {indexing_maps = [#row, #map], iterator_types = ["parallel", "parallel"]}
        ins(%s : tensor<64xf32>) outs(%be : tensor<64x1024xf32>) {
    ^bb0(%v: f32, %o: f32):
      %a1 = arith.addf %v, %v : f32
      %a2 = arith.addf %a1, %v : f32
      %a3 = arith.addf %a2, %v : f32
      %a4 = arith.addf %a3, %v : f32
      %a5 = arith.addf %a4, %v : f32
      %a6 = arith.addf %a5, %v : f32
      %a7 = arith.addf %a6, %v : f32
      linalg.yield %a7 : f32
    } -> tensor<64x1024xf32>
    %r = hal.tensor.export %b "out" : tensor<64x1024xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}
// EXPLAIN: placement of @greedy_is_wrong: 3 ops in 2 stages
// EXPLAIN-NEXT: stage 0 on @device_a: busy 0.528 ms = compute 0.528 ms (estimated 0.528 ms) + transfers in 0.000 ms; 0 B copied in; 2 ops
// EXPLAIN-NEXT:   0.524 ms estimated linalg.matmul matmul_64x64x64_f32
// EXPLAIN-NEXT:   0.004 ms estimated linalg.generic reduction_64_f32
// EXPLAIN-NEXT: stage 1 on @device_b: busy 0.484 ms = compute 0.459 ms (estimated 0.459 ms) + transfers in 0.026 ms; 256 B copied in; 1 ops
// EXPLAIN-NEXT:   0.459 ms estimated linalg.generic elementwise_64x1024_f32
// EXPLAIN-NEXT: cut stage 0 | stage 1 after linalg.generic {{.*}}: 256 B cross it; busiest 0.528 ms; one op earlier 2.101 ms; one op later 0.987 ms
// EXPLAIN-NEXT: equal-compute cut (greedy): busiest 2.101 ms; chosen: 0.528 ms

// -----

// An explicit placement is a constraint: the matmul the user placed on B
// pulls everything after it onto B (stages follow the device order), and
// the inputs are imported there. A value the user moved keeps its
// transfer; none is added.
#map = affine_map<(i) -> (i)>
module attributes {stream.affinity.default = #hal.device.affinity<@device_a>} {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  // CHECK-LABEL: util.func public @pinned
  util.func public @pinned(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
    // CHECK: %[[X:.+]] = hal.tensor.import on(#hal.device.affinity<@device_b>) %arg0
    // CHECK: %[[W:.+]] = hal.tensor.import on(#hal.device.affinity<@device_b>) %arg1
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<64x64xf32>
    %w = hal.tensor.import %arg1 "w" : !hal.buffer_view -> tensor<64x64xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    // CHECK: linalg.matmul {{.*}}stream.affinity = #hal.device.affinity<@device_b>
    %m = linalg.matmul {stream.affinity = #hal.device.affinity<@device_b>} ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    // CHECK-NOT: flow.tensor.transfer
    %m2 = linalg.matmul ins(%m, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %r = hal.tensor.export %m2 "out" : tensor<64x64xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}
// EXPLAIN: placement of @pinned: 2 ops in 2 stages
// EXPLAIN-NEXT: stage 0 on @device_a: busy 0.000 ms {{.*}} 0 ops
// EXPLAIN: stage 1 on @device_b: busy 1.049 ms {{.*}} 2 ops

// -----

// Three devices, four equal matmuls in a chain over the shared memory of
// local devices (transfers cost nothing): the busiest stage holds two.
module attributes {stream.affinity.default = #hal.device.affinity<@device_a>, stream.topology = #hal.device.topology<links = [(@device_a -> @device_b = {unified_memory = true}), (@device_a -> @device_c = {unified_memory = true}), (@device_b -> @device_a = {unified_memory = true}), (@device_b -> @device_c = {unified_memory = true}), (@device_c -> @device_a = {unified_memory = true}), (@device_c -> @device_b = {unified_memory = true})]>} {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.global private @device_c = #hal.device.target<"local", {ordinal = 2 : index}> : !hal.device
  // CHECK-LABEL: util.func public @three_stages
  // CHECK: %[[W:.+]] = hal.tensor.import on(#hal.device.affinity<@device_a>) %arg1
  // CHECK-NEXT: %[[WC:.+]] = flow.tensor.transfer %[[W]] : tensor<64x64xf32> to #hal.device.affinity<@device_c>
  // CHECK-NEXT: %[[WB:.+]] = flow.tensor.transfer %[[W]] : tensor<64x64xf32> to #hal.device.affinity<@device_b>
  // CHECK: %[[M1:.+]] = linalg.matmul
  // CHECK-NEXT: %[[M2:.+]] = linalg.matmul ins(%[[M1]]
  // CHECK-NEXT: %[[T2:.+]] = flow.tensor.transfer %[[M2]] : tensor<64x64xf32> to #hal.device.affinity<@device_b>
  // CHECK-NEXT: %[[M3:.+]] = linalg.matmul ins(%[[T2]], %[[WB]]
  // CHECK-NEXT: %[[T3:.+]] = flow.tensor.transfer %[[M3]] : tensor<64x64xf32> to #hal.device.affinity<@device_c>
  // CHECK-NEXT: linalg.matmul ins(%[[T3]], %[[WC]]
  util.func public @three_stages(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<64x64xf32>
    %w = hal.tensor.import %arg1 "w" : !hal.buffer_view -> tensor<64x64xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m1 = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m2 = linalg.matmul ins(%m1, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m3 = linalg.matmul ins(%m2, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m4 = linalg.matmul ins(%m3, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %r = hal.tensor.export %m4 "out" : tensor<64x64xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}
// EXPLAIN: placement of @three_stages: 4 ops in 3 stages
// EXPLAIN-NEXT: stage 0 on @device_a: busy 1.049 ms {{.*}} 2 ops
// EXPLAIN: stage 1 on @device_b: busy 0.524 ms {{.*}}; 0 B copied in; 1 ops
// EXPLAIN: stage 2 on @device_c: busy 0.524 ms {{.*}}; 0 B copied in; 1 ops
// EXPLAIN: cut stage 0 | stage 1 after linalg.matmul {{.*}}: 16384 B cross it; busiest 1.049 ms; one op earlier 1.049 ms; one op later 1.573 ms
// EXPLAIN: cut stage 1 | stage 2 after linalg.matmul
// EXPLAIN: chosen: 1.049 ms
