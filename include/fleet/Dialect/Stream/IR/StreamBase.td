//===- StreamBase.td - stream dialect, enums, types, attrs --*- tablegen -*-===//
//
// The stream dialect models device work as values: resources with a
// lifetime, async ops over them, timepoints ordering them (IREE's Stream
// model; syntax per docs/ir-reference.md).
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMBASE_TD
#define FLEET_DIALECT_STREAM_IR_STREAMBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "fleet/Dialect/Util/IR/UtilInterfaces.td"
include "fleet/Dialect/Stream/IR/StreamInterfaces.td"

def Stream_Dialect : Dialect {
  let name = "stream";
  let cppNamespace = "::fleet::stream";
  let summary = "Device work as values: resources, async ops, timepoints.";
  let description = [{
    Resources (`!stream.resource<lifetime>`) are sized device buffers;
    `stream.async.*` ops transform them with value semantics, are grouped into
    `stream.async.execute` regions per device and ordered by
    `!stream.timepoint`s; `stream.cmd.*` is the explicit-command form after
    allocation.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // stream.timepoint.immediate folds to #stream.timepoint<immediate>.
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

class Stream_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stream_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// Resource lifetimes; also the `lifetime(...)` of
// hal.allocator.resolve_memory_properties.
def Stream_Lifetime : I32EnumAttr<"Lifetime", "resource lifetime", [
    I32EnumAttrCase<"Unknown", 0, "*">,
    I32EnumAttrCase<"External", 1, "external">,
    I32EnumAttrCase<"Staging", 2, "staging">,
    I32EnumAttrCase<"Transient", 3, "transient">,
    I32EnumAttrCase<"Variable", 4, "variable">,
    I32EnumAttrCase<"Constant", 5, "constant">,
  ]> {
  let cppNamespace = "::fleet::stream";
  let genSpecializedAttr = 0;
}
def Stream_LifetimeAttr : EnumAttr<Stream_Dialect, Stream_Lifetime, "lifetime"> {
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
}

// Access of a resource range by stream.cmd.dispatch / stream.cmd.call,
// written `ro`, `wo` or `rw`.
def Stream_ResourceAccessBitfield : I32BitEnumAttr<"ResourceAccessBitfield",
    "resource access", [
    I32BitEnumAttrCaseNone<"None">,
    I32BitEnumAttrCaseBit<"Read", 0>,
    I32BitEnumAttrCaseBit<"Write", 1>,
  ]> {
  let cppNamespace = "::fleet::stream";
  let genSpecializedAttr = 0;
}
def Stream_ResourceAccessBitfieldAttr : EnumAttr<Stream_Dialect,
    Stream_ResourceAccessBitfield, "resource_access"> {
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
}
def Stream_ResourceAccessArrayAttr
    : TypedArrayAttrBase<Stream_ResourceAccessBitfieldAttr, "resource accesses">;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Stream_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Stream_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Stream_ResourceType : Stream_Type<"Resource", "resource",
    [Util_SizeAwareType]> {
  let summary = "Sized device buffer with a lifetime";
  let description = [{
    `!stream.resource<L>` with L one of `*` (not yet decided), `external`,
    `staging`, `transient`, `variable`, `constant`. Its byte size travels as
    an `index` value written `{%size}` after the type in op signatures.
  }];
  let parameters = (ins "::fleet::stream::Lifetime":$lifetime);
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
}

def Stream_TimepointType : Stream_Type<"Timepoint", "timepoint"> {
  let summary = "Point on a device timeline (async token)";
}

def Stream_BindingType : Stream_Type<"Binding", "binding"> {
  let summary = "Argument of a dispatch function inside stream.executable";
}

def Stream_TestFenceType : Stream_Type<"TestFence", "test.fence"> {
  let summary = "Test-only fence-like type";
  let description = [{
    Used with `stream.test.timeline_aware` and timepoint import/export in
    tests of timeline-aware scheduling.
  }];
}

// Type constraints of docs/ir-reference.md ("Resource classes").
def Stream_AnyResource : Type<CPred<"::llvm::isa<::fleet::stream::ResourceType>($_self)">,
    "any stream resource">;
def Stream_StreamResource : Type<And<[
    CPred<"::llvm::isa<::fleet::stream::ResourceType>($_self)">,
    CPred<"::llvm::cast<::fleet::stream::ResourceType>($_self).getLifetime() != ::fleet::stream::Lifetime::Staging">]>,
    "stream resource (any lifetime except staging)">;
def Stream_StagingResource : Type<And<[
    CPred<"::llvm::isa<::fleet::stream::ResourceType>($_self)">,
    CPred<"::llvm::cast<::fleet::stream::ResourceType>($_self).getLifetime() == ::fleet::stream::Lifetime::Staging">]>,
    "staging resource">;
def Stream_TransferResource : Type<CPred<"::llvm::isa<::fleet::stream::ResourceType>($_self)">, "transfer resource (any lifetime)">;

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Stream_TimepointAttr : AttrDef<Stream_Dialect, "Timepoint"> {
  let mnemonic = "timepoint";
  let summary = "Constant timepoint";
  let description = [{
    `#stream.timepoint<immediate>`: an already reached timepoint. `immediate`
    is the only accepted word.
  }];
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
}

def Stream_TestAffinityAttr : AttrDef<Stream_Dialect, "TestAffinity", [
    DeclareAttrInterfaceMethods<Stream_AffinityAttr>]> {
  let mnemonic = "test.affinity";
  let summary = "Test-only affinity naming devices by string";
  let description = [{
    `#stream.test.affinity<"a">` is device `a`; `#stream.test.affinity<"a",
    "b">` is a set of candidate devices (like #hal.device.optimal). Lets
    Stream's own tests run without HAL: two test affinities are the same
    device only when they name the same single device, and no test device
    reaches another's memory (stream::DeviceTopology).
  }];
  let parameters = (ins ArrayRefParameter<"::mlir::StringAttr">:$devices);
  let assemblyFormat = "`<` $devices `>`";
  let genVerifyDecl = 1;
}

#endif // FLEET_DIALECT_STREAM_IR_STREAMBASE_TD
