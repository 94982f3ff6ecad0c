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

#endif // FLEET_INPUTCONVERSION_PASSES_TD
