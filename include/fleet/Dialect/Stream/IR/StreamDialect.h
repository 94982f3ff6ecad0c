//===- StreamDialect.h - stream dialect, types and attributes --*- C++ -*-===//
#ifndef FLEET_DIALECT_STREAM_IR_STREAMDIALECT_H
#define FLEET_DIALECT_STREAM_IR_STREAMDIALECT_H

#include "fleet/Dialect/Util/IR/AsmDirectives.h"
#include "fleet/Dialect/Util/IR/UtilTypes.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "fleet/Dialect/Stream/IR/StreamEnums.h.inc"

#include "fleet/Dialect/Stream/IR/StreamAttrInterfaces.h.inc"

#include "fleet/Dialect/Stream/IR/StreamDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fleet/Dialect/Stream/IR/StreamTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fleet/Dialect/Stream/IR/StreamAttrs.h.inc"

#endif // FLEET_DIALECT_STREAM_IR_STREAMDIALECT_H
