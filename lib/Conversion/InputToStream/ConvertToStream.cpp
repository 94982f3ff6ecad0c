//===- ConvertToStream.cpp - tensors and placement to stream resources ----===//
//
// Invariant established: host functions hold no tensor values. Every tensor
// became a `!stream.resource` (size: its static byte count) on the affinity
// AffinityAnalysis gives it; `flow.dispatch` became `stream.async.dispatch
// on(E)`, `flow.tensor.transfer` a `stream.async.transfer from(S) -> to(T)`,
// buffer-view imports/exports `stream.tensor.import/export` of external
// resources, constants `stream.async.constant` and empty tensors
// `stream.async.alloca` materialized at each consumer's affinity. A value
// read on another affinity than where it lives goes through a transfer.
//
//===----------------------------------------------------------------------===//

#include "fleet/Conversion/Passes.h"

#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Stream/Analysis/AffinityAnalysis.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-conversion"

namespace fleet {
#define GEN_PASS_DEF_CONVERTTOSTREAMPASS
#include "fleet/Conversion/Passes.h.inc"
} // namespace fleet

using namespace mlir;
using namespace fleet;

namespace {

/// Bytes of a static tensor in memory (i1 takes a byte per element).
int64_t getByteSize(RankedTensorType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

stream::ResourceType resourceType(MLIRContext *context,
                                  stream::Lifetime lifetime) {
  return stream::ResourceType::get(context, lifetime);
}

/// Converts one function body. Tensor values map to resources; floating
/// values (constants, empty tensors) are materialized per consumer affinity.
class FunctionConverter {
public:
  FunctionConverter(const stream::AffinityAnalysis &analysis)
      : analysis(analysis) {}

  LogicalResult convert(Region &body);

private:
  LogicalResult convertOp(Operation *op);
  Value getSize(OpBuilder &b, Location loc, RankedTensorType type);
  /// The resource holding `tensor` on `affinity`, transferring if needed.
  FailureOr<Value> getResourceAt(OpBuilder &b, Location loc, Value tensor,
                                 Attribute affinity);
  FailureOr<Value> materializeFloating(OpBuilder &b, Location loc,
                                       Value tensor, Attribute affinity);

  /// The tensor type `value` had before the conversion retyped it in place
  /// (loop-carried values), or its current tensor type; null otherwise.
  RankedTensorType tensorTypeOf(Value value) {
    if (RankedTensorType type = originalTypes.lookup(value))
      return type;
    return dyn_cast<RankedTensorType>(value.getType());
  }
  /// Retypes a loop/branch-carried tensor value as a resource in place.
  void retype(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    originalTypes[value] = type;
    value.setType(stream::ResourceType::get(value.getContext(),
                                            stream::Lifetime::Unknown));
    resources[value] = value;
  }
  LogicalResult convertRegionOp(Operation *op);

  const stream::AffinityAnalysis &analysis;
  DenseMap<Value, RankedTensorType> originalTypes;
  DenseMap<Value, Value> resources;
  DenseMap<std::pair<Value, Attribute>, Value> placed;
  SmallVector<Operation *> toErase;
};

Value FunctionConverter::getSize(OpBuilder &b, Location loc,
                                 RankedTensorType type) {
  return arith::ConstantIndexOp::create(b, loc, getByteSize(type));
}

FailureOr<Value> FunctionConverter::materializeFloating(OpBuilder &b,
                                                        Location loc,
                                                        Value tensor,
                                                        Attribute affinity) {
  auto key = std::make_pair(tensor, affinity);
  if (Value existing = placed.lookup(key))
    return existing;
  Operation *producer = tensor.getDefiningOp();
  auto type = tensorTypeOf(tensor);
  MLIRContext *context = b.getContext();
  Value result;
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(producer)) {
    FailureOr<Value> source =
        materializeFloating(b, loc, producer->getOperand(0), affinity);
    if (failed(source))
      return failure();
    result = *source;
  } else if (auto constant = dyn_cast<arith::ConstantOp>(producer)) {
    // Materialize where the consumer runs; one copy per affinity.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(producer);
    result = stream::AsyncConstantOp::create(
        b, loc, resourceType(context, stream::Lifetime::Constant),
        constant.getValue(), getSize(b, loc, type),
        /*await_timepoint=*/Value{}, affinity);
  } else if (isa<tensor::EmptyOp>(producer)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(producer);
    result = stream::AsyncAllocaOp::create(
        b, loc, resourceType(context, stream::Lifetime::Unknown),
        getSize(b, loc, type), affinity);
  } else {
    return emitError(loc) << "cannot place value produced by '"
                          << producer->getName() << "'";
  }
  placed[key] = result;
  return result;
}

FailureOr<Value> FunctionConverter::getResourceAt(OpBuilder &b, Location loc,
                                                  Value tensor,
                                                  Attribute affinity) {
  if (stream::AffinityAnalysis::isFloating(tensor))
    return materializeFloating(b, loc, tensor, affinity);
  Value resource = resources.lookup(tensor);
  if (!resource)
    return emitError(loc) << "tensor value has no resource (unsupported "
                             "producer or block argument)";
  Attribute lives = analysis.getValueAffinity(tensor);
  if (!affinity || !lives || lives == affinity)
    return resource;
  // Read on another affinity than where it lives: transfer (elided later
  // when the topology lets the consumer reach the producer's memory).
  auto key = std::make_pair(tensor, affinity);
  if (Value existing = placed.lookup(key))
    return existing;
  RankedTensorType type = tensorTypeOf(tensor);
  Value size = getSize(b, loc, type);
  Value transferred = stream::AsyncTransferOp::create(
      b, loc, resourceType(b.getContext(), stream::Lifetime::Unknown),
      resource, size, size, /*execution_affinity=*/Attribute{}, lives,
      affinity);
  placed[key] = transferred;
  return transferred;
}

LogicalResult FunctionConverter::convertOp(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  MLIRContext *context = op->getContext();
  auto external = resourceType(context, stream::Lifetime::External);
  auto unknown = resourceType(context, stream::Lifetime::Unknown);
  Attribute execution = analysis.getExecutionAffinity(op);

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](hal::TensorImportOp op) -> LogicalResult {
        auto type = cast<RankedTensorType>(op.getType());
        Attribute affinity = analysis.getValueAffinity(op.getResult());
        Value size = getSize(b, loc, type);
        Value resource = stream::TensorImportOp::create(
            b, loc, external, op.getSourceMutable().get(), type, ValueRange{}, size,
            /*consume=*/false, affinity);
        if (Value fence = op.getWaitFence()) {
          // Wait for the producer of the buffer before first use.
          Value timepoint = stream::TimepointImportOp::create(
              b, loc, stream::TimepointType::get(context), ValueRange{fence},
              affinity);
          resource = stream::TimepointAwaitOp::create(
                         b, loc, TypeRange{external}, ValueRange{resource},
                         ValueRange{size}, timepoint, /*sync=*/false)
                         .getResult(0);
        }
        resources[op.getResult()] = resource;
        toErase.push_back(op);
        return success();
      })
      .Case([&](hal::TensorExportOp op) -> LogicalResult {
        RankedTensorType type = tensorTypeOf(op.getSourceMutable().get());
        Attribute affinity = execution;
        FailureOr<Value> resource =
            getResourceAt(b, loc, op.getSourceMutable().get(), affinity);
        if (failed(resource))
          return failure();
        Value size = getSize(b, loc, type);
        Value exported = *resource;
        if (cast<stream::ResourceType>(exported.getType()).getLifetime() !=
            stream::Lifetime::External)
          exported = stream::AsyncTransferOp::create(
              b, loc, external, exported, size, size, Attribute{}, affinity,
              affinity);
        Value view = stream::TensorExportOp::create(
            b, loc, op.getType(), exported, TypeAttr::get(type), ValueRange{},
            size, affinity);
        op.getResult().replaceAllUsesWith(view);
        toErase.push_back(op);
        return success();
      })
      .Case([&](hal::TensorAliasOp op) -> LogicalResult {
        // The result is produced in the caller's storage: import the
        // storage and update it with the value.
        RankedTensorType type = tensorTypeOf(op.getSourceMutable().get());
        Attribute affinity = execution;
        FailureOr<Value> resource =
            getResourceAt(b, loc, op.getSourceMutable().get(), affinity);
        if (failed(resource))
          return failure();
        Value size = getSize(b, loc, type);
        Value storage = stream::TensorImportOp::create(
            b, loc, external, op.getStorage(), type, ValueRange{}, size,
            /*consume=*/false, affinity);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value updated = stream::AsyncUpdateOp::create(
            b, loc, external, storage, size, zero, size, *resource, size,
            affinity);
        resources[op.getResult()] = updated;
        toErase.push_back(op);
        return success();
      })
      .Case([&](hal::TensorBarrierOp op) -> LogicalResult {
        SmallVector<Value> timepoints;
        for (auto [source, result] :
             llvm::zip(op.getSources(), op.getResults())) {
          RankedTensorType type = tensorTypeOf(source);
          Attribute affinity = analysis.getValueAffinity(source);
          if (!affinity)
            affinity = analysis.getDefaultAffinity(op);
          FailureOr<Value> resource = getResourceAt(b, loc, source, affinity);
          if (failed(resource))
            return failure();
          auto barrier = stream::TimepointBarrierOp::create(
              b, loc, resource->getType(),
              stream::TimepointType::get(context), *resource,
              getSize(b, loc, type), affinity);
          resources[result] = barrier.getResult();
          timepoints.push_back(barrier.getResultTimepoint());
        }
        Value joined =
            timepoints.size() == 1
                ? timepoints.front()
                : stream::TimepointJoinOp::create(
                      b, loc, stream::TimepointType::get(context), timepoints)
                      .getResult();
        stream::TimepointChainExternalOp::create(
            b, loc, joined, ValueRange{op.getSignalFence()}, execution);
        toErase.push_back(op);
        return success();
      })
      .Case([&](flow::DispatchOp op) -> LogicalResult {
        SmallVector<Value> operands, sizes, offsets, ends, lengths;
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        for (Value argument : op.getArguments()) {
          RankedTensorType type = tensorTypeOf(argument);
          if (!type) {
            operands.push_back(argument);
            continue;
          }
          FailureOr<Value> resource =
              getResourceAt(b, loc, argument, execution);
          if (failed(resource))
            return failure();
          Value size = getSize(b, loc, type);
          operands.push_back(*resource);
          sizes.push_back(size);
          offsets.push_back(zero);
          ends.push_back(size);
          lengths.push_back(size);
        }
        SmallVector<Value> resultSizes;
        SmallVector<Type> resultTypes;
        for (Type type : op.getResultTypes()) {
          resultSizes.push_back(getSize(b, loc, cast<RankedTensorType>(type)));
          resultTypes.push_back(unknown);
        }
        auto dispatch = stream::AsyncDispatchOp::create(
            b, loc, resultTypes, op.getWorkload(), operands, sizes, offsets,
            ends, lengths, resultSizes, /*tied_operands=*/ArrayAttr{},
            b.getArrayAttr({op.getEntryPoint()}), execution);
        for (auto [from, to] :
             llvm::zip(op.getResults(), dispatch.getResults()))
          resources[from] = to;
        toErase.push_back(op);
        return success();
      })
      .Case([&](flow::TensorTransferOp op) -> LogicalResult {
        Attribute target = op.getTargetAttr();
        if (stream::AffinityAnalysis::isFloating(op.getOperandMutable().get())) {
          // Nothing to move: build the value where it is needed.
          FailureOr<Value> resource =
              materializeFloating(b, loc, op.getOperandMutable().get(), target);
          if (failed(resource))
            return failure();
          resources[op.getResult()] = *resource;
        } else {
          Attribute source =
              analysis.getValueAffinity(op.getOperandMutable().get());
          FailureOr<Value> resource =
              getResourceAt(b, loc, op.getOperandMutable().get(), source);
          if (failed(resource))
            return failure();
          if (source == target) {
            // Already there: a no-op, scheduled as if it were not written.
            LLVM_DEBUG(llvm::dbgs() << "transfer to its own affinity "
                                    << target << " dropped at " << loc
                                    << "\n");
            resources[op.getResult()] = *resource;
          } else {
            Value size = getSize(b, loc, op.getType());
            resources[op.getResult()] = stream::AsyncTransferOp::create(
                b, loc, unknown, *resource, size, size, Attribute{}, source,
                target);
          }
        }
        toErase.push_back(op);
        return success();
      })
      .Case([&](flow::TensorBarrierOp op) -> LogicalResult {
        FailureOr<Value> resource =
            getResourceAt(b, loc, op.getOperandMutable().get(), op.getTargetAttr());
        if (failed(resource))
          return failure();
        resources[op.getResult()] = *resource;
        toErase.push_back(op);
        return success();
      })
      .Case<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
          [&](Operation *op) -> LogicalResult {
            // Same bytes, new shape.
            if (Value resource = resources.lookup(op->getOperand(0)))
              resources[op->getResult(0)] = resource;
            toErase.push_back(op);
            return success();
          })
      .Case<arith::ConstantOp, tensor::EmptyOp>([&](Operation *op) {
        if (isa<ShapedType>(op->getResult(0).getType()))
          toErase.push_back(op);
        return success();
      })
      .Case<scf::ForOp, scf::IfOp, scf::YieldOp>(
          [&](Operation *op) { return convertRegionOp(op); })
      .Default([&](Operation *op) -> LogicalResult {
        auto isTensor = llvm::IsaPred<RankedTensorType>;
        if (llvm::any_of(op->getOperandTypes(), isTensor) ||
            llvm::any_of(op->getResultTypes(), isTensor))
          return op->emitOpError()
                 << "takes or returns tensors that the stream phase cannot "
                    "convert (calls with tensors must be inlined; tensor "
                    "globals and tensor control flow are not supported yet)";
        return success();
      });
}

