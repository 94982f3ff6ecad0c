// RUN: fleet-opt %s --split-input-file --abi-wrap-entry-points | FileCheck %s
// RUN: fleet-opt %s --split-input-file --abi-wrap-entry-points="executionModel=async-external" | FileCheck %s --check-prefix=ASYNC
// IREE's option (iree-abi-wrap-entry-points{invocation-model=...}): sync is
// the default, coarse-fences is async-external.
// RUN: fleet-opt %s --split-input-file --pass-pipeline='builtin.module(abi-wrap-entry-points{invocation-model=sync})' | FileCheck %s
// RUN: fleet-opt %s --split-input-file --pass-pipeline='builtin.module(abi-wrap-entry-points{invocation-model=coarse-fences})' | FileCheck %s --check-prefix=ASYNC
// RUN: fleet-opt %s --split-input-file --abi-wrap-entry-points="invocation-model=coarse-fences executionModel=async-external" | FileCheck %s --check-prefix=ASYNC
// Neither option given: the global --execution-model (IREE's
// --iree-execution-model) decides.
// RUN: fleet-opt %s --split-input-file --execution-model=async-external --abi-wrap-entry-points | FileCheck %s --check-prefix=ASYNC
// RUN: fleet-opt %s --split-input-file --execution-model=async-external --abi-wrap-entry-points=invocation-model=sync | FileCheck %s
// RUN: not fleet-opt %s --abi-wrap-entry-points="invocation-model=fences" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fleet-opt %s --abi-wrap-entry-points="invocation-model=sync executionModel=async-external" 2>&1 | FileCheck %s --check-prefix=DISAGREE
// BAD: error: unknown invocation model 'fences' (expected sync or coarse-fences)
// DISAGREE: error: invocation-model=sync and executionModel=async-external disagree

// A synchronous export: buffer views in and out, the original kept private.
// CHECK-LABEL: util.func public @abs(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub}
// CHECK-NEXT: %[[IN:.+]] = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = util.call @_abs(%[[IN]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[OUT:.+]] = hal.tensor.export %[[R]] "output0" : tensor<4xf32> -> !hal.buffer_view
// CHECK-NEXT: util.return %[[OUT]] : !hal.buffer_view
// CHECK: util.func private @_abs(%arg0: tensor<4xf32>) -> tensor<4xf32>
// With async-external the export takes a wait and a signal fence, imports
// wait on the first and a barrier signals the second.
// ASYNC-LABEL: util.func public @abs(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence) -> !hal.buffer_view
// ASYNC-SAME: hal.abi.convention = #hal.abi.convention<coarse_fences>
// ASYNC-NEXT: %[[IN:.+]] = hal.tensor.import wait(%arg1) => %arg0 "input0"
// ASYNC-NEXT: %[[R:.+]] = util.call @_abs(%[[IN]])
// ASYNC-NEXT: %[[B:.+]] = hal.tensor.barrier join(%[[R]] : tensor<4xf32>) => %arg2 : !hal.fence
// ASYNC-NEXT: hal.tensor.export %[[B]] "output0"
util.func public @abs(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.absf %arg0 : tensor<4xf32>
  util.return %0 : tensor<4xf32>
}

// -----

// Affinities: per argument/result, and the function's as the default and as
// the wrapped function's stream.affinity. Scalars pass through.
// CHECK-LABEL: util.func public @placed(%arg0: !hal.buffer_view {iree.abi.affinity = #hal.device.affinity<@b>}, %arg1: i32, %arg2: !hal.buffer_view)
// CHECK: hal.tensor.import on(#hal.device.affinity<@b>) %arg0 "input0"
// CHECK: hal.tensor.import on(#hal.device.affinity<@a>) %arg2 "input2"
// CHECK: hal.tensor.export on(#hal.device.affinity<@c>) %{{.+}} "output0"
// CHECK: util.func private @_placed(%arg0: tensor<4xf32>, %arg1: i32, %arg2: tensor<4xf32>) -> tensor<4xf32> attributes {stream.affinity = #hal.device.affinity<@a>}
util.func public @placed(%arg0: tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@b>}, %arg1: i32, %arg2: tensor<4xf32>) -> (tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@c>}) attributes {iree.abi.affinity = #hal.device.affinity<@a>} {
  util.return %arg0 : tensor<4xf32>
}

// -----

