//===- HALDeviceOps.td - devices and queue ops ---------------*- tablegen -*-===//
//
// docs/ir-reference.md, "hal" / "Devices" and "Queue ops".
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_HAL_IR_HALDEVICEOPS_TD
#define FLEET_DIALECT_HAL_IR_HALDEVICEOPS_TD

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

def HAL_DeviceQueryOp : HAL_Op<"device.query", [Pure]> {
  let summary = "Reads a configuration value of a device";
  let description = [{
    Looks up `category :: key` in the device's configuration. `%ok` says
    whether the key was found; `%value` is the value converted to the result
    type, or the optional default (a typed attribute of exactly the value's
    type) when not. `"hal.device.id"` is a category whose key is a pattern
    matched against the device ID (result `i1`). Answers are fixed for the
    program's lifetime, so queries are memoized per device, key and default.

    ```mlir
    %ok, %v = hal.device.query<%dev : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
    %ok2, %n = hal.device.query<%dev : !hal.device> key("hal.dispatch" :: "concurrency") : i1, i32 = 0 : i32
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    StrAttr:$category,
    StrAttr:$key,
    OptionalAttr<TypedAttrInterface>:$default_value
  );
  let results = (outs I1:$ok, AnyType:$value);
  // `::` is two `:` tokens printed with no space between
  // (docs/ir-reference.md).
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `key` `(` $category `:` `` `:` $key `)`
    `:` type($ok) `,` type($value)
    (`=` $default_value^)?
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def HAL_DeviceQueryLinkOp : HAL_Op<"device.query.link", [Pure]> {
  let summary = "Asks the runtime topology about a directed device link";
  let description = [{
    Fleet extension (docs/design.md §3; no IREE counterpart). Asks the runtime
    topology about the link from the first device to the second: can the
    first reach memory allocated on the second. Keys: `unified_memory`,
    `transparent_access`, `export_import`. `%ok` is false when the runtime
    cannot tell, and `%value` then holds the default (false when absent).
    `--hal-lower-topology-queries` emits these for what the static topology
    does not prove; `--hal-memoize-device-queries` hoists each one, per device
    pair and key, into globals.

    ```mlir
    %ok, %v = hal.device.query.link<%gpu0 : !hal.device, %gpu1 : !hal.device> key("transparent_access") : i1, i1 = false
    ```
  }];
  let arguments = (ins
    HAL_Device:$source_device,
    HAL_Device:$target_device,
    StrAttr:$key,
    OptionalAttr<TypedAttrInterface>:$default_value
  );
  let results = (outs I1:$ok, I1:$value);
  let assemblyFormat = [{
    `<` $source_device `:` type($source_device) `,`
        $target_device `:` type($target_device) `>`
    `key` `(` $key `)`
    `:` type($ok) `,` type($value)
    (`=` $default_value^)?
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The link keys the runtime topology answers (docs/design.md §3).
    static bool isKnownKey(::llvm::StringRef key) {
      return key == "unified_memory" || key == "transparent_access" ||
             key == "export_import";
    }
  }];
}

def HAL_DeviceAllocatorOp : HAL_Op<"device.allocator", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>, Pure]> {
  let summary = "The allocator of a device";
  let description = [{
    Returns the allocator that makes buffers compatible with the device.

    ```mlir
    %alloc = hal.device.allocator<%dev : !hal.device> : !hal.allocator
    ```
  }];
  let arguments = (ins HAL_Device:$device);
  let results = (outs HAL_Allocator:$result);
  let assemblyFormat = [{
    `<` $device `:` type($device) `>` `:` type($result) attr-dict-with-keyword
  }];
}

def HAL_DevicesCountOp : HAL_Op<"devices.count", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>, Pure]> {
  let summary = "Number of runtime devices";
  let description = [{
    The number of devices registered with the runtime.

    ```mlir
    %nd = hal.devices.count : index
    ```
  }];
  let results = (outs Index:$result);
  // [ad] before `:`.
  let assemblyFormat = "attr-dict `:` type($result)";
}

def HAL_DevicesGetOp : HAL_Op<"devices.get", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>, Pure]> {
  let summary = "The runtime device at an index";
  let description = [{
    The device at `%index` in `[0, hal.devices.count)`.

    ```mlir
    %d = hal.devices.get %i : !hal.device
    ```
  }];
  let arguments = (ins Index:$index);
  let results = (outs HAL_Device:$result);
  // [ad] before `:`.
  let assemblyFormat = "$index attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Queue ops
//
// All but flush start `<%dev : !hal.device> affinity(%q) wait(%wf)
// signal(%sf)` and end `flags(...)`; they run in queue order after the wait
// fence and signal the signal fence when done (docs/design.md §4).
//===----------------------------------------------------------------------===//

class HAL_QueueOp<string mnemonic, list<Trait> traits = []>
    : HAL_Op<mnemonic, !listconcat([HAL_DeviceQueueOp], traits)>;

def HAL_DeviceQueueAllocaOp : HAL_QueueOp<"device.queue.alloca", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Queue-ordered allocation";
  let description = [{
    Returns a buffer of `{%size}` bytes whose storage is allocated, from
    `pool`, once the wait fence is reached and is usable once the signal
    fence is. `IndeterminateLifetime` marks an allocation whose lifetime the
    compiler could not track.

    ```mlir
    %b = hal.device.queue.alloca<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) pool(%pool) type(%mt) usage(%bu) flags("None") : !hal.buffer{%sz}
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    I64:$queue_affinity,
    HAL_Fence:$wait_fence,
    HAL_Fence:$signal_fence,
    I64:$pool,
    I32:$memory_types,
    I32:$buffer_usage,
    Index:$result_size,
    HAL_AllocaFlagsAttr:$flags
  );
  let results = (outs HAL_Buffer:$result);
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `affinity` `(` $queue_affinity `)`
    `wait` `(` $wait_fence `)`
    `signal` `(` $signal_fence `)`
    `pool` `(` $pool `)`
    `type` `(` $memory_types `)`
    `usage` `(` $buffer_usage `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    `:` custom<SizeAwareType>(type($result), $result_size)
    attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueDeallocaOp : HAL_QueueOp<"device.queue.dealloca"> {
  let summary = "Queue-ordered free";
  let description = [{
    Frees the buffer's storage once the wait fence is reached; the signal
    fence says when the memory may be reused. `PreferOrigin` frees on the
    queue that allocated it.

    ```mlir
    hal.device.queue.dealloca<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) buffer(%b : !hal.buffer) flags(PreferOrigin)
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    I64:$queue_affinity,
    HAL_Fence:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_Buffer:$buffer,
    HAL_DeallocaFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `affinity` `(` $queue_affinity `)`
    `wait` `(` $wait_fence `)`
    `signal` `(` $signal_fence `)`
    `buffer` `(` $buffer `:` type($buffer) `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueExecuteOp : HAL_QueueOp<"device.queue.execute"> {
  let summary = "Queue-ordered command buffer execution";
  let description = [{
    Runs the recorded commands once the wait fence is reached and signals
    the signal fence when all of them completed.

    ```mlir
    hal.device.queue.execute<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) commands(%cmd) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    I64:$queue_affinity,
    HAL_Fence:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_CommandBuffer:$command_buffer,
    HAL_ExecuteFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `affinity` `(` $queue_affinity `)`
    `wait` `(` $wait_fence `)`
    `signal` `(` $signal_fence `)`
    `commands` `(` $command_buffer `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueCopyOp : HAL_QueueOp<"device.queue.copy"> {
  let summary = "Queue-ordered copy between buffers";
  let description = [{
    Copies `length` bytes from the source buffer at the source offset to the
    target buffer at the target offset. Both buffers must be reachable from
    the queue's device (docs/design.md §3: no silent staging).

    ```mlir
    hal.device.queue.copy<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) source(%src : !hal.buffer)[%so] target(%dst : !hal.buffer)[%do] length(%len) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    I64:$queue_affinity,
    HAL_Fence:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_Buffer:$source_buffer,
    Index:$source_offset,
    HAL_Buffer:$target_buffer,
    Index:$target_offset,
    Index:$length,
    HAL_CopyFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `affinity` `(` $queue_affinity `)`
    `wait` `(` $wait_fence `)`
    `signal` `(` $signal_fence `)`
    `source` `(` $source_buffer `:` type($source_buffer) `)`
    `` `[` $source_offset `]`
    `target` `(` $target_buffer `:` type($target_buffer) `)`
    `` `[` $target_offset `]`
    `length` `(` $length `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueFillOp : HAL_QueueOp<"device.queue.fill"> {
  let summary = "Queue-ordered fill with a repeating pattern";
  let description = [{
    Writes the `i8`, `i16` or `i32` pattern repeatedly into `length` bytes of
    the target buffer starting at the offset.

    ```mlir
    hal.device.queue.fill<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) target(%dst : !hal.buffer)[%off] length(%len) pattern(%pat : i32) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    I64:$queue_affinity,
    HAL_Fence:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_Buffer:$target_buffer,
    Index:$target_offset,
    Index:$length,
    HAL_FillPattern:$pattern,
    HAL_FillFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `affinity` `(` $queue_affinity `)`
    `wait` `(` $wait_fence `)`
    `signal` `(` $signal_fence `)`
    `target` `(` $target_buffer `:` type($target_buffer) `)`
    `` `[` $target_offset `]`
    `length` `(` $length `)`
    `pattern` `(` $pattern `:` type($pattern) `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueUpdateOp : HAL_QueueOp<"device.queue.update"> {
  let summary = "Queue-ordered copy of host bytes into a buffer";
  let description = [{
    Copies `length` host bytes, captured when the op is queued, from the
    source host buffer into the target buffer.

    ```mlir
    hal.device.queue.update<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) source(%hb : !util.buffer)[%so] target(%dst : !hal.buffer)[%do] length(%len) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    I64:$queue_affinity,
    HAL_Fence:$wait_fence,
    HAL_Fence:$signal_fence,
    Util_BufferType:$source_buffer,
    Index:$source_offset,
    HAL_Buffer:$target_buffer,
    Index:$target_offset,
    Index:$length,
    HAL_UpdateFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `affinity` `(` $queue_affinity `)`
    `wait` `(` $wait_fence `)`
    `signal` `(` $signal_fence `)`
    `source` `(` $source_buffer `:` type($source_buffer) `)`
    `` `[` $source_offset `]`
    `target` `(` $target_buffer `:` type($target_buffer) `)`
    `` `[` $target_offset `]`
    `length` `(` $length `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueBarrierOp : HAL_QueueOp<"device.queue.barrier"> {
  let summary = "Queue-ordered barrier";
  let description = [{
    Only orders the queue: signals the signal fence once the wait fence is
    reached.

    ```mlir
    hal.device.queue.barrier<%dev : !hal.device> affinity(%q) wait(%wf) signal(%sf) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    I64:$queue_affinity,
    HAL_Fence:$wait_fence,
    HAL_Fence:$signal_fence,
    HAL_ExecuteFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `affinity` `(` $queue_affinity `)`
    `wait` `(` $wait_fence `)`
    `signal` `(` $signal_fence `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_DeviceQueueFlushOp : HAL_Op<"device.queue.flush"> {
  let summary = "Hands locally batched submissions to the queue";
  let description = [{
    Submits anything the runtime batched locally for these queues now; it may
    do nothing. It has no fences or flags.

    ```mlir
    hal.device.queue.flush<%dev : !hal.device> affinity(%q)
    ```
  }];
  let arguments = (ins HAL_Device:$device, I64:$queue_affinity);
  let assemblyFormat = [{
    `<` $device `:` type($device) `>`
    `affinity` `(` $queue_affinity `)`
    attr-dict-with-keyword
  }];
}

#endif // FLEET_DIALECT_HAL_IR_HALDEVICEOPS_TD
