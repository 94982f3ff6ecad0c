//===- HALExecutableOps.td - executables ---------------------*- tablegen -*-===//
//
// docs/ir-reference.md, "hal" / "Executables", plus hal.executable.lookup
// (IREE's op and syntax; the reference does not list it but Fleet's host
// programs need it to name a loaded executable).
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_HAL_IR_HALEXECUTABLEOPS_TD
#define FLEET_DIALECT_HAL_IR_HALEXECUTABLEOPS_TD

def HAL_ExecutableOp : HAL_Op<"executable", [
    IsolatedFromAbove, Symbol, SymbolTable, SingleBlock, NoTerminator]> {
  let summary = "A kernel module with one variant per target";
  let description = [{
    Holds `hal.executable.variant`s (one per executable target) whose
    exports are dispatched with `hal.command_buffer.dispatch`. `lazy` asks
    the runtime to load it on first use instead of at module load.

    ```mlir
    hal.executable private @ex {
      hal.executable.variant public @x86 target(<"llvm-cpu", "embedded-elf-x86_64">) {
        ...
      }
    }
    ```
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    UnitAttr:$lazy,
    SymbolNameAttr:$sym_name
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility)
    (`lazy` $lazy^)?
    $sym_name
    attr-dict-with-keyword
    $body
  }];
  let extraClassDeclaration = [{
    ::mlir::Block &getBlock() { return getBody().front(); }
  }];
}

def HAL_ExecutableVariantOp : HAL_Op<"executable.variant", [
    IsolatedFromAbove, Symbol, SymbolTable, SingleBlock, NoTerminator,
    HasParent<"ExecutableOp">]> {
  let summary = "The executable compiled for one target";
  let description = [{
    Exports and the kernel module (`builtin.module`) for one executable
    target, optionally with object files (`objects([...])`), sources
    (`sources({...})`) and at most one `hal.executable.condition` that
    decides at run time whether the variant fits the device. The target
    prints stripped (`<"backend", "format">`); the full
    `#hal.executable.target<...>` form parses too.

    ```mlir
    hal.executable.variant public @x86 target(<"llvm-cpu", "embedded-elf-x86_64">) objects([#hal.executable.object<{path = "k.o"}>]) {
      hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
      builtin.module {
      }
    }
    ```
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name,
    HAL_ExecutableTargetAttr:$target,
    OptionalAttr<HAL_ExecutableObjectArrayAttr>:$objects,
    OptionalAttr<DictionaryAttr>:$sources
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility)
    $sym_name
    `target` `(` custom<ExecutableTarget>($target) `)`
    (`objects` `(` $objects^ `)`)?
    (`sources` `(` $sources^ `)`)?
    attr-dict-with-keyword
    $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBlock() { return getBody().front(); }
    /// The kernel module, or null when the variant only has objects.
    ::mlir::ModuleOp getInnerModule();
  }];
}

