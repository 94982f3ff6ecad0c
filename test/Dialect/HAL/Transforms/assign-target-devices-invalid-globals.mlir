// RUN: fleet-opt %s --split-input-file --hal-assign-target-devices --verify-diagnostics

// A misspelled property would silently leave the device at ordinal 0.
// expected-error @+1 {{unknown property 'ordnial' of device target 'local' (known: ordinal = N : index, discrete = true|false, remote = true|false)}}
util.global private @b = #hal.device.target<"local", {ordnial = 1 : index}> : !hal.device

// -----

// expected-error @+1 {{device property 'discrete' must be a boolean (discrete = true), got 1 : i64}}
util.global private @b = #hal.device.target<"local", {discrete = 1, ordinal = 1 : index}> : !hal.device

// -----

// expected-error @+1 {{device property 'ordinal' must be an integer (ordinal = N : index), got "1"}}
util.global private @b = #hal.device.target<"local", {ordinal = "1"}> : !hal.device

// -----

// expected-error @+1 {{unknown device backend 'llvm-cpu' (Fleet targets: local, vulkan)}}
util.global private @b = #hal.device.target<"llvm-cpu", {ordinal = 1 : index}> : !hal.device

// -----

// Candidates of a device selection are checked too.
// expected-error @+1 {{unknown device backend 'cuda' (Fleet targets: local, vulkan)}}
util.global private @s = #hal.device.select<[#hal.device.target<"cuda"> : !hal.device, #hal.device.target<"local"> : !hal.device]> : !hal.device
