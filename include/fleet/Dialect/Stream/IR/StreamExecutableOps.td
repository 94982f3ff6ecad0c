//===- StreamExecutableOps.td - executables and misc ops ----*- tablegen -*-===//
//
// docs/ir-reference.md "Executables and misc": stream.executable with its
// exports and inner module, the ops used inside dispatch functions, the
// affinity resolution op and the test-only ops.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMEXECUTABLEOPS_TD
#define FLEET_DIALECT_STREAM_IR_STREAMEXECUTABLEOPS_TD

def Stream_ExecutableOp : Stream_Op<"executable", [
    IsolatedFromAbove, SingleBlock, NoTerminator, Symbol, SymbolTable]> {
  let summary = "Dispatch functions and their exports";
  let description = [{
    A container for an export list and one inner `builtin.module` holding
    the dispatch functions (arguments `!stream.binding` and primitives).

    ```mlir
    stream.executable private @ex {
      stream.executable.export public @entry workgroups(%x: index) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        stream.return %x, %c1, %c1 : index, index, index
      }
      builtin.module {
        func.func @entry(%in: !stream.binding, %n: index) {
          return
        }
      }
    }
    ```
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name
  );
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility) $sym_name
    attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = [{
    /// The inner builtin.module holding the dispatch functions, or null.
    ::mlir::ModuleOp getInnerModule();
  }];
  let hasVerifier = 1;
}

def Stream_ExecutableExportOp : Stream_Op<"executable.export", [
    IsolatedFromAbove, Symbol, HasParent<"ExecutableOp">]> {
  let summary = "An entry point of an executable";
  let description = [{
    Names a function of the executable's inner module (`function_ref`). The
    export's own symbol is the string after `as`, or the function name when
    `as` is absent. The optional `workgroups` region computes the workgroup
    count from the dispatch workload: its arguments are the workload
    (`index`), and it returns three `index` values with `stream.return`.

    ```mlir
    stream.executable.export public @entry workgroups(%x: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      stream.return %x, %c1, %c1 : index, index, index
    }
    stream.executable.export public @entry as("entry_v2")
    ```
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name,
    FlatSymbolRefAttr:$function_ref
  );
  let regions = (region AnyRegion:$workgroup_count);
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility)
    custom<SymbolAlias>($sym_name, $function_ref) ``
    custom<WorkgroupCountRegion>($workgroup_count)
    attr-dict-with-keyword
  }];
  let extraClassDeclaration = [{
    /// The dispatch function in the executable's inner module, or null.
    ::mlir::FunctionOpInterface lookupFunction();
  }];
  let hasRegionVerifier = 1;
}

def Stream_BindingSubspanOp : Stream_PureOp<"binding.subspan"> {
  let summary = "A typed view of a dispatch binding";
  let description = [{
    The result can be any type; for a shaped type the `{...}` lists its `?`
    dims. Attributes go before `:`.

    ```mlir
    %v = stream.binding.subspan %in[%c0] : !stream.binding -> memref<?xf32>{%n}
    ```
  }];
  let arguments = (ins
    Stream_Binding:$binding,
    Index:$byte_offset,
    Variadic<Index>:$dynamic_dims
  );
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $binding `[` $byte_offset `]` attr-dict `:`
    type($binding) `->` type($result) (`` `{` $dynamic_dims^ `}`)?
  }];
  let hasVerifier = 1;
}

