// RUN: fleet-opt %s --codegen-configure-workgroups | FileCheck %s

// One executable, three variants of Fleet's CPU target: tiles and grids are
// chosen per variant from its target (docs/kernels.md "Workgroup tiles").
// A 512x512x512 f32 matmul:
// - AVX-512 (64-byte vectors, 32 registers: 8x32 register tiles), 1 MiB L2:
//   64x128 workgroup tiles, A and B panels (64+128) x 512 x 4 B = 384 KiB fit
//   L2; grid 512/128 = 4 by 512/64 = 8;
// - AVX2 (32-byte vectors, 16 registers: 6x16 register tiles): 48x64 tiles
//   (no multiple of 6 in [24, 48] divides 512: the last row of tiles is
//   partial), grid 8 by 11;
// - AVX-512 with a 256 KiB L2: the panels do not fit, N halves to 64
//   ((64+64) x 512 x 4 B = 256 KiB): 64x64 tiles, grid 8 by 8.
// An elementwise kernel over 256x1024 gets about L2 / 16 iterations per
// workgroup: 65536 (64 rows) with 1 MiB, 16384 (16 rows) with 256 KiB.

// CHECK-LABEL: hal.executable private @ex
// CHECK: hal.executable.variant public @avx512
// CHECK: hal.executable.export public @mm ordinal(0)
// CHECK-DAG: %[[X0:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[Y0:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[ONE0:.+]] = arith.constant 1 : index
// CHECK: hal.return %[[X0]], %[[Y0]], %[[ONE0]] : index, index, index
// CHECK: hal.executable.export public @add ordinal(1)
// CHECK-DAG: %[[AX0:.+]] = arith.constant 4 : index
// CHECK: hal.return %[[AX0]], %{{.+}}, %{{.+}} : index, index, index
// CHECK: func.func @mm({{.*}}) attributes {fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 64, 128, 0>}}
// CHECK: func.func @add({{.*}}) attributes {fleet.codegen = {kind = "elementwise", workgroup_tiles = array<i64: 64, 0>}}

// CHECK: hal.executable.variant public @avx2
// CHECK: hal.executable.export public @mm ordinal(0)
// CHECK-DAG: %[[X1:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[Y1:.+]] = arith.constant 11 : index
// CHECK-DAG: %[[ONE1:.+]] = arith.constant 1 : index
// CHECK: hal.return %[[X1]], %[[Y1]], %[[ONE1]] : index, index, index
// CHECK: func.func @mm({{.*}}) attributes {fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 48, 64, 0>}}

// CHECK: hal.executable.variant public @small_l2
// CHECK: hal.executable.export public @mm ordinal(0)
// CHECK-DAG: %[[X2:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[ONE2:.+]] = arith.constant 1 : index
// CHECK: hal.return %[[X2]], %[[X2]], %[[ONE2]] : index, index, index
// CHECK: hal.executable.export public @add ordinal(1)
// CHECK-DAG: %[[AX2:.+]] = arith.constant 16 : index
// CHECK: hal.return %[[AX2]], %{{.+}}, %{{.+}} : index, index, index
// CHECK: func.func @mm({{.*}}) attributes {fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 64, 64, 0>}}
// CHECK: func.func @add({{.*}}) attributes {fleet.codegen = {kind = "elementwise", workgroup_tiles = array<i64: 16, 0>}}

