//===- StreamDialect.cpp - stream dialect, types and attributes -----------===//

#include "fleet/Dialect/Stream/IR/StreamDialect.h"

#include "fleet/Dialect/Stream/IR/DeviceTopology.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

#include "fleet/Dialect/Stream/IR/StreamDialect.cpp.inc"
#include "fleet/Dialect/Stream/IR/StreamEnums.cpp.inc"
#include "fleet/Dialect/Stream/IR/StreamAttrInterfaces.cpp.inc"
#include "fleet/Dialect/Stream/IR/StreamInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fleet/Dialect/Stream/IR/StreamTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fleet/Dialect/Stream/IR/StreamAttrs.cpp.inc"

void StreamDialect::initialize() {
  registerAttributes();
  registerTypes();
  // The op definitions are sharded (StreamOpsShard*.cpp); the generated
  // hook registers every shard's ops.
  registerStreamDialectOperations(this);
  registerTestDeviceTopology(this);
}

Operation *StreamDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  if (isa<TimepointAttr>(value) && isa<TimepointType>(type))
    return TimepointImmediateOp::create(builder, loc, type);
  return nullptr;
}

void StreamDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fleet/Dialect/Stream/IR/StreamAttrs.cpp.inc"
      >();
}

void StreamDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fleet/Dialect/Stream/IR/StreamTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// !stream.resource<L>
//===----------------------------------------------------------------------===//

Type ResourceType::parse(AsmParser &parser) {
  Lifetime lifetime;
  if (failed(parser.parseLess()) ||
      failed(parseEnumValue(parser, lifetime)) ||
      failed(parser.parseGreater()))
    return {};
  return ResourceType::get(parser.getContext(), lifetime);
}

void ResourceType::print(AsmPrinter &printer) const {
  // `*` is printed as the bare token inside the type (docs/ir-reference.md).
  printer << '<' << stringifyLifetime(getLifetime()) << '>';
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

Attribute TimepointAttr::parse(AsmParser &parser, Type) {
  if (failed(parser.parseLess()) || failed(parser.parseKeyword("immediate")) ||
      failed(parser.parseGreater()))
    return {};
  return TimepointAttr::get(parser.getContext());
}

void TimepointAttr::print(AsmPrinter &printer) const {
  printer << "<immediate>";
}

Attribute LifetimeAttr::parse(AsmParser &parser, Type) {
  Lifetime value;
  if (failed(parser.parseLess()) || failed(parseEnumValue(parser, value)) ||
      failed(parser.parseGreater()))
    return {};
  return LifetimeAttr::get(parser.getContext(), value);
}

void LifetimeAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printEnumValue(printer, getValue());
  printer << '>';
}

Attribute ResourceAccessBitfieldAttr::parse(AsmParser &parser, Type) {
  ResourceAccessBitfield value;
  if (failed(parser.parseLess()) || failed(parseEnumValue(parser, value)) ||
      failed(parser.parseGreater()))
    return {};
  return ResourceAccessBitfieldAttr::get(parser.getContext(), value);
}

void ResourceAccessBitfieldAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printEnumValue(printer, getValue());
  printer << '>';
}
