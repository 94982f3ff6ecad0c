//===- ConvertToStream.cpp - tensors and placement to stream resources ----===//
//
// Invariant established: host functions hold no tensor values. Every tensor
// became a `!stream.resource` (size: its static byte count) on the affinity
// AffinityAnalysis gives it; `flow.dispatch` became `stream.async.dispatch
// on(E)`, `flow.tensor.transfer` a `stream.async.transfer from(S) -> to(T)`
// (nothing when S is T), buffer-view imports/exports `stream.tensor.import/
// export` of external resources, constants `stream.async.constant` and
// empty tensors `stream.async.alloca` materialized at each consumer's
// affinity. A value read on another affinity than where it lives goes
// through a transfer.
//
// Built on MLIR's dialect conversion: a type converter (tensor ->
// `!stream.resource<*>`), one pattern per op and applyPartialConversion on
// each host callable. Floating values (constants, empty tensors) stay legal
// until their consumers have materialized them (Placement.h), then are
// erased; resources of another lifetime enter through lifetime transfers
// that are folded away where only stream ops use them.
//
//===----------------------------------------------------------------------===//

#include "fleet/Conversion/Passes.h"

#include "Placement.h"
#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-conversion"

namespace fleet {
#define GEN_PASS_DEF_CONVERTTOSTREAMPASS
#include "fleet/Conversion/Passes.h.inc"
} // namespace fleet

using namespace mlir;
using namespace fleet;
using fleet::stream_conversion::Placement;
using fleet::stream_conversion::PlacementPattern;

namespace {

bool isTensor(Type type) { return isa<RankedTensorType>(type); }

bool hasTensors(Operation *op) {
  if (llvm::any_of(op->getOperandTypes(), isTensor) ||
      llvm::any_of(op->getResultTypes(), isTensor))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), isTensor))
        return true;
  return false;
}

stream::ResourceType getResourceType(MLIRContext *context,
                                     stream::Lifetime lifetime) {
  return stream::ResourceType::get(context, lifetime);
}

struct ImportPattern : public PlacementPattern<hal::TensorImportOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(hal::TensorImportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    auto external = getResourceType(context, stream::Lifetime::External);
    Attribute affinity =
        placement.getAnalysis().getValueAffinity(op.getResult());
    Value size = placement.getSize(rewriter, loc, type);
    Value resource = stream::TensorImportOp::create(
        rewriter, loc, external, adaptor.getSource(), type, ValueRange{},
        size, /*consume=*/false, affinity);
    if (Value fence = adaptor.getWaitFence()) {
      // Wait for the producer of the buffer before first use.
      Value timepoint = stream::TimepointImportOp::create(
          rewriter, loc, stream::TimepointType::get(context),
          ValueRange{fence}, affinity);
      resource = stream::TimepointAwaitOp::create(
                     rewriter, loc, TypeRange{external}, ValueRange{resource},
                     ValueRange{size}, timepoint, /*sync=*/false)
                     .getResult(0);
    }
    rewriter.replaceOp(op, placement.asUnknown(rewriter, loc, resource, type,
                                               affinity, /*foldable=*/true));
    return success();
  }
};

struct ExportPattern : public PlacementPattern<hal::TensorExportOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(hal::TensorExportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value source = op.getSource();
    auto type = cast<RankedTensorType>(source.getType());
    Attribute affinity = getExecution(op);
    FailureOr<Value> resource =
        getResourceForOp(rewriter, op, source, adaptor.getSource());
    if (failed(resource))
      return failure();
    Value size = placement.getSize(rewriter, loc, type);
    Value exported = placement.asLifetime(rewriter, loc, *resource, type,
                                          stream::Lifetime::External, affinity);
    rewriter.replaceOpWithNewOp<stream::TensorExportOp>(
        op, op.getType(), exported, TypeAttr::get(type), ValueRange{}, size,
        affinity);
    return success();
  }
};

