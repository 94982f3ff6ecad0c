//===- TensorPatterns.cpp - tensors at the ABI boundary -------------------===//
//
// Exported functions take and return `!hal.buffer_view`s (docs/pipeline.md §1).
// An imported view gives its buffer after a run-time check that its shape,
// element type and encoding are what the program was compiled for; an
// exported resource is wrapped in a new view of its bytes.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-conversion"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream_to_hal;

namespace {

/// Shape (static dims as constants, dynamic dims from `dims`), element type
/// and encoding codes of a tensor type at the ABI.
struct TensorMetadata {
  SmallVector<Value> shape;
  Value elementType;
  Value encodingType;
};

FailureOr<TensorMetadata> buildTensorMetadata(OpBuilder &builder,
                                              Operation *op, Type encoding,
                                              ValueRange dims) {
  auto tensorType = dyn_cast<RankedTensorType>(encoding);
  if (!tensorType)
    return op->emitOpError() << "has encoding " << encoding
                             << "; the ABI needs a ranked tensor type";
  if (!hal::ElementTypeOp::getTypeValue(tensorType.getElementType()))
    return op->emitOpError()
           << "has element type " << tensorType.getElementType()
           << ", which has no runtime element-type code";
  if (tensorType.getEncoding())
    return op->emitOpError()
           << "has tensor encoding " << tensorType.getEncoding()
           << "; only dense row-major tensors cross the ABI";
  Location loc = op->getLoc();
  TensorMetadata metadata;
  unsigned dynamicIndex = 0;
  for (int64_t dim : tensorType.getShape()) {
    if (ShapedType::isDynamic(dim))
      metadata.shape.push_back(dims[dynamicIndex++]);
    else
      metadata.shape.push_back(buildIndex(builder, loc, dim));
  }
  auto i32 = builder.getI32Type();
  metadata.elementType = hal::ElementTypeOp::create(
      builder, loc, i32, TypeAttr::get(tensorType.getElementType()));
  metadata.encodingType =
      hal::EncodingTypeOp::create(builder, loc, i32, Attribute());
  return metadata;
}

/// The name a failed check reports: `name` if the frontend kept one, else
/// `inputN` for an argument of the enclosing function, else "tensor".
std::string getInputName(stream::TensorImportOp op) {
  if (auto name = op->getAttrOfType<StringAttr>("name"))
    return name.str();
  if (auto argument = dyn_cast<BlockArgument>(op.getSource()))
    if (isa_and_nonnull<util::FuncOp>(argument.getOwner()->getParentOp()))
      return "input" + std::to_string(argument.getArgNumber());
  return "tensor";
}

struct TensorImportPattern : OpConversionPattern<stream::TensorImportOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TensorImportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value source = adaptor.getSource();
    if (isa<hal::BufferType>(source.getType())) {
      rewriter.replaceOp(op, source);
      return success();
    }
    if (!isa<hal::BufferViewType>(source.getType()))
      return op.emitOpError() << "imports " << source.getType()
                              << "; expected !hal.buffer or !hal.buffer_view";
    FailureOr<TensorMetadata> metadata =
        buildTensorMetadata(rewriter, op, op.getResultEncoding(),
                            adaptor.getResultEncodingDims());
    if (failed(metadata))
      return failure();
    Location loc = op.getLoc();
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] import of '"
                            << getInputName(op) << "' at " << loc
                            << ": shape and element type asserted at run "
                               "time\n");
    hal::BufferViewAssertOp::create(
        rewriter, loc, source, rewriter.getStringAttr(getInputName(op)),
        metadata->shape, metadata->elementType, metadata->encodingType);
    rewriter.replaceOpWithNewOp<hal::BufferViewBufferOp>(
        op, hal::BufferType::get(rewriter.getContext()), source);
    return success();
  }
};

struct TensorExportPattern : OpConversionPattern<stream::TensorExportOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(stream::TensorExportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type resultType = op.getResult().getType();
    if (isa<hal::BufferType>(resultType)) {
      rewriter.replaceOp(op, adaptor.getSource());
      return success();
    }
    if (!isa<hal::BufferViewType>(resultType))
      return op.emitOpError() << "exports to " << resultType
                              << "; expected !hal.buffer or !hal.buffer_view";
    FailureOr<TensorMetadata> metadata =
        buildTensorMetadata(rewriter, op, op.getSourceEncoding(),
                            adaptor.getSourceEncodingDims());
    if (failed(metadata))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<hal::BufferViewCreateOp>(
        op, resultType, adaptor.getSource(), buildIndex(rewriter, loc, 0),
        adaptor.getSourceSize(), metadata->shape, metadata->elementType,
        metadata->encodingType);
    return success();
  }
};

} // namespace

void fleet::stream_to_hal::populateTensorPatterns(
    const TypeConverter &typeConverter, const ConversionState &state,
    RewritePatternSet &patterns) {
  patterns.add<TensorImportPattern, TensorExportPattern>(typeConverter,
                                                         patterns.getContext());
}
