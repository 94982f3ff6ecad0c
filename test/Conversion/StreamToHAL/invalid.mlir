// RUN: fleet-opt %s --split-input-file --hal-conversion --verify-diagnostics

// Two devices and no default: an op without `on(...)` has no device.
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @no_affinity() -> !stream.timepoint {
    %c16 = arith.constant 16 : index
    // expected-error @+1 {{has no affinity and the module has no default device}}
    %r, %t = stream.resource.alloca uninitialized : !stream.resource<transient>{%c16} => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}

// -----

// A command submission runs on one device, not on a set of candidates.
module {
  util.global private @a = #hal.device.target<"local"> : !hal.device
  util.global private @b = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
  util.func public @optimal_execute(%r: !stream.resource<transient>) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c0_i32 = arith.constant 0 : i32
    // expected-error @+1 {{needs a single device affinity (#hal.device.affinity) here}}
    %t = stream.cmd.execute on(#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>) with(%r as %cr: !stream.resource<transient>{%c16}) {
      stream.cmd.fill %c0_i32, %cr[%c0 for %c16] : i32 -> !stream.resource<transient>{%c16}
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}

// -----

// One variant per executable: a dispatch names exactly one export.
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @a
    stream.executable.export public @b
    builtin.module {
      func.func @a(%io: !stream.binding) {
        return
      }
      func.func @b(%io: !stream.binding) {
        return
      }
    }
  }
  util.func public @two_entry_points(%r: !stream.resource<transient>) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %t = stream.cmd.execute with(%r as %cr: !stream.resource<transient>{%c16}) {
      // expected-error @+1 {{has 2 entry points; a dispatch names exactly one export}}
      stream.cmd.dispatch {@ex::@a, @ex::@b} {
        rw %cr[%c0 for %c16] : !stream.resource<transient>{%c16}
      }
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}

// -----

// Kernel objects name kernels by their export, so an alias is refused.
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  stream.executable private @ex {
    // expected-error @+1 {{exports function @impl as 'entry'}}
    stream.executable.export public @impl as("entry")
    builtin.module {
      func.func @impl(%io: !stream.binding) {
        return
      }
    }
  }
}

// -----

// Fleet's HAL has no buffer subviews: the stream phase must not leave them.
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @subview(%r: !stream.resource<transient>) -> !stream.resource<transient> {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    // expected-error @+1 {{failed to legalize operation 'stream.resource.subview'}}
    %v = stream.resource.subview %r[%c0] : !stream.resource<transient>{%c16} -> !stream.resource<transient>{%c8}
    util.return %v : !stream.resource<transient>
  }
}

// -----

// Only element types with a runtime code cross the ABI.
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @bad_element(%v: !hal.buffer_view) -> !stream.resource<external> {
    %c16 = arith.constant 16 : index
    // expected-error @+1 {{has element type 'index', which has no runtime element-type code}}
    %r = stream.tensor.import %v : !hal.buffer_view -> tensor<2xindex> in !stream.resource<external>{%c16}
    util.return %r : !stream.resource<external>
  }
}

// -----

// Push constants are 32-bit words of integers, indices and floats.
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  stream.executable private @ex {
    // expected-error @+1 {{dispatch function argument of type 'complex<f32>' is neither a !stream.binding nor a push-constant primitive}}
    stream.executable.export public @entry
    builtin.module {
      func.func @entry(%io: !stream.binding, %c: complex<f32>) {
        return
      }
    }
  }
}
