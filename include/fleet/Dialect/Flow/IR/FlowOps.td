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
include "mlir/IR/SymbolInterfaces.td"
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
    Pure, AllTypesMatch<["operand", "result"]>]> {
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

def Flow_DispatchOp : Flow_Op<"dispatch", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs one entry point of an executable over tensors";
  let description = [{
    Formed by dispatch formation from a compute op (or a fused chain of
    elementwise ops) that was outlined into `stream.executable @ex`. Operands
    are tensors (whole, static-shaped) or primitives passed as push constants;
    results are new tensors. ConvertToStream turns it into
    `stream.async.dispatch`. Not in the IR reference: the syntax is IREE's
    `flow.dispatch` without tied results or dynamic dims (docs/ir.md).

    ```mlir
    %0 = flow.dispatch @ex::@entry(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = flow.dispatch @ex::@entry[%n](%a, %n) : (tensor<4xf32>, index) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins SymbolRefAttr:$entry_point,
                       Variadic<Index>:$workload,
                       Variadic<AnyType>:$arguments);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $entry_point (`[` $workload^ `]`)? `` `(` $arguments `)` attr-dict `:`
    functional-type($arguments, $results)
  }];
  let hasVerifier = 1;
}

#endif // FLEET_DIALECT_FLOW_IR_FLOWOPS_TD