/// Loops and branches carrying tensors carry resources instead: their
/// results and region arguments are retyped in place (placed where the
/// analysis placed them), inits and yielded values are the resources at the
/// carried value's affinity.
LogicalResult FunctionConverter::convertRegionOp(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto carried = [&](Value value) { return tensorTypeOf(value) != nullptr; };
  // Carried values have an undecided lifetime (RefineUsage picks it); a
  // resource with another one enters through a lifetime transfer.
  auto asUnknown = [&](Value resource, Value tensor, Attribute affinity) {
    auto unknown =
        stream::ResourceType::get(op->getContext(), stream::Lifetime::Unknown);
    if (resource.getType() == unknown)
      return resource;
    Value size = getSize(b, loc, tensorTypeOf(tensor));
    return Value(stream::AsyncTransferOp::create(b, loc, unknown, resource,
                                                 size, size, Attribute{},
                                                 affinity, affinity));
  };
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    for (auto [i, init] : llvm::enumerate(loop.getInitArgs())) {
      if (!carried(init))
        continue;
      Attribute affinity = analysis.getValueAffinity(loop.getResult(i));
      if (!affinity)
        affinity = analysis.getDefaultAffinity(loop);
      FailureOr<Value> resource = getResourceAt(b, loc, init, affinity);
      if (failed(resource))
        return failure();
      loop.getInitArgsMutable()[i].set(asUnknown(*resource, init, affinity));
      retype(loop.getRegionIterArgs()[i]);
      retype(loop.getResult(i));
    }
    return success();
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    for (Value result : branch.getResults())
      if (carried(result))
        retype(result);
    return success();
  }
  auto yield = cast<scf::YieldOp>(op);
  Operation *parent = yield->getParentOp();
  for (OpOperand &operand : yield->getOpOperands()) {
    if (!carried(operand.get()))
      continue;
    Value target = parent->getResult(operand.getOperandNumber());
    Attribute affinity = analysis.getValueAffinity(target);
    if (!affinity)
      affinity = analysis.getDefaultAffinity(parent);
    FailureOr<Value> resource = getResourceAt(b, loc, operand.get(), affinity);
    if (failed(resource))
      return failure();
    operand.set(asUnknown(*resource, operand.get(), affinity));
  }
  return success();
}

LogicalResult FunctionConverter::convert(Region &body) {
  for (Block &block : body)
    for (BlockArgument arg : block.getArguments())
      if (isa<RankedTensorType>(arg.getType()))
        return emitError(arg.getLoc())
               << "functions with tensor arguments must be inlined into an "
                  "ABI wrapper before the stream phase";
  // Pre-order: loops are retyped before their bodies are converted.
  WalkResult result = body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    return failed(convertOp(op)) ? WalkResult::interrupt()
                                 : WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  for (Operation *op : llvm::reverse(toErase)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

struct ConvertToStreamPass
    : public fleet::impl::ConvertToStreamPassBase<ConvertToStreamPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    stream::AffinityAnalysis analysis(module);
    if (failed(analysis.run()))
      return signalPassFailure();
    for (Operation &op : module.getBody()->getOperations()) {
      if (!isa<util::FuncOp, util::InitializerOp>(op))
        continue;
      FunctionConverter converter(analysis);
      for (Region &region : op.getRegions())
        if (failed(converter.convert(region)))
          return signalPassFailure();
    }
  }
};

} // namespace
