//===- UtilOps.td - util operations -------------------------*- tablegen -*-===//
//
// Syntax follows docs/ir-reference.md (section "util"), which
// matches IREE's util dialect text.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_UTIL_IR_UTILOPS_TD
#define FLEET_DIALECT_UTIL_IR_UTILOPS_TD

include "fleet/Dialect/Util/IR/UtilBase.td"
include "fleet/Dialect/Util/IR/UtilInterfaces.td"
include "fleet/Dialect/Util/IR/UtilTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

// Tied-operand indices: one per result, -1 when the result is not tied.
def Util_TiedOpStorageAttr : TypedArrayAttrBase<IndexAttr, "tied operand indices">;

//===----------------------------------------------------------------------===//
// Globals
//===----------------------------------------------------------------------===//

def Util_GlobalOp : Util_Op<"global", [Symbol]> {
  let summary = "Module-level variable";
  let description = [{
    A named value that lives for the whole program. Without `mutable` it is
    set once: by its initial value or by stores in initializers.

    ```mlir
    util.global private @limit = 64 : index
    util.global private mutable @weights : !stream.resource<variable>
    util.global private @gpu0 = #hal.device.target<"local"> : !hal.device
    util.global private @odd : tensor<?xf32> = dense<1.0> : tensor<4xf32>
    ```
  }];
  let arguments = (ins
    OptionalAttr<StrAttr>:$sym_visibility,
    SymbolNameAttr:$sym_name,
    TypeAttr:$type,
    UnitAttr:$is_mutable,
    OptionalAttr<AnyAttr>:$initial_value
  );
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility)
    (`mutable` $is_mutable^)?
    $sym_name
    attr-dict
    custom<TypeOrAttr>($type, $initial_value)
  }];
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "bool":$isMutable,
                   "::mlir::Type":$type,
                   CArg<"::mlir::Attribute", "{}">:$initialValue)>,
  ];
  let extraClassDeclaration = [{
    ::mlir::Type getGlobalType() { return getType(); }
  }];
  let hasVerifier = 1;
}

def Util_GlobalLoadOp : Util_Op<"global.load", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Loads the value of a global";
  let description = [{
    ```mlir
    %w = util.global.load @weights : !stream.resource<variable>
    %d = util.global.load immutable @gpu0 : !hal.device
    ```
    `immutable` promises the global is never stored after initialization; it
    is an error on a `mutable` global.
  }];
  let arguments = (ins FlatSymbolRefAttr:$global, UnitAttr:$is_immutable);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    (`immutable` $is_immutable^)? $global attr-dict `:` type($result)
  }];
  let builders = [
    OpBuilder<(ins "GlobalOp":$global), [{
      build($_builder, $_state, global.getType(), global.getSymName(),
            /*is_immutable=*/!global.getIsMutable());
    }]>,
  ];
}

def Util_GlobalStoreOp : Util_Op<"global.store", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Stores a value into a global";
  let description = [{
    ```mlir
    util.global.store %w2, @weights : !stream.resource<variable>
    ```
    The value's type must equal the global's type exactly.
  }];
  let arguments = (ins AnyType:$value, FlatSymbolRefAttr:$global);
  let assemblyFormat = "$value `,` $global attr-dict `:` type($value)";
}

