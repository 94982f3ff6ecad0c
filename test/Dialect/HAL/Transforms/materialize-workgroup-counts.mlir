// RUN: fleet-opt %s --hal-materialize-workgroup-counts | FileCheck %s

// Each calculate_workgroups becomes the count region of the export and
// variant it names, with its device and workload as the region's
// arguments: the two variants of @ex give two grids. An export without a
// count region dispatches 1x1x1.
hal.executable private @ex {
  hal.executable.variant public @fast target(<"llvm-cpu", "fleet-object-x86_64", {cpu = "skylake-avx512"}>) {
    hal.executable.export public @mm ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device, %n: index) -> (index, index, index) {
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      %x = arith.ceildivui %n, %c4 : index
      hal.return %x, %c4, %c1 : index, index, index
    }
    hal.executable.export public @none ordinal(1) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
  }
  hal.executable.variant public @slow target(<"llvm-cpu", "fleet-object-x86_64", {cpu = "haswell"}>) {
    hal.executable.export public @mm ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device, %n: index) -> (index, index, index) {
      %c16 = arith.constant 16 : index
      %c1 = arith.constant 1 : index
      hal.return %c16, %c16, %c1 : index, index, index
    }
  }
}

// CHECK-LABEL: util.func public @grids
// CHECK-SAME: (%[[DEV:.+]]: !hal.device, %[[N:.+]]: index)
// CHECK-NOT: hal.executable.calculate_workgroups
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[X:.+]] = arith.ceildivui %[[N]], %[[C4]] : index
// CHECK-NEXT: %[[C16:.+]] = arith.constant 16 : index
// CHECK-NEXT: %[[C1B:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT: util.return %[[X]], %[[C4]], %[[C1]], %[[C16]], %[[C16]], %[[C1B]], %[[ONE]], %[[ONE]], %[[ONE]]
util.func public @grids(%dev: !hal.device, %n: index) -> (index, index, index, index, index, index, index, index, index) {
  %x0, %y0, %z0 = hal.executable.calculate_workgroups device(%dev : !hal.device) target(@ex::@fast::@mm) workload([%n]) : index, index, index
  %x1, %y1, %z1 = hal.executable.calculate_workgroups device(%dev : !hal.device) target(@ex::@slow::@mm) workload([%n]) : index, index, index
  %x2, %y2, %z2 = hal.executable.calculate_workgroups device(%dev : !hal.device) target(@ex::@fast::@none) : index, index, index
  util.return %x0, %y0, %z0, %x1, %y1, %z1, %x2, %y2, %z2 : index, index, index, index, index, index, index, index, index
}
