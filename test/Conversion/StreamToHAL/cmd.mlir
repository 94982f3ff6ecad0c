// RUN: fleet-opt %s --split-input-file --hal-conversion | FileCheck %s

// One execute: a one-shot command buffer on the affinity's device, submitted
// after the awaited fence, signalling a new fence that replaces the
// timepoint. A concurrent region records its commands with no barrier
// between them and one after; a serial region separates its commands by
// barriers; flush/discard record nothing; no barrier ends the buffer.
// Dispatch: executable lookup, ordinal, workgroups computed by
// hal.executable.calculate_workgroups for the device's variant with the
// workload (hal-materialize-workgroup-counts later inlines the count region
// codegen-configure-workgroups chose), push constants (index = two words, low first; f32
// bitcast), bindings with [offset, length].

// CHECK-LABEL: util.func public @execute
// CHECK-SAME: (%[[IN:.+]]: !hal.buffer, %[[TMP:.+]]: !hal.buffer, %[[N:.+]]: index, %[[K:.+]]: i32, %[[S:.+]]: f32, %[[WAIT:.+]]: !hal.fence) -> !hal.fence
// CHECK: %[[DEV:.+]] = util.global.load immutable @dev : !hal.device
// CHECK: %[[Q:.+]] = arith.constant -1 : i64
// CHECK: %[[CMD:.+]] = hal.command_buffer.create device(%[[DEV]] : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%[[Q]]) : !hal.command_buffer
// CHECK-NEXT: hal.command_buffer.fill_buffer<%[[CMD]] : !hal.command_buffer> target(%[[TMP]] : !hal.buffer)[%{{.+}}, %{{.+}}] pattern(%{{.+}} : i32) flags("None")
// CHECK-NEXT: hal.command_buffer.copy_buffer<%[[CMD]] : !hal.command_buffer> source(%[[IN]] : !hal.buffer)
// CHECK-NEXT: %[[WX:.+]], %[[WY:.+]], %[[WZ:.+]] = hal.executable.calculate_workgroups device(%[[DEV]] : !hal.device) target(@ex::@fleet_object::@entry) workload([%[[N]]]) : index, index, index
// CHECK-NEXT: %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK-NEXT: %[[LOW:.+]] = arith.trunci %[[N64]] : i64 to i32
// CHECK-NEXT: %[[C32:.+]] = arith.constant 32 : i64
// CHECK-NEXT: %[[SHIFTED:.+]] = arith.shrui %[[N64]], %[[C32]] : i64
// CHECK-NEXT: %[[HIGH:.+]] = arith.trunci %[[SHIFTED]] : i64 to i32
// CHECK-NEXT: %[[SBITS:.+]] = arith.bitcast %[[S]] : f32 to i32
// CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer> source("Dispatch|Transfer|CommandRetire") target("CommandIssue|Dispatch|Transfer") flags("None")
// CHECK-NEXT: %[[EXE:.+]] = hal.executable.lookup device(%[[DEV]] : !hal.device) executable(@ex) : !hal.executable
// CHECK-NEXT: %[[ORD:.+]] = arith.constant 0 : i64
// CHECK-NEXT: hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> target(%[[EXE]] : !hal.executable)[%[[ORD]]] workgroups([%[[WX]], %[[WY]], %[[WZ]]]) constants([%[[LOW]], %[[HIGH]], %[[K]], %[[SBITS]]]) bindings([
// CHECK-NEXT:   (%[[IN]] : !hal.buffer)[%{{.+}}, %{{.+}}],
// CHECK-NEXT:   (%[[TMP]] : !hal.buffer)[%{{.+}}, %{{.+}}]
// CHECK-NEXT: ]) flags("None")
// CHECK-NEXT: hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
// CHECK-NEXT: hal.command_buffer.copy_buffer<%[[CMD]] : !hal.command_buffer> source(%[[TMP]] : !hal.buffer)
// CHECK-NEXT: hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
// CHECK-NEXT: %[[SIGNAL:.+]] = hal.fence.create device(%[[DEV]] : !hal.device) flags("None") : !hal.fence
// CHECK-NEXT: hal.device.queue.execute<%[[DEV]] : !hal.device> affinity(%[[Q]]) wait(%[[WAIT]]) signal(%[[SIGNAL]]) commands(%[[CMD]]) flags("None")
// CHECK-NEXT: util.return %[[SIGNAL]] : !hal.fence
module attributes {stream.affinity.default = #hal.device.affinity<@dev>} {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @entry workgroups(%x: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %x, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @entry(%in: !stream.binding, %out: !stream.binding, %n: index, %k: i32, %s: f32) {
        return
      }
    }
  }
  util.func public @execute(%in: !stream.resource<external>, %tmp: !stream.resource<transient>, %n: index, %k: i32, %s: f32, %tp: !stream.timepoint) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c0_i32 = arith.constant 0 : i32
    %t = stream.cmd.execute await(%tp) => with(%in as %ci: !stream.resource<external>{%c16}, %tmp as %ct: !stream.resource<transient>{%c16}) {
      stream.cmd.concurrent {
        stream.cmd.fill %c0_i32, %ct[%c0 for %c8] : i32 -> !stream.resource<transient>{%c16}
        stream.cmd.copy %ci[%c0], %ct[%c8], %c8 : !stream.resource<external>{%c16} -> !stream.resource<transient>{%c16}
      }
      stream.cmd.serial {
        stream.cmd.dispatch @ex::@entry[%n](%n, %k, %s : index, i32, f32) {
          ro %ci[%c0 for %c16] : !stream.resource<external>{%c16},
          rw %ct[%c0 for %c16] : !stream.resource<transient>{%c16}
        }
        stream.cmd.flush %ct[%c0 for %c16] : !stream.resource<transient>{%c16}
        stream.cmd.copy %ct[%c0], %ci[%c0], %c16 : !stream.resource<transient>{%c16} -> !stream.resource<external>{%c16}
      }
      stream.cmd.discard %ct[%c0 for %c16] : !stream.resource<transient>{%c16}
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}

