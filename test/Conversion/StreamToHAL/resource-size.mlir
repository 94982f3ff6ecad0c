// RUN: fleet-opt %s --hal-conversion | FileCheck %s

// A resource whose size no SSA value states (loaded from a global) asks
// its buffer: stream.resource.size becomes hal.buffer.length.
// CHECK-LABEL: util.func public @global_size
// CHECK: %[[B:.+]] = util.global.load @weights : !hal.buffer
// CHECK: hal.buffer.length<%[[B]] : !hal.buffer> : index
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.global private @weights : !stream.resource<constant>
  util.func public @global_size() -> index {
    %r = util.global.load @weights : !stream.resource<constant>
    %s = stream.resource.size %r : !stream.resource<constant>
    util.return %s : index
  }
}