def HAL_ExecutableConditionOp : HAL_Op<"executable.condition", [
    IsolatedFromAbove, HasParent<"ExecutableVariantOp">]> {
  let summary = "Host code deciding whether a variant fits a device";
  let description = [{
    Runs on the host with the candidate device and returns `i1`: whether the
    enclosing variant may be loaded on it. A variant has at most one.

    ```mlir
    hal.executable.condition(%dev: !hal.device) -> i1 {
      %ok, %v = hal.device.query<%dev : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
      hal.return %v : i1
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  // IREE's function-like form: signature, `attributes {...}`, body.
  let assemblyFormat = [{
    `` custom<ConditionFunction>($body, attr-dict)
  }];
  let hasRegionVerifier = 1;
}

def HAL_ExecutableExportOp : HAL_Op<"executable.export", [
    IsolatedFromAbove, Symbol, HasParent<"ExecutableVariantOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "An entry point of an executable variant";
  let description = [{
    Declares one dispatchable entry point: its ordinal, its pipeline layout
    (printed fully qualified) and optionally
    - `condition(%dev: !hal.device, %w: index, ...) -> i1 {...}` with
      `fallback(@other)`: when the condition is false at run time the
      `@other` export (same layout) is dispatched instead; each requires the
      other;
    - `count(%dev: !hal.device, %w: index, ...) -> (index, index, index)
      {...}`: the workgroup grid computed from the dispatch's workload;
    - `attributes {workgroup_size = [...], subgroup_size = ...}`.

    ```mlir
    hal.executable.export public @entry ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device, %n: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %n, %c1, %c1 : index, index, index
    }
    ```
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name,
    OptionalAttr<IndexAttr>:$ordinal,
    HAL_PipelineLayoutAttr:$layout,
    OptionalAttr<FlatSymbolRefAttr>:$condition_fallback,
    OptionalAttr<HAL_WorkgroupSizeAttr>:$workgroup_size,
    OptionalAttr<IndexAttr>:$subgroup_size
  );
  let regions = (region AnyRegion:$condition, AnyRegion:$workgroup_count);
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility)
    $sym_name
    (`ordinal` `(` $ordinal^ `)`)?
    `layout` `(` qualified($layout) `)`
    (`condition` `` custom<ConditionRegion>($condition)^)?
    (`fallback` `(` $condition_fallback^ `)`)?
    (`count` `` custom<WorkgroupCountRegion>($workgroup_count)^)?
    attr-dict-with-keyword
  }];
  let hasRegionVerifier = 1;
}

def HAL_ReturnOp : HAL_Op<"return", [
    Pure, Terminator,
    ParentOneOf<["ExecutableExportOp", "ExecutableConditionOp"]>]> {
  let summary = "Returns values from a hal region";
  let description = [{
    Terminator of the `count` and `condition` regions of
    `hal.executable.export` and of `hal.executable.condition`.

    ```mlir
    hal.return %n, %c1, %c1 : index, index, index
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  // IREE's form: a bare attribute dictionary after the operands.
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
}

def HAL_ExecutableLookupOp : HAL_Op<"executable.lookup", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The loaded form of an executable on a device";
  let description = [{
    Not in docs/ir-reference.md: IREE's op and syntax, which Fleet's host
    programs use to name the executable a dispatch runs. Returns `@ex` as loaded
    on (or cached for) the device.

    ```mlir
    %exe = hal.executable.lookup device(%dev : !hal.device) executable(@ex) : !hal.executable
    ```
  }];
  let arguments = (ins HAL_Device:$device, FlatSymbolRefAttr:$executable);
  let results = (outs HAL_Executable:$result);
  let assemblyFormat = [{
    `device` `(` $device `:` type($device) `)`
    `executable` `(` $executable `)`
    `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_ExecutableCalculateWorkgroupsOp : HAL_Op<"executable.calculate_workgroups", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The workgroup grid of one export of one variant";
  let description = [{
    IREE's op: the grid `@ex::@variant::@export` dispatches for `workload`
    on `device`, as its `count` region computes it. StreamToHAL emits it
    for each dispatch, naming the variant chosen for the dispatch's device,
    before `codegen-configure-workgroups` has decided that variant's grid;
    `hal-materialize-workgroup-counts` then replaces it by the count
    region's body (1, 1, 1 without one).

    ```mlir
    %x, %y, %z = hal.executable.calculate_workgroups device(%dev : !hal.device) target(@ex::@fleet_object::@mm) workload([%n]) : index, index, index
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    SymbolRefAttr:$entry_point,
    Variadic<Index>:$workload
  );
  let results = (outs Index:$workgroup_x, Index:$workgroup_y,
                      Index:$workgroup_z);
  let assemblyFormat = [{
    `device` `(` $device `:` type($device) `)`
    `target` `(` $entry_point `)`
    (`workload` `(` `[` $workload^ `]` `)`)?
    `:` type($workgroup_x) `,` type($workgroup_y) `,` type($workgroup_z)
    attr-dict-with-keyword
  }];
  let extraClassDeclaration = [{
    /// The export named, or null.
    ExecutableExportOp lookupExport(::mlir::SymbolTableCollection &symbols);
  }];
}

#endif // FLEET_DIALECT_HAL_IR_HALEXECUTABLEOPS_TD
