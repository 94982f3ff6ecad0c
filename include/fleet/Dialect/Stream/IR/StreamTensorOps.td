//===- StreamTensorOps.td - tensor boundary and tensor phase -*- tablegen -*-===//
//
// docs/ir-reference.md "Tensor boundary" and "Tensor-phase ops". A tensor value
// is written `enc{%d...} in T{%sz}`: `enc` (a TypeAttr holding a ranked tensor
// type) gives the logical shape and encoding, its `{...}` lists the `?` dims,
// and `T{%sz}` is the backing resource with its byte size.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMTENSOROPS_TD
#define FLEET_DIALECT_STREAM_IR_STREAMTENSOROPS_TD

//===----------------------------------------------------------------------===//
// Tensor boundary
//===----------------------------------------------------------------------===//

def Stream_TensorImportOp : Stream_Op<"tensor.import", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Wraps an external buffer or buffer view as a resource";
  let description = [{
    The tensor type describes the encoding of the external object's contents.
    The result reuses the source's storage (tied). `consume` transfers
    ownership of the source to the resource.

    ```mlir
    %r = stream.tensor.import on(#hal.device.affinity<@gpu0>) %view : !hal.buffer_view -> tensor<?x16xf32>{%n} in !stream.resource<external>{%sz}
    %r2 = stream.tensor.import consume %hb : !hal.buffer -> tensor<8xi32> in !stream.resource<external>{%c32}
    ```
  }];
  let arguments = (ins
    AnyType:$source,
    TypeAttr:$result_encoding,
    Variadic<Index>:$result_encoding_dims,
    Index:$result_size,
    UnitAttr:$consume,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_AnyResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    (`consume` $consume^)?
    $source `:` type($source)
    `->` $result_encoding (`` `{` $result_encoding_dims^ `}`)?
    `in` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorExportOp : Stream_Op<"tensor.export", [
    DeclareOpInterfaceMethods<Stream_AffinityOp, ["pinsOperandPlacement"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Exposes a resource as an external buffer or buffer view";
  let description = [{
    The reverse of stream.tensor.import; the result reuses the resource's
    storage (tied).

    ```mlir
    %v = stream.tensor.export on(#hal.device.affinity<@gpu0>) %r : tensor<?x16xf32>{%n} in !stream.resource<external>{%sz} -> !hal.buffer_view
    ```
  }];
  let arguments = (ins
    Stream_TransferResource:$source,
    TypeAttr:$source_encoding,
    Variadic<Index>:$source_encoding_dims,
    Index:$source_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source `:`
    $source_encoding (`` `{` $source_encoding_dims^ `}`)?
    `in` type($source) `` `{` $source_size `}`
    `->` type($result)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor phase
//===----------------------------------------------------------------------===//

def Stream_TensorSizeOfOp : Stream_PureOp<"tensor.sizeof", [
    Stream_AffinityOp]> {
  let summary = "Byte size of an encoded tensor";
  let description = [{
    Left symbolic until affinities (and so encodings' layouts) are known.
    Attributes go before `:`.

    ```mlir
    %sz = stream.tensor.sizeof on(#hal.device.affinity<@gpu0>) tensor<?x16xf32>{%n} : index
    ```
  }];
  let arguments = (ins
    TypeAttr:$encoding,
    Variadic<Index>:$encoding_dims,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Index:$storage_size);
  // Custom: a static `enc` directly followed by the attribute dictionary
  // (`tensor<4xf32> {a} : index`) is not a dims list.
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Stream_TensorEmptyOp : Stream_PureOp<"tensor.empty", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    Stream_AffinityOp, Stream_StreamableOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "A tensor with a shape but no defined contents";
  let description = [{
    ```mlir
    %e = stream.tensor.empty on(#hal.device.affinity<@gpu0>) : tensor<?x0xf32>{%n} in !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    TypeAttr:$result_encoding,
    Variadic<Index>:$result_encoding_dims,
    Index:$result_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    `:` $result_encoding (`` `{` $result_encoding_dims^ `}`)?
    `in` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorConstantOp : Stream_PureOp<"tensor.constant", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Stream_StreamableOp, ["preferCloneToConsumers"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "A tensor holding a constant value";
  let description = [{
    The resource type has no `{%sz}` here (the size follows from the
    encoding once it is known). The value is any typed attribute, printed
    with its type; it may be static where `enc` is dynamic.

    ```mlir
    %k = stream.tensor.constant on(#hal.device.affinity<@gpu0>) : tensor<?x16xf32>{%n} in !stream.resource<constant> = dense<1.0> : tensor<2x16xf32>
    ```
  }];
  let arguments = (ins
    TypedAttrInterface:$value,
    TypeAttr:$result_encoding,
    Variadic<Index>:$result_encoding_dims,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    `:` $result_encoding (`` `{` $result_encoding_dims^ `}`)?
    `in` type($result)
    `=` $value
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorSplatOp : Stream_PureOp<"tensor.splat", [
    Stream_AffinityOp,
    DeclareOpInterfaceMethods<Stream_StreamableOp, ["preferCloneToConsumers"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "A tensor with every element set to one value";
  let description = [{
    ```mlir
    %s = stream.tensor.splat on(#hal.device.affinity<@gpu0>) %v : f32 -> tensor<?x16xf32>{%n} in !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_PrimitiveType:$value,
    TypeAttr:$result_encoding,
    Variadic<Index>:$result_encoding_dims,
    Index:$result_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $value `:` type($value)
    `->` $result_encoding (`` `{` $result_encoding_dims^ `}`)?
    `in` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorCloneOp : Stream_PureOp<"tensor.clone", [
    AttrSizedOperandSegments, Stream_AffinityOp, Stream_StreamableOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Copy-on-write snapshot of a tensor";
  let description = [{
    Shape and element type may differ between the two sides; the encoding
    attributes must be the same.

    ```mlir
    %c = stream.tensor.clone on(#hal.device.affinity<@gpu0>) %r : tensor<?x16xf32>{%n} in !stream.resource<*>{%sz} -> tensor<?x16xf32>{%n} in !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$source,
    TypeAttr:$source_encoding,
    Variadic<Index>:$source_encoding_dims,
    Index:$source_size,
    TypeAttr:$result_encoding,
    Variadic<Index>:$result_encoding_dims,
    Index:$result_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source `:`
    $source_encoding (`` `{` $source_encoding_dims^ `}`)?
    `in` type($source) `` `{` $source_size `}`
    `->`
    $result_encoding (`` `{` $result_encoding_dims^ `}`)?
    `in` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorSliceOp : Stream_PureOp<"tensor.slice", [
    AttrSizedOperandSegments, Stream_AffinityOp, Stream_StreamableOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Copies out a sub-tensor";
  let description = [{
    Start indices and lengths, one of each per dimension of the source.

    ```mlir
    %sl = stream.tensor.slice on(#hal.device.affinity<@gpu0>) %r[%c0, %c4 for %m, %c8] : tensor<?x16xf32>{%n} in !stream.resource<*>{%sz} -> tensor<?x8xf32>{%m} in !stream.resource<*>{%ssz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$source,
    TypeAttr:$source_encoding,
    Variadic<Index>:$source_encoding_dims,
    Index:$source_size,
    Variadic<Index>:$start_indices,
    Variadic<Index>:$lengths,
    TypeAttr:$result_encoding,
    Variadic<Index>:$result_encoding_dims,
    Index:$result_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source `[` $start_indices `for` $lengths `]` `:`
    $source_encoding (`` `{` $source_encoding_dims^ `}`)?
    `in` type($source) `` `{` $source_size `}`
    `->`
    $result_encoding (`` `{` $result_encoding_dims^ `}`)?
    `in` type($result) `` `{` $result_size `}`
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorFillOp : Stream_PureOp<"tensor.fill", [
    AttrSizedOperandSegments, Stream_AffinityOp, Stream_StreamableOp,
    AllTypesMatch<["target", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Writes a primitive value into a region of a tensor";
  let description = [{
    `[starts for lengths]` is optional (the whole tensor). The result reuses
    the target's storage and has its type.

    ```mlir
    %f = stream.tensor.fill on(#hal.device.affinity<@gpu0>) %v, %r[%c0, %c0 for %m, %c16] : f32 -> tensor<?x16xf32>{%n} in %r as !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$target,
    TypeAttr:$target_encoding,
    Variadic<Index>:$target_encoding_dims,
    Index:$target_size,
    Variadic<Index>:$start_indices,
    Variadic<Index>:$lengths,
    Stream_PrimitiveType:$value,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $value `,` $target (`[` $start_indices `for` $lengths^ `]`)? `:`
    type($value)
    `->`
    $target_encoding (`` `{` $target_encoding_dims^ `}`)?
    `in` custom<ShapedTiedResult>(type($target), $target_size)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorUpdateOp : Stream_PureOp<"tensor.update", [
    AttrSizedOperandSegments, Stream_AffinityOp, Stream_StreamableOp,
    AllTypesMatch<["target", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Copies a tensor into a target tensor at start indices";
  let description = [{
    The `[...]` is required (`[]` for rank 0). The result reuses the
    target's storage and has its type.

    ```mlir
    %u = stream.tensor.update on(#hal.device.affinity<@gpu0>) %part, %r[%c4, %c0] : tensor<2x16xf32> in !stream.resource<*>{%psz} -> tensor<?x16xf32>{%n} in %r as !stream.resource<*>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StreamResource:$target,
    TypeAttr:$target_encoding,
    Variadic<Index>:$target_encoding_dims,
    Index:$target_size,
    Variadic<Index>:$start_indices,
    Stream_StreamResource:$update,
    TypeAttr:$update_encoding,
    Variadic<Index>:$update_encoding_dims,
    Index:$update_size,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Stream_StreamResource:$result);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $update `,` $target `[` $start_indices `]` `:`
    $update_encoding (`` `{` $update_encoding_dims^ `}`)?
    `in` type($update) `` `{` $update_size `}`
    `->`
    $target_encoding (`` `{` $target_encoding_dims^ `}`)?
    `in` custom<ShapedTiedResult>(type($target), $target_size)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorLoadOp : Stream_Op<"tensor.load", [
    AttrSizedOperandSegments, Stream_StreamableOp,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Host read of one element of a staging tensor";
  let description = [{
    There is no `on`; the `[...]` is left out for rank 0.

    ```mlir
    %x = stream.tensor.load %st[%i, %j] : tensor<?x16xf32>{%n} in !stream.resource<staging>{%sz} -> f32
    ```
  }];
  let arguments = (ins
    Stream_StagingResource:$source,
    TypeAttr:$source_encoding,
    Variadic<Index>:$source_encoding_dims,
    Index:$source_size,
    Variadic<Index>:$indices
  );
  let results = (outs Stream_PrimitiveOrVectorType:$result);
  let assemblyFormat = [{
    $source (`[` $indices^ `]`)? `:`
    $source_encoding (`` `{` $source_encoding_dims^ `}`)?
    `in` type($source) `` `{` $source_size `}`
    `->` type($result)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorStoreOp : Stream_Op<"tensor.store", [
    AttrSizedOperandSegments, Stream_StreamableOp,
    AllTypesMatch<["target", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Host write of one element into a staging tensor";
  let description = [{
    The result reuses the target's storage. There is no `on`; the `[...]` is
    left out for rank 0.

    ```mlir
    %st2 = stream.tensor.store %x, %st[%i, %j] : f32 -> tensor<?x16xf32>{%n} in %st as !stream.resource<staging>{%sz}
    ```
  }];
  let arguments = (ins
    Stream_StagingResource:$target,
    TypeAttr:$target_encoding,
    Variadic<Index>:$target_encoding_dims,
    Index:$target_size,
    Variadic<Index>:$indices,
    Stream_PrimitiveOrVectorType:$value
  );
  let results = (outs Stream_StagingResource:$result);
  let assemblyFormat = [{
    $value `,` $target (`[` $indices^ `]`)? `:`
    type($value)
    `->`
    $target_encoding (`` `{` $target_encoding_dims^ `}`)?
    `in` custom<ShapedTiedResult>(type($target), $target_size)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Stream_TensorDispatchOp : Stream_Op<"tensor.dispatch", [
    AttrSizedOperandSegments, Stream_AffinityOp, Stream_StreamableOp,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedOperandsIndexAndLength"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Dispatches an executable export over encoded tensors";
  let description = [{
    The tensor-level form of stream.async.dispatch: the same entry-point and
    `[workload]` syntax, but operands carry no byte ranges. Resource operands
    are written `enc in T{%sz}`, primitive operands give only their type.
    Results are `enc in T{%sz}`, `enc in %operand{%sz}` (tied, same type) or
    `enc in %operand as T{%sz}`.

    ```mlir
    %o = stream.tensor.dispatch on(#hal.device.affinity<@gpu0>) @ex::@entry[%n](%in, %acc, %k) : (tensor<?x16xf32>{%n} in !stream.resource<*>{%isz}, tensor<16xf32> in !stream.resource<*>{%asz}, i32) -> tensor<16xf32> in %acc{%asz}
    ```
  }];
  let arguments = (ins
    Variadic<Index>:$workload,
    Variadic<AnyType>:$mixed_operands,
    Variadic<Index>:$operand_sizes,
    Stream_TypeArrayAttr:$operand_encodings,
    Variadic<Index>:$operand_encoding_dims,
    Variadic<Index>:$result_sizes,
    Stream_TypeArrayAttr:$result_encodings,
    Variadic<Index>:$result_encoding_dims,
    OptionalAttr<Stream_TiedOpStorageAttr>:$tied_operands,
    SymbolRefArrayAttr:$entry_points,
    OptionalAttr<Stream_AffinityAttrParam>:$affinity
  );
  let results = (outs Variadic<Stream_AnyResource>:$results);
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    custom<DispatchEntryPoints>($entry_points)
    (`[` $workload^ `]`)? ``
    `(` $mixed_operands `)`
    attr-dict `:`
    custom<EncodedShapedFunctionType>(ref($mixed_operands),
                                      type($mixed_operands),
                                      $operand_encodings,
                                      $operand_encoding_dims,
                                      $operand_sizes,
                                      type($results),
                                      $result_encodings,
                                      $result_encoding_dims,
                                      $result_sizes,
                                      $tied_operands)
  }];
  let hasVerifier = 1;
}

#endif // FLEET_DIALECT_STREAM_IR_STREAMTENSOROPS_TD
