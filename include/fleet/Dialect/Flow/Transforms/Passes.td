//===- Passes.td - flow (input phase) passes ----------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_TD
#define FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FormDispatchesPass : Pass<"flow-form-dispatches", "mlir::ModuleOp"> {
  let summary = "Outlines each compute op (or fused elementwise chain) into an executable";
  let description = [{
    In every host function: elementwise arith/math ops on tensors become
    `linalg.generic`s, producer-consumer chains of elementwise generics are
    fused, and then every remaining linalg op (the root) is outlined into a
    `stream.executable` with one export and replaced by a `flow.dispatch`.
    `tensor.empty`/`linalg.fill` producing a root's init, and constants used
    by it, are cloned into the dispatch; other tensors become bindings, other
    scalars push constants (docs/pipeline.md, "Dispatch function contract").
    Identical executables are deduplicated. An op the host program cannot
    run and no dispatch can hold is a diagnostic naming it.

    ```mlir
    %0 = math.absf %a : tensor<4xf32>
    // becomes
    %0 = flow.dispatch @abs_dispatch_0::@abs_dispatch_0_elementwise_4_f32(%a) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::fleet::flow::FlowDialect", "::fleet::stream::StreamDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect", "::mlir::func::FuncDialect",
    "::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

#endif // FLEET_DIALECT_FLOW_TRANSFORMS_PASSES_TD
