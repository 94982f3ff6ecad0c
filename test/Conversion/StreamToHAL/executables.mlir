// RUN: fleet-opt %s --hal-conversion | FileCheck %s

// A stream.executable becomes a hal.executable with one @fleet_object
// variant for KernelABI.h's target. Exports keep their names and get
// ordinals in order; the layout counts push-constant words (index and i64
// two, i32/f32 one) and bindings, which are ReadOnly when no dispatch
// writes them; the workgroups region becomes the count region with the
// device first; the inner module moves over unchanged (stream ops and all).

// CHECK-NOT: stream.executable
// CHECK-LABEL: hal.executable private @ex {
// CHECK-NEXT: hal.executable.variant public @fleet_object target(<"llvm-cpu", "fleet-object-x86_64">) {
// CHECK-NEXT: hal.executable.export public @first ordinal(0) layout(#hal.pipeline.layout<constants = 3, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%[[DEV:.+]]: !hal.device, %[[X:.+]]: index, %[[Y:.+]]: index) -> (index, index, index) {
// CHECK-NEXT:   %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT:   hal.return %[[X]], %[[Y]], %[[ONE]] : index, index, index
// CHECK-NEXT: }
// CHECK-NEXT: hal.executable.export public @second ordinal(1) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
// CHECK-NOT: count
// CHECK: builtin.module {
// CHECK-NEXT: func.func @first(%{{.+}}: !stream.binding, %{{.+}}: !stream.binding, %{{.+}}: index, %{{.+}}: f32) {
// CHECK-NEXT:   %{{.+}} = arith.constant 0 : index
// CHECK-NEXT:   %{{.+}} = stream.binding.subspan
// CHECK: func.func @second

// The dispatch of the second export uses ordinal 1 and the grid of that
// export of the device's variant.
// CHECK-LABEL: util.func public @dispatch_second
// CHECK: %[[X:.+]], %[[Y:.+]], %[[Z:.+]] = hal.executable.calculate_workgroups device(%{{.+}} : !hal.device) target(@ex::@fleet_object::@second) : index, index, index
// CHECK: %[[EXE:.+]] = hal.executable.lookup device(%{{.+}} : !hal.device) executable(@ex) : !hal.executable
// CHECK: %[[ORD:.+]] = arith.constant 1 : i64
// CHECK: hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> target(%[[EXE]] : !hal.executable)[%[[ORD]]] workgroups([%[[X]], %[[Y]], %[[Z]]]) bindings([
module attributes {stream.affinity.default = #hal.device.affinity<@dev>} {
  util.global private @dev = #hal.device.target<"local"> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @first workgroups(%x: index, %y: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %x, %y, %c1 : index, index, index
    }
    stream.executable.export public @second
    builtin.module {
      func.func @first(%in: !stream.binding, %out: !stream.binding, %n: index, %s: f32) {
        %c0 = arith.constant 0 : index
        %v = stream.binding.subspan %in[%c0] : !stream.binding -> memref<4xf32>
        return
      }
      func.func @second(%io: !stream.binding) {
        return
      }
    }
  }
  util.func public @dispatch_first(%a: !stream.resource<transient>, %b: !stream.resource<transient>, %n: index, %s: f32) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %t = stream.cmd.execute with(%a as %ca: !stream.resource<transient>{%c16}, %b as %cb: !stream.resource<transient>{%c16}) {
      stream.cmd.dispatch @ex::@first[%n, %n](%n, %s : index, f32) {
        ro %ca[%c0 for %c16] : !stream.resource<transient>{%c16},
        wo %cb[%c0 for %c16] : !stream.resource<transient>{%c16}
      }
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
  util.func public @dispatch_second(%a: !stream.resource<transient>) -> !stream.timepoint {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %t = stream.cmd.execute with(%a as %ca: !stream.resource<transient>{%c16}) {
      stream.cmd.dispatch @ex::@second {
        rw %ca[%c0 for %c16] : !stream.resource<transient>{%c16}
      }
    } => !stream.timepoint
    util.return %t : !stream.timepoint
  }
}
