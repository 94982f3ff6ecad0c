//===- UtilInterfaces.td - interfaces shared by all dialects -*- tablegen -*-===//
//
// Interfaces that the stream and hal dialects implement so passes can reason
// about storage reuse (tied operands) and byte sizes (size-aware values)
// without knowing each op.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_UTIL_IR_UTILINTERFACES_TD
#define FLEET_DIALECT_UTIL_IR_UTILINTERFACES_TD

include "mlir/IR/OpBase.td"

def Util_SizeAwareType : TypeInterface<"SizeAwareTypeInterface"> {
  let cppNamespace = "::fleet::util";
  let description = [{
    A type whose values carry a dynamic byte size as a separate `index` SSA
    value (written `T{%size}` in op signatures).
  }];
}

def Util_SizeAwareOp : OpInterface<"SizeAwareOpInterface"> {
  let cppNamespace = "::fleet::util";
  let description = [{
    An op that knows the byte size (`index`, in bytes) of each of its
    size-aware operands and results.
  }];
  let methods = [
    InterfaceMethod<"Byte size of the size-aware operand at `idx`, or null.",
      "::mlir::Value", "getOperandSize", (ins "unsigned":$idx)>,
    InterfaceMethod<"Byte size of the size-aware result at `idx`, or null.",
      "::mlir::Value", "getResultSize", (ins "unsigned":$idx)>,
  ];
}

def Util_TiedOp : OpInterface<"TiedOpInterface"> {
  let cppNamespace = "::fleet::util";
  let description = [{
    An op whose results may reuse the storage of one of its operands (written
    `-> %operand` or `-> %operand as T` in the result list). The tie is stored
    in the `tied_operands` attribute: one index per result, relative to the
    first tied-able operand, or -1 when the result is not tied.
  }];
  let methods = [
    InterfaceMethod<
      "Range [start, length) of the operands a result may be tied to.",
      "std::pair<unsigned, unsigned>", "getTiedOperandsIndexAndLength", (ins),
      [{}], [{ return {0, $_op->getNumOperands()}; }]>,
    InterfaceMethod<
      "Index in the op's operand list of the operand tied to result `idx`.",
      "std::optional<unsigned>", "getTiedResultOperandIndex",
      (ins "unsigned":$resultIndex), [{}], [{
        return ::fleet::util::detail::getTiedResultOperandIndex($_op, resultIndex);
      }]>,
  ];
  let extraClassDeclaration = [{
    /// The operand value whose storage `result` reuses, or null.
    ::mlir::Value getTiedResultOperand(::mlir::Value result) {
      auto opResult = ::llvm::cast<::mlir::OpResult>(result);
      if (auto index = getTiedResultOperandIndex(opResult.getResultNumber()))
        return (*this)->getOperand(*index);
      return {};
    }
  }];
}

def Util_CallAnnotationAttr : AttrInterface<"CallAnnotationAttrInterface"> {
  let cppNamespace = "::fleet::util";
  let description = [{
    A function attribute whose value every call site must see, so local
    passes learn a callee's properties (e.g. its ABI convention) without a
    symbol lookup. `--util-attribute-call-graph` copies such attributes from
    each callee onto its calls (IREE PR 22381, seed 004).
  }];
}

#endif // FLEET_DIALECT_UTIL_IR_UTILINTERFACES_TD
