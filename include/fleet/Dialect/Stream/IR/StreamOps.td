//===- StreamOps.td - stream operations ---------------------*- tablegen -*-===//
//
// Every op of docs/ir-reference.md section "stream", with its
// syntax (which matches IREE's stream dialect text), split by group:
//   StreamTensorOps.td      tensor boundary and tensor-phase ops
//   StreamAsyncOps.td       async (value-semantics) ops, execute regions, yield
//   StreamResourceOps.td    timepoints and resource ops
//   StreamCmdOps.td         explicit commands (cmd.*)
//   StreamExecutableOps.td  executables, dispatch-side ops and test ops
// The shared constraints below follow the reference's "Resource classes" and
// "General syntax rules".
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMOPS_TD
#define FLEET_DIALECT_STREAM_IR_STREAMOPS_TD

include "fleet/Dialect/Stream/IR/StreamBase.td"
include "fleet/Dialect/Stream/IR/StreamInterfaces.td"
include "fleet/Dialect/Util/IR/UtilInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Shared constraints
//===----------------------------------------------------------------------===//

// `on(#aff)`: any attribute implementing AffinityAttrInterface, stored as a
// plain Attribute so it prints in full (`#hal.device.affinity<@d>`) and the
// AffinityOpInterface accessors take and return ::mlir::Attribute.
def Stream_AffinityAttrParam : Attr<
    CPred<"::llvm::isa<::fleet::stream::AffinityAttrInterface>($_self)">,
    "affinity attribute (#hal.device.affinity/promise/optimal)"> {
  let storageType = "::mlir::Attribute";
  let returnType = "::mlir::Attribute";
  let convertFromStorage = "$_self";
}

// One index per result, relative to the op's tie-able operands; -1 = untied
// (same storage as util's tied_operands).
def Stream_TiedOpStorageAttr
    : TypedArrayAttrBase<IndexAttr, "tied operand indices">;

// Encodings of stream.tensor.dispatch operands/results (one type each).
def Stream_TypeArrayAttr : TypedArrayAttrBase<TypeAttr, "type array">;

// "a primitive (index, integer, float or complex)".
def Stream_PrimitiveType : AnyTypeOf<[Index, AnyInteger, AnyFloat, AnyComplex]>;
// Loads and stores also move vectors.
def Stream_PrimitiveOrVectorType
    : AnyTypeOf<[Index, AnyInteger, AnyFloat, AnyComplex, AnyVectorOfAnyRank]>;
// async.splat/async.fill patterns; cmd.fill does not allow i64.
def Stream_FillPatternType : AnyTypeOf<[I8, I16, I32, I64]>;
def Stream_CmdFillPatternType : AnyTypeOf<[I8, I16, I32]>;

def Stream_Timepoint : Type<
    CPred<"::llvm::isa<::fleet::stream::TimepointType>($_self)">,
    "!stream.timepoint", "::fleet::stream::TimepointType"> {
  let builderCall = "$_builder.getType<::fleet::stream::TimepointType>()";
}
def Stream_Binding : Type<
    CPred<"::llvm::isa<::fleet::stream::BindingType>($_self)">,
    "!stream.binding", "::fleet::stream::BindingType"> {
  let builderCall = "$_builder.getType<::fleet::stream::BindingType>()";
}
def Stream_TestFence : Type<
    CPred<"::llvm::isa<::fleet::stream::TestFenceType>($_self)">,
    "!stream.test.fence", "::fleet::stream::TestFenceType"> {
  let builderCall = "$_builder.getType<::fleet::stream::TestFenceType>()";
}
def Stream_UtilBuffer : Type<
    CPred<"::llvm::isa<::fleet::util::BufferType>($_self)">,
    "!util.buffer", "::fleet::util::BufferType">;

// TimelineOpInterface methods of ops whose operand/result names already give
// them an ODS accessor of the interface's name (`await_timepoints`,
// `result_timepoint`): the op keeps the accessor and declares the rest.
defvar Stream_TimelineAwaitDecls = [{
    /// TimelineOpInterface.
    ::mlir::ValueRange getAwaitTimepoints();
    void setAwaitTimepoints(::mlir::ValueRange timepoints,
                            ::mlir::OpBuilder &builder);
}];
defvar Stream_TimelineSetAwaitDecl = [{
    /// TimelineOpInterface.
    void setAwaitTimepoints(::mlir::ValueRange timepoints,
                            ::mlir::OpBuilder &builder);
}];

// Ops with value semantics and no side effects (IREE: Stream_PureOp).
// async.alloca, splat and clone also mark their result MemAlloc: each makes
// new storage that tied ops (copy, update, fill) may write, so CSE must not
// merge two of them (unused ones are still dead code).
class Stream_PureOp<string mnemonic, list<Trait> traits = []>
    : Stream_Op<mnemonic, !listconcat(traits, [Pure])>;

include "fleet/Dialect/Stream/IR/StreamTensorOps.td"
include "fleet/Dialect/Stream/IR/StreamAsyncOps.td"
include "fleet/Dialect/Stream/IR/StreamResourceOps.td"
include "fleet/Dialect/Stream/IR/StreamCmdOps.td"
include "fleet/Dialect/Stream/IR/StreamExecutableOps.td"

#endif // FLEET_DIALECT_STREAM_IR_STREAMOPS_TD