// -----

// Serial at the top level: commands recorded in order with a barrier
// between each pair; a queue mask from the affinity; no awaited timepoint
// means the submission waits on a null fence.

// CHECK-LABEL: util.func public @serial_queue
// CHECK: %[[DEV:.+]] = util.global.load immutable @dev : !hal.device
// CHECK: %[[Q:.+]] = arith.constant 2 : i64
// CHECK: %[[CMD:.+]] = hal.command_buffer.create device(%[[DEV]] : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%[[Q]])
// CHECK-NEXT: hal.command_buffer.fill_buffer
// CHECK-NEXT: hal.command_buffer.execution_barrier
// CHECK-NEXT: hal.command_buffer.fill_buffer
// CHECK-NEXT: hal.command_buffer.finalize
// CHECK-NEXT: %[[NONE:.+]] = util.null : !hal.fence
// CHECK-NEXT: %[[SIGNAL:.+]] = hal.fence.create device(%[[DEV]] : !hal.device)
// CHECK-NEXT: hal.device.queue.execute<%[[DEV]] : !hal.device> affinity(%[[Q]]) wait(%[[NONE]]) signal(%[[SIGNAL]]) commands(%[[CMD]])
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @serial_queue(%r: !stream.resource<transient>) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c1_i8 = arith.constant 1 : i8
    %t = stream.cmd.execute on(#hal.device.affinity<@dev, [1]>) with(%r as %cr: !stream.resource<transient>{%c16}) {
      stream.cmd.fill %c1_i8, %cr[%c0 for %c8] : i8 -> !stream.resource<transient>{%c16}
      stream.cmd.fill %c1_i8, %cr[%c8 for %c8] : i8 -> !stream.resource<transient>{%c16}
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}

// -----

// Two concurrent regions in a row: one barrier between them, none inside.

// CHECK-LABEL: util.func public @concurrent_regions
// CHECK: hal.command_buffer.create
// CHECK-NEXT: hal.command_buffer.fill_buffer
// CHECK-NEXT: hal.command_buffer.fill_buffer
// CHECK-NEXT: hal.command_buffer.execution_barrier
// CHECK-NEXT: hal.command_buffer.fill_buffer
// CHECK-NEXT: hal.command_buffer.fill_buffer
// CHECK-NEXT: hal.command_buffer.finalize
module {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  util.func public @concurrent_regions(%r: !stream.resource<transient>) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c12 = arith.constant 12 : index
    %c16 = arith.constant 16 : index
    %c1_i32 = arith.constant 1 : i32
    %t = stream.cmd.execute on(#hal.device.affinity<@dev>) with(%r as %cr: !stream.resource<transient>{%c16}) {
      stream.cmd.concurrent {
        stream.cmd.fill %c1_i32, %cr[%c0 for %c4] : i32 -> !stream.resource<transient>{%c16}
        stream.cmd.fill %c1_i32, %cr[%c4 for %c4] : i32 -> !stream.resource<transient>{%c16}
      }
      stream.cmd.concurrent {
        stream.cmd.fill %c1_i32, %cr[%c8 for %c4] : i32 -> !stream.resource<transient>{%c16}
        stream.cmd.fill %c1_i32, %cr[%c12 for %c4] : i32 -> !stream.resource<transient>{%c16}
      }
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}
