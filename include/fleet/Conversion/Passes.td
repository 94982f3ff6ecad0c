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

#endif // FLEET_CONVERSION_PASSES_TD
