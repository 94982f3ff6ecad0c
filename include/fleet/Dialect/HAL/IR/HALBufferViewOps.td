//===- HALBufferViewOps.td - buffer views and tensors --------*- tablegen -*-===//
//
// docs/ir-reference.md, "hal" / "Buffer views and tensors".
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_HAL_IR_HALBUFFERVIEWOPS_TD
#define FLEET_DIALECT_HAL_IR_HALBUFFERVIEWOPS_TD

//===----------------------------------------------------------------------===//
// Buffer views
//===----------------------------------------------------------------------===//

def HAL_BufferViewCreateOp : HAL_Op<"buffer_view.create", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>, Pure]> {
  let summary = "A shaped, typed view of a buffer range";
  let description = [{
    Wraps `[offset, offset + length)` of the buffer with a shape (`index`
    dims), an element type and an encoding (`i32` codes, see
    `hal.element_type` and `hal.encoding_type`). Nothing is copied.

    ```mlir
    %bv = hal.buffer_view.create buffer(%b : !hal.buffer)[%off, %len] shape([%d0, %c16]) type(%et) encoding(%enc) : !hal.buffer_view
    ```
  }];
  let arguments = (ins
    HAL_Buffer:$source_buffer,
    Index:$source_offset,
    Index:$source_length,
    Variadic<Index>:$shape,
    I32:$element_type,
    I32:$encoding_type
  );
  let results = (outs HAL_BufferView:$result);
  let assemblyFormat = [{
    `buffer` `(` $source_buffer `:` type($source_buffer) `)`
    `` `[` $source_offset `,` $source_length `]`
    `shape` `(` `[` $shape `]` `)`
    `type` `(` $element_type `)`
    `encoding` `(` $encoding_type `)`
    `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_BufferViewBufferOp : HAL_Op<"buffer_view.buffer", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>, Pure]> {
  let summary = "The buffer behind a view";
  let description = [{
    ```mlir
    %b = hal.buffer_view.buffer<%bv : !hal.buffer_view> : !hal.buffer
    ```
  }];
  let arguments = (ins HAL_BufferView:$buffer_view);
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $buffer_view `:` type($buffer_view) `>` `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_BufferLengthOp : HAL_Op<"buffer.length", [Pure]> {
  let summary = "The byte length of a buffer";
  let description = [{
    IREE's op and syntax; the lowering of `stream.resource.size` when no
    size value is next to the resource (a resource loaded from a global).

    ```mlir
    %n = hal.buffer.length<%b : !hal.buffer> : index
    ```
  }];
  let arguments = (ins HAL_Buffer:$buffer);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    `<` $buffer `:` type($buffer) `>` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_BufferLoadOp : HAL_Op<"buffer.load"> {
  let summary = "Reads a value from a mapped buffer";
  let description = [{
    IREE's op and syntax: a host read of a primitive at a byte offset of a
    host-visible buffer (the lowering of `stream.resource.load`); the value
    takes its type's byte width (i1: one byte, nonzero is true).

    ```mlir
    %v = hal.buffer.load<%b : !hal.buffer>[%off] : f32
    ```
  }];
  let arguments = (ins HAL_Buffer:$source_buffer, Index:$source_offset);
  let results = (outs AnyTypeOf<[AnySignlessInteger, AnyFloat, Index]>:$result);
  let assemblyFormat = [{
    `<` $source_buffer `:` type($source_buffer) `>` ``
    `[` $source_offset `]` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_BufferStoreOp : HAL_Op<"buffer.store"> {
  let summary = "Writes a value into a mapped buffer";
  let description = [{
    IREE's op and syntax: a host write of a primitive at a byte offset of a
    host-visible buffer (the lowering of `stream.resource.store`).

    ```mlir
    hal.buffer.store<%b : !hal.buffer>[%off] value(%v : f32)
    ```
  }];
  let arguments = (ins
    AnyTypeOf<[AnySignlessInteger, AnyFloat, Index]>:$value,
    HAL_Buffer:$target_buffer,
    Index:$target_offset
  );
  let assemblyFormat = [{
    `<` $target_buffer `:` type($target_buffer) `>` ``
    `[` $target_offset `]` `value` `(` $value `:` type($value) `)`
    attr-dict-with-keyword
  }];
}

def HAL_BufferViewRankOp : HAL_Op<"buffer_view.rank", [Pure]> {
  let summary = "The rank of a view";
  let description = [{
    ```mlir
    %rk = hal.buffer_view.rank<%bv : !hal.buffer_view> : index
    ```
  }];
  let arguments = (ins HAL_BufferView:$buffer_view);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    `<` $buffer_view `:` type($buffer_view) `>` `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_BufferViewDimOp : HAL_Op<"buffer_view.dim", [Pure]> {
  let summary = "The size of one dimension of a view";
  let description = [{
    The dimension is an integer literal (no type).

    ```mlir
    %d1 = hal.buffer_view.dim<%bv : !hal.buffer_view>[1] : index
    ```
  }];
  let arguments = (ins HAL_BufferView:$buffer_view, IndexAttr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    `<` $buffer_view `:` type($buffer_view) `>` `` `[` $index `]`
    `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_BufferViewAssertOp : HAL_Op<"buffer_view.assert"> {
  let summary = "Aborts unless a view has the expected metadata";
  let description = [{
    At run time, fails with the message unless the view has exactly this
    shape, element type and encoding. `shape([])` is rank 0.

    ```mlir
    hal.buffer_view.assert<%bv : !hal.buffer_view> message("input0") shape([%n, %c16]) type(%et) encoding(%enc)
    ```
  }];
  let arguments = (ins
    HAL_BufferView:$buffer_view,
    StrAttr:$message,
    Variadic<Index>:$shape,
    I32:$element_type,
    I32:$encoding_type
  );
  let assemblyFormat = [{
    `<` $buffer_view `:` type($buffer_view) `>`
    `message` `(` $message `)`
    `shape` `(` `[` $shape `]` `)`
    `type` `(` $element_type `)`
    `encoding` `(` $encoding_type `)`
    attr-dict-with-keyword
  }];
}

def HAL_ElementTypeOp : HAL_Op<"element_type", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    ConstantLike, Pure]> {
  let summary = "The runtime element-type code of a type";
  let description = [{
    `(kind << 24) | bits` with kinds `0x10` signless int, `0x11` signed,
    `0x12` unsigned, `0x13` `i1` (stored as 8 bits), `0x21` IEEE float,
    `0x22` bf16, `0x23` complex (bits = twice the part width) and
    `0x24`..`0x28` f8 E5M2, E4M3FN, E5M2FNUZ, E4M3FNUZ, E8M0FNU
    (docs/ir-reference.md). Other types are rejected by the verifier.
    Constant-like: it folds to the code (so the host program needs no type
    table).

    ```mlir
    %et = hal.element_type<f32> : i32
    ```
  }];
  let arguments = (ins TypeAttr:$type);
  let results = (outs I32:$result);
  // [ad] before `:`.
  let assemblyFormat = "`<` $type `>` attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The runtime code of `type`, or nullopt when it has none.
    static std::optional<int32_t> getTypeValue(::mlir::Type type);
  }];
}

def HAL_EncodingTypeOp : HAL_Op<"encoding_type", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    ConstantLike, Pure]> {
  let summary = "The runtime encoding code (dense row-major)";
  let description = [{
    The constant 1, dense row-major: the only encoding Fleet supports. An
    attribute between the brackets parses but is rejected by the verifier.
    Constant-like: it folds to 1.

    ```mlir
    %enc = hal.encoding_type<dense_row_major> : i32
    ```
  }];
  let arguments = (ins OptionalAttr<AnyAttr>:$encoding);
  let results = (outs I32:$result);
  // [ad] before `:`.
  let assemblyFormat = [{
    `<` ($encoding^):(`` `dense_row_major`)? `>` attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Runtime code of dense row-major contents.
    static constexpr int32_t kDenseRowMajor = 1;
  }];
}

//===----------------------------------------------------------------------===//
// Tensor boundary
//===----------------------------------------------------------------------===//

def HAL_TensorImportOp : HAL_Op<"tensor.import", [
    Pure, AttrSizedOperandSegments, Stream_AffinityOp]> {
  let summary = "Imports a buffer or buffer view as a tensor";
  let description = [{
    The tensor held by an external `!hal.buffer` or `!hal.buffer_view`,
    usable once the optional wait fence is reached. `consume` transfers
    ownership. The type after `->` may be written `enc as T`: `enc` is the
    type at the ABI boundary and `T` the result, with the same number of
    dynamic dims; the `{dims}` after it list `T`'s `?` dims.

    ```mlir
    %t = hal.tensor.import on(#hal.device.affinity<@gpu0>) wait(%wf) => %bv "input0" : !hal.buffer_view -> tensor<?x16xf32>{%n}
    %u = hal.tensor.import consume %b offset(%off) : !hal.buffer -> tensor<4xf32> as tensor<4xi32>
    ```
  }];
  let arguments = (ins
    OptionalAttr<AnyAttr>:$affinity,
    Optional<HAL_Fence>:$wait_fence,
    UnitAttr:$consume,
    AnyTypeOf<[HAL_Buffer, HAL_BufferView]>:$source,
    Optional<Index>:$source_offset,
    OptionalAttr<StrAttr>:$name,
    TypeAttr:$target_encoding,
    Variadic<Index>:$target_dims
  );
  let results = (outs AnyRankedTensor:$target);
  // Order: on, wait =>, consume, source, offset, name (docs/ir-reference.md);
  // [ad] at the end, bare.
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    (`wait` `(` $wait_fence^ `)` `=` `` `>`)?
    (`consume` $consume^)?
    $source
    (`offset` `(` $source_offset^ `)`)?
    ($name^)?
    `:` type($source) `->`
    custom<TypeAlias>($target_encoding, type($target))
    `` custom<DimsAndAttrDict>($target_dims, attr-dict)
  }];
  let hasVerifier = 1;
}

def HAL_TensorExportOp : HAL_Op<"tensor.export", [Pure,
    DeclareOpInterfaceMethods<Stream_AffinityOp, ["pinsOperandPlacement"]>]> {
  let summary = "Exports a tensor as a buffer or buffer view";
  let description = [{
    The reverse of `hal.tensor.import`. The source type may be written
    `enc as T` (ABI type `enc`, source type `T`); the `{dims}` list `T`'s `?`
    dims.

    ```mlir
    %bv = hal.tensor.export on(#hal.device.affinity<@gpu0>) %t "output0" : tensor<?x16xf32>{%n} -> !hal.buffer_view
    ```
  }];
  let arguments = (ins
    OptionalAttr<AnyAttr>:$affinity,
    AnyRankedTensor:$source,
    OptionalAttr<StrAttr>:$name,
    TypeAttr:$source_encoding,
    Variadic<Index>:$source_dims
  );
  let results = (outs AnyTypeOf<[HAL_Buffer, HAL_BufferView]>:$target);
  // [ad] at the end, bare.
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    $source
    ($name^)?
    `:` custom<TypeAlias>($source_encoding, type($source))
    (`{` $source_dims^ `}`)?
    `->` type($target)
    attr-dict
  }];
  let hasVerifier = 1;
}

