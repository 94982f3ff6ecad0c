// RUN: fleet-opt %s --split-input-file --hal-assign-target-devices | FileCheck %s --check-prefix=DEFAULT
// RUN: fleet-opt %s --split-input-file --hal-assign-target-devices="targetDevices=a=local,b=local,c=local[5]" | FileCheck %s --check-prefix=NAMED
// Without the option the global --hal-target-device flags (IREE's
// --iree-hal-target-device) give the specs; the option wins over them.
// RUN: fleet-opt %s --split-input-file --hal-target-device=a=local --hal-target-device=b=local --hal-target-device=c=local[5] --hal-assign-target-devices | FileCheck %s --check-prefix=NAMED
// RUN: fleet-opt %s --split-input-file --hal-target-device=x=local --hal-assign-target-devices="targetDevices=a=local,b=local,c=local[5]" | FileCheck %s --check-prefix=NAMED

// No device in the input: one unnamed local device by default, or the named
// ones in the order given (ordinals count per backend unless [N] is given).
// DEFAULT: module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>}
// DEFAULT: util.global private @__device_0 = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
// NAMED: module attributes {stream.affinity.default = #hal.device.affinity<@a>}
// NAMED: util.global private @a = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
// NAMED: util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
// NAMED: util.global private @c = #hal.device.target<"local", {ordinal = 5 : index}> : !hal.device
module {
  util.func public @f() {
    util.return
  }
}

// -----

// Devices declared in the input win over the option.
// DEFAULT-LABEL: module attributes {stream.affinity.default = #hal.device.affinity<@mine>}
// DEFAULT-NOT: __device_0
// NAMED-LABEL: module attributes {stream.affinity.default = #hal.device.affinity<@mine>}
// NAMED-NOT: @a =
module {
  util.global private @mine = #hal.device.target<"local"> : !hal.device
}
