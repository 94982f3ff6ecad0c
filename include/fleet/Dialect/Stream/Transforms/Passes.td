//===- Passes.td - stream passes ----------------------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_STREAM_TRANSFORMS_PASSES_TD
#define FLEET_DIALECT_STREAM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AnnotateAffinitiesPass : Pass<"stream-annotate-affinities", "mlir::ModuleOp"> {
  let summary = "Debugging: writes AffinityAnalysis results as attributes";
  let description = [{
    For every op the analysis places: `stream.affinities = [exec]`,
    `stream.affinities.operands = [...]` and `stream.affinities.results =
    [...]` (one entry per operand/result; `unit` where a value floats or is
    not a device value), plus `stream.affinities.results.pins = [[...]]` with
    the affinities each result is pinned to. Not part of any pipeline.

    ```mlir
    // before (#a is the module's default affinity)
    %1 = flow.tensor.transfer %arg0 : tensor<4xf32> to #b
    %2 = flow.dispatch @f::@g(%1) : (tensor<4xf32>) -> tensor<4xf32>
    // after: the dispatch reads a value moved to #b, so it executes on #b
    %1 = flow.tensor.transfer %arg0 : tensor<4xf32> to #b {stream.affinities = [#a],
        stream.affinities.operands = [#a], stream.affinities.results = [#b], ...}
    %2 = flow.dispatch @f::@g(%1) : (tensor<4xf32>) -> tensor<4xf32> {stream.affinities = [#b], ...}
    ```
  }];
}

def RefineUsagePass : Pass<"stream-refine-usage", "mlir::ModuleOp"> {
  let summary = "Gives every resource a concrete lifetime";
  let description = [{
    `!stream.resource<*>` values become `external` when they flow only into a
    lifetime-changing transfer to `external` on the same affinity (the
    transfer is then removed), `constant` for constants, and `transient`
    otherwise; transfers that no longer change anything are removed.

    ```mlir
    %0 = stream.async.dispatch ... -> !stream.resource<*>{%c16}
    %1 = stream.async.transfer %0 : !stream.resource<*>{%c16} from(#a) -> to(#a) !stream.resource<external>{%c16}
    // becomes
    %0 = stream.async.dispatch ... -> !stream.resource<external>{%c16}
    ```
  }];
}

def ElideAsyncCopiesPass : Pass<"stream-elide-async-copies", "mlir::ModuleOp"> {
  let summary = "Removes transfers the device topology makes unnecessary";
  let description = [{
    A transfer from S to T that does not change the lifetime is removed when
    S and T are the same device (backend and ordinal), when the link T -> S
    has `unified_memory`, or when it has `transparent_access`: the consumer
    T can then load/store the producer's memory directly (docs/design.md §3: a
    link (@x -> @y) says x reaches memory allocated on y, so the direction
    checked is consumer -> producer). Lifetime-changing transfers stay.

    A missing `from(...)` is where the producer puts the value (a producing
    transfer's `to`, else the producer's `on(...)`/`stream.affinity`); a
    missing `to(...)` is the one device every consumer names. A transfer
    without either is elided when that proves it local; an argument, a
    consumer without an affinity or a result that leaves the function keeps
    it. `#hal.device.promise<@d>` stands for device @d
    (stream::DeviceTopology::getPlacementDevice; Stream knows no HAL).

    Before (the import puts the value on @b):
    ```mlir
    %i = stream.tensor.import on(#hal.device.promise<@b>) %v : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%sz}
    %t = stream.async.transfer %i : !stream.resource<external>{%sz} -> to(#hal.device.affinity<@b>) !stream.resource<external>{%sz}
    util.return %t : !stream.resource<external>
    ```
    After:
    ```mlir
    %i = stream.tensor.import on(#hal.device.promise<@b>) %v : !hal.buffer_view -> tensor<4xf32> in !stream.resource<external>{%sz}
    util.return %i : !stream.resource<external>
    ```
  }];
}

def PlaceTransferExecutionsPass
    : Pass<"stream-place-transfer-executions", "mlir::ModuleOp"> {
  let summary = "Runs transfers into pinned results on the pinned device";
  let description = [{
    For each `stream.async.transfer` without `on(...)`: when its result is
    pinned to exactly one affinity P (an export, import or ABI affinity) and
    the default execution (the source side, or the target side for staging/
    external sources) cannot execute with P, sets `on(P)`. When the result is
    pinned to several affinities, the transfer is split into one per pin,
    each placed on its pin and feeding that pin's consumers (Fleet extension,
    docs/design.md §3). Placement is never an error.

    ```mlir
    // before: B's value into a result exported on A (#a, #b: two devices)
    %t = stream.async.transfer %r : !stream.resource<transient>{%sz} from(#b) -> to(#a) !stream.resource<external>{%sz}
    %v = stream.tensor.export on(#a) %t : tensor<4xf32> in !stream.resource<external>{%sz} -> !util.buffer
    // after: A pulls, so B never writes A's result
    %t = stream.async.transfer on(#a) %r : !stream.resource<transient>{%sz} from(#b) -> to(#a) !stream.resource<external>{%sz}
    ```
  }];
}

