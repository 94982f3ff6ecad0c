//===- HALCommandBufferOps.td - fences and command buffers ---*- tablegen -*-===//
//
// docs/ir-reference.md, "hal" / "Fences" and "Command buffers".
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_HAL_IR_HALCOMMANDBUFFEROPS_TD
#define FLEET_DIALECT_HAL_IR_HALCOMMANDBUFFEROPS_TD

//===----------------------------------------------------------------------===//
// Fences
//===----------------------------------------------------------------------===//

def HAL_FenceCreateOp : HAL_Op<"fence.create", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    MemoryEffects<[MemAlloc]>]> {
  let summary = "Creates an unsignaled fence";
  let description = [{
    A new fence on the device's timeline. It stays unsignaled until a queue
    op given it as signal fence completes, or the host signals or fails it.

    ```mlir
    %f = hal.fence.create device(%dev : !hal.device) flags("None") : !hal.fence
    ```
  }];
  let arguments = (ins HAL_Device:$device, HAL_FenceFlagsAttr:$flags);
  let results = (outs HAL_Fence:$result);
  let assemblyFormat = [{
    `device` `(` $device `:` type($device) `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_FenceJoinOp : HAL_Op<"fence.join", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A fence reached when all inputs are";
  let description = [{
    Joins the timepoints of the input fences (wait-all).

    ```mlir
    %fj = hal.fence.join at([%f0, %f1]) flags("None") -> !hal.fence
    ```
  }];
  let arguments = (ins Variadic<HAL_Fence>:$fences,
                       HAL_FenceFlagsAttr:$flags);
  let results = (outs HAL_Fence:$result);
  let assemblyFormat = [{
    `at` `(` `[` $fences `]` `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    `->` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_FenceQueryOp : HAL_Op<"fence.query"> {
  let summary = "Polls a fence without waiting";
  let description = [{
    The `i32` status: OK (0) once signalled, the deferred status while
    pending, or the failure status.

    ```mlir
    %st = hal.fence.query<%f : !hal.fence> : i32
    ```
  }];
  let arguments = (ins HAL_Fence:$fence);
  let results = (outs I32:$status);
  let assemblyFormat = [{
    `<` $fence `:` type($fence) `>` `:` type($status) attr-dict-with-keyword
  }];
}

def HAL_FenceSignalOp : HAL_Op<"fence.signal"> {
  let summary = "Signals a fence from the host";
  let description = [{
    Marks every timepoint of the fence reached; waiting work may start.

    ```mlir
    hal.fence.signal<%f : !hal.fence>
    ```
  }];
  let arguments = (ins HAL_Fence:$fence);
  let assemblyFormat = "`<` $fence `:` type($fence) `>` attr-dict-with-keyword";
}

def HAL_FenceFailOp : HAL_Op<"fence.fail"> {
  let summary = "Fails a fence with a status";
  let description = [{
    Fails the fence's semaphores with the `i32` status; the failure reaches
    everything that waits on them (docs/design.md §4).

    ```mlir
    hal.fence.fail<%f : !hal.fence> status(%code)
    ```
  }];
  let arguments = (ins HAL_Fence:$fence, I32:$status);
  let assemblyFormat = [{
    `<` $fence `:` type($fence) `>` `status` `(` $status `)`
    attr-dict-with-keyword
  }];
}

def HAL_FenceAwaitOp : HAL_Op<"fence.await", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "Host wait on fences";
  let description = [{
    Blocks the host until every fence is reached or the timeout (`i32`
    milliseconds) expires; returns the `i32` status, non-zero on failure or
    timeout.

    ```mlir
    %st = hal.fence.await until([%f0, %f1]) timeout_millis(%ms) flags("None") : i32
    ```
  }];
  let arguments = (ins Variadic<HAL_Fence>:$fences, I32:$timeout_millis,
                       HAL_WaitFlagsAttr:$flags);
  let results = (outs I32:$status);
  let assemblyFormat = [{
    `until` `(` `[` $fences `]` `)`
    `timeout_millis` `(` $timeout_millis `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    `:` type($status)
    attr-dict-with-keyword
  }];
}

//===----------------------------------------------------------------------===//
// Command buffers
//===----------------------------------------------------------------------===//

def HAL_CommandBufferCreateOp : HAL_Op<"command_buffer.create", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    MemoryEffects<[MemAlloc]>]> {
  let summary = "Starts recording a command buffer";
  let description = [{
    A command buffer for the device, ready to record commands of the given
    categories. The optional `bindings(%cap)` is the capacity of its binding
    table (commands then name `index` slots instead of buffers).

    ```mlir
    %cmd = hal.command_buffer.create device(%dev : !hal.device) mode(OneShot) categories("Transfer|Dispatch") affinity(%q) : !hal.command_buffer
    %ind = hal.command_buffer.create device(%dev : !hal.device) mode("None") categories(Dispatch) affinity(%q) bindings(%cap) : !hal.command_buffer
    ```
  }];
  let arguments = (ins
    HAL_Device:$device,
    HAL_CommandBufferModeAttr:$modes,
    HAL_CommandCategoryAttr:$command_categories,
    I64:$queue_affinity,
    Optional<Index>:$binding_capacity
  );
  let results = (outs HAL_CommandBuffer:$result);
  let assemblyFormat = [{
    `device` `(` $device `:` type($device) `)`
    `mode` `(` custom<EnumAttr>($modes) `)`
    `categories` `(` custom<EnumAttr>($command_categories) `)`
    `affinity` `(` $queue_affinity `)`
    (`bindings` `(` $binding_capacity^ `)`)?
    `:` type($result)
    attr-dict-with-keyword
  }];
}

def HAL_CommandBufferFinalizeOp : HAL_Op<"command_buffer.finalize"> {
  let summary = "Ends recording";
  let description = [{
    No command may be recorded afterwards; the command buffer can then be
    executed.

    ```mlir
    hal.command_buffer.finalize<%cmd : !hal.command_buffer>
    ```
  }];
  let arguments = (ins HAL_CommandBuffer:$command_buffer);
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>` attr-dict-with-keyword
  }];
}

def HAL_CommandBufferDeviceOp : HAL_Op<"command_buffer.device", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>, Pure]> {
  let summary = "The device a command buffer was created for";
  let description = [{
    ```mlir
    %d = hal.command_buffer.device<%cmd : !hal.command_buffer> : !hal.device
    ```
  }];
  let arguments = (ins HAL_CommandBuffer:$command_buffer);
  let results = (outs HAL_Device:$device);
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>` `:` type($device)
    attr-dict-with-keyword
  }];
}

def HAL_CommandBufferExecutionBarrierOp
    : HAL_Op<"command_buffer.execution_barrier"> {
  let summary = "Records an execution dependency";
  let description = [{
    Commands recorded after the barrier in the `target` stages wait for the
    `source` stages of the commands recorded before it.

    ```mlir
    hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source("Dispatch|Transfer") target(CommandIssue) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    HAL_ExecutionStageAttr:$source_stage_mask,
    HAL_ExecutionStageAttr:$target_stage_mask,
    HAL_ExecutionBarrierFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `source` `(` custom<EnumAttr>($source_stage_mask) `)`
    `target` `(` custom<EnumAttr>($target_stage_mask) `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_CommandBufferFillBufferOp : HAL_Op<"command_buffer.fill_buffer"> {
  let summary = "Records a fill with a repeating pattern";
  let description = [{
    Note the `[offset, length]` pair. The target may be an `index` slot of
    the binding table.

    ```mlir
    hal.command_buffer.fill_buffer<%cmd : !hal.command_buffer> target(%dst : !hal.buffer)[%off, %len] pattern(%pat : i32) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    HAL_BufferOrSlot:$target_buffer,
    Index:$target_offset,
    Index:$length,
    HAL_FillPattern:$pattern,
    HAL_FillFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `target` `(` $target_buffer `:` type($target_buffer) `)`
    `` `[` $target_offset `,` $length `]`
    `pattern` `(` $pattern `:` type($pattern) `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_CommandBufferUpdateBufferOp : HAL_Op<"command_buffer.update_buffer", [
    DeclareOpInterfaceMethods<Util_SizeAwareOp>]> {
  let summary = "Records a copy of host bytes into a buffer";
  let description = [{
    The host bytes are captured into the command buffer when recorded. The
    source carries its size in `{}`; the target may be an `index` slot of the
    binding table.

    ```mlir
    hal.command_buffer.update_buffer<%cmd : !hal.command_buffer> source(%hb : !util.buffer{%hsz})[%so] target(%dst : !hal.buffer)[%do] length(%len) flags("None")
    hal.command_buffer.update_buffer<%cmd : !hal.command_buffer> source(%hb : !util.buffer{%hsz})[%so] target(%slot : index)[%do] length(%len) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    Util_BufferType:$source_buffer,
    Index:$source_size,
    Index:$source_offset,
    HAL_BufferOrSlot:$target_buffer,
    Index:$target_offset,
    Index:$length,
    HAL_UpdateFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `source` `(` $source_buffer `:`
        custom<SizeAwareType>(type($source_buffer), $source_size) `)`
    `` `[` $source_offset `]`
    `target` `(` $target_buffer `:` type($target_buffer) `)`
    `` `[` $target_offset `]`
    `length` `(` $length `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_CommandBufferCopyBufferOp : HAL_Op<"command_buffer.copy_buffer"> {
  let summary = "Records a copy between buffers";
  let description = [{
    Either side may be an `index` slot of the binding table.

    ```mlir
    hal.command_buffer.copy_buffer<%cmd : !hal.command_buffer> source(%src : !hal.buffer)[%so] target(%dst : !hal.buffer)[%do] length(%len) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    HAL_BufferOrSlot:$source_buffer,
    Index:$source_offset,
    HAL_BufferOrSlot:$target_buffer,
    Index:$target_offset,
    Index:$length,
    HAL_CopyFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `source` `(` $source_buffer `:` type($source_buffer) `)`
    `` `[` $source_offset `]`
    `target` `(` $target_buffer `:` type($target_buffer) `)`
    `` `[` $target_offset `]`
    `length` `(` $length `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
}

def HAL_CommandBufferDispatchOp : HAL_Op<"command_buffer.dispatch", [
    AttrSizedOperandSegments]> {
  let summary = "Records a dispatch of an executable export";
  let description = [{
    Dispatches export `%ord` (`i64`) of the executable over an `[x, y, z]`
    workgroup grid. The optional `i32` constants and the bindings are
    captured when recorded. Each binding is a `!hal.buffer` or an `index`
    slot of the binding table, with an `[offset, length]` range; at least one
    binding is needed.

    ```mlir
    hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%exe : !hal.executable)[%ord] workgroups([%x, %y, %z]) constants([%k0, %k1]) bindings([
      (%inb : !hal.buffer)[%c0, %isz],
      (%slot : index)[%c0, %osz]
    ]) flags("None")
    ```
  }];
  let arguments = (ins
    HAL_CommandBuffer:$command_buffer,
    HAL_Executable:$executable,
    I64:$entry_point,
    Index:$workgroup_x,
    Index:$workgroup_y,
    Index:$workgroup_z,
    Variadic<I32>:$constants,
    Variadic<HAL_BufferOrSlot>:$binding_buffers,
    Variadic<Index>:$binding_offsets,
    Variadic<Index>:$binding_lengths,
    HAL_DispatchFlagsAttr:$flags
  );
  let assemblyFormat = [{
    `<` $command_buffer `:` type($command_buffer) `>`
    `target` `(` $executable `:` type($executable) `)`
    `` `[` $entry_point `]`
    `workgroups` `(` `[` $workgroup_x `,` $workgroup_y `,` $workgroup_z `]` `)`
    (`constants` `(` `[` $constants^ `]` `)`)?
    `bindings` `(` `[`
      custom<DispatchBindings>($binding_buffers, type($binding_buffers),
                               $binding_offsets, $binding_lengths)
    `]` `)`
    `flags` `(` custom<EnumAttr>($flags) `)`
    attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

#endif // FLEET_DIALECT_HAL_IR_HALCOMMANDBUFFEROPS_TD
