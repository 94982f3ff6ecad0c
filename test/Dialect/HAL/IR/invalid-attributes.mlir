// Parse errors of hal attributes and types.
// RUN: fleet-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown link property 'bogus'}}
module attributes {stream.topology = #hal.device.topology<links = [(@a -> @b = {bogus = true})]>} {}

// -----

// expected-error @+1 {{expected 'true' or 'false'}}
module attributes {stream.topology = #hal.device.topology<links = [(@a -> @b = {unified_memory = 1})]>} {}

// -----

// expected-error @+1 {{queue bit position 64 is outside 0..63}}
util.func private @f() attributes {a = #hal.device.affinity<@d, [64]>}

// -----

// expected-error @+1 {{expected an affinity attribute}}
util.func private @f() attributes {a = #hal.device.optimal<[1 : i32]>}

// -----

// expected-error @+1 {{for memory type, got: HostVisibel}}
util.func private @f() attributes {a = #hal.memory_type<HostVisibel>}

// -----

// expected-error @+1 {{for buffer usage, got: Transfer|Bogus}}
util.func private @f() attributes {a = #hal.buffer_usage<"Transfer|Bogus">}

// -----

// expected-error @+1 {{expected one of [synchronous, coarse_fences] for ABI convention, got: async}}
util.func private @f() attributes {a = #hal.abi.convention<async>}

// -----

// expected-error @+1 {{unknown  type `gadget` in dialect `hal`}}
util.func private @f(%a: !hal.gadget)
