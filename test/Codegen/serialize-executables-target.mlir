// RUN: fleet-opt %s --hal-serialize-executables=target=llvm-cpu | FileCheck %s
// RUN: not fleet-opt %s --hal-serialize-executables 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: not fleet-opt %s --hal-serialize-executables=target=vmvx 2>&1 | FileCheck %s --check-prefix=OTHER

// target= (IREE's per-backend serialization) restricts the pass to the
// variants of that backend (llvm-cpu or vulkan-spirv): the vmvx variant
// keeps its module, which without the option is an error.
// CHECK-LABEL: hal.executable private @mixed
// CHECK: hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) objects([#hal.executable.object<{data = dense<"0x7F454C46
// CHECK: hal.executable.variant public @vm target(<"vmvx", "vmvx-bytecode-fb">) {
// CHECK: builtin.module
// CHECK: func.func @entry
// ALL: error: 'hal.executable.variant' op has target backend "vmvx"; hal-serialize-executables compiles only 'llvm-cpu' and 'vulkan-spirv' variants
// OTHER: error: hal-serialize-executables: target 'vmvx' is not a backend Fleet compiles kernels for ('llvm-cpu', 'vulkan-spirv')
hal.executable private @mixed {
  hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) {
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%device: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
    builtin.module {
      func.func @entry(%arg0: !stream.binding) {
        return
      }
    }
  }
  hal.executable.variant public @vm target(<"vmvx", "vmvx-bytecode-fb">) {
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    builtin.module {
      func.func @entry(%arg0: !stream.binding) {
        return
      }
    }
  }
}
