//===- StreamResourceOps.td - timepoints and resources ------*- tablegen -*-===//
//
// docs/ir-reference.md "Timepoints" and "Resources": the device-timeline tokens
// (`!stream.timepoint`) and the explicit storage ops used after allocation
// scheduling and on the host side.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMRESOURCEOPS_TD
#define FLEET_DIALECT_STREAM_IR_STREAMRESOURCEOPS_TD

//===----------------------------------------------------------------------===//
// Timepoints
//===----------------------------------------------------------------------===//

def Stream_TimepointImmediateOp : Stream_PureOp<"timepoint.immediate", [
    ConstantLike,
    Stream_TimelineOp]> {
  let summary = "An already reached timepoint";
  let description = [{
    Folds to `#stream.timepoint<immediate>`. Attributes go before `=>`.

    ```mlir
    %tp = stream.timepoint.immediate => !stream.timepoint
    ```
  }];
  let results = (outs Stream_Timepoint:$result_timepoint);
  let assemblyFormat = "attr-dict `=` `` `>` type($result_timepoint)";
  let hasFolder = 1;
  let extraClassDeclaration = Stream_TimelineAwaitDecls;
}

def Stream_TimepointAwaitOp : Stream_Op<"timepoint.await", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Stream_TimelineOp>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Host wait for a timepoint before using resources";
  let description = [{
    Result `i` is operand `i` (same type, tied), usable once the timepoint is
    reached. `sync` asks for a blocking wait. There is no `on`; the text form
    needs at least one resource. Awaiting an immediate timepoint folds away.

    ```mlir
    %r2 = stream.timepoint.await %tp => %r : !stream.resource<external>{%sz}
    %a2, %b2 = stream.timepoint.await sync %tp => %a, %b : !stream.resource<external>{%as}, !stream.resource<staging>{%bs}
    ```
  }];
  let arguments = (ins
    Variadic<Stream_AnyResource>:$resource_operands,
    Variadic<Index>:$resource_operand_sizes,
    Stream_Timepoint:$await_timepoint,
    UnitAttr:$sync
  );
  let results = (outs Variadic<Stream_AnyResource>:$results);
  let assemblyFormat = [{
    (`sync` $sync^)?
    $await_timepoint `=` `` `>`
    $resource_operands `:`
    custom<ShapedTypeList>(type($resource_operands), type($results),
                           $resource_operand_sizes)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Stream_TimepointJoinOp : Stream_PureOp<"timepoint.join", [
    Stream_TimelineOp]> {
  let summary = "Timepoint reached when all inputs are reached";
  let description = [{
    Folds to its operand when there is only one, and to an immediate
    timepoint when there are none.

    ```mlir
    %j = stream.timepoint.join max(%tp0, %tp1) => !stream.timepoint
    ```
  }];
  let arguments = (ins Variadic<Stream_Timepoint>:$await_timepoints);
  let results = (outs Stream_Timepoint:$result_timepoint);
  let assemblyFormat = [{
    `max` `(` $await_timepoints `)` `=` `` `>` type($result_timepoint)
    attr-dict-with-keyword
  }];
  let hasFolder = 1;
  let extraClassDeclaration = Stream_TimelineSetAwaitDecl;
}

def Stream_TimepointBarrierOp : Stream_Op<"timepoint.barrier", [
    Stream_AffinityOp,
    AllTypesMatch<["resource", "result"]>,
    Stream_TimelineOp,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Timepoint for when a resource is ready";
  let description = [{
    Returns the resource (same type, tied) plus a timepoint reached once all
    pending work on it is done.

    ```mlir
    %r2, %tpr = stream.timepoint.barrier on(#hal.device.affinity<@gpu0>) %r : !stream.resource<external>{%sz} => !stream.timepoint
    ```
  }];
  let arguments = (ins
    Stream_TransferResource:$resource,
    Index:$resource_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs
    Stream_TransferResource:$result,
    Stream_Timepoint:$result_timepoint
  );
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $resource `:` type($resource) `` `{` $resource_size `}`
    `=` `` `>` type($result_timepoint)
    attr-dict-with-keyword
  }];
  let extraClassDeclaration = Stream_TimelineAwaitDecls;
}

def Stream_TimepointExportOp : Stream_Op<"timepoint.export", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Stream_TimelineOp>]> {
  let summary = "Turns a timepoint into external objects";
  let description = [{
    The results are any types, in parentheses (for HAL: one `!hal.fence`).

    ```mlir
    %f = stream.timepoint.export on(#hal.device.affinity<@gpu0>) %tp => (!hal.fence)
    ```
  }];
  let arguments = (ins
    Stream_Timepoint:$await_timepoint,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $await_timepoint `=` `` `>` `(` type($results) `)`
    attr-dict-with-keyword
  }];
}

