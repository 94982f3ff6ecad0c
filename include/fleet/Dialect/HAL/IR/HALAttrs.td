//===- HALAttrs.td - hal attributes -------------------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_HAL_IR_HALATTRS_TD
#define FLEET_DIALECT_HAL_IR_HALATTRS_TD

include "fleet/Dialect/HAL/IR/HALBase.td"
include "fleet/Dialect/Util/IR/UtilInterfaces.td"
include "fleet/Dialect/Stream/IR/StreamInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class HAL_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<HAL_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Executable and device targets
//===----------------------------------------------------------------------===//

def HAL_ExecutableTargetAttr : HAL_Attr<"ExecutableTarget", "executable.target"> {
  let summary = "Code generation target of an executable variant";
  let description = [{
    `#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {config}>`:
    backend, object format and optional configuration.
  }];
  let parameters = (ins
    "::mlir::StringAttr":$backend,
    "::mlir::StringAttr":$format,
    OptionalParameter<"::mlir::DictionaryAttr">:$configuration
  );
  let assemblyFormat = "`<` $backend `,` $format (`,` $configuration^)? `>`";
}

def HAL_DeviceTargetAttr : HAL_Attr<"DeviceTarget", "device.target",
    [TypedAttrInterface]> {
  let summary = "Target device of a `!hal.device` global";
  let description = [{
    `#hal.device.target<"local", {ordinal = 1 : index}, [#hal.executable.target<...>]> : !hal.device`.
    Config key `ordinal` picks the N-th matching runtime device (missing = 0);
    `discrete = true` marks a device whose memory peers cannot touch directly
    (docs/design.md §3).
  }];
  let parameters = (ins
    AttributeSelfTypeParameter<"">:$type,
    "::mlir::StringAttr":$deviceID,
    OptionalParameter<"::mlir::DictionaryAttr">:$configuration,
    OptionalArrayRefParameter<"::fleet::hal::ExecutableTargetAttr">:$executableTargets
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The `ordinal` config value; 0 when absent (docs/design.md §3).
    int64_t getOrdinal() const;
    /// True when the config says `discrete = true`.
    bool isDiscrete() const;
    /// `remote = true`: the device lives in another process (mpi driver).
    bool isRemote() const;
  }];
}

def HAL_DeviceOrdinalAttr : HAL_Attr<"DeviceOrdinal", "device.ordinal",
    [TypedAttrInterface]> {
  let summary = "The N-th runtime device";
  let description = [{ `#hal.device.ordinal<0> : !hal.device` }];
  let parameters = (ins AttributeSelfTypeParameter<"">:$type,
                        "int64_t":$ordinal);
  let hasCustomAssemblyFormat = 1;
}

def HAL_DeviceFallbackAttr : HAL_Attr<"DeviceFallback", "device.fallback",
    [TypedAttrInterface]> {
  let summary = "The same device as another global";
  let description = [{ `#hal.device.fallback<@cpu> : !hal.device` }];
  let parameters = (ins AttributeSelfTypeParameter<"">:$type,
                        "::mlir::FlatSymbolRefAttr":$name);
  let hasCustomAssemblyFormat = 1;
}

