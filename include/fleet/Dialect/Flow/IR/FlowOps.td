//===- FlowOps.td - flow dialect (input-level placement) ----*- tablegen -*-===//
//
// Fleet keeps only the placement ops of IREE's flow dialect: they say where a
// tensor must live; ConvertToStream turns them into stream transfers.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_FLOW_IR_FLOWOPS_TD
#define FLEET_DIALECT_FLOW_IR_FLOWOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "fleet/Dialect/Util/IR/UtilInterfaces.td"

def Flow_Dialect : Dialect {
  let name = "flow";
  let cppNamespace = "::fleet::flow";
  let summary = "Input-level placement of tensors on devices.";
  let description = [{
    `flow.tensor.transfer` moves a tensor to a device (copying only if needed);
    `flow.tensor.barrier` pins a tensor to a device from a point on.
  }];
}

class Flow_Op<string mnemonic, list<Trait> traits = []>
    : Op<Flow_Dialect, mnemonic, traits>;

def Flow_TensorTransferOp : Flow_Op<"tensor.transfer", [
    AllTypesMatch<["operand", "result"]>]> {
  let summary = "Moves a tensor to the named target";
  let description = [{
    Copies only when the tensor is not already reachable where it is needed.
    The target is any attribute (normally an affinity), printed in full.

    ```mlir
    %t1 = flow.tensor.transfer %t0 : tensor<?x16xf32>{%n} to #hal.device.affinity<@gpu1>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, Variadic<Index>:$operand_dims,
                       AnyAttr:$target);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `:` custom<SizedType>(type($result), $operand_dims)
    `to` $target attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

def Flow_TensorBarrierOp : Flow_Op<"tensor.barrier", [
    AllTypesMatch<["operand", "result"]>,
    DeclareOpInterfaceMethods<Util_TiedOp, ["getTiedResultOperandIndex"]>]> {
  let summary = "Pins a tensor to a target from this point on";
  let description = [{
    The result is the operand (tied), available on/for `target` from here on.

    ```mlir
    %t2 = flow.tensor.barrier %t1 : tensor<?x16xf32>{%n} on #hal.device.affinity<@gpu1>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$operand, Variadic<Index>:$operand_dims,
                       AnyAttr:$target);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $operand `:` custom<SizedType>(type($result), $operand_dims)
    `on` $target attr-dict-with-keyword
  }];
  let hasVerifier = 1;
}

#endif // FLEET_DIALECT_FLOW_IR_FLOWOPS_TD