def Stream_TimepointImportOp : Stream_Op<"timepoint.import", [
    Stream_AffinityOp,
    Stream_TimelineOp]> {
  let summary = "Turns external objects into a timepoint";
  let description = [{
    The operands are any external timeline objects: one `!hal.fence`, a
    `(!hal.semaphore, index)` pair or a `!stream.test.fence`.

    ```mlir
    %tp = stream.timepoint.import on(#hal.device.affinity<@gpu0>) %f : (!hal.fence) => !stream.timepoint
    ```
  }];
  let arguments = (ins
    Variadic<AnyType>:$operands,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_Timepoint:$result_timepoint);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $operands `:` `(` type($operands) `)`
    `=` `` `>` type($result_timepoint)
    attr-dict-with-keyword
  }];
  let extraClassDeclaration = Stream_TimelineAwaitDecls;
}

def Stream_TimepointChainExternalOp : Stream_Op<"timepoint.chain_external", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Stream_TimelineOp>]> {
  let summary = "Makes existing external objects signal with a timepoint";
  let description = [{
    The external values (for HAL: one `!hal.fence`) are signalled once the
    timepoint is reached. There are no results.

    ```mlir
    stream.timepoint.chain_external on(#hal.device.affinity<@gpu0>) %tp => (%f : !hal.fence)
    ```
  }];
  let arguments = (ins
    Stream_Timepoint:$await_timepoint,
    Variadic<AnyType>:$external_values,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $await_timepoint `=` `` `>`
    `(` $external_values `:` type($external_values) `)`
    attr-dict-with-keyword
  }];
}

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

def Stream_ResourceAllocaOp : Stream_Op<"resource.alloca", [
    Stream_AffinityOp,
    Stream_TimelineOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Queue-ordered allocation";
  let description = [{
    The resource is usable once the result timepoint is reached. The word
    `uninitialized` is required; `indeterminate` marks an allocation whose
    lifetime cannot be tracked statically (the HAL `IndeterminateLifetime`
    alloca flag). Without `await`, a `:` comes before the type; attributes
    go between `=>`/`:` and the type.

    ```mlir
    %r, %tpa = stream.resource.alloca uninitialized on(#hal.device.affinity<@gpu0>) await(%tp) => !stream.resource<transient>{%sz} => !stream.timepoint
    %r2, %tpb = stream.resource.alloca uninitialized indeterminate : !stream.resource<transient>{%sz} => !stream.timepoint
    ```
  }];
  let arguments = (ins
    Index:$storage_size,
    Optional<Stream_Timepoint>:$await_timepoint,
    UnitAttr:$indeterminate_lifetime,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs
    Stream_AnyResource:$result,
    Stream_Timepoint:$result_timepoint
  );
  let assemblyFormat = [{
    `uninitialized`
    (`indeterminate` $indeterminate_lifetime^)?
    (`on` `(` $affinity^ `)`)?
    (`await` `(` $await_timepoint^ `)` `=` `` `>`):(`:`)?
    attr-dict
    type($result) `` `{` $storage_size `}`
    `=` `` `>` type($result_timepoint)
  }];
  let extraClassDeclaration = Stream_TimelineAwaitDecls;
}

def Stream_ResourceDeallocaOp : Stream_Op<"resource.dealloca", [
    Stream_AffinityOp,
    Stream_TimelineOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Queue-ordered free";
  let description = [{
    `origin` frees on the queue that allocated the resource. Attributes go
    at the end, bare.

    ```mlir
    %tpd = stream.resource.dealloca origin on(#hal.device.affinity<@gpu0>) await(%tp) => %r : !stream.resource<transient>{%sz} => !stream.timepoint
    ```
  }];
  let arguments = (ins
    Stream_AnyResource:$operand,
    Index:$operand_size,
    Optional<Stream_Timepoint>:$await_timepoint,
    UnitAttr:$prefer_origin,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_Timepoint:$result_timepoint);
  let assemblyFormat = [{
    (`origin` $prefer_origin^)?
    (`on` `(` $affinity^ `)`)?
    (`await` `(` $await_timepoint^ `)` `=` `` `>`)?
    $operand `:` type($operand) `` `{` $operand_size `}`
    `=` `` `>` type($result_timepoint)
    attr-dict
  }];
  let extraClassDeclaration = Stream_TimelineAwaitDecls;
}