def HAL_DeviceSelectAttr : HAL_Attr<"DeviceSelect", "device.select",
    [TypedAttrInterface]> {
  let summary = "First available of several device initializers";
  let description = [{
    `#hal.device.select<[#hal.device.target<"cuda"> : !hal.device, #hal.device.fallback<@cpu> : !hal.device]> : !hal.device`
  }];
  let parameters = (ins AttributeSelfTypeParameter<"">:$type,
                        "::mlir::ArrayAttr":$devices);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Affinities
//===----------------------------------------------------------------------===//

def HAL_DeviceAffinityAttr : HAL_Attr<"DeviceAffinity", "device.affinity", [
    DeclareAttrInterfaceMethods<Stream_AffinityAttr>]> {
  let summary = "A device and optionally a set of its queues";
  let description = [{
    `#hal.device.affinity<@gpu0>` (any queue; mask -1) or
    `#hal.device.affinity<@gpu0, [0, 2]>` (queue bit positions, ascending).
  }];
  let parameters = (ins "::mlir::SymbolRefAttr":$device,
                        DefaultValuedParameter<"int64_t", "-1">:$queueMask);
  let hasCustomAssemblyFormat = 1;
}

def HAL_DevicePromiseAttr : HAL_Attr<"DevicePromise", "device.promise", [
    DeclareAttrInterfaceMethods<Stream_AffinityAttr>]> {
  let summary = "A device that may not be declared yet";
  let description = [{
    `#hal.device.promise<@gpu1>` / `#hal.device.promise<@gpu1, [1]>`; resolved
    to the declared device by the compiler.
  }];
  let parameters = (ins "::mlir::StringAttr":$device,
                        DefaultValuedParameter<"int64_t", "-1">:$queueMask);
  let hasCustomAssemblyFormat = 1;
}

def HAL_DeviceOptimalAttr : HAL_Attr<"DeviceOptimal", "device.optimal", [
    DeclareAttrInterfaceMethods<Stream_AffinityAttr>]> {
  let summary = "A set of affinities that must all reach a value";
  let description = [{
    `#hal.device.optimal<[#hal.device.affinity<@a>, #hal.device.affinity<@b>]>`:
    the allocating device is picked later among the candidates.
  }];
  let parameters = (ins OptionalArrayRefParameter<"::mlir::Attribute">:$affinities);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Topology
//===----------------------------------------------------------------------===//

def HAL_DeviceLinkAttr : HAL_Attr<"DeviceLink", "device.link"> {
  let summary = "Directed link between two devices of a topology";
  let description = [{
    `(@x -> @y = {unified_memory = ?, transparent_access = ?}, {extra})`:
    what device x can do with memory allocated on device y. Fleet's extension
    keys (`export_import`) live in the extra dictionary.
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$source,
    "::mlir::FlatSymbolRefAttr":$target,
    "bool":$unifiedMemory,
    "bool":$transparentAccess,
    OptionalParameter<"::mlir::DictionaryAttr">:$extra
  );
  // Standalone form (normally printed inside #hal.device.topology):
  // `#hal.device.link<(@x -> @y = {...})>`.
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Fleet extension key `export_import` (docs/design.md §3).
    bool getExportImport() const;
    /// All flags false and no extension key: the link counts as absent.
    bool isAbsent() const;
  }];
}

def HAL_DeviceTopologyAttr : HAL_Attr<"DeviceTopology", "device.topology"> {
  let summary = "Links between devices (module attribute stream.topology)";
  let description = [{
    `#hal.device.topology<links = [(@a -> @b = {transparent_access = true}), (@b -> @a = {}, {export_import = true})]>`.
    Links print in the order written.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"::fleet::hal::DeviceLinkAttr">:$links);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The link x -> y, or null.
    DeviceLinkAttr lookup(::mlir::StringRef source,
                          ::mlir::StringRef target) const;
  }];
}

//===----------------------------------------------------------------------===//
// ABI
//===----------------------------------------------------------------------===//

def HAL_ABIConventionAttr : HAL_EnumAttr<HAL_ABIConvention, "abi.convention"> {
  let traits = [Util_CallAnnotationAttr];
  let summary = "Calling convention of a function or call";
  let description = [{
    `#hal.abi.convention<synchronous>` or `#hal.abi.convention<coarse_fences>`
    (last two arguments are a wait and a signal fence). Absent = synchronous.
  }];
}

//===----------------------------------------------------------------------===//
// Executable layout
//===----------------------------------------------------------------------===//

def HAL_PipelineBindingAttr : HAL_Attr<"PipelineBinding", "pipeline.binding"> {
  let summary = "One binding of a pipeline layout";
  let description = [{ `#hal.pipeline.binding<storage_buffer, ReadOnly>` }];
  let parameters = (ins "::fleet::hal::DescriptorType":$type,
                        "::fleet::hal::DescriptorFlags":$flags);
  let hasCustomAssemblyFormat = 1;
}

def HAL_PipelineLayoutAttr : HAL_Attr<"PipelineLayout", "pipeline.layout"> {
  let summary = "Kernel interface: push constants and bindings";
  let description = [{
    `#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>`
  }];
  let parameters = (ins
    "int64_t":$constants,
    OptionalArrayRefParameter<"::fleet::hal::PipelineBindingAttr">:$bindings,
    "::fleet::hal::PipelineLayoutFlags":$flags
  );
  let hasCustomAssemblyFormat = 1;
}

def HAL_ExecutableObjectAttr : HAL_Attr<"ExecutableObject", "executable.object"> {
  let summary = "Object file of an executable variant";
  let description = [{
    `#hal.executable.object<{path = "k.o"}>`, optionally with inline `data`.
  }];
  let parameters = (ins OptionalParameter<"::mlir::StringAttr">:$path,
                        OptionalParameter<"::mlir::DenseIntElementsAttr">:$data);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
}

#endif // FLEET_DIALECT_HAL_IR_HALATTRS_TD
