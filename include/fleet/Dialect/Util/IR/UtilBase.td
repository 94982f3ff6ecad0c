//===- UtilBase.td - util dialect definition ----------------*- tablegen -*-===//
//
// The util dialect holds the host-program scaffolding every later phase shares:
// functions with tied results, globals, initializers and host byte buffers.
//
//===----------------------------------------------------------------------===//

#ifndef FLEET_DIALECT_UTIL_IR_UTILBASE_TD
#define FLEET_DIALECT_UTIL_IR_UTILBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Util_Dialect : Dialect {
  let name = "util";
  let cppNamespace = "::fleet::util";
  let summary = "Host-program scaffolding: functions, globals, initializers.";
  let description = [{
    Functions (`util.func`) whose results may reuse an argument's storage,
    module-level globals with initializers, calls and host byte buffers.
    Every later phase (stream, hal) builds its host program out of these.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Util_Op<string mnemonic, list<Trait> traits = []>
    : Op<Util_Dialect, mnemonic, traits>;

class Util_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Util_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // FLEET_DIALECT_UTIL_IR_UTILBASE_TD
