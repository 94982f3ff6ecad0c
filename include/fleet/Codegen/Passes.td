//===- Passes.td - kernel codegen passes --------------------*- tablegen -*-===//

#ifndef FLEET_CODEGEN_PASSES_TD
#define FLEET_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def ResolveExecutableTargetsPass
    : Pass<"codegen-resolve-executable-targets", "mlir::ModuleOp"> {
  let summary = "Gives every local device its CPU executable target, with "
                "the facts kernel codegen sizes tiles from";
  let description = [{
    Invariant established: every `!hal.device` global initialized with
    `#hal.device.target<"local", ...>` lists at least one
    `#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {...}>`, and
    each such target's configuration has `cpu`, `native_vector_size`
    (bytes) and `cache_sizes` (array<i64: L1d, L2>, bytes per core), plus
    `cpu_features` when given (fleet/Codegen/CPUTarget.h). A device without
    targets gets the default one: `target-cpu` and `cache-sizes` (the global
    `--llvmcpu-target-cpu` and `--llvmcpu-cache-sizes`; empty sizes: the
    host's, read from the OS). Keys a declared target gives stay; missing
    ones are filled the same way. An unknown CPU or malformed sizes are an
    error at the device global. IREE's device targets carry their
    executable targets the same way (`#hal.device.target<"local",
    [#hal.executable.target<...>]>`).

    ```mlir
    util.global private @dev = #hal.device.target<"local", {ordinal = 0 : index}> : !hal.device
    // becomes, with --llvmcpu-target-cpu=haswell --llvmcpu-cache-sizes=32K,256K
    util.global private @dev = #hal.device.target<"local", {ordinal = 0 : index}, [#hal.executable.target<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 262144>, cpu = "haswell", native_vector_size = 32 : i64}>]> : !hal.device
    ```
  }];
  let options = [
    Option<"targetCPU", "target-cpu", "std::string",
           /*default=*/"::fleet::codegen::getFlagDefaults().targetCPU",
           "CPU of a target that names none: `host` or an LLVM CPU name "
           "(default: --llvmcpu-target-cpu)">,
    Option<"cacheSizes", "cache-sizes", "std::string",
           /*default=*/"::fleet::codegen::getFlagDefaults().cacheSizes",
           "L1,L2 cache sizes in bytes of a target that gives none "
           "(default: --llvmcpu-cache-sizes; empty: the host's)">
  ];
}

def ConfigureWorkgroupsPass
    : Pass<"codegen-configure-workgroups", "mlir::ModuleOp"> {
  let summary = "Picks a kernel strategy per dispatch and executable "
                "variant and distributes its outer tile loop over the "
                "workgroup grid";
  let description = [{
    Runs in the HAL phase on every `hal.executable.variant` of Fleet's CPU
    target (`llvm-cpu`, `fleet-object-x86_64`), with that target's vector
    width and cache sizes (fleet/Codegen/CPUTarget.h; missing keys from the
    options), so an executable dispatched on two kinds of target gets two
    tile choices and two grids. (It also configures `stream.executable`s
    with the options' target, which tests of single kernels use.) For each
    export whose dispatch function is still in tensor form
    (docs/pipeline.md, "Dispatch function contract") it classifies the
    computation (matmul, batch_matmul, elementwise, reduction, generic;
    docs/kernels.md), picks workgroup tile sizes from the static shapes and
    the target (docs/kernels.md "Workgroup tiles") and then

    - tiles the op that produces the stored result (the root) with
      `scf.forall`, fusing every producer into the tile;
    - replaces the loop by `stream.dispatch.workgroup.id[i]`: the body now
      computes one tile, reads the slices of the bindings it needs and
      writes its slice of the result binding
      (`bufferization.materialize_in_destination` into a `memref.subview`);
    - rewrites the export's `count` region to return the grid as constants
      (x = innermost tiled loop); `hal-materialize-workgroup-counts` then
      puts them where the host dispatches;
    - records the decision as `fleet.codegen` on the variant's function so
      that serialization (`hal-serialize-executables`) finishes the job.

    Exports whose function already carries `fleet.codegen`, or whose body
    does not have exactly one tileable root, keep a 1x1x1 grid (one
    workgroup computes everything; still correct).

    ```mlir
    hal.executable.variant public @fleet_object target(<"llvm-cpu", "fleet-object-x86_64", {cache_sizes = array<i64: 32768, 1048576>, cpu = "host", native_vector_size = 64 : i64}>) {
      hal.executable.export public @mm ordinal(0) layout(...) count(%dev: !hal.device) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %c1, %c1, %c1 : index, index, index
      }
      ...
    // becomes, for a 512x512x512 f32 matmul with AVX-512
      hal.executable.export public @mm ordinal(0) layout(...) count(%dev: !hal.device) -> (index, index, index) {
        %c4 = arith.constant 4 : index
        %c8 = arith.constant 8 : index
        %c1 = arith.constant 1 : index
        hal.return %c4, %c8, %c1 : index, index, index
      }
    // and the function body computes the 64x128 tile at
    // (64 * workgroup.id[1], 128 * workgroup.id[0]); a variant for
    // cpu = "haswell" (AVX2) gets 32x64 tiles and a 8x16 grid.
    ```
  }];
  let options = [
    Option<"targetCPU", "target-cpu", "std::string",
           /*default=*/"::fleet::codegen::getFlagDefaults().targetCPU",
           "CPU for stream executables and targets that name none "
           "(default: --llvmcpu-target-cpu)">,
    Option<"cacheSizes", "cache-sizes", "std::string",
           /*default=*/"::fleet::codegen::getFlagDefaults().cacheSizes",
           "L1,L2 bytes for stream executables and targets that give none "
           "(default: --llvmcpu-cache-sizes; empty: the host's)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"];
}

def SerializeExecutablesPass
    : Pass<"hal-serialize-executables", "mlir::ModuleOp"> {
  let summary = "Compiles each executable variant's kernel module to an "
                "object file stored in the variant";
  let description = [{
    For every `hal.executable.variant` that still holds an inner
    `builtin.module`, compiles the module with Fleet's kernel compiler
    (fleet/Codegen/KernelCompiler.h: one-shot bufferization, tiling and
    vectorization, LLVM dialect, LLVM IR, object code for `target-cpu`) into
    a relocatable ELF object that defines, per `hal.executable.export`, the
    KernelABI.h entry point of that name. The module is replaced by the
    object bytes:

    ```mlir
    hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">) {
      hal.executable.export public @abs ordinal(0) layout(...)
      builtin.module { func.func @abs(%arg0: !stream.binding, ...) {...} }
    }
    // becomes
    hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">)
        objects([#hal.executable.object<{data = dense<[127, 69, 76, 70, ...]> : vector<1234xi8>}>]) {
      hal.executable.export public @abs ordinal(0) layout(...)
    }
    ```

    A `vulkan-spirv` variant is compiled by the SPIR-V kernel compiler
    (fleet/Codegen/SPIRVKernelCompiler.h) into one SPIR-V module with a
    GLCompute entry point per export, stored the same way
    (docs/kernel-abi.md "SPIR-V executables").

    A kernel the compiler cannot handle is an error on the variant naming
    the export and the reason. A variant of another backend is an error too,
    unless `target=llvm-cpu` (or `vulkan-spirv`) restricts the pass to that
    backend's variants (as IREE's per-backend serialization); then the
    others are left as they are. With `dump-intermediates-path=DIR` each variant's LLVM IR, as
    compiled to the object, is written to
    `DIR/<executable>_<variant>.codegen.ll`.
  }];
  let options = [
    Option<"targetCPU", "target-cpu", "std::string",
           /*default=*/"::fleet::codegen::getFlagDefaults().targetCPU",
           "CPU to compile for: `host` (the detected CPU and its features) "
           "or an LLVM CPU name such as `x86-64-v3` (default: the global "
           "--llvmcpu-target-cpu, itself `host` by default)">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Backend whose variants are serialized (llvm-cpu or "
           "vulkan-spirv); variants of other backends are then left alone. "
           "Empty: every variant, which must be one of those">,
    Option<"dumpIntermediatesPath", "dump-intermediates-path", "std::string",
           /*default=*/"\"\"",
           "Directory to write each variant's LLVM IR to "
           "(<executable>_<variant>.codegen.ll)">
  ];
}

def LinkExecutablesPass
    : Pass<"hal-link-executables", "mlir::ModuleOp"> {
  let summary = "Links the kernel objects of all llvm-cpu variants into one "
                "shared object per target, stored on the module";
  let description = [{
    Runs after `hal-serialize-executables` (Fleet-only). The relocatable
    objects of every `llvm-cpu` variant with the same
    `#hal.executable.target` are linked with lld (fleet/Codegen/KernelLinker.h)
    into one ELF shared object, after renaming each export's entry symbol
    to `fleet_kernel_<n>_<export>` so equal export names of different
    executables do not clash. The library goes into the module attribute
    `fleet.kernel_libraries` with its target CPU, the CPU features the
    kernels may use, the kernel-ABI version and a checksum; each variant
    loses its `objects` and names its library and entry symbols instead
    (runtime/include/fleet/runtime/hal/KernelLibrary.h). A `vulkan-spirv`
    variant's SPIR-V module needs no linking: it becomes a library of its
    own (`spirv_<executable>_<variant>`, format `vulkan-spirv`, no CPU)
    whose entry symbols are the export names:

    ```mlir
    module attributes {fleet.kernel_libraries = [{abi_version = 1 : i64,
        checksum = "...", cpu_features = ["sse2", ...], data = dense<...> :
        vector<Nxi8>, format = "fleet-object-x86_64", name =
        "kernels_fleet-object-x86_64", target_cpu = "znver3"} ]} {
      hal.executable private @abs {
        hal.executable.variant public @x86 target(<"llvm-cpu", "fleet-object-x86_64">)
            attributes {fleet.kernel_library = {library = "kernels_fleet-object-x86_64",
                                                symbols = ["fleet_kernel_0_abs"]}} {
          hal.executable.export public @abs ordinal(0) layout(...)
        }
      }
    }
    ```

    A variant that still holds a kernel module, an object without the
    export's symbol, or a failed link (e.g. a symbol two objects define) is
    an error; the linker's message is quoted. Variants already linked are
    left as they are.
  }];
  let options = [
    Option<"targetCPU", "target-cpu", "std::string",
           /*default=*/"::fleet::codegen::getFlagDefaults().targetCPU",
           "CPU the objects were compiled for (as hal-serialize-executables'"
           " option): decides the recorded CPU features">,
    Option<"linker", "linker", "std::string", /*default=*/"\"\"",
           "ld.lld to run (default: $FLEET_LLD, else lld-22's ld.lld)">
  ];
}

#endif // FLEET_CODEGEN_PASSES_TD
