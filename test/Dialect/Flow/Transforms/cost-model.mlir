// RUN: fleet-opt %s --flow-partition-pipeline="cost-model=%S/Inputs/cost-model.json explain=true" 2>&1 >/dev/null | FileCheck %s
// RUN: not fleet-opt %s --flow-partition-pipeline="cost-model=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo '{"dispatch_s": -1}' > %t.json && not fleet-opt %s --flow-partition-pipeline="cost-model=%t.json" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: echo '{"flops": 1}' > %t.json && not fleet-opt %s --flow-partition-pipeline="cost-model=%t.json" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: echo '{"dispatches": {"x": {}}}' > %t.json && not fleet-opt %s --flow-partition-pipeline="profile=%t.json" 2>&1 | FileCheck %s --check-prefix=PROFILE

// The cost model's estimates (docs/partitioning.md "Cost model") with round
// constants (Inputs/cost-model.json: contractions 2 GFLOP/s, other kernels
// 1 GFLOP/s, a math function 8 FLOP, 1 GB/s, 1 us per dispatch):
//  - matmul 64^3: 524,288 FLOP / 2e9 = 262 us (its 64 KiB at 1 GB/s: 66 us)
//    + 1 us;
//  - exp(x) / x over 256 x 256: (8 + 4) FLOP each = 786 us (512 KiB: 524 us,
//    the init it does not read not counted) + 1 us;
//  - a + b over 256 x 256: 65,536 FLOP, but 768 KiB moved: 786 us + 1 us;
//  - a slice of 128 x 256: 128 KiB read and written, no kernel: 262 us.
#map = affine_map<(i, j) -> (i, j)>
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.func public @costs(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view, !hal.buffer_view, !hal.buffer_view) {
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<64x64xf32>
    %y = hal.tensor.import %arg1 "y" : !hal.buffer_view -> tensor<256x256xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m = linalg.matmul ins(%x, %x : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    %ee = tensor.empty() : tensor<256x256xf32>
    %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%y : tensor<256x256xf32>) outs(%ee : tensor<256x256xf32>) {
    ^bb0(%v: f32, %o: f32):
      %ex = math.exp %v : f32
      %d = arith.divf %ex, %v : f32
      linalg.yield %d : f32
    } -> tensor<256x256xf32>
    %s = arith.addf %g, %y : tensor<256x256xf32>
    %slice = tensor.extract_slice %s[0, 0] [128, 256] [1, 1] : tensor<256x256xf32> to tensor<128x256xf32>
    %r0 = hal.tensor.export %m "m" : tensor<64x64xf32> -> !hal.buffer_view
    %r1 = hal.tensor.export %g "g" : tensor<256x256xf32> -> !hal.buffer_view
    %r2 = hal.tensor.export %s "s" : tensor<256x256xf32> -> !hal.buffer_view
    %r3 = hal.tensor.export %slice "slice" : tensor<128x256xf32> -> !hal.buffer_view
    util.return %r0, %r1, %r2, %r3 : !hal.buffer_view, !hal.buffer_view, !hal.buffer_view, !hal.buffer_view
  }
}
// CHECK: placement of @costs: 4 ops in 1 stages
// CHECK-NEXT: stage 0 on @device_a: busy 2.100 ms
// CHECK-NEXT: 0.263 ms estimated linalg.matmul matmul_64x64x64_f32
// CHECK-NEXT: 0.787 ms estimated linalg.generic elementwise_256x256_f32
// CHECK-NEXT: 0.787 ms estimated arith.addf
// CHECK-NEXT: 0.262 ms estimated tensor.extract_slice
// MISSING: error: --cost-model: cannot read {{.*}}missing.json
// NEGATIVE: error: --cost-model: {{.*}}: 'dispatch_s' must be a positive number
// UNKNOWN: error: --cost-model: {{.*}}: unknown cost-model key 'flops'
// PROFILE: error: --profile: {{.*}}: dispatch 'x' has no non-negative "median_us"
