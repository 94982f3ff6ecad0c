// Round trip of the executable ops (docs/ir-reference.md, "Executables") plus
// hal.executable.lookup and hal.executable.calculate_workgroups (IREE's ops,
// not in the reference), every optional part included.
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// The example of the reference, verbatim.
// CHECK-LABEL: hal.executable private @ex {
hal.executable private @ex {
  // The target prints stripped.
  // CHECK-NEXT: hal.executable.variant public @x86 target(<"llvm-cpu", "embedded-elf-x86_64">) {
  hal.executable.variant public @x86 target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // CHECK-NEXT: hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%arg0: !hal.device, %arg1: index) -> (index, index, index) {
    // CHECK-NEXT:   %c1 = arith.constant 1 : index
    // CHECK-NEXT:   hal.return %arg1, %c1, %c1 : index, index, index
    // CHECK-NEXT: }
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device, %n: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %n, %c1, %c1 : index, index, index
    }
    // CHECK-NEXT: builtin.module {
    builtin.module {
      func.func @entry() {
        return
      }
    }
  }
}

// `lazy`, objects, sources, attributes, the full target form, a variant
// condition, and an export with condition + fallback and workgroup sizes.
// CHECK-LABEL: hal.executable public lazy @full attributes {note} {
hal.executable public lazy @full attributes {note} {
  // CHECK-NEXT: hal.executable.variant private @v target(<"llvm-cpu", "embedded-elf-x86_64", {cpu = "host"}>) objects([#hal.executable.object<{path = "k.o"}>]) sources({k.c = "int k;"}) attributes {note} {
  hal.executable.variant private @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "host"}>) objects([#hal.executable.object<{path = "k.o"}>]) sources({"k.c" = "int k;"}) attributes {note} {
    // CHECK-NEXT: hal.executable.condition(%arg0: !hal.device) -> i1 {
    // CHECK-NEXT:   %ok, %value = hal.device.query<%arg0 : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
    // CHECK-NEXT:   hal.return %value : i1
    // CHECK-NEXT: }
    hal.executable.condition(%dev: !hal.device) -> i1 {
      %ok, %v = hal.device.query<%dev : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
      hal.return %v : i1
    }
    // CHECK-NEXT: hal.executable.export public @fast layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) condition(%arg0: !hal.device, %arg1: index) -> i1 {
    // CHECK-NEXT:   %true = arith.constant true
    // CHECK-NEXT:   hal.return %true : i1
    // CHECK-NEXT: } fallback(@slow) count(%arg0: !hal.device, %arg1: index) -> (index, index, index) {
    // CHECK-NEXT:   hal.return %arg1, %arg1, %arg1 : index, index, index
    // CHECK-NEXT: } attributes {subgroup_size = 32 : index, workgroup_size = [64 : index, 1 : index, 1 : index]}
    hal.executable.export public @fast layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) condition(%dev: !hal.device, %w: index) -> i1 {
      %true = arith.constant true
      hal.return %true : i1
    } fallback(@slow) count(%dev: !hal.device, %w: index) -> (index, index, index) {
      hal.return %w, %w, %w : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index], subgroup_size = 32 : index}
    // No ordinal, no regions.
    // CHECK-NEXT: hal.executable.export public @slow layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    hal.executable.export @slow layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    // A count region without workload arguments.
    // CHECK-NEXT: hal.executable.export private @fixed ordinal(2) layout(#hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<uniform_buffer, "ReadOnly|Indirect">], flags = Indirect>) count(%arg0: !hal.device) -> (index, index, index) {
    hal.executable.export private @fixed ordinal(2) layout(#hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<uniform_buffer, "ReadOnly|Indirect">], flags = Indirect>) count(%dev: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
  }
}

// The condition's attributes go between its signature and its body.
// CHECK-LABEL: hal.executable private @conditioned {
hal.executable private @conditioned {
  // CHECK-NEXT: hal.executable.variant public @v target(<"vmvx", "vmvx-bytecode-fb">) {
  // CHECK-NEXT:   hal.executable.condition(%arg0: !hal.device) -> i1 attributes {note} {
  hal.executable.variant public @v target(<"vmvx", "vmvx-bytecode-fb">) {
    hal.executable.condition(%dev: !hal.device) -> i1 attributes {note} {
      %false = arith.constant false
      hal.return %false : i1
    }
  }
}

// An executable without variants yet.
// CHECK-LABEL: hal.executable private @empty {
// CHECK-NEXT: }
hal.executable private @empty {
}

// CHECK-LABEL: @lookup
util.func public @lookup(%dev: !hal.device) -> !hal.executable {
  // CHECK: hal.executable.lookup device(%arg0 : !hal.device) executable(@ex) : !hal.executable
  %exe = hal.executable.lookup device(%dev : !hal.device) executable(@ex) : !hal.executable
  // CHECK: hal.executable.lookup device(%arg0 : !hal.device) executable(@full) : !hal.executable attributes {note}
  %exe1 = hal.executable.lookup device(%dev : !hal.device) executable(@full) : !hal.executable attributes {note}
  util.return %exe : !hal.executable
}

// CHECK-LABEL: @calculate_workgroups
util.func public @calculate_workgroups(%dev: !hal.device, %n: index) -> (index, index, index) {
  // CHECK: %workgroup_x, %workgroup_y, %workgroup_z = hal.executable.calculate_workgroups device(%arg0 : !hal.device) target(@ex::@x86::@entry) workload([%arg1]) : index, index, index
  %x, %y, %z = hal.executable.calculate_workgroups device(%dev : !hal.device) target(@ex::@x86::@entry) workload([%n]) : index, index, index
  util.return %x, %y, %z : index, index, index
}
