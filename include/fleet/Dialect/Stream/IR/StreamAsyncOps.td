//===- StreamAsyncOps.td - async (value-semantics) ops ------*- tablegen -*-===//
//
// docs/ir-reference.md "Async (value-semantics) ops". Every resource type in
// the syntax is followed by its byte size `{%sz}`; every op but async.load,
// async.store and async.func takes an optional `on(#aff)` first.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMASYNCOPS_TD
#define FLEET_DIALECT_STREAM_IR_STREAMASYNCOPS_TD

def Stream_AsyncAllocaOp : Stream_PureOp<"async.alloca", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Stream_StreamableOp, ["isMetadata"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Uninitialized stream resource";
  let description = [{
    Attributes go before `:`.

    ```mlir
    %a = stream.async.alloca on(#hal.device.affinity<@gpu0>) : !stream.resource<transient>{%sz}
    ```
  }];
  let arguments = (ins
    Index:$storage_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Res<Stream_StreamResource, "", [MemAlloc]>:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    attr-dict `:` type($result) `` `{` $storage_size `}`
  }];
}

def Stream_AsyncSplatOp : Stream_PureOp<"async.splat", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Stream_StreamableOp, ["preferCloneToConsumers"]>,
    DeclareOpInterfaceMethods<Stream_TimelineOp>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "A new resource filled with a repeated pattern";
  let description = [{
    The pattern is `i8`, `i16`, `i32` or `i64`; `await(%tp)` is optional.

    ```mlir
    %s = stream.async.splat on(#hal.device.affinity<@gpu0>) await(%tp) %c0_i32 : i32 -> !stream.resource<transient>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_FillPatternType:$value,
    Index:$result_size,
    Optional<Stream_Timepoint>:$await_timepoint,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Res<Stream_StreamResource, "", [MemAlloc]>:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    (`await` `(` $await_timepoint^ `)`)?
    $value `:` type($value) `->` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_AsyncCloneOp : Stream_PureOp<"async.clone", [
    Stream_AffinityOp, Stream_StreamableOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Copies a whole resource into a new one";
  let description = [{
    ```mlir
    %c = stream.async.clone on(#hal.device.affinity<@gpu0>) %a : !stream.resource<*>{%sz} -> !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$source,
    Index:$source_size,
    Index:$result_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Res<Stream_StreamResource, "", [MemAlloc]>:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source `:` type($source) `` `{` $source_size `}`
    `->` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_AsyncSliceOp : Stream_PureOp<"async.slice", [
    Stream_AffinityOp, Stream_StreamableOp,
    AllTypesMatch<["source", "result"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Copies a byte range into a new resource";
  let description = [{
    Copies [offset, end) into a new resource of the same type.

    ```mlir
    %sl = stream.async.slice %a[%off to %end] : !stream.resource<*>{%sz} -> !stream.resource<*>{%len}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$source,
    Index:$source_size,
    Index:$source_offset,
    Index:$source_end,
    Index:$result_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source `[` $source_offset `to` $source_end `]` `:`
    type($source) `` `{` $source_size `}`
    `->` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_AsyncFillOp : Stream_PureOp<"async.fill", [
    Stream_AffinityOp, Stream_StreamableOp,
    AllTypesMatch<["target", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Fills a byte range of a resource with a pattern";
  let description = [{
    The pattern is `i8`, `i16`, `i32` or `i64`. The result reuses the
    target's storage.

    ```mlir
    %f = stream.async.fill %pat, %dst[%off to %end for %len] : i32 -> %dst as !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Index:$target_end,
    Index:$target_length,
    Stream_FillPatternType:$value,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $value `,`
    $target `[` $target_offset `to` $target_end `for` $target_length `]` `:`
    type($value) `->`
    custom<ShapedTiedResult>(type($target), $target_size)
    attr-dict-with-keyword
  }];
}

def Stream_AsyncUpdateOp : Stream_PureOp<"async.update", [
    Stream_AffinityOp, Stream_StreamableOp,
    AllTypesMatch<["target", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Writes a resource into a byte range of another";
  let description = [{
    The result reuses the target's storage and has its type.

    ```mlir
    %u = stream.async.update %part, %dst[%off to %end] : !stream.resource<*>{%len} -> %dst as !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Index:$target_end,
    Stream_StreamResource:$update,
    Index:$update_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $update `,`
    $target `[` $target_offset `to` $target_end `]` `:`
    type($update) `` `{` $update_size `}` `->`
    custom<ShapedTiedResult>(type($target), $target_size)
    attr-dict-with-keyword
  }];
}

def Stream_AsyncCopyOp : Stream_PureOp<"async.copy", [
    Stream_AffinityOp, Stream_StreamableOp,
    AllTypesMatch<["target", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Copies a byte range between two resources";
  let description = [{
    The result reuses the target's storage.

    ```mlir
    %cp = stream.async.copy %src[%c0 to %len], %dst[%off to %end], %len : !stream.resource<*>{%ssz} -> %dst as !stream.resource<*>{%dsz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$source,
    Index:$source_size,
    Index:$source_offset,
    Index:$source_end,
    Stream_StreamResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Index:$target_end,
    Index:$length,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source `[` $source_offset `to` $source_end `]` `,`
    $target `[` $target_offset `to` $target_end `]` `,`
    $length `:`
    type($source) `` `{` $source_size `}` `->`
    custom<ShapedTiedResult>(type($target), $target_size)
    attr-dict-with-keyword
  }];
}

def Stream_AsyncDispatchOp : Stream_Op<"async.dispatch", [
    AttrSizedOperandSegments, Stream_AffinityOp, Stream_StreamableOp,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedOperandsIndexAndLength"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Dispatches an executable export over resources";
  let description = [{
    Entry points are `@exe::@export` or `{@ex::@a, @ex::@b}`, then an
    optional `[workload]`, then the operands with no space before `(`. Each
    resource operand carries a byte range `[%offset to %end for %length]`;
    primitive operands carry none. Results may be tied to operands.

    ```mlir
    %o = stream.async.dispatch on(#hal.device.affinity<@gpu0>) @ex::@entry[%n](%in[%c0 to %isz for %isz], %acc[%c0 to %asz for %asz], %n) : (!stream.resource<*>{%isz}, !stream.resource<*>{%asz}, index) -> %acc{%asz}
    ```
  }];
  let arguments = (ins
    Variadic<Index>:$workload,
    Variadic<AnyType>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes,
    Variadic<Index>:$resource_operand_offsets,
    Variadic<Index>:$resource_operand_ends,
    Variadic<Index>:$resource_operand_lengths,
    Variadic<Index>:$result_sizes,
    OptionalAttr<Stream_TiedOpStorageAttr>:$tied_operands,
    SymbolRefArrayAttr:$entry_points,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Variadic<Stream_AnyResource>:$results);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    custom<DispatchEntryPoints>($entry_points)
    (`[` $workload^ `]`)? ``
    custom<DispatchOperands>($resource_operands,
                             $resource_operand_offsets,
                             $resource_operand_ends,
                             $resource_operand_lengths)
    attr-dict `:`
    custom<ShapedFunctionType>(ref($resource_operands),
                               type($resource_operands),
                               $resource_operand_sizes,
                               type($results),
                               $result_sizes,
                               $tied_operands)
  }];
  let hasVerifier = 1;
}

def Stream_AsyncConstantOp : Stream_PureOp<"async.constant", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Stream_StreamableOp, ["preferCloneToConsumers"]>,
    DeclareOpInterfaceMethods<Stream_TimelineOp>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "A new resource holding a constant value";
  let description = [{
    The value is any attribute, printed in full. `await(%tp)` is optional
    and has no `=>`.

    ```mlir
    %k = stream.async.constant on(#hal.device.affinity<@gpu0>) await(%tp) : !stream.resource<constant>{%sz} = dense<[1, 2]> : tensor<2xi32>
    ```
  }];
  let arguments = (ins
    AnyAttr:$value,
    Index:$result_size,
    Optional<Stream_Timepoint>:$await_timepoint,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    (`await` `(` $await_timepoint^ `)`)?
    `:` type($result) `` `{` $result_size `}`
    `=` $value
    attr-dict-with-keyword
  }];
}

def Stream_AsyncBarrierOp : Stream_Op<"async.barrier", [
    Stream_AffinityOp, Stream_StreamableOp,
    AllTypesMatch<["source", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Pins a resource to an affinity";
  let description = [{
    Work is not fused or scheduled across this point; the value lives on
    the `on` affinity from here on. The result is the operand (tied).

    ```mlir
    %b = stream.async.barrier on(#hal.device.affinity<@gpu1>) %r : !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_TransferResource:$source,
    Index:$size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_TransferResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source `:` type($source) `` `{` $size `}`
    attr-dict-with-keyword
  }];
}

def Stream_AsyncLoadOp : Stream_Op<"async.load", [
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Reads a value at a byte offset of a staging resource";
  let description = [{
    A primitive or vector; there is no `on`. Not streamable (as in IREE): a
    host read, after the host awaited the resource; schedule-allocation
    makes it a `stream.resource.load`.

    ```mlir
    %x = stream.async.load %st[%off] : !stream.resource<staging>{%sz} -> f32
    ```
  }];
  let arguments = (ins
    Stream_StagingResource:$source,
    Index:$source_size,
    Index:$source_offset
  );
  let results = (outs Stream_PrimitiveOrVectorType:$result);
  let assemblyFormat = [{
    $source `[` $source_offset `]` `:`
    type($source) `` `{` $source_size `}`
    `->` type($result)
    attr-dict-with-keyword
  }];
}

def Stream_AsyncStoreOp : Stream_Op<"async.store", [
    AllTypesMatch<["target", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Writes a value at a byte offset of a staging resource";
  let description = [{
    The result reuses the target's storage; there is no `on`. Not
    streamable: a host write (`stream.resource.store` after
    schedule-allocation).

    ```mlir
    %st2 = stream.async.store %x, %st[%off] : f32 -> %st as !stream.resource<staging>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StagingResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Stream_PrimitiveOrVectorType:$value
  );
  let results = (outs Stream_StagingResource:$result);
  let assemblyFormat = [{
    $value `,` $target `[` $target_offset `]` `:`
    type($value) `->`
    custom<ShapedTiedResult>(type($target), $target_size)
    attr-dict-with-keyword
  }];
}

def Stream_AsyncFuncOp : Stream_Op<"async.func", [
    CallableOpInterface, FunctionOpInterface, IsolatedFromAbove,
    DeclareOpInterfaceMethods<Util_TiedOp,
      ["getTiedOperandsIndexAndLength", "getTiedResultOperandIndex"]>]> {
  let summary = "Declares an external function for stream.async.call";
  let description = [{
    There is no body. The signature prints like util.func: arguments renamed
    `%argN`, visibility always printed, tied results `%argN` or
    `%argN as T`, and no `{size}`s.

    ```mlir
    stream.async.func private @ext(%arg0: !stream.resource<*>, %arg1: index) -> %arg0
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<Stream_TiedOpStorageAttr>:$tied_operands,
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
    /// Tied argument index of result `i` (-1 when not tied).
    int64_t getTiedResultIndex(unsigned resultIndex);
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Stream_AsyncCallOp : Stream_Op<"async.call", [
    AttrSizedOperandSegments, Stream_AffinityOp, Stream_StreamableOp,
    CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedOperandsIndexAndLength"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Calls a stream.async.func";
  let description = [{
    Operands, ranges and results are written as for stream.async.dispatch,
    with a flat `@callee` and no workload.

    ```mlir
    %o = stream.async.call on(#hal.device.affinity<@gpu0>) @ext(%r[%c0 to %sz for %sz], %n) : (!stream.resource<*>{%sz}, index) -> %r{%sz}
    ```
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$callee,
    Variadic<AnyType>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes,
    Variadic<Index>:$resource_operand_offsets,
    Variadic<Index>:$resource_operand_ends,
    Variadic<Index>:$resource_operand_lengths,
    Variadic<Index>:$result_sizes,
    OptionalAttr<Stream_TiedOpStorageAttr>:$tied_operands,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs
  );
  let results = (outs Variadic<Stream_AnyResource>:$results);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $callee ``
    custom<DispatchOperands>($resource_operands,
                             $resource_operand_offsets,
                             $resource_operand_ends,
                             $resource_operand_lengths)
    attr-dict `:`
    custom<ShapedFunctionType>(ref($resource_operands),
                               type($resource_operands),
                               $resource_operand_sizes,
                               type($results),
                               $result_sizes,
                               $tied_operands)
  }];
  let extraClassDeclaration = [{
    /// CallOpInterface.
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

def Stream_AsyncTransferOp : Stream_Op<"async.transfer", [
    Stream_StreamableOp,
    DeclareOpInterfaceMethods<Stream_AffinityOp>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Moves or copies a resource between devices and lifetimes";
  let description = [{
    Three affinities: `on` (where the transfer executes, inherent attribute
    `execution_affinity`), `from` (where the source lives,
    `source_affinity`) and `to` (where the result lives, `target_affinity`).
    Both ends may be staging. Without `on`, a staging or external source
    executes on the target and every other case (staging to staging
    included) on the source (docs/ir-reference.md; docs/design.md §3).

    ```mlir
    %t = stream.async.transfer on(#hal.device.affinity<@gpu1>) %a : !stream.resource<transient>{%sz} from(#hal.device.affinity<@gpu0>) -> to(#hal.device.affinity<@gpu1>) !stream.resource<transient>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_TransferResource:$source,
    Index:$source_size,
    Index:$result_size,
    OptionalAttr<Stream_AffinityAttrParam>:$execution_affinity,
    OptionalAttr<Stream_AffinityAttrParam>:$source_affinity,
    OptionalAttr<Stream_AffinityAttrParam>:$target_affinity
  );
  let results = (outs Stream_TransferResource:$result);
  let assemblyFormat = [{
    (`on` `(` $execution_affinity^ `)`)?
    $source `:` type($source) `` `{` $source_size `}`
    (`from` `(` $source_affinity^ `)`)?
    `->`
    (`to` `(` $target_affinity^ `)`)?
    type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
}

//===----------------------------------------------------------------------===//
// Execution regions
//===----------------------------------------------------------------------===//

def Stream_AsyncExecuteOp : Stream_Op<"async.execute", [
    AttrSizedOperandSegments, RecursiveMemoryEffects, SingleBlock,
    Stream_AffinityOp,
    Stream_TimelineOp,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedOperandsIndexAndLength"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "An atomic unit of device work";
  let description = [{
    The body runs once the optional awaited timepoint is reached; the op
    produces its resource results plus one timepoint reached when they are
    ready. Resources used in the body are captured with
    `with(%outer as %inner: T{%sz}, ...)`. A single result prints without
    parentheses; results may be tied to captures (`-> %acc{%asz}`). The body
    ends in an explicit `stream.yield`.

    ```mlir
    %out, %tp1 = stream.async.execute on(#hal.device.affinity<@gpu0>) await(%tp0) => with(%in as %cin: !stream.resource<external>{%isz}) -> !stream.resource<transient>{%osz} {
      %x = stream.async.dispatch @ex::@entry(%cin[%c0 to %isz for %isz]) : (!stream.resource<external>{%isz}) -> !stream.resource<transient>{%osz}
      stream.yield %x : !stream.resource<transient>{%osz}
    } => !stream.timepoint
    ```
  }];
  let arguments = (ins
    Variadic<Stream_TransferResource>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes,
    Variadic<Index>:$result_sizes,
    Optional<Stream_Timepoint>:$await_timepoint,
    OptionalAttr<Stream_TiedOpStorageAttr>:$tied_operands,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs
    Variadic<Stream_TransferResource>:$results,
    Stream_Timepoint:$result_timepoint
  );
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    (`await` `(` $await_timepoint^ `)` `=` `` `>`)?
    `with` ``
    custom<ResourceRegion>($resource_operands,
                           type($resource_operands), $resource_operand_sizes,
                           type($results), $result_sizes,
                           $tied_operands, $body)
    `=` `` `>` type($result_timepoint)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = Stream_TimelineAwaitDecls;
}

def Stream_AsyncConcurrentOp : Stream_Op<"async.concurrent", [
    AttrSizedOperandSegments, RecursiveMemoryEffects, SingleBlock,
    ParentOneOf<["AsyncExecuteOp", "AsyncConcurrentOp"]>,
    Stream_AffinityOp, Stream_StreamableOp,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedOperandsIndexAndLength"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Work inside may run concurrently";
  let description = [{
    Same region syntax and rules as stream.async.execute, but no await and
    no timepoint. Only allowed inside async.execute or async.concurrent.

    ```mlir
    %p:2 = stream.async.concurrent with(%cin as %i: !stream.resource<external>{%isz}) -> (!stream.resource<transient>{%s0}, !stream.resource<transient>{%s1}) {
      %y0 = stream.async.clone %i : !stream.resource<external>{%isz} -> !stream.resource<transient>{%s0}
      %y1 = stream.async.clone %i : !stream.resource<external>{%isz} -> !stream.resource<transient>{%s1}
      stream.yield %y0, %y1 : !stream.resource<transient>{%s0}, !stream.resource<transient>{%s1}
    }
    ```
  }];
  let arguments = (ins
    Variadic<Stream_TransferResource>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes,
    Variadic<Index>:$result_sizes,
    OptionalAttr<Stream_TiedOpStorageAttr>:$tied_operands,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Variadic<Stream_TransferResource>:$results);
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    `with` ``
    custom<ResourceRegion>($resource_operands,
                           type($resource_operands), $resource_operand_sizes,
                           type($results), $result_sizes,
                           $tied_operands, $body)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Stream_YieldOp : Stream_Op<"yield", [
    AttrSizedOperandSegments, Pure, ReturnLike, Terminator,
    ParentOneOf<["AsyncExecuteOp", "AsyncConcurrentOp", "CmdExecuteOp",
                 "CmdSerialOp", "CmdConcurrentOp"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Terminator of execution regions";
  let description = [{
    Yields the resources an async.execute / async.concurrent region
    produces, with their sizes; printed there even without operands. In the
    cmd regions it has no operands and is implicit (not printed).
    Attributes go first.

    ```mlir
    stream.yield %x, %y : !stream.resource<transient>{%a}, !stream.resource<staging>{%b}
    ```
  }];
  let arguments = (ins
    Variadic<Stream_TransferResource>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes
  );
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, ::mlir::ValueRange(), ::mlir::ValueRange());
  }]>];
  let assemblyFormat = [{
    attr-dict
    ($resource_operands^ `:`
      custom<SizeAwareTypeList>(type($resource_operands),
                                $resource_operand_sizes))?
  }];
  let hasVerifier = 1;
}

#endif // FLEET_DIALECT_STREAM_IR_STREAMASYNCOPS_TD
