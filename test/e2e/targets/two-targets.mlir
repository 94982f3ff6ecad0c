// Two devices with different kernel targets (issue 27): device A's L2 is
// declared 64 KiB, device B's 1 MiB (both AVX2, so the test runs on any
// x86-64-v3 host). The matmul executable runs on both, so it gets two
// variants with their own tiles and grids (docs/kernels.md "Targets"):
// 200x256 @ 256x300 with 6x16 register tiles: A's panels must fit 64 KiB,
// so 48x16 workgroup tiles (grid 19 x 5); B takes 48x64 (grid 5 x 5).
// Each dispatch computes its device's grid, and the runtime loads each
// device's own variant: B given A's variant (the first) would run its
// 5 x 5 grid over 48x16 tiles and leave most columns unwritten. Both
// products are checked against numpy, as results of their own: an add
// reading one would join its dispatch (docs/pipeline.md "Epilogues"), and
// the two would no longer share an executable.

// RUN: fleet-compile %s --compile-to=hal | FileCheck %s
// CHECK-LABEL: util.func public @twice
// CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> target(%{{.+}} : !hal.executable)[%{{.+}}] workgroups([%c19, %c5, %c1])
// CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> target(%{{.+}} : !hal.executable)[%{{.+}}] workgroups([%c5, %c5, %c1])
// CHECK-LABEL: hal.executable private @twice_dispatch_0
// CHECK: hal.executable.variant public @fleet_object target(<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 65536>, cpu = "haswell", native_vector_size = 32 : i64}>) attributes {fleet.devices = [@device_a]}
// CHECK: fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 48, 16, 0>}
// CHECK: hal.executable.variant public @fleet_object_1 target(<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 1048576>, cpu = "haswell", native_vector_size = 32 : i64}>) attributes {fleet.devices = [@device_b]}
// CHECK: fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 48, 64, 0>}

// RUN: fleet-compile %s -o %t.fleet
// RUN: %python -c "import numpy as np; r = np.random.default_rng(27); a = r.standard_normal((200, 256)).astype(np.float32); b = r.standard_normal((256, 300)).astype(np.float32); np.save('%t.a.npy', a); np.save('%t.b.npy', b); np.save('%t.c.npy', (a.astype(np.float64) @ b).astype(np.float32))"
// RUN: fleet-run --module=%t.fleet --device=local-task --device=local-task --function=twice --input=@%t.a.npy --input=@%t.b.npy --expected_output=@%t.c.npy --expected_output=@%t.c.npy --expected_f32_threshold=1e-2 | FileCheck %s --check-prefix=RESULT
// RUN: fleet-run --module=%t.fleet --device=local-sync --device=local-sync --function=twice --input=@%t.a.npy --input=@%t.b.npy --expected_output=@%t.c.npy --expected_output=@%t.c.npy --expected_f32_threshold=1e-2 | FileCheck %s --check-prefix=RESULT
// RUN: fleet-dump %t.fleet | FileCheck %s --check-prefix=DUMP
// RESULT: [SUCCESS]
// DUMP: variant @fleet_object format fleet-object-x86_64 library {{[0-9]+}} devices @device_a
// DUMP: variant @fleet_object_1 format fleet-object-x86_64 library {{[0-9]+}} devices @device_b

module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cpu = "haswell", cache_sizes = array<i64: 32768, 65536>}>]> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cpu = "haswell", cache_sizes = array<i64: 32768, 1048576>}>]> : !hal.device

  func.func @twice(%a: tensor<200x256xf32>, %b: tensor<256x300xf32>)
      -> (tensor<200x300xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>},
          tensor<200x300xf32> {iree.abi.affinity = #hal.device.affinity<@device_a>}) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<200x300xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<200x300xf32>) -> tensor<200x300xf32>
    %ma = linalg.matmul ins(%a, %b : tensor<200x256xf32>, tensor<256x300xf32>) outs(%f : tensor<200x300xf32>) -> tensor<200x300xf32>
    %ab = flow.tensor.transfer %a : tensor<200x256xf32> to #hal.device.affinity<@device_b>
    %bb = flow.tensor.transfer %b : tensor<256x300xf32> to #hal.device.affinity<@device_b>
    %eb = tensor.empty() : tensor<200x300xf32>
    %fb = linalg.fill ins(%zero : f32) outs(%eb : tensor<200x300xf32>) -> tensor<200x300xf32>
    %mb = linalg.matmul ins(%ab, %bb : tensor<200x256xf32>, tensor<256x300xf32>) outs(%fb : tensor<200x300xf32>) -> tensor<200x300xf32>
    %back = flow.tensor.transfer %mb : tensor<200x300xf32> to #hal.device.affinity<@device_a>
    return %ma, %back : tensor<200x300xf32>, tensor<200x300xf32>
  }
}