// iree.abi.output: the result is produced in the argument's storage.
// CHECK-LABEL: util.func public @mul(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view {iree.abi.output = 0 : index})
// CHECK: %[[R:.+]] = util.call @_mul
// CHECK: %[[A:.+]] = hal.tensor.alias %[[R]] : tensor<4xf32> to %arg2 : !hal.buffer_view
// CHECK: hal.tensor.export %[[A]] "output0"
util.func public @mul(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>, %out: tensor<4xf32> {iree.abi.output = 0 : index}) -> tensor<4xf32> {
  %0 = arith.mulf %lhs, %rhs : tensor<4xf32>
  util.return %0 : tensor<4xf32>
}

// -----

// A coarse-fences export chosen per function.
// CHECK-LABEL: util.func public @async_one(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence)
// CHECK-SAME: hal.abi.convention = #hal.abi.convention<coarse_fences>
// CHECK-NOT: iree.abi.model
util.func public @async_one(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {iree.abi.model = "coarse-fences"} {
  util.return %arg0 : tensor<4xf32>
}

// -----

// Imports: a synchronous one is reached through a shim that exports the
// arguments and imports the results; calls are redirected to the shim.
// CHECK: util.func private @_module_a.abs(%arg0: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[V:.+]] = hal.tensor.export %arg0 "arg0"
// CHECK: %[[R:.+]] = util.call @module_a.abs(%[[V]]) : (!hal.buffer_view) -> !hal.buffer_view
// CHECK: hal.tensor.import %[[R]] "result0"
// CHECK: util.func private @module_a.abs(%arg0: !hal.buffer_view) -> !hal.buffer_view{{$}}
// The coarse-fences shim creates a fence pair on the default device; the
// wait fence is signalled when the arguments are ready.
// CHECK: util.func private @_module_b.mul
// CHECK: %[[DEV:.+]] = util.global.load immutable @d : !hal.device
// CHECK: %[[WAIT:.+]] = hal.fence.create device(%[[DEV]] : !hal.device)
// CHECK: %[[SIG:.+]] = hal.fence.create device(%[[DEV]] : !hal.device)
// CHECK: hal.tensor.barrier join(%arg0, %arg1 : tensor<4xf32>, tensor<4xf32>) => %[[WAIT]] : !hal.fence
// CHECK: util.call @module_b.mul({{.+}}, %[[WAIT]], %[[SIG]]) {hal.abi.convention = #hal.abi.convention<coarse_fences>}
// CHECK: hal.tensor.import wait(%[[SIG]]) =>
// CHECK: util.func private @module_b.mul(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.fence, %arg3: !hal.fence) -> !hal.buffer_view attributes {hal.abi.convention = #hal.abi.convention<coarse_fences>
// CHECK-LABEL: util.func private @caller
// CHECK: util.call @_module_a.abs(%arg0)
// CHECK: util.call @_module_b.mul(
module attributes {stream.affinity.default = #hal.device.affinity<@d>} {
  util.global private @d = #hal.device.target<"local"> : !hal.device
  util.func private @module_a.abs(%arg0: tensor<4xf32>) -> tensor<4xf32>
  util.func private @module_b.mul(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> attributes {iree.abi.model = "coarse-fences"}
  util.func private @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = util.call @module_a.abs(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = util.call @module_b.mul(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    util.return %1 : tensor<4xf32>
  }
}

// -----

// A buffer view lives in the host's process: an input placed on a remote
// device (`remote = true`, another MPI rank) is imported on the first local
// device and transferred (docs/distributed.md); a local placement stays.
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @r = #hal.device.target<"local", {ordinal = 1 : index, remote = true}> : !hal.device
  // CHECK-LABEL: util.func public @remote_input(
  // CHECK: %[[X:.+]] = hal.tensor.import on(#hal.device.affinity<@a>) %arg0 "input0"
  // CHECK-NEXT: %[[T:.+]] = flow.tensor.transfer %[[X]] : tensor<4xf32> to #hal.device.affinity<@r>
  // CHECK-NEXT: %[[Y:.+]] = hal.tensor.import on(#hal.device.affinity<@a>) %arg1 "input1"
  // CHECK-NEXT: util.call @_remote_input(%[[T]], %[[Y]])
  util.func public @remote_input(%x: tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@r>}, %y: tensor<4xf32> {iree.abi.affinity = #hal.device.affinity<@a>}) -> tensor<4xf32> {
    %s = arith.addf %x, %y : tensor<4xf32>
    util.return %s : tensor<4xf32>
  }
}