/// The result is produced in the caller's storage: import the storage and
/// update it with the value.
struct AliasPattern : public PlacementPattern<hal::TensorAliasOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(hal::TensorAliasOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value source = op.getSource();
    auto type = cast<RankedTensorType>(source.getType());
    Attribute affinity = getExecution(op);
    FailureOr<Value> resource =
        getResourceForOp(rewriter, op, source, adaptor.getSource());
    if (failed(resource))
      return failure();
    auto external = getResourceType(op.getContext(), stream::Lifetime::External);
    Value size = placement.getSize(rewriter, loc, type);
    Value storage = stream::TensorImportOp::create(
        rewriter, loc, external, adaptor.getStorage(), type, ValueRange{},
        size, /*consume=*/false, affinity);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value updated = stream::AsyncUpdateOp::create(
        rewriter, loc, external, storage, size, zero, size, *resource, size,
        affinity);
    rewriter.replaceOp(op, placement.asUnknown(rewriter, loc, updated, type,
                                               affinity, /*foldable=*/true));
    return success();
  }
};

struct TensorBarrierPattern : public PlacementPattern<hal::TensorBarrierOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(hal::TensorBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    SmallVector<Value> results, timepoints;
    for (auto [source, converted] :
         llvm::zip(op.getSources(), adaptor.getSources())) {
      auto type = cast<RankedTensorType>(source.getType());
      Attribute affinity = getAffinityOr(source, op);
      FailureOr<Value> resource =
          placement.getResourceAt(rewriter, loc, source, converted, affinity);
      if (failed(resource))
        return failure();
      // A value the barrier hands to an export becomes external before the
      // barrier, so its timepoint covers the copy and nothing runs after
      // the signal (coarse-fences exports; Fleet issue 22).
      Value result = op.getResults()[results.size()];
      if (!result.use_empty() &&
          llvm::all_of(result.getUsers(),
                       llvm::IsaPred<hal::TensorExportOp>))
        *resource = placement.asLifetime(rewriter, loc, *resource, type,
                                         stream::Lifetime::External, affinity);
      auto barrier = stream::TimepointBarrierOp::create(
          rewriter, loc, resource->getType(),
          stream::TimepointType::get(context), *resource,
          placement.getSize(rewriter, loc, type), affinity);
      results.push_back(placement.asUnknown(rewriter, loc, barrier.getResult(),
                                            type, affinity,
                                            /*foldable=*/true));
      timepoints.push_back(barrier.getResultTimepoint());
    }
    Value joined = timepoints.size() == 1
                       ? timepoints.front()
                       : stream::TimepointJoinOp::create(
                             rewriter, loc, stream::TimepointType::get(context),
                             timepoints)
                             .getResult();
    stream::TimepointChainExternalOp::create(
        rewriter, loc, joined, ValueRange{adaptor.getSignalFence()},
        getExecution(op));
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct DispatchPattern : public PlacementPattern<flow::DispatchOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(flow::DispatchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Attribute execution = getExecution(op);
    SmallVector<Value> operands, sizes, offsets, ends, lengths;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    for (auto [argument, converted] :
         llvm::zip(op.getArguments(), adaptor.getArguments())) {
      auto type = dyn_cast<RankedTensorType>(argument.getType());
      if (!type) {
        operands.push_back(converted);
        continue;
      }
      FailureOr<Value> resource = placement.getResourceAt(
          rewriter, loc, argument, converted, execution);
      if (failed(resource))
        return failure();
      Value size = placement.getSize(rewriter, loc, type);
      operands.push_back(*resource);
      sizes.push_back(size);
      offsets.push_back(zero);
      ends.push_back(size);
      lengths.push_back(size);
    }
    SmallVector<Value> resultSizes;
    SmallVector<Type> resultTypes;
    for (Type type : op.getResultTypes()) {
      resultSizes.push_back(
          placement.getSize(rewriter, loc, cast<RankedTensorType>(type)));
      resultTypes.push_back(
          getResourceType(op.getContext(), stream::Lifetime::Unknown));
    }
    rewriter.replaceOpWithNewOp<stream::AsyncDispatchOp>(
        op, resultTypes, adaptor.getWorkload(), operands, sizes, offsets, ends,
        lengths, resultSizes, /*tied_operands=*/ArrayAttr{},
        rewriter.getArrayAttr({op.getEntryPoint()}), execution);
    return success();
  }
};

