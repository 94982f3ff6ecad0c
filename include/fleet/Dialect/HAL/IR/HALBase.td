//===- HALBase.td - hal dialect, enums and types ------------*- tablegen -*-===//
//
// The hal dialect is the host program's view of the hardware abstraction
// layer: devices, allocators, buffers, fences, command buffers, queue ops and
// the topology that relates devices (syntax: docs/ir-reference.md).
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_HAL_IR_HALBASE_TD
#define FLEET_DIALECT_HAL_IR_HALBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "fleet/Dialect/Util/IR/UtilInterfaces.td"

def HAL_Dialect : Dialect {
  let name = "hal";
  let cppNamespace = "::fleet::hal";
  let summary = "Hardware abstraction layer: devices, buffers, fences, queues.";
  let description = [{
    Devices and their topology, allocators with memory types and buffer
    usage bits, buffers and buffer views, timeline fences, command buffers,
    executables, and queue operations ordered by wait/signal fences.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // hal.memory_type / hal.buffer_usage fold to i32 values; consumers that
  // fold further get arith.constant results. Stream is loaded for the
  // `#stream.lifetime` of hal.allocator.resolve_memory_properties.
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::fleet::stream::StreamDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

class HAL_Op<string mnemonic, list<Trait> traits = []>
    : Op<HAL_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums (bit values per docs/ir-reference.md; IREE's runtime values)
//===----------------------------------------------------------------------===//

// Wraps an enum as `#hal.<mnemonic><...>` with Fleet's enum spelling
// (bare keyword for a single case, quoted `A|B` string otherwise).
class HAL_EnumAttr<EnumAttrInfo enumInfo, string mnemonic>
    : EnumAttr<HAL_Dialect, enumInfo, mnemonic> {
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
}

def HAL_MemoryType : I32BitEnumAttr<"MemoryType", "memory type", [
    I32BitEnumAttrCaseNone<"None">,
    I32BitEnumAttrCase<"Optimal", 0x1>,
    I32BitEnumAttrCase<"HostVisible", 0x2>,
    I32BitEnumAttrCase<"HostCoherent", 0x4>,
    I32BitEnumAttrCase<"HostCached", 0x8>,
    I32BitEnumAttrCase<"HostLocal", 0x46>,
    I32BitEnumAttrCase<"DeviceVisible", 0x10>,
    I32BitEnumAttrCase<"DeviceLocal", 0x30>,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}
def HAL_MemoryTypeAttr : HAL_EnumAttr<HAL_MemoryType, "memory_type">;

def HAL_BufferUsage : I32BitEnumAttr<"BufferUsage", "buffer usage", [
    I32BitEnumAttrCaseNone<"None">,
    I32BitEnumAttrCase<"TransferSource", 0x1>,
    I32BitEnumAttrCase<"TransferTarget", 0x2>,
    I32BitEnumAttrCase<"Transfer", 0x3>,
    I32BitEnumAttrCase<"DispatchIndirectParameters", 0x100>,
    I32BitEnumAttrCase<"DispatchUniformRead", 0x200>,
    I32BitEnumAttrCase<"DispatchStorageRead", 0x400>,
    I32BitEnumAttrCase<"DispatchStorageWrite", 0x800>,
    I32BitEnumAttrCase<"DispatchStorage", 0xC00>,
    I32BitEnumAttrCase<"DispatchImageRead", 0x1000>,
    I32BitEnumAttrCase<"DispatchImageWrite", 0x2000>,
    I32BitEnumAttrCase<"DispatchImage", 0x3000>,
    I32BitEnumAttrCase<"SharingExport", 0x10000>,
    I32BitEnumAttrCase<"SharingReplicate", 0x20000>,
    I32BitEnumAttrCase<"SharingConcurrent", 0x40000>,
    I32BitEnumAttrCase<"SharingImmutable", 0x80000>,
    I32BitEnumAttrCase<"MappingScoped", 0x1000000>,
    I32BitEnumAttrCase<"MappingPersistent", 0x2000000>,
    I32BitEnumAttrCase<"MappingOptional", 0x4000000>,
    I32BitEnumAttrCase<"MappingAccessRandom", 0x8000000>,
    I32BitEnumAttrCase<"MappingAccessSequentialWrite", 0x10000000>,
    I32BitEnumAttrCase<"Mapping", 0x9000000>,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}
def HAL_BufferUsageAttr : HAL_EnumAttr<HAL_BufferUsage, "buffer_usage">;

// `None` plus one flag at bit 0; the shape of most queue-op flag enums.
class HAL_FlagEnum<string name, string flag>
    : I32BitEnumAttr<name, name, [
        I32BitEnumAttrCaseNone<"None">,
        I32BitEnumAttrCase<flag, 0x1>,
      ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}

def HAL_AllocaFlags : HAL_FlagEnum<"AllocaFlags", "IndeterminateLifetime">;
def HAL_AllocaFlagsAttr : HAL_EnumAttr<HAL_AllocaFlags, "alloca_flags">;
def HAL_DeallocaFlags : HAL_FlagEnum<"DeallocaFlags", "PreferOrigin">;
def HAL_DeallocaFlagsAttr : HAL_EnumAttr<HAL_DeallocaFlags, "dealloca_flags">;
def HAL_CopyFlags : HAL_FlagEnum<"CopyFlags", "Reserved">;
def HAL_CopyFlagsAttr : HAL_EnumAttr<HAL_CopyFlags, "copy_flags">;
def HAL_FillFlags : HAL_FlagEnum<"FillFlags", "Reserved">;
def HAL_FillFlagsAttr : HAL_EnumAttr<HAL_FillFlags, "fill_flags">;
def HAL_UpdateFlags : HAL_FlagEnum<"UpdateFlags", "Reserved">;
def HAL_UpdateFlagsAttr : HAL_EnumAttr<HAL_UpdateFlags, "update_flags">;
def HAL_ExecuteFlags : HAL_FlagEnum<"ExecuteFlags", "Reserved">;
def HAL_ExecuteFlagsAttr : HAL_EnumAttr<HAL_ExecuteFlags, "execute_flags">;
def HAL_FenceFlags : HAL_FlagEnum<"FenceFlags", "Reserved">;
def HAL_FenceFlagsAttr : HAL_EnumAttr<HAL_FenceFlags, "fence_flags">;
def HAL_WaitFlags : HAL_FlagEnum<"WaitFlags", "Reserved">;
def HAL_WaitFlagsAttr : HAL_EnumAttr<HAL_WaitFlags, "wait_flags">;
def HAL_DispatchFlags : HAL_FlagEnum<"DispatchFlags", "Reserved">;
def HAL_DispatchFlagsAttr : HAL_EnumAttr<HAL_DispatchFlags, "dispatch_flags">;
def HAL_ExecutionBarrierFlags : HAL_FlagEnum<"ExecutionBarrierFlags", "Reserved">;
def HAL_ExecutionBarrierFlagsAttr
    : HAL_EnumAttr<HAL_ExecutionBarrierFlags, "execution_barrier_flags">;

def HAL_CommandBufferMode : I32BitEnumAttr<"CommandBufferMode",
    "command buffer mode", [
    I32BitEnumAttrCaseNone<"None">,
    I32BitEnumAttrCase<"OneShot", 0x1>,
    I32BitEnumAttrCase<"AllowInlineExecution", 0x10>,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}
def HAL_CommandBufferModeAttr
    : HAL_EnumAttr<HAL_CommandBufferMode, "command_buffer_mode">;

def HAL_CommandCategory : I32BitEnumAttr<"CommandCategory",
    "command category", [
    I32BitEnumAttrCaseNone<"None">,
    I32BitEnumAttrCase<"Transfer", 0x1>,
    I32BitEnumAttrCase<"Dispatch", 0x2>,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}
def HAL_CommandCategoryAttr
    : HAL_EnumAttr<HAL_CommandCategory, "command_category">;

def HAL_ExecutionStage : I32BitEnumAttr<"ExecutionStage", "execution stage", [
    I32BitEnumAttrCaseNone<"None">,
    I32BitEnumAttrCase<"CommandIssue", 0x1>,
    I32BitEnumAttrCase<"CommandProcess", 0x2>,
    I32BitEnumAttrCase<"Dispatch", 0x4>,
    I32BitEnumAttrCase<"Transfer", 0x8>,
    I32BitEnumAttrCase<"CommandRetire", 0x10>,
    I32BitEnumAttrCase<"Host", 0x20>,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}
def HAL_ExecutionStageAttr : HAL_EnumAttr<HAL_ExecutionStage, "execution_stage">;

def HAL_ABIConvention : I32EnumAttr<"ABIConvention", "ABI convention", [
    I32EnumAttrCase<"Synchronous", 0, "synchronous">,
    I32EnumAttrCase<"CoarseFences", 1, "coarse_fences">,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}

def HAL_DescriptorType : I32EnumAttr<"DescriptorType", "descriptor type", [
    I32EnumAttrCase<"UniformBuffer", 6, "uniform_buffer">,
    I32EnumAttrCase<"StorageBuffer", 7, "storage_buffer">,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}

def HAL_DescriptorFlags : I32BitEnumAttr<"DescriptorFlags",
    "descriptor flags", [
    I32BitEnumAttrCaseNone<"None">,
    I32BitEnumAttrCase<"ReadOnly", 0x1>,
    I32BitEnumAttrCase<"Indirect", 0x2>,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}

def HAL_PipelineLayoutFlags : I32BitEnumAttr<"PipelineLayoutFlags",
    "pipeline layout flags", [
    I32BitEnumAttrCaseNone<"None">,
    I32BitEnumAttrCase<"Indirect", 0x1>,
  ]> {
  let cppNamespace = "::fleet::hal";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class HAL_Type<string name, string typeMnemonic, string doc,
               list<Trait> traits = []>
    : TypeDef<HAL_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
  let summary = doc;
}

def HAL_Device : HAL_Type<"Device", "device", "Logical device">;
def HAL_Allocator : HAL_Type<"Allocator", "allocator", "Device memory allocator">;
def HAL_Buffer : HAL_Type<"Buffer", "buffer", "Device-visible buffer",
    [Util_SizeAwareType]>;
def HAL_BufferView : HAL_Type<"BufferView", "buffer_view",
    "Buffer with shape, element type and encoding">;
def HAL_Fence : HAL_Type<"Fence", "fence", "Set of (semaphore, value) pairs">;
def HAL_CommandBuffer : HAL_Type<"CommandBuffer", "command_buffer",
    "Recorded sequence of device commands">;
def HAL_Executable : HAL_Type<"Executable", "executable",
    "Loaded kernel objects">;
def HAL_Channel : HAL_Type<"Channel", "channel", "Collective channel">;
def HAL_Event : HAL_Type<"Event", "event", "Command-buffer event">;
def HAL_File : HAL_Type<"File", "file", "File handle">;
def HAL_Semaphore : HAL_Type<"Semaphore", "semaphore", "Timeline semaphore">;

#endif // FLEET_DIALECT_HAL_IR_HALBASE_TD
