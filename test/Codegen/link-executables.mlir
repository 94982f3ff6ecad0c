// RUN: fleet-opt %s --split-input-file --hal-serialize-executables=target-cpu=x86-64-v3 --hal-link-executables=target-cpu=x86-64-v3 | FileCheck %s
// RUN: fleet-opt %s --split-input-file --hal-serialize-executables=target-cpu=x86-64-v3 --hal-link-executables="target-cpu=x86-64-v3 linker=/nonexistent/ld.lld" --verify-diagnostics
// RUN: fleet-opt %s --split-input-file --hal-serialize-executables=target-cpu=x86-64-v3 --hal-link-executables=target-cpu=x86-64-v3 | FileCheck %s --check-prefix=NOAVX512
// RUN: not fleet-opt %s --split-input-file --hal-link-executables 2>&1 | FileCheck %s --check-prefix=UNSERIALIZED

// Two executables exporting the same name link into one shared object
// (ELF magic, ET_DYN): each entry symbol is renamed, the variants name their
// library and symbols and hold no object any more. x86-64-v3 records AVX2
// and FMA but no AVX-512.
// CHECK: module attributes {fleet.kernel_libraries = [{abi_version = 2 : i64, checksum = "{{[0-9a-f]+}}", cpu_features = [{{.*}}"avx2"{{.*}}], data = dense<"0x7F454C4602010100000000000000000003003E00{{[0-9A-F]+}}"> : vector<{{[0-9]+}}xi8>, format = "fleet-object-x86_64", name = "kernels_fleet-object-x86_64", target_cpu = "x86-64-v3"}]}
// NOAVX512-NOT: avx512
// CHECK-LABEL: hal.executable private @abs_dispatch
// CHECK: hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) attributes {fleet.kernel_library = {library = "kernels_fleet-object-x86_64", symbols = ["fleet_kernel_0_abs"]}}
// CHECK-LABEL: hal.executable private @abs_again
// CHECK: attributes {fleet.kernel_library = {library = "kernels_fleet-object-x86_64", symbols = ["fleet_kernel_1_abs"]}}
// CHECK-NOT: hal.executable.object
// UNSERIALIZED: error: 'hal.executable.variant' op still holds a kernel module; run hal-serialize-executables before hal-link-executables

hal.executable private @abs_dispatch {
  // expected-error @+1 {{cannot link the kernel library kernels_fleet-object-x86_64: cannot link the kernel library: no linker ('/nonexistent/ld.lld' is not executable; install Debian's lld-22 (scripts/bootstrap) or set FLEET_LLD)}}
  hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) {
    hal.executable.export public @abs ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @abs(%arg0: !stream.binding, %arg1: !stream.binding) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<4xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4xf32>
        %2 = bufferization.to_tensor %0 restrict : memref<4xf32> to tensor<4xf32>
        %3 = tensor.empty() : tensor<4xf32>
        %4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
        ^bb0(%in: f32, %out: f32):
          %5 = math.absf %in : f32
          linalg.yield %5 : f32
        } -> tensor<4xf32>
        bufferization.materialize_in_destination %4 in restrict writable %1 : (tensor<4xf32>, memref<4xf32>) -> ()
        return
      }
    }
  }
}

hal.executable private @abs_again {
  hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) {
    hal.executable.export public @abs ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @abs(%arg0: !stream.binding, %arg1: !stream.binding) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<4xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<4xf32>
        %2 = bufferization.to_tensor %0 restrict : memref<4xf32> to tensor<4xf32>
        %3 = tensor.empty() : tensor<4xf32>
        %4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
        ^bb0(%in: f32, %out: f32):
          %5 = math.absf %in : f32
          linalg.yield %5 : f32
        } -> tensor<4xf32>
        bufferization.materialize_in_destination %4 in restrict writable %1 : (tensor<4xf32>, memref<4xf32>) -> ()
        return
      }
    }
  }
}
