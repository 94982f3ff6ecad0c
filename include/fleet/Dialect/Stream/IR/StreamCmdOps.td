//===- StreamCmdOps.td - explicit commands -------------------*- tablegen -*-===//
//
// docs/ir-reference.md "Explicit commands": the form after allocation
// scheduling. Commands read and write byte ranges of captured resources in
// place and have no results; stream.cmd.execute submits them and yields a
// timepoint.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMCMDOPS_TD
#define FLEET_DIALECT_STREAM_IR_STREAMCMDOPS_TD

def Stream_CmdExecuteOp : Stream_Op<"cmd.execute", [
    AttrSizedOperandSegments, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">,
    Stream_AffinityOp,
    Stream_TimelineOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "A command submission";
  let description = [{
    Records the commands of its body and submits them once the optional
    awaited timepoint is reached; the only result is a timepoint reached
    when they are done. `once` means it is recorded and run a single time.
    Resources used in the body are captured with `with(...)`; the
    `stream.yield` terminator is implicit.

    ```mlir
    %done = stream.cmd.execute once on(#hal.device.affinity<@gpu0>) await(%tp) => with(%in as %ci: !stream.resource<external>{%isz}, %tmp as %ct: !stream.resource<transient>{%tsz}) {
      stream.cmd.copy %ci[%c0], %ct[%c0], %isz : !stream.resource<external>{%isz} -> !stream.resource<transient>{%tsz}
    } => !stream.timepoint
    ```
  }];
  let arguments = (ins
    Variadic<Stream_AnyResource>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes,
    Optional<Stream_Timepoint>:$await_timepoint,
    UnitAttr:$once,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_Timepoint:$result_timepoint);
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{
    (`once` $once^)?
    (`on` `(` $affinity^ `)`)?
    (`await` `(` $await_timepoint^ `)` `=` `` `>`)?
    `with` ``
    custom<ExplicitResourceRegion>($resource_operands,
                                   type($resource_operands),
                                   $resource_operand_sizes, $body)
    `=` `` `>` type($result_timepoint)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = Stream_TimelineAwaitDecls;
}

def Stream_CmdSerialOp : Stream_Op<"cmd.serial", [
    RecursiveMemoryEffects, NoRegionArguments,
    SingleBlockImplicitTerminator<"YieldOp">,
    ParentOneOf<["CmdExecuteOp", "CmdSerialOp", "CmdConcurrentOp"]>,
    Stream_StreamableOp]> {
  let summary = "Runs the nested commands in order";
  let description = [{
    Attributes go after the region.

    ```mlir
    stream.cmd.serial {
      stream.cmd.fill %c0_i32, %ct[%c0 for %tsz] : i32 -> !stream.resource<transient>{%tsz}
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "custom<ImplicitYieldRegion>($body) attr-dict-with-keyword";
  let hasRegionVerifier = 1;
}

def Stream_CmdConcurrentOp : Stream_Op<"cmd.concurrent", [
    RecursiveMemoryEffects, NoRegionArguments,
    SingleBlockImplicitTerminator<"YieldOp">,
    ParentOneOf<["CmdExecuteOp", "CmdSerialOp", "CmdConcurrentOp"]>,
    Stream_StreamableOp]> {
  let summary = "Runs the nested commands possibly overlapped";
  let description = [{
    Attributes go after the region.

    ```mlir
    stream.cmd.concurrent {
      stream.cmd.fill %c0_i32, %ct[%c0 for %tsz] : i32 -> !stream.resource<transient>{%tsz}
      stream.cmd.discard %cu[%c0 for %usz] : !stream.resource<transient>{%usz}
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "custom<ImplicitYieldRegion>($body) attr-dict-with-keyword";
  let hasRegionVerifier = 1;
}

def Stream_CmdDispatchOp : Stream_Op<"cmd.dispatch", [
    AttrSizedOperandSegments, Stream_StreamableOp,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Dispatches an executable export over resource ranges";
  let description = [{
    Entry points, an optional `[workload]`, optional `(uniforms : types)`
    with no space, then one `access %res[%offset for %length] : T{%sz}` per
    bound resource, each `ro`, `wo` or `rw`.

    ```mlir
    stream.cmd.dispatch {@ex::@a, @ex::@b}[%n](%n, %k : index, i32) {
      ro %ci[%c0 for %isz] : !stream.resource<external>{%isz},
      rw %ct[%c0 for %tsz] : !stream.resource<transient>{%tsz}
    }
    ```
  }];
  let arguments = (ins
    Variadic<Index>:$workload,
    SymbolRefArrayAttr:$entry_points,
    Variadic<Stream_PrimitiveType>:$uniform_operands,
    Variadic<Stream_StreamResource>:$resources,
    Variadic<Index>:$resource_sizes,
    Variadic<Index>:$resource_offsets,
    Variadic<Index>:$resource_lengths,
    Stream_ResourceAccessArrayAttr:$resource_accesses
  );
  let assemblyFormat = [{
    custom<DispatchEntryPoints>($entry_points)
    (`[` $workload^ `]`)? ``
    (`(` $uniform_operands^ `:` type($uniform_operands) `)`)? ``
    custom<DispatchResources>($resources, type($resources), $resource_sizes,
                              $resource_offsets, $resource_lengths,
                              $resource_accesses)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_CmdFuncOp : Stream_Op<"cmd.func", [
    CallableOpInterface, FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "Declares an external function for stream.cmd.call";
  let description = [{
    There is no body. A resource argument prints as
    `%argN[%argN+1 for %argN+2]: T` and stands for three function inputs:
    the resource, then an `index` offset and length. Results are plain types
    (no ties), with optional attribute dictionaries.

    ```mlir
    stream.cmd.func private @ext(%arg0[%arg1 for %arg2]: !stream.resource<*>, %arg3: i32)
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<StrAttr>:$sym_visibility,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs
  );
  let regions = (region AnyRegion:$body);
  let extraClassDeclaration = [{
    /// FunctionOpInterface / CallableOpInterface: a declaration only.
    ::mlir::Region *getCallableRegion() { return nullptr; }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Stream_CmdCallOp : Stream_Op<"cmd.call", [
    AttrSizedOperandSegments, Stream_StreamableOp, CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Calls a stream.cmd.func from inside stream.cmd.execute";
  let description = [{
    Resource operands are `ro|wo|rw %r[%offset for %length]`; other operands
    are bare. Results are primitives; none is written `-> ()`.

    ```mlir
    stream.cmd.call @ext(ro %ci[%c0 for %isz], %k, rw %ct[%off for %len]) : (!stream.resource<external>{%isz}, i32, !stream.resource<transient>{%tsz}) -> ()
    ```
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$callee,
    Variadic<AnyType>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes,
    Variadic<Index>:$resource_operand_offsets,
    Variadic<Index>:$resource_operand_lengths,
    Variadic<Index>:$result_sizes,
    OptionalAttr<Stream_TiedOpStorageAttr>:$tied_operands,
    Stream_ResourceAccessArrayAttr:$resource_operand_accesses,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs
  );
  let results = (outs Variadic<Stream_PrimitiveType>:$results);
  let assemblyFormat = [{
    $callee ``
    custom<CmdCallOperands>($resource_operands,
                            $resource_operand_offsets,
                            $resource_operand_lengths,
                            $resource_operand_accesses)
    attr-dict `:`
    custom<ShapedFunctionType>(ref($resource_operands),
                               type($resource_operands),
                               $resource_operand_sizes,
                               type($results),
                               $result_sizes,
                               $tied_operands)
  }];
  let extraClassDeclaration = [{
    /// CallOpInterface. The callee's inputs expand each resource operand
    /// into (resource, offset, length), so the argument operands here are
    /// only the mixed operand list.
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return getCalleeAttr();
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      setCalleeAttr(::llvm::cast<::mlir::FlatSymbolRefAttr>(
          ::llvm::cast<::mlir::SymbolRefAttr>(callee)));
    }
    ::mlir::Operation::operand_range getArgOperands() {
      return getResourceOperands();
    }
    ::mlir::MutableOperandRange getArgOperandsMutable() {
      return getResourceOperandsMutable();
    }
  }];
  let hasVerifier = 1;
}

def Stream_CmdCopyOp : Stream_Op<"cmd.copy", [
    Stream_StreamableOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Copies a byte range between two resources";
  let description = [{
    ```mlir
    stream.cmd.copy %ci[%c0], %ct[%off], %isz : !stream.resource<external>{%isz} -> !stream.resource<transient>{%tsz}
    ```
  }];
  let arguments = (ins
    Stream_AnyResource:$source,
    Index:$source_size,
    Index:$source_offset,
    Stream_AnyResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Index:$length
  );
  let assemblyFormat = [{
    $source `[` $source_offset `]` `,`
    $target `[` $target_offset `]` `,`
    $length `:`
    type($source) `` `{` $source_size `}` `->`
    type($target) `` `{` $target_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_CmdFillOp : Stream_Op<"cmd.fill", [
    Stream_StreamableOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Fills a byte range with a pattern";
  let description = [{
    The pattern is `i8`, `i16` or `i32` (no `i64` here); the target is a
    stream resource.

    ```mlir
    stream.cmd.fill %c0_i32, %ct[%c0 for %tsz] : i32 -> !stream.resource<transient>{%tsz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Index:$target_length,
    Stream_CmdFillPatternType:$value
  );
  let assemblyFormat = [{
    $value `,` $target `[` $target_offset `for` $target_length `]` `:`
    type($value) `->` type($target) `` `{` $target_size `}`
    attr-dict-with-keyword
  }];
}

class Stream_CmdRangeOp<string mnemonic, string summaryText,
                        string descriptionText>
    : Stream_Op<mnemonic, [Stream_StreamableOp,
                           DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = summaryText;
  let description = descriptionText;
}

def Stream_CmdFlushOp : Stream_CmdRangeOp<"cmd.flush",
    "Releases a byte range to an external consumer", [{
    The optional `to(#aff)` consumer is kept in the inherent attribute
    `source_affinity`.

    ```mlir
    stream.cmd.flush to(#hal.device.affinity<@cpu>) %ct[%c0 for %tsz] : !stream.resource<transient>{%tsz}
    ```
  }]> {
  let arguments = (ins
    Stream_AnyResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Index:$target_length,
    OptionalAttr<Stream_AffinityAttrParam>:$source_affinity
  );
  let assemblyFormat = [{
    (`to` `(` $source_affinity^ `)`)?
    $target `[` $target_offset `for` $target_length `]` `:`
    type($target) `` `{` $target_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_CmdInvalidateOp : Stream_CmdRangeOp<"cmd.invalidate",
    "Acquires a byte range flushed earlier by a producer", [{
    The optional `from(#aff)` producer is kept in the inherent attribute
    `source_affinity`.

    ```mlir
    stream.cmd.invalidate from(#hal.device.affinity<@gpu1>) %ct[%c0 for %tsz] : !stream.resource<transient>{%tsz}
    ```
  }]> {
  let arguments = (ins
    Stream_AnyResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Index:$target_length,
    OptionalAttr<Stream_AffinityAttrParam>:$source_affinity
  );
  let assemblyFormat = [{
    (`from` `(` $source_affinity^ `)`)?
    $target `[` $target_offset `for` $target_length `]` `:`
    type($target) `` `{` $target_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_CmdDiscardOp : Stream_CmdRangeOp<"cmd.discard",
    "Marks the contents of a byte range as no longer needed", [{
    ```mlir
    stream.cmd.discard %ct[%c0 for %tsz] : !stream.resource<transient>{%tsz}
    ```
  }]> {
  let arguments = (ins
    Stream_AnyResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Index:$target_length
  );
  let assemblyFormat = [{
    $target `[` $target_offset `for` $target_length `]` `:`
    type($target) `` `{` $target_size `}`
    attr-dict-with-keyword
  }];
}

#endif // FLEET_DIALECT_STREAM_IR_STREAMCMDOPS_TD
