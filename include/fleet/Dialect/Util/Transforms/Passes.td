//===- Passes.td - util passes ------------------------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_UTIL_TRANSFORMS_PASSES_TD
#define FLEET_DIALECT_UTIL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttributeCallGraphPass : Pass<"util-attribute-call-graph", "mlir::ModuleOp"> {
  let summary = "Copies call-annotation attributes from callees onto their calls";
  let description = [{
    For every `util.call` and `func.call` whose callee is a function in the
    module: each callee attribute whose value implements
    CallAnnotationAttrInterface (for example `hal.abi.convention`) and the
    unit attribute `nosideeffects` are copied onto the call, unless the call
    already has an attribute of that name (it is never overwritten). Runs in
    the input phase right after ABI wrapping, so local passes see the
    convention of a callee at each call site (docs/design.md §4, seed 004).

    ```mlir
    util.func private @f(...) attributes {hal.abi.convention = #hal.abi.convention<coarse_fences>}
    %0 = util.call @f(...)   // gains {hal.abi.convention = #hal.abi.convention<coarse_fences>}
    ```
  }];
}

#endif // FLEET_DIALECT_UTIL_TRANSFORMS_PASSES_TD