// Anchored like IREE's (an interface pass on CallableOpInterface): runs on
// a util.func, util.initializer or func.func, or on a module, where it
// processes every host callable (docs/contributing.md "Pass anchors").
def ScheduleExecutionPass : Pass<"stream-schedule-execution"> {
  let summary = "Partitions async work into per-device execute regions";
  let description = [{
    In every block, streamable async ops are grouped into
    `stream.async.execute on(A)` regions, one affinity each, ordered by
    timepoints. An op joins the open region of its affinity only when it
    can execute with it and needs no timepoint the region does not already
    await; a region ends when another region or the host consumes one of its
    values, so consumers start early (pipelining over micro-batches
    overlaps). Host consumers get a `stream.timepoint.await`; device
    consumers await the producer's timepoint. A transfer joins its
    producer's region only when its execution affinity is compatible.

    ```mlir
    // before: a chain A -> B -> A
    %a = stream.async.dispatch on(#a) @ex::@f(%x[%c0 to %sz for %sz]) : (!stream.resource<external>{%sz}) -> !stream.resource<transient>{%sz}
    %b = stream.async.dispatch on(#b) @ex::@f(%a[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    %c = stream.async.dispatch on(#a) @ex::@f(%b[%c0 to %sz for %sz]) : (!stream.resource<transient>{%sz}) -> !stream.resource<transient>{%sz}
    util.return %c : !stream.resource<transient>
    // after: three regions linked by await(...), one host wait at the end
    %r1, %t1 = stream.async.execute on(#a) with(%x as %w: !stream.resource<external>{%xsz}) -> !stream.resource<transient>{%sz} {
      %0 = stream.async.dispatch on(#a) @ex::@f(%w[%c0 to %sz for %sz]) : ...
      stream.yield %0 : !stream.resource<transient>{%sz}
    } => !stream.timepoint
    %r2, %t2 = stream.async.execute on(#b) await(%t1) => with(%r1 as %w: ...) -> ... { ... }
    %r3, %t3 = stream.async.execute on(#a) await(%t2) => with(%r2 as %w: ...) -> ... { ... }
    %h = stream.timepoint.await %t3 => %r3 : !stream.resource<transient>{%sz}
    util.return %h : !stream.resource<transient>
    ```
  }];
}

// Anchored like ScheduleExecutionPass (IREE: CallableOpInterface).
def ScheduleConcurrencyPass : Pass<"stream-schedule-concurrency"> {
  let summary = "Groups independent work in an execute region into concurrent regions";
  let description = [{
    Inside each `stream.async.execute`, each run of consecutive ops none of
    which uses another's result (a wave) is wrapped in a
    `stream.async.concurrent` region when it has two or more ops. Ops are
    never reordered: the program's order is the device's (cache locality,
    docs/pipeline.md "Concurrency"). Unresolved dispatches (no export in the
    module) stay serial.

    ```mlir
    // before
    %r, %t = stream.async.execute on(#aff) with(%x as %cx: ...) -> ... {
      %a = stream.async.dispatch @ex::@f(%cx[...]) : ... -> !stream.resource<transient>{%sz}
      %b = stream.async.dispatch @ex::@f(%cx[...]) : ... -> !stream.resource<transient>{%sz}
      %c = stream.async.dispatch @ex::@f(%a[...], %b[...]) : ...
      stream.yield %c : ...
    } => !stream.timepoint
    // after: %a and %b form one wave
    %r, %t = stream.async.execute on(#aff) with(%x as %cx: ...) -> ... {
      %p:2 = stream.async.concurrent with(%cx as %w: ...) -> (...) {
        %a = stream.async.dispatch @ex::@f(%w[...]) : ...
        %b = stream.async.dispatch @ex::@f(%w[...]) : ...
        stream.yield %a, %b : ...
      }
      %c = stream.async.dispatch @ex::@f(%p#0[...], %p#1[...]) : ...
      stream.yield %c : ...
    } => !stream.timepoint
    ```
  }];
}

def PropagateTimepointsPass
    : Pass<"stream-propagate-timepoints", "mlir::ModuleOp"> {
  let summary = "Carries timepoints with resources through control flow";
  let description = [{
    A resource carried by an `scf.for` travels with its timepoint instead of
    being awaited by the host: the loop gets a carried timepoint, execute
    regions in iteration i+1 await iteration i's timepoint, and the host
    waits only where it reads the value (after the loop, or before a host
    op inside it). Values crossing `scf.if`, branches and calls keep their
    host waits.

    ```mlir
    // before
    %o = scf.for %i = %c0 to %n step %c1 iter_args(%r = %x) -> (!stream.resource<transient>) {
      %y, %t = stream.async.execute on(#aff) with(%r as %a: ...) -> ... { ... }
      %h = stream.timepoint.await %t => %y : !stream.resource<transient>{%sz}
      scf.yield %h : !stream.resource<transient>
    }
    // after
    %imm = stream.timepoint.immediate => !stream.timepoint
    %o:2 = scf.for ... iter_args(%r = %x, %rt = %imm) -> (!stream.resource<transient>, !stream.timepoint) {
      %y, %t = stream.async.execute on(#aff) await(%rt) => with(%r as %a: ...) -> ... { ... }
      scf.yield %y, %t : !stream.resource<transient>, !stream.timepoint
    }
    %h = stream.timepoint.await %o#1 => %o#0 : !stream.resource<transient>{%sz}
    ```
  }];
}

