//===- Passes.td - input conversion passes ------------------*- tablegen -*-===//

#ifndef FLEET_INPUTCONVERSION_PASSES_TD
#define FLEET_INPUTCONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertToUtilPass : Pass<"input-convert-to-util", "mlir::ModuleOp"> {
  let summary = "Converts func.func/call/return to util and hoists a named inner module";
  let description = [{
    Every `func.func` becomes a `util.func` (argument and result attributes
    kept), `func.call` a `util.call` and `func.return` a `util.return`. A
    single named inner module (`builtin.module @module_a { ... }`) is hoisted
    into the top-level module, whose `fleet.module_name` becomes `module_a`:
    its public functions are then exported as `module_a.<name>` at run time.

    ```mlir
    func.func @abs(%a: tensor<4xf32>) -> tensor<4xf32> { ... return %0 : ... }
    // becomes
    util.func public @abs(%arg0: tensor<4xf32>) -> tensor<4xf32> { ... util.return %0 : ... }
    ```
  }];
  let dependentDialects = ["::fleet::util::UtilDialect"];
}

def WrapEntryPointsPass : Pass<"abi-wrap-entry-points", "mlir::ModuleOp"> {
  let summary = "Gives exports and imports the buffer-view ABI (synchronous or coarse-fences)";
  let description = [{
    Exports: each public `util.func` with a body becomes a public wrapper
    that takes and returns `!hal.buffer_view` for every tensor, imports its
    arguments with `hal.tensor.import`, calls the original (now private,
    renamed `_<name>`) and exports the results with `hal.tensor.export`. The
    wrapper is marked `iree.abi.stub`; inlining later folds the call away.
    - `iree.abi.affinity` on an argument or result sets the `on(...)` of its
      import/export; on the function it becomes the wrapped function's
      `stream.affinity` and the default for its imports/exports.
    - `iree.abi.output = N` on a tensor argument binds result N to that
      argument's storage with `hal.tensor.alias`.
    - With `invocation-model=coarse-fences` (IREE's option; Fleet's older
      spelling `executionModel=async-external` means the same), or
      `iree.abi.model = "coarse-fences"` on the function, the wrapper takes
      a wait and a signal
      fence last: imports wait on the wait fence, a `hal.tensor.barrier`
      signals the signal fence when the results are ready, and the wrapper is
      marked `hal.abi.convention = #hal.abi.convention<coarse_fences>`.

    Imports: an external declaration with tensors becomes a declaration over
    buffer views (plus a wait and a signal fence when it has `iree.abi.model
    = "coarse-fences"`, then marked with the convention), and callers reach it
    through a private shim that exports the arguments, calls it (with a fresh
    fence pair) and imports the results (docs/design.md §4).

    ```mlir
    util.func public @abs(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
      %0 = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<4xf32>
      %1 = util.call @_abs(%0) : (tensor<4xf32>) -> tensor<4xf32>
      %2 = hal.tensor.export %1 "output0" : tensor<4xf32> -> !hal.buffer_view
      util.return %2 : !hal.buffer_view
    }
    ```
  }];
  let options = [
    Option<"invocationModel", "invocation-model", "std::string",
           /*default=*/"\"\"",
           "sync (default: synchronous exports) or coarse-fences (one wait "
           "fence for all inputs, one signal fence for all outputs), as IREE">,
    Option<"executionModel", "executionModel", "std::string",
           /*default=*/"\"\"",
           "Fleet's older spelling of invocation-model, named after "
           "--execution-model: async-internal (= sync) or async-external "
           "(= coarse-fences); neither option given: the global "
           "--execution-model">,
  ];
  let dependentDialects = ["::fleet::util::UtilDialect", "::fleet::hal::HALDialect",
                           "::fleet::flow::FlowDialect"];
}

#endif // FLEET_INPUTCONVERSION_PASSES_TD
