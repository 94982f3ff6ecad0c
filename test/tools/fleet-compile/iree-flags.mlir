// fleet-compile takes the IREE compiler flags Fleet has behaviour for under
// IREE's names without `iree-` (docs/contributing.md "IREE flags"); fleet-opt
// takes the same flags (the pass tests named there).

// IREE's --iree-stream-external-resources-mappable, and
// --iree-hal-external-resources-mappable as its alias: the result buffer
// (external) becomes host-visible and mappable.
// RUN: fleet-compile %s --compile-to=hal | FileCheck %s --check-prefix=DEFAULT
// RUN: fleet-compile %s --compile-to=hal --stream-external-resources-mappable | FileCheck %s --check-prefix=MAPPABLE
// RUN: fleet-compile %s --compile-to=hal --hal-external-resources-mappable | FileCheck %s --check-prefix=MAPPABLE
// DEFAULT: util.global private @__device_0 = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: {{[0-9]+}}, {{[0-9]+}}>, cpu = "host", native_vector_size = {{16|32|64}} : i64}>]> : !hal.device
// DEFAULT: hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
// DEFAULT-NEXT: hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
// MAPPABLE: hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage|MappingScoped|MappingAccessRandom|Mapping"> : i32
// MAPPABLE-NEXT: hal.memory_type<"HostVisible|DeviceVisible|DeviceLocal"> : i32

// IREE's --iree-hal-target-device: the devices of an input that declares
// none.
// RUN: fleet-compile %s --compile-to=hal --hal-target-device=gpu0=local | FileCheck %s --check-prefix=DEVICE
// DEVICE: module attributes {stream.affinity.default = #hal.device.affinity<@gpu0>}
// DEVICE: util.global private @gpu0 = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {{.+}}>]> : !hal.device

// IREE's --iree-execution-model: async-external exports take a wait and a
// signal fence (coarse fences); async-internal ones do not.
// RUN: fleet-compile %s --compile-to=input | FileCheck %s --check-prefix=SYNC
// RUN: fleet-compile %s --compile-to=input --execution-model=async-external | FileCheck %s --check-prefix=ASYNC
// RUN: not fleet-compile %s --compile-to=input --execution-model=inline-static 2>&1 | FileCheck %s --check-prefix=BADMODEL
// SYNC: util.func public @abs(%arg0: !hal.buffer_view) -> !hal.buffer_view
// ASYNC: util.func public @abs(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view attributes {hal.abi.convention = #hal.abi.convention<coarse_fences>
// BADMODEL: fleet-compile: error: unknown --execution-model 'inline-static' (expected async-internal or async-external)

// IREE's --iree-llvmcpu-target-cpu: the CPU the kernels are compiled for,
// recorded in each local device's executable target with its vector width;
// and Fleet's --llvmcpu-cache-sizes=L1,L2, the cache sizes tiles are sized
// from (default: the host's).
// RUN: not fleet-compile %s -o %t.fleet --llvmcpu-target-cpu=no-such-cpu 2>&1 | FileCheck %s --check-prefix=BADCPU
// RUN: fleet-compile %s -o %t.fleet --llvmcpu-target-cpu=x86-64-v3
// RUN: fleet-compile %s --compile-to=hal --llvmcpu-target-cpu=haswell --llvmcpu-cache-sizes=32K,256K | FileCheck %s --check-prefix=TARGET
// RUN: not fleet-compile %s --compile-to=hal --llvmcpu-cache-sizes=32K 2>&1 | FileCheck %s --check-prefix=BADSIZES
// BADCPU-NOT: not a recognized processor
// BADCPU: error: executable target of device @__device_0: unknown target CPU 'no-such-cpu' (use `host` or an LLVM CPU name such as x86-64-v3) (from --llvmcpu-target-cpu)
// TARGET: util.global private @__device_0 = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 262144>, cpu = "haswell", native_vector_size = 32 : i64}>]> : !hal.device
// BADSIZES: error: --llvmcpu-cache-sizes: cache sizes '32K' are not two sizes L1,L2 in bytes
func.func @abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.absf %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
