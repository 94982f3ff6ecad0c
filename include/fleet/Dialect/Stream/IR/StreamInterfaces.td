//===- StreamInterfaces.td - stream interfaces --------------*- tablegen -*-===//

#ifndef FLEET_DIALECT_STREAM_IR_STREAMINTERFACES_TD
#define FLEET_DIALECT_STREAM_IR_STREAMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Stream_AffinityAttr : AttrInterface<"AffinityAttrInterface"> {
  let cppNamespace = "::fleet::stream";
  let description = [{
    An attribute naming where work executes or a value lives (a device, a
    promised device, or a set of candidate devices). Implemented by the hal
    affinity attributes.
  }];
  let methods = [
    InterfaceMethod<[{
      True when work with this affinity and `other` may share one execution
      region: equal, or the same device where one queue mask contains the
      other (design.md §3, canExecuteTogether). A null `other` is compatible.
    }], "bool", "isExecutableWith", (ins "::mlir::Attribute":$other)>,
  ];
}

#endif // FLEET_DIALECT_STREAM_IR_STREAMINTERFACES_TD