def HAL_TensorBarrierOp : HAL_Op<"tensor.barrier", [
    AllTypesMatch<["sources", "results"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, [
        "getTiedOperandsIndexAndLength", "getTiedResultOperandIndex"]>]> {
  let summary = "Signals a fence once tensors are ready";
  let description = [{
    Signals the fence once every source tensor is available. The results are
    the sources (same types, tied), returned for chaining.

    ```mlir
    %a2, %b2 = hal.tensor.barrier join(%a, %b : tensor<4xf32>, tensor<8xi8>) => %sf : !hal.fence
    ```
  }];
  let arguments = (ins Variadic<AnyTensor>:$sources, HAL_Fence:$signal_fence);
  let results = (outs Variadic<AnyTensor>:$results);
  let assemblyFormat = [{
    `join` `(` $sources `:` type($sources) `)`
    `=` `` `>`
    $signal_fence `:` type($signal_fence)
    attr-dict-with-keyword
  }];
}

def HAL_TensorAliasOp : HAL_Op<"tensor.alias", [
    Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Stream_AffinityOp, ["pinsOperandPlacement"]>,
    AllTypesMatch<["source", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, [
        "getTiedOperandsIndexAndLength", "getTiedResultOperandIndex"]>]> {
  let summary = "Asks for a tensor to be produced in given storage";
  let description = [{
    Asks that `%t` be produced directly in the caller-provided storage
    (`!hal.buffer`, or the buffer of a `!hal.buffer_view`), usable once the
    optional wait fence is reached. The result is `%t` (same type, tied).

    ```mlir
    %t2 = hal.tensor.alias on(#hal.device.affinity<@gpu0>) wait(%wf) => %t : tensor<?x16xf32>{%n} to %storage : !hal.buffer
    ```
  }];
  let arguments = (ins
    OptionalAttr<AnyAttr>:$affinity,
    Optional<HAL_Fence>:$wait_fence,
    AnyRankedTensor:$source,
    Variadic<Index>:$source_dims,
    AnyTypeOf<[HAL_Buffer, HAL_BufferView]>:$storage
  );
  let results = (outs AnyRankedTensor:$result);
  // [ad] at the end, bare.
  let assemblyFormat = [{
    (`on` `(` $affinity^ `)`)?
    (`wait` `(` $wait_fence^ `)` `=` `` `>`)?
    $source `:` type($source) (`{` $source_dims^ `}`)?
    `to` $storage `:` type($storage)
    attr-dict
  }];
  let hasVerifier = 1;
}

#endif // FLEET_DIALECT_HAL_IR_HALBUFFERVIEWOPS_TD