def Stream_ReturnOp : Stream_Op<"return", [
    Pure, ReturnLike, Terminator, HasParent<"ExecutableExportOp">]> {
  let summary = "Terminator of an export's workgroups region";
  let description = [{
    Attributes go first.

    ```mlir
    stream.return %x, %c1, %c1 : index, index, index
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

def Stream_ContextResolveOp : Stream_PureOp<"context.resolve", [
    Stream_AffinityOp]> {
  let summary = "Turns an affinity into HAL objects";
  let description = [{
    The result types are free-form (an allocator, a device and queue mask,
    ...). Attributes go before `:`.

    ```mlir
    %alloc = stream.context.resolve : !hal.allocator
    %dev, %q = stream.context.resolve on(#hal.device.affinity<@gpu0, [1]>) : !hal.device, i64
    ```
  }];
  let arguments = (ins OptionalAttr<Stream_AffinityAttrParam>:$affinity);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)? attr-dict `:` type($results)
  }];
}

//===----------------------------------------------------------------------===//
// Dispatch workgroup queries (not in docs/ir-reference.md; IREE's syntax)
//===----------------------------------------------------------------------===//

class Stream_DispatchWorkgroupOp<string mnemonic, string what>
    : Stream_PureOp<mnemonic> {
  let summary = "Workgroup " # what # " along one dimension";
  let description = [{
    Valid only inside a function of an executable's inner module; the
    dimension is 0, 1 or 2. Fleet needs this op but docs/ir-reference.md does
    not list it: the syntax is IREE's.

    ```mlir
    %v = stream.}] # mnemonic # [{[0] : index
    ```
  }];
  let arguments = (ins IndexAttr:$dimension);
  let results = (outs Index:$result);
  let assemblyFormat = "`[` $dimension `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Stream_DispatchWorkgroupIDOp
    : Stream_DispatchWorkgroupOp<"dispatch.workgroup.id", "index">;
def Stream_DispatchWorkgroupCountOp
    : Stream_DispatchWorkgroupOp<"dispatch.workgroup.count", "count">;
def Stream_DispatchWorkgroupSizeOp
    : Stream_DispatchWorkgroupOp<"dispatch.workgroup.size", "size">;

//===----------------------------------------------------------------------===//
// Test-only ops
//===----------------------------------------------------------------------===//

def Stream_TestTimelineAwareOp : Stream_Op<"test.timeline_aware", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Stream_TimelineAwareOp>]> {
  let summary = "Test-only op that waits on and signals fences";
  let description = [{
    Stands for a timeline-aware call in tests: it takes zero or more wait
    fences and one signal fence (`!stream.test.fence`). Attributes go
    before `:`.

    ```mlir
    %o = stream.test.timeline_aware(%v) waits(%w0, %w1) signals(%s) : (!hal.buffer_view) -> !hal.buffer_view
    ```
  }];
  let arguments = (ins
    Variadic<AnyType>:$args,
    Variadic<Stream_TestFence>:$waits,
    Stream_TestFence:$signal
  );
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    `(` $args `)` `waits` `(` $waits `)` `signals` `(` $signal `)`
    attr-dict `:` functional-type($args, $results)
  }];
}

def Stream_TestTimelineOp : Stream_Op<"test.timeline_op", [
    AttrSizedOperandSegments,
    Stream_TimelineOp,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedOperandsIndexAndLength"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Test-only timeline op awaiting several timepoints";
  let description = [{
    Stands for an op that waits for up to `await_limit` timepoints (no
    limit when absent), uses resources and produces a timepoint; tests of
    timepoint passes use it. Results may be tied to operands.

    ```mlir
    %r, %t = stream.test.timeline_op await_limit(2) await(%a, %b) => with(%x) : (!stream.resource<*>{%s}) -> %x{%s} => !stream.timepoint
    ```
  }];
  let arguments = (ins
    Variadic<Stream_Timepoint>:$await_timepoints,
    Variadic<AnyType>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes,
    Variadic<Index>:$result_sizes,
    OptionalAttr<Stream_TiedOpStorageAttr>:$tied_operands,
    OptionalAttr<I64Attr>:$await_limit
  );
  let results = (outs
    Variadic<AnyType>:$results,
    Stream_Timepoint:$result_timepoint
  );
  let assemblyFormat = [{
    (`await_limit` `(` $await_limit^ `)`)?
    (`await` `(` $await_timepoints^ `)` `=` `` `>`)?
    `with` `(` $resource_operands `)` `:`
    custom<ShapedFunctionType>(ref($resource_operands),
                               type($resource_operands),
                               $resource_operand_sizes,
                               type($results),
                               $result_sizes,
                               $tied_operands)
    `=` `` `>` type($result_timepoint)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = Stream_TimelineSetAwaitDecl;
}

#endif // FLEET_DIALECT_STREAM_IR_STREAMEXECUTABLEOPS_TD
