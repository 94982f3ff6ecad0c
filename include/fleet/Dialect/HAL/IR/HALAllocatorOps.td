//===- HALAllocatorOps.td - memory properties and allocation -*- tablegen -*-===//
//
// docs/ir-reference.md, "hal" / "Memory properties and allocation".
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_HAL_IR_HALALLOCATOROPS_TD
#define FLEET_DIALECT_HAL_IR_HALALLOCATOROPS_TD

//===----------------------------------------------------------------------===//
// Bitfield constants
//===----------------------------------------------------------------------===//

def HAL_MemoryTypeOp : HAL_Op<"memory_type", [ConstantLike, Pure]> {
  let summary = "A memory type bitfield constant";
  let description = [{
    The `i32` value of a `hal.memory_type` bitfield. Constant-like: it folds
    to its integer value, so consumers (bit arithmetic, comparisons) fold too.
    A single-bit case prints bare, anything else as a quoted list of every
    case whose bits are all set.

    ```mlir
    %mt = hal.memory_type<"HostVisible|HostCoherent"> : i32
    %dv = hal.memory_type<DeviceVisible> : i32
    ```
  }];
  let arguments = (ins HAL_MemoryTypeAttr:$value);
  let results = (outs I32:$result);
  // [ad] before `:` (docs/ir-reference.md).
  let assemblyFormat = [{
    `<` custom<EnumAttr>($value) `>` attr-dict `:` type($result)
  }];
  let hasFolder = 1;
}

def HAL_BufferUsageOp : HAL_Op<"buffer_usage", [ConstantLike, Pure]> {
  let summary = "A buffer usage bitfield constant";
  let description = [{
    The `i32` value of a `hal.buffer_usage` bitfield; constant-like like
    `hal.memory_type`. Composite cases are listed too, so `Transfer` alone
    prints as `"TransferSource|TransferTarget|Transfer"`.

    ```mlir
    %bu = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
    ```
  }];
  let arguments = (ins HAL_BufferUsageAttr:$value);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    `<` custom<EnumAttr>($value) `>` attr-dict `:` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Memory property resolution and device selection
//===----------------------------------------------------------------------===//

def HAL_AllocatorResolveMemoryPropertiesOp
    : HAL_Op<"allocator.resolve_memory_properties", [Pure]> {
  let summary = "Memory type and usage for a lifetime on an affinity";
  let description = [{
    Computes the memory type and buffer usage an allocation of the given
    lifetime needs when it is used with the `for` affinity (any attribute,
    optional). For `#hal.device.optimal<[...]>` the bits depend on the links
    between the candidates (docs/design.md §3); `--hal-resolve-topology-queries`
    folds what the static topology proves and
    `--hal-lower-topology-queries` lowers the rest to link queries.

    ```mlir
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.optimal<[#hal.device.affinity<@gpu0>, #hal.device.affinity<@gpu1>]>) lifetime(transient) : i32, i32
    %mt2, %bu2 = hal.allocator.resolve_memory_properties lifetime("*") : i32, i32
    ```
  }];
  let arguments = (ins OptionalAttr<AnyAttr>:$affinity,
                       HAL_LifetimeAttr:$lifetime);
  let results = (outs I32:$memory_types, I32:$buffer_usage);
  let assemblyFormat = [{
    (`for` `(` $affinity^ `)`)?
    `lifetime` `(` custom<EnumAttr>($lifetime) `)`
    `:` type($memory_types) `,` type($buffer_usage)
    attr-dict-with-keyword
  }];
}

def HAL_AllocatorSelectOp : HAL_Op<"allocator.select", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Picks the device and queue that should allocate";
  let description = [{
    Chooses, among the `(device, queue affinity)` candidates, the one that
    should allocate memory of the given type and usage. Fleet's rule
    (docs/design.md §3): the first candidate, in list order, that every other
    candidate reaches; the memory type and usage only filter candidates.

    Canonicalization: a single candidate (or candidates that are all the same
    pair) is the answer; candidates that all share one device value answer
    the device.

    ```mlir
    %dev, %q = hal.allocator.select from([(%d0, %q0 : !hal.device, i64), (%d1, %q1 : !hal.device, i64)]) type(%mt) usage(%bu) : !hal.device, i64
    ```
  }];
  let arguments = (ins
    Variadic<HAL_Device>:$devices,
    Variadic<I64>:$queue_affinities,
    I32:$memory_types,
    I32:$buffer_usage
  );
  let results = (outs HAL_Device:$selected_device,
                      I64:$selected_queue_affinity);
  let assemblyFormat = [{
    `from` `(` `[`
      custom<DeviceQueueCandidates>($devices, type($devices),
                                    $queue_affinities,
                                    type($queue_affinities))
    `]` `)`
    `type` `(` $memory_types `)`
    `usage` `(` $buffer_usage `)`
    `:` type($selected_device) `,` type($selected_queue_affinity)
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

def HAL_AllocatorAllocateOp : HAL_Op<"allocator.allocate", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>,
    MemoryEffects<[MemAlloc]>]> {
  let summary = "Synchronous buffer allocation";
  let description = [{
    Allocates a buffer of `{%size}` bytes with the given memory type and
    usage from the allocator. The allocator refuses what its device cannot
    provide (docs/design.md §5).

    ```mlir
    %buf = hal.allocator.allocate<%alloc : !hal.allocator> affinity(%q) type(%mt) usage(%bu) : !hal.buffer{%sz}
    ```
  }];
  let arguments = (ins
    HAL_Allocator:$allocator,
    I64:$queue_affinity,
    I32:$memory_types,
    I32:$buffer_usage,
    Index:$result_size
  );
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $allocator `:` type($allocator) `>`
    `affinity` `(` $queue_affinity `)`
    `type` `(` $memory_types `)`
    `usage` `(` $buffer_usage `)`
    `:` custom<SizeAwareType>(type($result), $result_size)
    attr-dict-with-keyword
  }];
}

def HAL_AllocatorImportOp : HAL_Op<"allocator.import", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Tries to wrap host memory as a buffer";
  let description = [{
    Wraps the bytes `[offset, offset + length)` of a host buffer as a
    `!hal.buffer` without copying when the allocator can. `%ok` is false (and
    the buffer null) when it cannot, e.g. device-local memory on a discrete
    device. `source` comes before `affinity` and the buffer has no `{size}`.

    ```mlir
    %ok, %buf = hal.allocator.import<%alloc : !hal.allocator> source(%hb : !util.buffer)[%off, %len] affinity(%q) type(%mt) usage(%bu) : i1, !hal.buffer
    ```
  }];
  let arguments = (ins
    HAL_Allocator:$allocator,
    Util_BufferType:$source,
    Index:$offset,
    Index:$length,
    I64:$queue_affinity,
    I32:$memory_types,
    I32:$buffer_usage
  );
  let results = (outs I1:$did_import, HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $allocator `:` type($allocator) `>`
    `source` `(` $source `:` type($source) `)` `` `[` $offset `,` $length `]`
    `affinity` `(` $queue_affinity `)`
    `type` `(` $memory_types `)`
    `usage` `(` $buffer_usage `)`
    `:` type($did_import) `,` type($result)
    attr-dict-with-keyword
  }];
}

#endif // FLEET_DIALECT_HAL_IR_HALALLOCATOROPS_TD
