//===- UtilTypes.td - util types ----------------------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_UTIL_IR_UTILTYPES_TD
#define FLEET_DIALECT_UTIL_IR_UTILTYPES_TD

include "fleet/Dialect/Util/IR/UtilBase.td"
include "fleet/Dialect/Util/IR/UtilInterfaces.td"

def Util_BufferType : Util_Type<"Buffer", "buffer", [Util_SizeAwareType]> {
  let summary = "Host byte buffer";
  let description = [{
    A range of host bytes (constant data, host staging). Size-aware: its byte
    size travels as a separate `index` value where an op needs it.
  }];
}

def Util_PtrType : Util_Type<"Ptr", "ptr"> {
  let summary = "Typed address of a global";
  let description = [{
    `!util.ptr<T>` is the address of a global holding a `T`, produced by
    `util.global.address` and used by the indirect load/store ops.
  }];
  let parameters = (ins "::mlir::Type":$targetType);
  let assemblyFormat = "`<` $targetType `>`";
}

#endif // FLEET_DIALECT_UTIL_IR_UTILTYPES_TD
