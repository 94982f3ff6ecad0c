// RUN: fleet-opt %s '--codegen-resolve-executable-targets=target-cpu=skylake-avx512 cache-sizes=32K,1M' | FileCheck %s
// RUN: fleet-opt %s '--codegen-resolve-executable-targets=target-cpu=haswell cache-sizes=65536,524288' | FileCheck %s --check-prefix=HASWELL
// RUN: not fleet-opt %s '--codegen-resolve-executable-targets=target-cpu=no-such-cpu' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADCPU
// RUN: not fleet-opt %s '--codegen-resolve-executable-targets=cache-sizes=1M' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADSIZES

// A local device without executable targets gets the default CPU target:
// the CPU, its vector width in bytes and the cache sizes of the options
// (the global --llvmcpu-target-cpu / --llvmcpu-cache-sizes). A declared
// target keeps what it gives (haswell: 32-byte vectors; other keys too) and
// gets the rest;
// a target of another backend and a device that is not local stay as they
// are.
// CHECK: util.global private @plain = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 1048576>, cpu = "skylake-avx512", native_vector_size = 64 : i64}>]> : !hal.device
// CHECK: util.global private @declared = #hal.device.target<"local", {ordinal = 1 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 1048576>, cpu = "haswell", native_vector_size = 32 : i64, note = "kept"}>]> : !hal.device
// CHECK: util.global private @features = #hal.device.target<"local", {ordinal = 2 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 49152, 2097152>, cpu = "skylake-avx512", cpu_features = "-avx512f", native_vector_size = 32 : i64}>]> : !hal.device
// CHECK: util.global private @other = #hal.device.target<"local", {ordinal = 3 : index}, [#hal.executable.target<"vmvx", "vmvx-bytecode-fb">]> : !hal.device
// CHECK: util.global private @ordinal = #hal.device.ordinal<4> : !hal.device
// HASWELL: util.global private @plain = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 65536, 524288>, cpu = "haswell", native_vector_size = 32 : i64}>]> : !hal.device
util.global private @plain = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
util.global private @declared = #hal.device.target<"local", {ordinal = 1 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cpu = "haswell", note = "kept"}>]> : !hal.device
util.global private @features = #hal.device.target<"local", {ordinal = 2 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 49152, 2097152>, cpu = "skylake-avx512", cpu_features = "-avx512f"}>]> : !hal.device
util.global private @other = #hal.device.target<"local", {ordinal = 3 : index}, [#hal.executable.target<"vmvx", "vmvx-bytecode-fb">]> : !hal.device
util.global private @ordinal = #hal.device.ordinal<4> : !hal.device

// BADCPU: error: executable target of device @plain: unknown target CPU 'no-such-cpu' (use `host` or an LLVM CPU name such as x86-64-v3) (from --llvmcpu-target-cpu)
// BADSIZES: error: --llvmcpu-cache-sizes: cache sizes '1M' are not two sizes L1,L2 in bytes
