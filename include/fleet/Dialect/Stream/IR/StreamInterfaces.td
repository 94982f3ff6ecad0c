//===- StreamInterfaces.td - stream interfaces --------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMINTERFACES_TD
#define FLEET_DIALECT_STREAM_IR_STREAMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Stream_AffinityAttr : AttrInterface<"AffinityAttrInterface"> {
  let cppNamespace = "::fleet::stream";
  let description = [{
    An attribute naming where work executes or a value lives (a device, a
    promised device, or a set of candidate devices). Implemented by the hal
    affinity attributes and, for Stream's own tests, `#stream.test.affinity`.
    Questions that need the whole module (device identity, links) go through
    stream::DeviceTopology (fleet/Dialect/Stream/IR/DeviceTopology.h).
  }];
  let methods = [
    InterfaceMethod<[{
      The symbol of the one device this affinity executes on, or empty when
      it names no single concrete device (a promise, a set of candidates).
    }], "::llvm::StringRef", "getDeviceName", (ins)>,
    InterfaceMethod<[{
      True when work with this affinity and `other` may share one execution
      region: equal, or the same device where one queue mask contains the
      other (docs/design.md §3, canExecuteTogether). A null `other` is
      compatible.
    }], "bool", "isExecutableWith", (ins "::mlir::Attribute":$other)>,
  ];
}

//===----------------------------------------------------------------------===//
// Op interfaces
//===----------------------------------------------------------------------===//

def Stream_AffinityOp : OpInterface<"AffinityOpInterface"> {
  let cppNamespace = "::fleet::stream";
  let description = [{
    An op with an `on(#aff)` clause: where it executes (null = inherited).
  }];
  let methods = [
    InterfaceMethod<[{
      The affinity the op executes on, or null. For stream.async.transfer this
      is the execution affinity (explicit `on`, else derived from the
      lifetimes and `from`/`to`, docs/ir-reference.md).
    }], "::mlir::Attribute", "getAffinityAttr", (ins)>,
    InterfaceMethod<[{
      Sets (or with null, clears) the execution affinity. The attribute must
      implement AffinityAttrInterface; the verifier rejects other kinds.
    }], "void", "setAffinityAttr", (ins "::mlir::Attribute":$affinity)>,
    InterfaceMethod<[{
      True when the op hands its device operands to someone outside the
      device program (the host, an ABI result) on its affinity, so those
      values must already live there: the op pins their placement
      (docs/design.md §2). The one rule is stream::getUsePin.
    }], "bool", "pinsOperandPlacement", (ins), [{}], [{ return false; }]>,
  ];
}

def Stream_TimelineOp : OpInterface<"TimelineOpInterface"> {
  let cppNamespace = "::fleet::stream";
  let description = [{
    An op ordered on the device timeline: the timepoints it awaits and the one it produces.
  }];
  let methods = [
    InterfaceMethod<"The timepoints the op waits for (possibly none).",
      "::mlir::ValueRange", "getAwaitTimepoints", (ins)>,
    InterfaceMethod<[{
      Replaces the awaited timepoints. Ops that take at most one `await`
      operand join several with a new stream.timepoint.join built by
      `builder` before the op; an empty range removes the wait.
    }], "void", "setAwaitTimepoints",
      (ins "::mlir::ValueRange":$timepoints, "::mlir::OpBuilder &":$builder)>,
    InterfaceMethod<"The timepoint the op produces, or null.",
      "::mlir::Value", "getResultTimepoint", (ins)>,
  ];
}

def Stream_StreamableOp : OpInterface<"StreamableOpInterface"> {
  let cppNamespace = "::fleet::stream";
  let description = [{
    An op allowed inside async.execute/concurrent (async, tensor) or cmd.execute (cmd).
  }];
  let methods = [
    InterfaceMethod<[{
      True when the op only describes storage (no device work), such as an
      uninitialized allocation; scheduling may place it freely.
    }], "bool", "isMetadata", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
      True when the op is cheaper to recompute at every consumer than to keep
      one shared result (splats, constants).
    }], "bool", "preferCloneToConsumers", (ins), [{}], [{ return false; }]>,
  ];
}

def Stream_TimelineAwareOp : OpInterface<"TimelineAwareOpInterface"> {
  let cppNamespace = "::fleet::stream";
  let description = [{
    A host op that joins the device timeline through fences instead of
    needing ready values: it starts its work once its wait fences are
    reached and signals its signal fence when its results are ready (a call
    with the coarse-fences ABI, `stream.test.timeline_aware`). Scheduling
    exports a producer's timepoint into its waits and imports its signal as
    the timepoint of its results, so no host wait sits before or after it
    (docs/design.md §4; IREE PR 22381 introduced the interface).
  }];
  let methods = [
    InterfaceMethod<"True when this op instance takes part (e.g. a call with the coarse_fences convention and fence operands).",
      "bool", "isTimelineAware", (ins)>,
    InterfaceMethod<"The fences the op waits on.",
      "::llvm::SmallVector<::mlir::Value>", "getWaitFences", (ins)>,
    InterfaceMethod<"The fence the op signals when its results are ready.",
      "::mlir::Value", "getSignalFence", (ins)>,
    InterfaceMethod<[{
      Makes the op also wait for `timepoint` (exported into its waits with
      ops built by `builder` before the op, on `affinity`).
    }], "void", "joinTimepoint",
      (ins "::mlir::Value":$timepoint, "::mlir::OpBuilder &":$builder,
           "::mlir::Attribute":$affinity)>,
    InterfaceMethod<[{
      A timepoint reached when the op's results are ready (its signal fence
      imported), built by `builder` after the op, on `affinity`.
    }], "::mlir::Value", "importSignalTimepoint",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Attribute":$affinity)>,
  ];
}

#endif // FLEET_DIALECT_STREAM_IR_STREAMINTERFACES_TD
