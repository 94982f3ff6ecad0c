// RUN: fleet-opt %s --split-input-file --hal-materialize-topology | FileCheck %s

// Two plain local devices: unified both ways.
// CHECK: stream.topology = #hal.device.topology<links = [(@a -> @b = {unified_memory = true}), (@b -> @a = {unified_memory = true})]>
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
}

// -----

// A discrete device gets no link in either direction; the others keep theirs.
// CHECK: stream.topology = #hal.device.topology<links = [(@a -> @c = {unified_memory = true}), (@c -> @a = {unified_memory = true})]>
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {discrete = true, ordinal = 1 : index}> : !hal.device
  util.global private @c = #hal.device.target<"local", {ordinal = 2 : index}> : !hal.device
}

// -----

// An existing topology is kept as written.
// CHECK: stream.topology = #hal.device.topology<links = [(@a -> @b = {transparent_access = true})]>
module attributes {stream.topology = #hal.device.topology<links = [(@a -> @b = {transparent_access = true})]>} {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
}

// -----

// One device: nothing to relate.
// CHECK-NOT: stream.topology
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
}