struct TransferPattern : public PlacementPattern<flow::TensorTransferOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(flow::TensorTransferOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = op.getOperand();
    auto type = cast<RankedTensorType>(operand.getType());
    Attribute target = op.getTargetAttr();
    if (stream::AffinityAnalysis::isFloating(operand)) {
      // Nothing to move: build the value where it is needed.
      FailureOr<Value> resource = placement.getResourceAt(
          rewriter, loc, operand, adaptor.getOperand(), target);
      if (failed(resource))
        return failure();
      rewriter.replaceOp(op, placement.asUnknown(rewriter, loc, *resource,
                                                 type, target,
                                                 /*foldable=*/true));
      return success();
    }
    Attribute source = placement.getAnalysis().getValueAffinity(operand);
    FailureOr<Value> resource = placement.getResourceAt(
        rewriter, loc, operand, adaptor.getOperand(), source);
    if (failed(resource))
      return failure();
    if (source == target) {
      // Already there: a no-op, scheduled as if it were not written.
      LLVM_DEBUG(llvm::dbgs() << "transfer to its own affinity " << target
                              << " dropped at " << loc << "\n");
      rewriter.replaceOp(op, placement.asUnknown(rewriter, loc, *resource,
                                                 type, source,
                                                 /*foldable=*/true));
      return success();
    }
    Value size = placement.getSize(rewriter, loc, type);
    rewriter.replaceOpWithNewOp<stream::AsyncTransferOp>(
        op, getResourceType(op.getContext(), stream::Lifetime::Unknown),
        *resource, size, size, Attribute{}, source, target);
    return success();
  }
};

/// flow.tensor.barrier: the value, made available on the target.
struct FlowBarrierPattern : public PlacementPattern<flow::TensorBarrierOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(flow::TensorBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getOperand().getType());
    FailureOr<Value> resource =
        placement.getResourceAt(rewriter, loc, op.getOperand(),
                                adaptor.getOperand(), op.getTargetAttr());
    if (failed(resource))
      return failure();
    rewriter.replaceOp(op, placement.asUnknown(rewriter, loc, *resource, type,
                                               op.getTargetAttr(),
                                               /*foldable=*/true));
    return success();
  }
};

/// Reshapes of placed values: the same bytes.
template <typename OpTy>
struct ReshapePattern : public PlacementPattern<OpTy> {
  using PlacementPattern<OpTy>::PlacementPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// A loop carrying tensors carries resources `*` at the carried value's
/// affinity; the body's block arguments are converted with it.
struct ForPattern : public PlacementPattern<scf::ForOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(scf::ForOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> inits;
    SmallVector<Type> resultTypes;
    for (auto [i, init, converted] :
         llvm::enumerate(op.getInitArgs(), adaptor.getInitArgs())) {
      auto type = dyn_cast<RankedTensorType>(init.getType());
      if (!type) {
        inits.push_back(converted);
        resultTypes.push_back(converted.getType());
        continue;
      }
      Attribute affinity = getAffinityOr(op.getResult(i), op);
      FailureOr<Value> resource =
          placement.getResourceAt(rewriter, loc, init, converted, affinity);
      if (failed(resource))
        return failure();
      inits.push_back(placement.asUnknown(rewriter, loc, *resource, type,
                                          affinity, /*foldable=*/false));
      resultTypes.push_back(inits.back().getType());
    }
    auto loop = cast<scf::ForOp>(rewriter.cloneWithoutRegions(*op));
    loop->setOperands(llvm::to_vector(llvm::concat<Value>(
        ValueRange{adaptor.getLowerBound(), adaptor.getUpperBound(),
                   adaptor.getStep()},
        ValueRange(inits))));
    for (auto [result, type] : llvm::zip(loop.getResults(), resultTypes))
      result.setType(type);
    rewriter.inlineRegionBefore(op.getRegion(), loop.getRegion(),
                                loop.getRegion().end());
    if (failed(rewriter.convertRegionTypes(&loop.getRegion(),
                                           *getTypeConverter())))
      return failure();
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

struct IfPattern : public PlacementPattern<scf::IfOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(scf::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(),
                                                resultTypes)))
      return failure();
    auto branch = cast<scf::IfOp>(rewriter.cloneWithoutRegions(*op));
    branch->setOperands(adaptor.getOperands());
    for (auto [result, type] : llvm::zip(branch.getResults(), resultTypes))
      result.setType(type);
    rewriter.inlineRegionBefore(op.getThenRegion(), branch.getThenRegion(),
                                branch.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseRegion(), branch.getElseRegion(),
                                branch.getElseRegion().end());
    rewriter.replaceOp(op, branch.getResults());
    return success();
  }
};

