// RUN: fleet-opt %s --split-input-file --verify-diagnostics --hal-serialize-executables

// Only llvm-cpu variants hold Fleet kernel objects.
hal.executable private @wrong_backend {
  // expected-error @+1 {{has target backend "vmvx"; hal-serialize-executables compiles only 'llvm-cpu' and 'vulkan-spirv' variants}}
  hal.executable.variant public @vm target(<"vmvx", "vmvx-bytecode-fb">) {
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    builtin.module {
      func.func @entry(%arg0: !stream.binding) {
        return
      }
    }
  }
}

// -----

// An export needs a function of its name in the kernel module.
hal.executable private @missing_function {
  // expected-error @+1 {{kernel compilation failed: export 'entry': no function 'entry' in the kernel module}}
  hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) {
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    builtin.module {
      func.func @other(%arg0: !stream.binding) {
        return
      }
    }
  }
}

// -----

// Dispatch arguments are bindings or primitives (docs/pipeline.md).
hal.executable private @bad_argument {
  // expected-error @+1 {{argument 0 has type 'memref<4xf32>'; dispatch arguments are !stream.binding or primitives}}
  hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) {
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    builtin.module {
      func.func @entry(%arg0: memref<4xf32>) {
        return
      }
    }
  }
}

// -----

// A binding viewed with a non-identity layout cannot be a memref.view.
hal.executable private @strided_view {
  // expected-error @+1 {{views a binding as 'memref<4xf32, strided<[2]>>'; the kernel compiler supports memrefs with the identity layout}}
  hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) {
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    builtin.module {
      func.func @entry(%arg0: !stream.binding) {
        %c0 = arith.constant 0 : index
        %0 = stream.binding.subspan %arg0[%c0] : !stream.binding -> memref<4xf32, strided<[2]>>
        return
      }
    }
  }
}
