//===- HALBufferViewOps.cpp - buffer views and tensors --------------------===//
//
// Verifiers and interfaces of the ops in HALBufferViewOps.td
// (docs/ir-reference.md, "Buffer views and tensors").
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

//===----------------------------------------------------------------------===//
// hal.element_type / hal.encoding_type
//===----------------------------------------------------------------------===//

namespace {
/// Numerical kinds of the runtime element-type code (docs/ir-reference.md,
/// hal.element_type): the code is `(kind << 24) | bits`.
enum ElementKind : uint32_t {
  kSignlessInteger = 0x10,
  kSignedInteger = 0x11,
  kUnsignedInteger = 0x12,
  kBoolean = 0x13,
  kFloatIEEE = 0x21,
  kFloatBrain = 0x22,
  kComplexFloat = 0x23,
  kFloat8E5M2 = 0x24,
  kFloat8E4M3FN = 0x25,
  kFloat8E5M2FNUZ = 0x26,
  kFloat8E4M3FNUZ = 0x27,
  kFloat8E8M0FNU = 0x28,
};
} // namespace

/// The bit count field is one byte wide.
static std::optional<int32_t> makeElementType(uint32_t kind, unsigned bits) {
  if (bits == 0 || bits > 0xFF)
    return std::nullopt;
  return static_cast<int32_t>((kind << 24) | bits);
}

/// Float types with their own kind, or IEEE floats; nullopt for the rest.
static std::optional<uint32_t> getFloatKind(Type type) {
  if (isa<Float8E5M2Type>(type))
    return kFloat8E5M2;
  if (isa<Float8E4M3FNType>(type))
    return kFloat8E4M3FN;
  if (isa<Float8E5M2FNUZType>(type))
    return kFloat8E5M2FNUZ;
  if (isa<Float8E4M3FNUZType>(type))
    return kFloat8E4M3FNUZ;
  if (isa<Float8E8M0FNUType>(type))
    return kFloat8E8M0FNU;
  if (isa<BFloat16Type>(type))
    return kFloatBrain;
  if (isa<Float16Type, Float32Type, Float64Type, Float128Type>(type))
    return kFloatIEEE;
  return std::nullopt;
}

std::optional<int32_t> ElementTypeOp::getTypeValue(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type)) {
    // i1 is stored one per byte.
    if (intType.isSignlessInteger(1))
      return makeElementType(kBoolean, 8);
    uint32_t kind = intType.isSigned()     ? kSignedInteger
                    : intType.isUnsigned() ? kUnsignedInteger
                                           : kSignlessInteger;
    return makeElementType(kind, intType.getWidth());
  }
  if (auto kind = getFloatKind(type))
    return makeElementType(*kind, type.getIntOrFloatBitWidth());
  if (auto complexType = dyn_cast<ComplexType>(type)) {
    Type part = complexType.getElementType();
    if (!getFloatKind(part))
      return std::nullopt;
    return makeElementType(kComplexFloat, 2 * part.getIntOrFloatBitWidth());
  }
  return std::nullopt;
}

LogicalResult ElementTypeOp::verify() {
  if (getTypeValue(getType()))
    return success();
  return emitOpError("type ")
         << getType()
         << " has no runtime element-type code (expected an integer, float, "
            "f8 or complex-of-float type of at most 255 bits)";
}

OpFoldResult ElementTypeOp::fold(FoldAdaptor) {
  // A type without a code never verifies; it is just not a constant.
  if (std::optional<int32_t> code = getTypeValue(getType()))
    return IntegerAttr::get(getResult().getType(), *code);
  return {};
}

OpFoldResult EncodingTypeOp::fold(FoldAdaptor) {
  if (getEncodingAttr())
    return {};
  return IntegerAttr::get(getType(), kDenseRowMajor);
}

LogicalResult EncodingTypeOp::verify() {
  if (auto encoding = getEncodingAttr())
    return emitOpError("encoding ")
           << encoding
           << " has no runtime code; only dense row-major contents "
              "(`hal.encoding_type<dense_row_major>`) are supported";
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor boundary
//===----------------------------------------------------------------------===//

/// The dims list `type`'s `?` dims, and the ABI-facing `encoding` type has
/// as many `?` dims as `type` (docs/ir-reference.md, tensor.import/export).
static LogicalResult verifyEncodedTensorDims(Operation *op, Type encoding,
                                             Type type, ValueRange dims) {
  if (failed(verifyValueCount(op, "dynamic dimension",
                              getDynamicDimCount(type), dims.size())))
    return failure();
  unsigned encodingDims = getDynamicDimCount(encoding);
  unsigned typeDims = getDynamicDimCount(type);
  if (encodingDims != typeDims)
    return op->emitOpError("encoding ")
           << encoding << " has " << encodingDims << " dynamic dims but "
           << type << " has " << typeDims;
  return success();
}

LogicalResult TensorImportOp::verify() {
  return verifyEncodedTensorDims(*this, getTargetEncoding(), getType(),
                                 getTargetDims());
}

// Exports and aliases hand their operand to the host on their affinity.
bool TensorExportOp::pinsOperandPlacement() { return true; }
bool TensorAliasOp::pinsOperandPlacement() { return true; }

LogicalResult TensorExportOp::verify() {
  return verifyEncodedTensorDims(*this, getSourceEncoding(),
                                 getSource().getType(), getSourceDims());
}

LogicalResult TensorAliasOp::verify() {
  return verifyValueCount(*this, "dynamic dimension",
                          getDynamicDimCount(getSource().getType()),
                          getSourceDims().size());
}

// Every result is its source tensor, returned for chaining.
std::pair<unsigned, unsigned> TensorBarrierOp::getTiedOperandsIndexAndLength() {
  return {0, static_cast<unsigned>(getSources().size())};
}

std::optional<unsigned>
TensorBarrierOp::getTiedResultOperandIndex(unsigned resultIndex) {
  return resultIndex;
}

// The result is the source tensor (produced in the caller's storage).
std::pair<unsigned, unsigned> TensorAliasOp::getTiedOperandsIndexAndLength() {
  return {getSourceMutable().getOperandNumber(), 1};
}

std::optional<unsigned>
TensorAliasOp::getTiedResultOperandIndex(unsigned resultIndex) {
  return getSourceMutable().getOperandNumber();
}

//===----------------------------------------------------------------------===//
// Result names (IREE's, docs/ir-reference.md "Result names")
//===----------------------------------------------------------------------===//

void BufferViewCreateOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "view");
}

void BufferViewBufferOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "buffer");
}

void ElementTypeOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  std::string name = "element_type_";
  llvm::raw_string_ostream os(name);
  os << getTypeAttr().getValue();
  setNameFn(getResult(), name);
}

void EncodingTypeOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  if (!getEncodingAttr())
    setNameFn(getResult(), "dense_row_major");
}