/// Yielded tensors are the resources at the affinity of the parent's
/// result, as `*` (what the parent carries).
struct YieldPattern : public PlacementPattern<scf::YieldOp> {
  YieldPattern(const TypeConverter &converter, MLIRContext *context,
               Placement &placement,
               const DenseMap<Operation *, SmallVector<Attribute>> &affinities)
      : PlacementPattern(converter, context, placement),
        affinities(affinities) {}

  LogicalResult
  matchAndRewrite(scf::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto it = affinities.find(op);
    if (it == affinities.end())
      return rewriter.notifyMatchFailure(op, "yield of an unconverted parent");
    SmallVector<Value> operands;
    for (auto [i, value, converted] :
         llvm::enumerate(op.getResults(), adaptor.getResults())) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type) {
        operands.push_back(converted);
        continue;
      }
      Attribute affinity = it->second[i];
      FailureOr<Value> resource =
          placement.getResourceAt(rewriter, loc, value, converted, affinity);
      if (failed(resource))
        return failure();
      operands.push_back(placement.asUnknown(rewriter, loc, *resource, type,
                                             affinity, /*foldable=*/false));
    }
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, operands);
    return success();
  }

  const DenseMap<Operation *, SmallVector<Attribute>> &affinities;
};

/// Ops carrying tensors that the stream phase cannot convert, reported
/// before the conversion (which would only say "failed to legalize").
LogicalResult checkSupported(Operation *callable) {
  for (Region &region : callable->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (isTensor(arg.getType())) {
          if (block.isEntryBlock())
            return emitError(arg.getLoc())
                   << "functions with tensor arguments must be inlined into "
                      "an ABI wrapper before the stream phase";
          return emitError(arg.getLoc())
                 << "a block argument of type " << arg.getType()
                 << " (a branch carrying a tensor) is not supported by the "
                    "stream phase; carry tensors with scf.if or scf.for";
        }
  WalkResult result = callable->walk([](Operation *op) {
    if (failed(stream_conversion::verifyHostTensorOp(op)))
      return WalkResult::interrupt();
    if (isa<hal::TensorImportOp, hal::TensorExportOp, hal::TensorAliasOp,
            hal::TensorBarrierOp, flow::DispatchOp, flow::TensorTransferOp,
            flow::TensorBarrierOp, tensor::ExpandShapeOp,
            tensor::CollapseShapeOp, tensor::EmptyOp, arith::ConstantOp,
            scf::ForOp, scf::IfOp, scf::YieldOp, util::GlobalLoadOp,
            util::GlobalStoreOp, tensor::ExtractSliceOp,
            tensor::InsertSliceOp, tensor::ConcatOp, tensor::PadOp,
            tensor::ReshapeOp, tensor::ExtractOp, tensor::InsertOp>(op) ||
        !hasTensors(op))
      return WalkResult::advance();
    op->emitOpError() << "takes or returns tensors that the stream phase "
                         "cannot convert (calls with tensors must be "
                         "inlined; tensor control flow other than scf.for "
                         "and scf.if is not supported yet)";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// For every scf.yield carrying tensors: the affinity of each parent result
/// it feeds (the parent's pattern moves the yield before it is converted).
DenseMap<Operation *, SmallVector<Attribute>>
collectYieldAffinities(Operation *callable,
                       const stream::AffinityAnalysis &analysis) {
  DenseMap<Operation *, SmallVector<Attribute>> affinities;
  callable->walk([&](scf::YieldOp yield) {
    Operation *parent = yield->getParentOp();
    if (!llvm::any_of(yield->getOperandTypes(), isTensor))
      return;
    SmallVector<Attribute> &list = affinities[yield];
    for (Value result : parent->getResults()) {
      Attribute affinity = analysis.getValueAffinity(result);
      list.push_back(affinity ? affinity
                              : analysis.getDefaultAffinity(parent));
    }
  });
  return affinities;
}

struct ConvertToStreamPass
    : public fleet::impl::ConvertToStreamPassBase<ConvertToStreamPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    stream_conversion::hoistConstantsToGlobals(module);
    stream::AffinityAnalysis analysis(module);
    if (failed(analysis.run()))
      return signalPassFailure();

    Placement placement(analysis);
    if (failed(stream_conversion::prepareTensorGlobals(module, placement)))
      return signalPassFailure();

    SmallVector<Operation *> callables;
    for (Operation &op : module.getBody()->getOperations())
      if (isa<util::FuncOp, util::InitializerOp>(op))
        callables.push_back(&op);
    DenseMap<Operation *, SmallVector<Attribute>> yieldAffinities;
    for (Operation *callable : callables) {
      if (failed(checkSupported(callable)))
        return signalPassFailure();
      for (auto &entry : collectYieldAffinities(callable, analysis))
        yieldAffinities.insert(entry);
    }

    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion([](RankedTensorType type) -> Type {
      return stream::ResourceType::get(type.getContext(),
                                       stream::Lifetime::Unknown);
    });

    ConversionTarget target(*context);
    // Floating values stay until their consumers materialized them.
    target.addDynamicallyLegalOp<arith::ConstantOp, tensor::EmptyOp,
                                 tensor::ExpandShapeOp,
                                 tensor::CollapseShapeOp>([](Operation *op) {
      return !hasTensors(op) ||
             stream::AffinityAnalysis::isFloating(op->getResult(0));
    });
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !hasTensors(op); });

    RewritePatternSet patterns(context);
    patterns.add<ImportPattern, ExportPattern, AliasPattern,
                 TensorBarrierPattern, DispatchPattern, TransferPattern,
                 FlowBarrierPattern, ReshapePattern<tensor::ExpandShapeOp>,
                 ReshapePattern<tensor::CollapseShapeOp>, ForPattern,
                 IfPattern>(converter, context, placement);
    patterns.add<YieldPattern>(converter, context, placement,
                               yieldAffinities);
    stream_conversion::populateGlobalPatterns(converter, patterns, placement);
    stream_conversion::populateHostTensorPatterns(converter, patterns,
                                                  placement);
    if (failed(applyPartialConversion(callables, target, std::move(patterns))))
      return signalPassFailure();

    placement.foldLifetimeAdapters();
    // Floating tensors all consumers materialized.
    for (Operation *callable : callables)
      callable->walk<WalkOrder::PostOrder, ReverseIterator>([](Operation *op) {
        if (isa<arith::ConstantOp, tensor::EmptyOp, tensor::ExpandShapeOp,
                tensor::CollapseShapeOp>(op) &&
            hasTensors(op) && op->use_empty())
          op->erase();
      });
  }
};

} // namespace
