//===- Passes.td - conversions between phases ---------------*- tablegen -*-===//

#ifndef FLEET_CONVERSION_PASSES_TD
#define FLEET_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertToStreamPass : Pass<"stream-conversion", "mlir::ModuleOp"> {
  let summary = "Converts tensors and placement to stream resources and async ops";
  let description = [{
    Runs AffinityAnalysis, then rewrites every host function: tensors become
    `!stream.resource`s sized by their static byte count,
    `flow.dispatch` → `stream.async.dispatch on(E)`,
    `flow.tensor.transfer` → `stream.async.transfer from(S) -> to(T)`,
    `hal.tensor.import/export` → `stream.tensor.import/export` of external
    resources (a wait fence becomes an imported timepoint and an await),
    `hal.tensor.barrier` → timepoint barriers chained to its fence,
    constants → `stream.async.constant` and empty tensors →
    `stream.async.alloca` at each consumer's affinity. A value read on an
    affinity other than where it lives is transferred.

    ```mlir
    %1 = flow.dispatch @ex::@entry(%0) : (tensor<4xf32>) -> tensor<4xf32>
    // becomes
    %1 = stream.async.dispatch on(#hal.device.affinity<@d>) @ex::@entry(%r[%c0 to %c16 for %c16]) : (!stream.resource<external>{%c16}) -> !stream.resource<*>{%c16}
    ```
  }];
  let dependentDialects = ["::fleet::stream::StreamDialect",
                           "::mlir::arith::ArithDialect"];
}

def ConvertStreamToHALPass : Pass<"hal-conversion", "mlir::ModuleOp"> {
  let summary = "Lowers cmd-level stream IR to the HAL host program";
  let description = [{
    The input is the stream phase's result (docs/pipeline.md §2); the output
    holds only util, hal, arith, scf and cf ops in host code (§3).

    - `!stream.resource<*>` becomes `!hal.buffer` (sizes already travel as
      separate values) and `!stream.timepoint` becomes `!hal.fence`: an
      immediate timepoint is `util.null : !hal.fence`, join is
      `hal.fence.join`, await is a host `hal.fence.await` checked with
      `util.status.check_ok`.
    - An affinity `#hal.device.affinity<@d, [queues]>` is
      `util.global.load immutable @d` plus the queue mask as an `i64`.
    - Every allocation resolves its memory properties with
      `hal.allocator.resolve_memory_properties for(AFF) lifetime(L)`; an
      `#hal.device.optimal` affinity then picks its device and queue with
      `hal.allocator.select`. Queue ops wait on the fence of the timepoint
      they await (null when none) and signal a new `hal.fence.create`.
    - `stream.cmd.execute` records a one-shot command buffer (barriers
      between the commands of serial regions and after concurrent ones) and
      submits it with `hal.device.queue.execute`; dispatches look up the
      executable and compute the workgroup count from the export's `count`
      region.
    - `stream.executable` becomes `hal.executable` with one
      `@fleet_object` variant; the inner module is moved unchanged.

    ```mlir
    %r, %t = stream.resource.alloca uninitialized on(#hal.device.affinity<@d>) : !stream.resource<transient>{%c16} => !stream.timepoint
    // becomes
    %d = util.global.load immutable @d : !hal.device
    %q = arith.constant -1 : i64
    %mt, %bu = hal.allocator.resolve_memory_properties for(#hal.device.affinity<@d>) lifetime(transient) : i32, i32
    %none = util.null : !hal.fence
    %f = hal.fence.create device(%d : !hal.device) flags("None") : !hal.fence
    %b = hal.device.queue.alloca<%d : !hal.device> affinity(%q) wait(%none) signal(%f) pool(%c0_i64) type(%mt) usage(%bu) flags("None") : !hal.buffer{%c16}
    ```
  }];
  let dependentDialects = ["::fleet::hal::HALDialect",
                           "::fleet::util::UtilDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

#endif // FLEET_CONVERSION_PASSES_TD