def Stream_ResourceSizeOp : Stream_PureOp<"resource.size", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Byte size of a resource";
  let description = [{
    There is no `{}` and no `on`; an optional `affinity` attribute goes in
    the attribute dictionary before `:`.

    ```mlir
    %sz = stream.resource.size %r : !stream.resource<external>
    ```
  }];
  let arguments = (ins
    Stream_AnyResource:$operand,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Index:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

def Stream_ResourceAllocOp : Stream_Op<"resource.alloc", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Synchronous allocation of long-lived storage";
  let description = [{
    `uninitialized` is optional here. Attributes go before `:`.

    ```mlir
    %r = stream.resource.alloc uninitialized on(#hal.device.affinity<@gpu0>) : !stream.resource<external>{%sz}
    ```
  }];
  let arguments = (ins
    Index:$storage_size,
    UnitAttr:$uninitialized,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_AnyResource:$result);
  let assemblyFormat = [{
    (`uninitialized` $uninitialized^)?
    (`on` `(` $affinity^ `)`)?
    attr-dict `:` type($result) `` `{` $storage_size `}`
  }];
}

def Stream_ResourceSubviewOp : Stream_PureOp<"resource.subview", [
    AllTypesMatch<["source", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Aliases a byte range of a resource without copying";
  let description = [{
    The result views [offset, offset + length) of the source and has its
    type (tied). There is no `on`.

    ```mlir
    %v = stream.resource.subview %r[%off] : !stream.resource<transient>{%sz} -> !stream.resource<transient>{%len}
    ```
  }];
  let arguments = (ins
    Stream_AnyResource:$source,
    Index:$source_size,
    Index:$source_offset,
    Index:$result_size
  );
  let results = (outs Stream_AnyResource:$result);
  let assemblyFormat = [{
    $source `[` $source_offset `]` `:`
    type($source) `` `{` $source_size `}` `->`
    type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_ResourceLoadOp : Stream_Op<"resource.load", [
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Synchronous host read from a staging resource";
  let description = [{
    Reads a primitive or vector at a byte offset.

    ```mlir
    %x = stream.resource.load %st[%off] : !stream.resource<staging>{%sz} -> i32
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

def Stream_ResourceStoreOp : Stream_Op<"resource.store", [
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Synchronous host write into a staging resource";
  let description = [{
    ```mlir
    stream.resource.store %x, %st[%off] : i32 -> !stream.resource<staging>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StagingResource:$target,
    Index:$target_size,
    Index:$target_offset,
    Stream_PrimitiveOrVectorType:$value
  );
  let assemblyFormat = [{
    $value `,` $target `[` $target_offset `]` `:`
    type($value) `->` type($target) `` `{` $target_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_ResourceTryMapOp : Stream_Op<"resource.try_map", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Tries to use host memory directly as a resource";
  let description = [{
    `%ok` is false when the host bytes cannot be used in place (the resource
    is then null).

    ```mlir
    %ok, %r = stream.resource.try_map on(#hal.device.affinity<@gpu0>) %hb[%off] : !util.buffer -> i1, !stream.resource<constant>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_UtilBuffer:$source,
    Index:$source_offset,
    Index:$result_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs I1:$did_map, Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source `[` $source_offset `]` `:`
    type($source) `->` type($did_map) `,` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
}

def Stream_ResourcePackOp : Stream_PureOp<"resource.pack", [
    AttrSizedOperandSegments, Stream_AffinityOp]> {
  let summary = "Lays out slices with lifetimes in one slab";
  let description = [{
    Each slice has an inclusive lifetime `[start, end]` and a byte size;
    slices whose lifetimes do not overlap may share bytes. Results: the total
    length, then one offset per slice; the optional `offset(...)` is added to
    every offset.

    ```mlir
    %total, %o0, %o1 = stream.resource.pack on(#hal.device.affinity<@gpu0>) offset(%base) slices({
      [0, 4] = %s0,
      [2, 7] = %s1
    }) : index
    ```
  }];
  let arguments = (ins
    Optional<Index>:$offset,
    I64ArrayAttr:$lifetime_intervals,
    Variadic<Index>:$dynamic_slice_sizes,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Index:$total_length, Variadic<Index>:$packed_offsets);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    (`offset` `(` $offset^ `)`)?
    `slices` `(`
    custom<PackSliceRanges>($lifetime_intervals, $dynamic_slice_sizes,
                            type($packed_offsets))
    `)`
    `:` type($total_length)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

#endif // FLEET_DIALECT_STREAM_IR_STREAMRESOURCEOPS_TD
