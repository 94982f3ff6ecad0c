// RUN: fleet-opt %s --split-input-file --hal-serialize-executables | FileCheck %s
// RUN: fleet-opt %s --split-input-file --hal-serialize-executables=target-cpu=x86-64-v3 | FileCheck %s
// The global --llvmcpu-target-cpu (IREE's --iree-llvmcpu-target-cpu) is the
// option's default; the option given explicitly wins.
// RUN: not fleet-opt %s --split-input-file --llvmcpu-target-cpu=no-such-cpu --hal-serialize-executables 2>&1 | FileCheck %s --check-prefix=BADCPU
// RUN: fleet-opt %s --split-input-file --llvmcpu-target-cpu=no-such-cpu --hal-serialize-executables=target-cpu=x86-64-v3 | FileCheck %s
// BADCPU: error: 'hal.executable.variant' op kernel compilation failed: unknown target CPU 'no-such-cpu'
// dump-intermediates-path (IREE's serialize option): each variant's LLVM IR,
// as compiled to the object, in DIR/<executable>_<variant>.codegen.ll.
// RUN: rm -rf %t-dump
// RUN: fleet-opt %s --split-input-file --hal-serialize-executables="target-cpu=x86-64-v3 dump-intermediates-path=%t-dump" -o /dev/null
// RUN: FileCheck %s --check-prefix=DUMP < %t-dump/abs_dispatch_x86.codegen.ll
// RUN: FileCheck %s --check-prefix=DUMP2 < %t-dump/two_exports_x86.codegen.ll
// DUMP: define {{.*}}@abs(
// DUMP: attributes #{{[0-9]+}} = {{{.*}}"target-cpu"="x86-64-v3"
// DUMP2-DAG: define {{.*}}@scale(
// DUMP2-DAG: define {{.*}}@tile(

// The kernel module of an llvm-cpu variant (as StreamToHAL leaves it: the
// stream.executable's module, arguments still !stream.binding) becomes one
// relocatable ELF object (magic 7F 'E' 'L' 'F', ELFCLASS64, little endian,
// ET_REL) stored in the variant; the module is gone and the exports stay.
// CHECK-LABEL: hal.executable private @abs_dispatch
// CHECK: hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) objects([#hal.executable.object<{data = dense<"0x7F454C4602010100000000000000000001003E00
// CHECK-NEXT: hal.executable.export public @abs ordinal(0)
// CHECK-NOT: builtin.module
// CHECK-NOT: func.func
hal.executable private @abs_dispatch {
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

// -----

// A configured matmul (workgroup ids, push constants) and a second export in
// the same variant: one object defines both entry points.
// CHECK-LABEL: hal.executable private @two_exports
// CHECK: objects([#hal.executable.object<{data = dense<"0x7F454C46
// CHECK-NEXT: hal.executable.export public @scale ordinal(0)
// CHECK-NEXT: hal.executable.export public @tile ordinal(1)
// CHECK-NOT: builtin.module
hal.executable private @two_exports {
  hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) {
    hal.executable.export public @scale ordinal(0) layout(#hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
    hal.executable.export public @tile ordinal(1) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      hal.return %c2, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @scale(%arg0: !stream.binding, %arg1: !stream.binding, %s: f32, %offset: index) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %arg0[%offset] : !stream.binding -> memref<100xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<100xf32>
        %2 = bufferization.to_tensor %0 restrict : memref<100xf32> to tensor<100xf32>
        %3 = tensor.empty() : tensor<100xf32>
        %4 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2 : tensor<100xf32>) outs(%3 : tensor<100xf32>) {
        ^bb0(%in: f32, %out: f32):
          %5 = arith.mulf %in, %s : f32
          linalg.yield %5 : f32
        } -> tensor<100xf32>
        bufferization.materialize_in_destination %4 in restrict writable %1 : (tensor<100xf32>, memref<100xf32>) -> ()
        return
      }
      func.func @tile(%arg0: !stream.binding, %arg1: !stream.binding) attributes {fleet.codegen = {kind = "elementwise", workgroup_tiles = array<i64: 64>}} {
        %c0 = arith.constant 0 : index
        %c64 = arith.constant 64 : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<128xf32>
        %1 = stream.binding.subspan %arg1[%c0] : !stream.binding -> memref<128xf32>
        %2 = bufferization.to_tensor %0 restrict : memref<128xf32> to tensor<128xf32>
        %id = stream.dispatch.workgroup.id[0] : index
        %offset = arith.muli %id, %c64 : index
        %3 = tensor.extract_slice %2[%offset] [64] [1] : tensor<128xf32> to tensor<64xf32>
        %4 = tensor.empty() : tensor<64xf32>
        %5 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%3 : tensor<64xf32>) outs(%4 : tensor<64xf32>) {
        ^bb0(%in: f32, %out: f32):
          %6 = math.exp %in : f32
          linalg.yield %6 : f32
        } -> tensor<64xf32>
        %sub = memref.subview %1[%offset] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1], offset: ?>>
        bufferization.materialize_in_destination %5 in restrict writable %sub : (tensor<64xf32>, memref<64xf32, strided<[1], offset: ?>>) -> ()
        return
      }
    }
  }
}

// -----

// Variants that hold objects already are left alone.
// CHECK-LABEL: hal.executable private @prebuilt
// CHECK: objects([#hal.executable.object<{path = "k.o"}>])
hal.executable private @prebuilt {
  hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) objects([#hal.executable.object<{path = "k.o"}>]) {
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
  }
}