// A variant of another backend is left alone.
// CHECK: hal.executable.variant public @other
// CHECK-NOT: fleet.codegen
// CHECK: hal.return %{{.+}}, %{{.+}}, %{{.+}} : index, index, index
hal.executable private @ex {
  hal.executable.variant public @avx512 target(<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 1048576>, cpu = "skylake-avx512", native_vector_size = 64 : i64}>) {
    hal.executable.export public @mm ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    hal.executable.export public @add ordinal(1) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @mm(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
        %c0 = arith.constant 0 : index
        %cst = arith.constant 0.0 : f32
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<512x512xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<512x512xf32>
        %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<512x512xf32>
        %a = bufferization.to_tensor %0 restrict : memref<512x512xf32> to tensor<512x512xf32>
        %b = bufferization.to_tensor %1 restrict : memref<512x512xf32> to tensor<512x512xf32>
        %e = tensor.empty() : tensor<512x512xf32>
        %f = linalg.fill ins(%cst : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
        %m = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
        bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<512x512xf32>, memref<512x512xf32>) -> ()
        return
      }
      func.func @add(%arg0: !stream.binding, %arg1: !stream.binding) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<256x1024xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<256x1024xf32>
        %a = bufferization.to_tensor %0 restrict : memref<256x1024xf32> to tensor<256x1024xf32>
        %e = tensor.empty() : tensor<256x1024xf32>
        %r = linalg.add ins(%a, %a : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
        bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<256x1024xf32>, memref<256x1024xf32>) -> ()
        return
      }
    }
  }
  hal.executable.variant public @avx2 target(<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 1048576>, cpu = "haswell", native_vector_size = 32 : i64}>) {
    hal.executable.export public @mm ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @mm(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
        %c0 = arith.constant 0 : index
        %cst = arith.constant 0.0 : f32
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<512x512xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<512x512xf32>
        %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<512x512xf32>
        %a = bufferization.to_tensor %0 restrict : memref<512x512xf32> to tensor<512x512xf32>
        %b = bufferization.to_tensor %1 restrict : memref<512x512xf32> to tensor<512x512xf32>
        %e = tensor.empty() : tensor<512x512xf32>
        %f = linalg.fill ins(%cst : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
        %m = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
        bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<512x512xf32>, memref<512x512xf32>) -> ()
        return
      }
    }
  }
  hal.executable.variant public @small_l2 target(<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 262144>, cpu = "skylake-avx512", native_vector_size = 64 : i64}>) {
    hal.executable.export public @mm ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    hal.executable.export public @add ordinal(1) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @mm(%arg0: !stream.binding, %arg1: !stream.binding, %arg2: !stream.binding) {
        %c0 = arith.constant 0 : index
        %cst = arith.constant 0.0 : f32
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<512x512xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<512x512xf32>
        %2 = stream.binding.subspan %arg2[%c0] : !stream.binding -> memref<512x512xf32>
        %a = bufferization.to_tensor %0 restrict : memref<512x512xf32> to tensor<512x512xf32>
        %b = bufferization.to_tensor %1 restrict : memref<512x512xf32> to tensor<512x512xf32>
        %e = tensor.empty() : tensor<512x512xf32>
        %f = linalg.fill ins(%cst : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
        %m = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
        bufferization.materialize_in_destination %m in restrict writable %2 : (tensor<512x512xf32>, memref<512x512xf32>) -> ()
        return
      }
      func.func @add(%arg0: !stream.binding, %arg1: !stream.binding) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<256x1024xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<256x1024xf32>
        %a = bufferization.to_tensor %0 restrict : memref<256x1024xf32> to tensor<256x1024xf32>
        %e = tensor.empty() : tensor<256x1024xf32>
        %r = linalg.add ins(%a, %a : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
        bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<256x1024xf32>, memref<256x1024xf32>) -> ()
        return
      }
    }
  }
  hal.executable.variant public @other target(<"vmvx", "vmvx-bytecode-fb">) {
    hal.executable.export public @mm ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @mm(%arg0: !stream.binding) {
        return
      }
    }
  }
}

// An export without a count region gets one, with the device argument the
// HAL export's count region takes.
// CHECK-LABEL: hal.executable private @no_count
// CHECK: hal.executable.export public @add ordinal(0) layout({{.+}}) count(%{{.+}}: !hal.device) -> (index, index, index) {
// CHECK: hal.return
hal.executable private @no_count {
  hal.executable.variant public @avx512 target(<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 1048576>, cpu = "skylake-avx512", native_vector_size = 64 : i64}>) {
    hal.executable.export public @add ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
    builtin.module {
      func.func @add(%arg0: !stream.binding, %arg1: !stream.binding) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<256x1024xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<256x1024xf32>
        %a = bufferization.to_tensor %0 restrict : memref<256x1024xf32> to tensor<256x1024xf32>
        %e = tensor.empty() : tensor<256x1024xf32>
        %r = linalg.add ins(%a, %a : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
        bufferization.materialize_in_destination %r in restrict writable %1 : (tensor<256x1024xf32>, memref<256x1024xf32>) -> ()
        return
      }
    }
  }
}
