//===- StructuralPatterns.cpp - functions, globals and control flow -------===//
//
// Resources and timepoints flow through util.func signatures, calls,
// returns, globals, block arguments and scf/cf ops; these patterns rebuild
// those ops with `!hal.buffer` / `!hal.fence` types.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream_to_hal;

namespace {

/// Region-free ops outside the stream dialect (util.call/return/global.load/
/// store/null, cf branches, ...) rebuilt with converted operand and result
/// types; attributes and successors are kept.
struct ConvertTypesPattern : ConversionPattern {
  ConvertTypesPattern(const TypeConverter &typeConverter, MLIRContext *context)
      : ConversionPattern(typeConverter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0)
      return rewriter.notifyMatchFailure(op, "has regions");
    if (isa<stream::StreamDialect>(op->getDialect()))
      return rewriter.notifyMatchFailure(op, "stream ops have own patterns");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return rewriter.notifyMatchFailure(op, "unconvertible result type");
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(operands);
    state.addTypes(resultTypes);
    state.addSuccessors(op->getSuccessors());
    state.propertiesAttr = op->getPropertiesAsAttribute();
    for (NamedAttribute attr : op->getDiscardableAttrs())
      state.addAttribute(attr.getName(), attr.getValue());
    Operation *newOp = rewriter.create(state);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

/// `util.global` of a resource holds a buffer; of a timepoint, a fence (an
/// immediate initial timepoint is the null fence a global starts with).
struct GlobalPattern : OpConversionPattern<util::GlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::GlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unconvertible type");
    Attribute initialValue = op.getInitialValueAttr();
    if (initialValue && !isa<stream::TimepointAttr>(initialValue))
      return op.emitOpError()
             << "of type " << op.getType()
             << " has an initial value; resources are initialized in "
                "util.initializer";
    rewriter.modifyOpInPlace(op, [&] {
      op.setType(type);
      op.removeInitialValueAttr();
    });
    return success();
  }
};

/// util.func signatures and the arguments of every block of the body (the
/// upstream FunctionOpInterface pattern only converts the entry block).
struct FuncPattern : OpConversionPattern<util::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(util::FuncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FunctionType type = op.getFunctionType();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    for (auto [index, input] : llvm::enumerate(type.getInputs())) {
      Type converted = getTypeConverter()->convertType(input);
      if (!converted)
        return rewriter.notifyMatchFailure(op, "unconvertible argument");
      signature.addInputs(index, converted);
    }
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(type.getResults(), results)))
      return rewriter.notifyMatchFailure(op, "unconvertible result");
    if (!op.isExternal() &&
        failed(rewriter.convertRegionTypes(&op.getBody(), *getTypeConverter(),
                                           &signature)))
      return rewriter.notifyMatchFailure(op, "unconvertible block argument");
    rewriter.modifyOpInPlace(op, [&] {
      op.setFunctionType(FunctionType::get(
          op.getContext(), signature.getConvertedTypes(), results));
    });
    return success();
  }
};

} // namespace

void fleet::stream_to_hal::populateStructuralPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConvertTypesPattern, FuncPattern, GlobalPattern>(typeConverter,
                                                                context);
  scf::populateSCFStructuralTypeConversionsAndLegality(typeConverter, patterns,
                                                       target);

  target.addDynamicallyLegalOp<util::FuncOp>([&](util::FuncOp op) {
    return typeConverter.isSignatureLegal(op.getFunctionType()) &&
           typeConverter.isLegal(&op.getBody());
  });
  target.addDynamicallyLegalOp<util::GlobalOp>(
      [&](util::GlobalOp op) { return typeConverter.isLegal(op.getType()); });
  target.addDynamicallyLegalDialect<util::UtilDialect, cf::ControlFlowDialect>(
      [&](Operation *op) { return typeConverter.isLegal(op); });
}
