// RUN: fleet-opt %s --split-input-file --hal-lower-topology-queries --verify-diagnostics

// None of these queries may reach the artifact: an affinity that names no
// device cannot be answered at run time.
module {
  util.func public @unresolved() -> (i32, i32) {
    // expected-error @+1 {{has affinity #hal.device.promise<@later>, which names no device}}
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.promise<@later>) lifetime(transient) : i32, i32
    util.return %mt, %bu : i32, i32
  }
}

// -----

module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.func public @undeclared() -> (i32, i32) {
    // expected-error @+1 {{names device @ghost, which is not a declared !hal.device global}}
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@ghost>]>) lifetime(transient) : i32, i32
    util.return %mt, %bu : i32, i32
  }
}