def ScheduleAllocationPass
    : Pass<"stream-schedule-allocation", "mlir::ModuleOp"> {
  let summary = "Allocates resources and turns async regions into commands";
  let description = [{
    Every `stream.async.execute` becomes a `stream.cmd.execute`: results get a
    queue-ordered `stream.resource.alloca`, issued before the command regions
    (after the previous dealloca of the block at the latest) so that no
    alloca queues behind another device's work (on the region's affinity, or
    `#hal.device.optimal<[...]>` in device declaration order when devices
    other than the producer read the value; a result pinned to one device
    stays on it), temporaries get an alloca/dealloca pair around the region,
    dispatches become `stream.cmd.dispatch`, transfers `stream.cmd.copy`
    preceded by `stream.cmd.invalidate from(SRC)` when the source lives on
    another device and followed by `stream.cmd.flush to(DST)` when the result
    does. Constants become host buffers mapped as resources.

    ```mlir
    // before: B computes, A pulls the value into a result exported on A
    %rb, %tb = stream.async.execute on(#b) with(%x as %cx: ...) -> !stream.resource<transient>{%sz} {
      %d = stream.async.dispatch on(#b) @ex::@f(%cx[%c0 to %sz for %sz]) : ...
      stream.yield %d : !stream.resource<transient>{%sz}
    } => !stream.timepoint
    %ra, %ta = stream.async.execute on(#a) await(%tb) => with(%rb as %crb: ...) -> !stream.resource<external>{%sz} {
      %t = stream.async.transfer on(#a) %crb : ... from(#b) -> to(#a) !stream.resource<external>{%sz}
      stream.yield %t : !stream.resource<external>{%sz}
    } => !stream.timepoint
    // after (#ab: #hal.device.optimal<[@a, @b]>; the value B writes and A reads)
    %mid, %mt = stream.resource.alloca uninitialized on(#ab) : !stream.resource<transient>{%sz} => !stream.timepoint
    %out, %ot = stream.resource.alloca uninitialized on(#a) : !stream.resource<external>{%sz} => !stream.timepoint
    %0 = stream.cmd.execute on(#b) await(%mt) => with(%x as %s: ..., %mid as %w: ...) {
      stream.cmd.dispatch @ex::@f { ro %s[%c0 for %sz] : ..., wo %w[%c0 for %sz] : ... }
    } => !stream.timepoint
    %1 = stream.timepoint.join max(%0, %ot) => !stream.timepoint
    %2 = stream.cmd.execute on(#a) await(%1) => with(%mid as %s: ..., %out as %d: ...) {
      stream.cmd.invalidate from(#b) %s[%c0 for %sz] : !stream.resource<transient>{%sz}
      stream.cmd.copy %s[%c0], %d[%c0], %sz : ... -> !stream.resource<external>{%sz}
    } => !stream.timepoint
    %3 = stream.timepoint.join max(%2, %0) => !stream.timepoint
    %4 = stream.resource.dealloca origin on(#a) await(%3) => %mid : ... => !stream.timepoint
    ```
  }];
}

def ElideTimepointsPass : Pass<"stream-elide-timepoints", "mlir::ModuleOp"> {
  let summary = "Removes waits already covered by other waits";
  let description = [{
    A timepoint awaited by an op, or combined by a join, is dropped when
    another timepoint it awaits (or combines) is known to be reached only
    after it, and immediate timepoints are dropped; joins are flattened. A
    timeline-aware op's signal covers its waits. Coverage is a module-level
    must-analysis on MLIR's sparse data-flow framework
    (stream::TimepointCoverage): it follows `arith.select` (what both
    choices cover), block arguments and region results (what every incoming
    value covers) and calls (the callee's returns all cover an argument, so
    the result covers the operand passed). Joins whose result escapes
    (returned, stored, passed to a call) become the timepoints they still
    need: the one left, a smaller join, or `stream.timepoint.immediate`.

    Before (both choices awaited %t1):
    ```mlir
    %a = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
    %b = stream.test.timeline_op await(%t1) => with() : () -> () => !stream.timepoint
    %s = arith.select %c, %a, %b : !stream.timepoint
    %j = stream.timepoint.join max(%t1, %s) => !stream.timepoint
    util.return %j : !stream.timepoint
    ```
    After:
    ```mlir
    %s = arith.select %c, %a, %b : !stream.timepoint
    util.return %s : !stream.timepoint
    ```
  }];
}

#endif // FLEET_DIALECT_STREAM_TRANSFORMS_PASSES_TD
