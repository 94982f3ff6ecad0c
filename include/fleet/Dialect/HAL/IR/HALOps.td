//===- HALOps.td - hal operations ---------------------------*- tablegen -*-===//
//
// Every op of docs/ir-reference.md section "hal", grouped by the
// object they act on (one .td per group). The text of each op is IREE's;
// Fleet's own additions (hal.device.query.link) are marked where defined.
//
// Conventions shared by all groups (docs/ir-reference.md, "General syntax
// rules"):
// - enum clauses (`flags(...)`, `mode(...)`, `lifetime(...)`, ...) use
//   custom<EnumAttr>: bare keyword for one single-bit case, else quoted `A|B`;
// - `{%size}` follows a size-aware result type (custom<SizeAwareType>);
// - `=>` is printed with no space and parsed as `=` then `>`;
// - discardable attributes go last as `attributes {...}` unless an op is
//   marked [ad] in the reference, in which case a bare `{...}` sits where it
//   says.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_HAL_IR_HALOPS_TD
#define FLEET_DIALECT_HAL_IR_HALOPS_TD

include "fleet/Dialect/HAL/IR/HALBase.td"
include "fleet/Dialect/HAL/IR/HALAttrs.td"
include "fleet/Dialect/Util/IR/UtilInterfaces.td"
include "fleet/Dialect/Util/IR/UtilTypes.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Shared constraints (HAL scalar aliases of docs/ir-reference.md, "Types")
//===----------------------------------------------------------------------===//

// Queue ops: wait and signal fences must differ unless both come from
// util.null (docs/ir-reference.md, "Queue ops"). Verified by the C++ trait in
// HALTraits.h, which also lets passes recognise queue ops.
def HAL_DeviceQueueOp : NativeOpTrait<"DeviceQueueOp"> {
  let cppNamespace = "::fleet::hal::OpTrait";
}

// A `!hal.buffer`, or an `index` slot of a command buffer's binding table.
def HAL_BufferOrSlot : AnyTypeOf<[Index, HAL_Buffer]>;

// Fill patterns of hal.device.queue.fill / hal.command_buffer.fill_buffer.
def HAL_FillPattern : AnyTypeOf<[I8, I16, I32]>;

// `lifetime(...)` of hal.allocator.resolve_memory_properties: the stream
// resource lifetime enum (docs/ir-reference.md, "Lifetime enum"). Spelled as a
// constraint so StreamBase.td (and its enums) stay out of the hal tablegen.
def HAL_LifetimeAttr : Attr<
    CPred<"::llvm::isa<::fleet::stream::LifetimeAttr>($_self)">,
    "stream resource lifetime"> {
  let storageType = "::fleet::stream::LifetimeAttr";
  let returnType = "::fleet::stream::Lifetime";
  let convertFromStorage = "$_self.getValue()";
  let constBuilderCall =
      "::fleet::stream::LifetimeAttr::get($_builder.getContext(), $0)";
}

// Executable variant objects: `objects([#hal.executable.object<...>, ...])`.
def HAL_ExecutableObjectArrayAttr
    : TypedArrayAttrBase<HAL_ExecutableObjectAttr, "executable objects">;

// `workgroup_size = [x, y, z]` on hal.executable.export.
def HAL_WorkgroupSizeAttr
    : TypedArrayAttrBase<IndexAttr, "workgroup size (index array)">;

include "fleet/Dialect/HAL/IR/HALAllocatorOps.td"
include "fleet/Dialect/HAL/IR/HALDeviceOps.td"
include "fleet/Dialect/HAL/IR/HALCommandBufferOps.td"
include "fleet/Dialect/HAL/IR/HALBufferViewOps.td"
include "fleet/Dialect/HAL/IR/HALExecutableOps.td"

#endif // FLEET_DIALECT_HAL_IR_HALOPS_TD