def Util_GlobalAddressOp : Util_Op<"global.address", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Address of a global for indirect access";
  let description = [{
    ```mlir
    %p = util.global.address @weights : !util.ptr<!stream.resource<variable>>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$global, UnitAttr:$is_immutable);
  let results = (outs Util_PtrType:$result);
  let assemblyFormat = [{
    (`immutable` $is_immutable^)? $global attr-dict `:` qualified(type($result))
  }];
}

def Util_GlobalLoadIndirectOp : Util_Op<"global.load.indirect"> {
  let summary = "Loads the global a pointer names";
  let description = [{
    ```mlir
    %w = util.global.load.indirect %p : !util.ptr<!stream.resource<variable>> -> !stream.resource<variable>
    ```
  }];
  let arguments = (ins Util_PtrType:$global, UnitAttr:$is_immutable);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    (`immutable` $is_immutable^)? $global attr-dict `:`
    qualified(type($global)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Util_GlobalStoreIndirectOp : Util_Op<"global.store.indirect"> {
  let summary = "Stores into the global a pointer names";
  let description = [{
    ```mlir
    util.global.store.indirect %w2, %p : !stream.resource<variable> -> !util.ptr<!stream.resource<variable>>
    ```
  }];
  let arguments = (ins AnyType:$value, Util_PtrType:$global);
  let assemblyFormat = [{
    $value `,` $global attr-dict `:` type($value) `->` qualified(type($global))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

def Util_FuncOp : Util_Op<"func", [
    AffineScope, AutomaticAllocationScope, IsolatedFromAbove,
    FunctionOpInterface, CallableOpInterface,
    DeclareOpInterfaceMethods<Util_TiedOp,
      ["getTiedOperandsIndexAndLength", "getTiedResultOperandIndex"]>]> {
  let summary = "Function with optionally tied results";
  let description = [{
    A function whose results may reuse an argument's storage (`-> %arg0` or
    `-> %arg0 as T`). A function without a body is an external declaration.

    ```mlir
    util.func public @predict(%arg0: tensor<4xf32>) -> tensor<4xf32> {
      util.return %arg0 : tensor<4xf32>
    }
    util.func private @ext(%arg0: !stream.resource<*>, %arg1: index) -> (%arg0, i32)
    ```
  }];
  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    OptionalAttr<Util_TiedOpStorageAttr>:$tied_operands,
    OptionalAttr<StrAttr>:$sym_visibility,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs
  );
  let regions = (region AnyRegion:$body);
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type,
      CArg<"::llvm::ArrayRef<int64_t>", "{}">:$tiedOperands)>,
  ];
  let extraClassDeclaration = [{
    /// FunctionOpInterface.
    ::mlir::Region *getCallableRegion() {
      return isExternal() ? nullptr : &getBody();
    }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// Tied operand index of result `i` (-1 when not tied).
    int64_t getTiedResultIndex(unsigned resultIndex);
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Util_InitializerOp : Util_Op<"initializer", [
    IsolatedFromAbove, CallableOpInterface]> {
  let summary = "Code run once when the module is loaded";
  let description = [{
    Takes no arguments and returns nothing. It may store to immutable globals.

    ```mlir
    util.initializer {
      %d = util.global.load @gpu0 : !hal.device
      util.return
    }
    ```
  }];
  let regions = (region AnyRegion:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return {}; }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return {}; }
    ::mlir::ArrayAttr getArgAttrsAttr() { return {}; }
    ::mlir::ArrayAttr getResAttrsAttr() { return {}; }
    void setArgAttrsAttr(::mlir::ArrayAttr) {}
    void setResAttrsAttr(::mlir::ArrayAttr) {}
    ::mlir::Attribute removeArgAttrsAttr() { return {}; }
    ::mlir::Attribute removeResAttrsAttr() { return {}; }
  }];
  let hasVerifier = 1;
}

def Util_ReturnOp : Util_Op<"return", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["FuncOp", "InitializerOp"]>]> {
  let summary = "Returns from a util.func or util.initializer";
  let description = [{
    ```mlir
    util.return %a, %n : tensor<?x16xf32>, index
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

def Util_CallOp : Util_Op<"call", [
    CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<Util_TiedOp,
      ["getTiedResultOperandIndex"]>]> {
  let summary = "Calls a util.func";
  let description = [{
    Results may be tied to call operands, matching the callee's ties exactly.

    ```mlir
    %r:2 = util.call @ext(%res, %sz) : (!stream.resource<*>, index) -> (%res, i32)
    util.call @log() : () -> ()
    ```
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$callee,
    Variadic<AnyType>:$arguments,
    OptionalAttr<Util_TiedOpStorageAttr>:$tied_operands,
    OptionalAttr<DictArrayAttr>:$arg_attrs,
    OptionalAttr<DictArrayAttr>:$res_attrs
  );
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $arguments `)` attr-dict `:`
    custom<ShapelessOperandTypeList>(type($arguments))
    `->` custom<TiedFunctionResultList>(ref($arguments), ref(type($arguments)),
                                         type($results), $tied_operands)
  }];
  let builders = [
    OpBuilder<(ins "FuncOp":$callee, "::mlir::ValueRange":$arguments)>,
  ];
  let extraClassDeclaration = [{
    ::mlir::FunctionType getCalleeType();
    /// CallOpInterface.
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
    ::mlir::Operation::operand_range getArgOperands() { return getArguments(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() {
      return getArgumentsMutable();
    }
  }];
}

def Util_NullOp : Util_Op<"null", [Pure]> {
  let summary = "Null value of any type";
  let description = [{
    "No fence", an empty buffer, ... Pure, so identical nulls are CSE'd.

    ```mlir
    %nofence = util.null : !hal.fence
    ```
  }];
  let results = (outs AnyType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Host buffers
//===----------------------------------------------------------------------===//

def Util_BufferConstantOp : Util_Op<"buffer.constant", [Pure]> {
  let summary = "Constant host byte buffer";
  let description = [{
    The bytes of `value` (a dense elements or string attribute, stored as in
    memory: row-major, little-endian) as a host `!util.buffer`, optionally
    named and aligned. Not in the IR reference: the syntax is IREE's
    `util.buffer.constant` (docs/ir.md). Host programs upload it to devices.

    ```mlir
    %b = util.buffer.constant "weights" {alignment = 64 : index} : !util.buffer = dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$name, AnyAttr:$value,
                       OptionalAttr<IndexAttr>:$alignment);
  let results = (outs Util_BufferType:$result);
  let assemblyFormat = [{
    ($name^)? attr-dict `:` type($result) `=` $value
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Byte length of the value.
    int64_t getByteLength();
  }];
}

def Util_StatusCheckOkOp : Util_Op<"status.check_ok"> {
  let summary = "Fails the program unless a status is OK (0)";
  let description = [{
    Host programs check the `i32` status of `hal.fence.await` and similar
    with it; a non-zero status aborts the call with `message` and the status.
    Not in the IR reference: the syntax is IREE's `util.status.check_ok`
    (docs/ir.md).

    ```mlir
    util.status.check_ok %status, "device work failed"
    ```
  }];
  let arguments = (ins I32:$status, OptionalAttr<StrAttr>:$message);
  let assemblyFormat = "$status (`,` $message^)? attr-dict";
}

#endif // FLEET_DIALECT_UTIL_IR_UTILOPS_TD
