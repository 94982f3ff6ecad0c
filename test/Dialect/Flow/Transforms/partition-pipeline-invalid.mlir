// RUN: fleet-opt %s --split-input-file --verify-diagnostics --flow-partition-pipeline
// RUN: not fleet-opt %s --split-input-file --flow-partition-pipeline=mode=balanced 2>&1 | FileCheck %s --check-prefix=MODE

// RUN: not fleet-opt %s --split-input-file --flow-partition-pipeline=mode=none\ explain=true 2>&1 | FileCheck %s --check-prefix=NONE

// MODE: error: unknown --partition mode 'balanced' (expected none or pipeline)
// NONE: error: --explain-placement, --profile and --cost-model apply to --partition=pipeline only

// Explicit placements against the device order: no contiguous stages keep
// them.
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  // expected-error @+1 {{--partition=pipeline: the explicit placements are not in device order}}
  util.func public @backwards(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<16xf32>
    %a = arith.addf %x, %x {stream.affinity = #hal.device.affinity<@device_b>} : tensor<16xf32>
    %b = arith.mulf %a, %a {stream.affinity = #hal.device.affinity<@device_a>} : tensor<16xf32>
    %r = hal.tensor.export %b "y" : tensor<16xf32> -> !hal.buffer_view
    util.return %r : !hal.buffer_view
  }
}

// -----

// Compute inside control flow is not cut.
module {
  util.global private @device_a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
  util.global private @device_b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @loop(%arg0: !hal.buffer_view) -> !hal.buffer_view {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %x = hal.tensor.import %arg0 "x" : !hal.buffer_view -> tensor<16xf32>
    // expected-error @+1 {{'scf.for' op holds compute ops; --partition=pipeline cuts straight-line functions only}}
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%v = %x) -> tensor<16xf32> {
      %n = arith.addf %v, %v : tensor<16xf32>
      scf.yield %n : tensor<16xf32>
    }
    %y = hal.tensor.export %r "y" : tensor<16xf32> -> !hal.buffer_view
    util.return %y : !hal.buffer_view
  }
}

// -----

// expected-error @+1 {{--partition=pipeline: the module declares no device}}
module {
}
