//===- SplitMicroBatches.cpp - a batch as K independent micro-batches -----===//
//
// Invariant established (count K > 1): in every public host function whose
// first `hal.tensor.import` has a leading dimension B that K divides (the
// batch), B is computed as K micro-batches of B/K rows. Every input whose
// leading dimension is B is sliced into K parts (`tensor.extract_slice`);
// every op reached from them is cloned once per micro-batch on B/K rows,
// micro-batch-major (all of micro-batch 0, then 1, ...), with its own copy
// of the empty/filled inits it writes; every result derived from them is
// the `tensor.concat` of its K parts, taken before the export, barrier or
// alias that returns it. Ops not reached from the batch (weight
// preparation) stay once, before the micro-batches. Clones carry
// `fleet.micro_batch = k` and every compute op `fleet.template = t` (the
// op it was cloned from), which flow-partition-pipeline reads and removes.
//
// An op that does not treat batch rows independently is an error naming it:
// a linalg op whose batch loop is a reduction, appears in an operand not
// derived from the batch, or is read by `linalg.index`; an `expand_shape`
// whose outer dimension K does not divide; any other op on a batched tensor
// (docs/partitioning.md "Micro-batches"). Reshapes are assumed to keep the
// batch outermost. With no function split, the first reason one was left
// whole is the error.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Flow/Transforms/Passes.h"

#include "fleet/Dialect/Flow/Transforms/CostModel.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "flow-split-micro-batches"

namespace fleet::flow {
#define GEN_PASS_DEF_SPLITMICROBATCHESPASS
#include "fleet/Dialect/Flow/Transforms/Passes.h.inc"
} // namespace fleet::flow

using namespace mlir;
using namespace fleet;
using fleet::flow::isCostedOp;

namespace {

/// Where a function's results leave it: they take the whole batch, the
/// concatenation of the micro-batches' parts.
bool isResultSink(Operation *op) {
  return isa<hal::TensorExportOp, hal::TensorBarrierOp, hal::TensorAliasOp>(
      op);
}

class BatchSplitter {
public:
  BatchSplitter(util::FuncOp func, int64_t count) : func(func), count(count) {}

  /// Splits the function; false when it has no batched tensor input (left
  /// alone; `skipReason` says why when it has inputs).
  FailureOr<bool> run();

  /// Why a function with inputs was left alone, at `skipAt`.
  std::string skipReason;
  Operation *skipAt = nullptr;

private:
  bool isBatched(Value value) const { return batched.contains(value); }
  RankedTensorType getMicroType(Type type) const;
  LogicalResult checkLinalgOp(linalg::LinalgOp op);
  LogicalResult markInitChain(Value init, Operation *user);
  LogicalResult analyze(Block &body);
  Operation *cloneForMicroBatch(OpBuilder &builder, Operation *op,
                                IRMapping &mapping);
  void cloneInitChain(OpBuilder &builder, Value init, IRMapping &mapping,
                      int64_t microBatch);

  util::FuncOp func;
  int64_t count;
  int64_t batch = 0;
  DenseSet<Value> batched;
  DenseSet<Operation *> batchedOps;
  /// Inits not derived from the batch (an empty tensor, a fill of one):
  /// rebuilt per micro-batch for each batched user, the original left to
  /// its other users (after CSE one empty often also feeds weight
  /// preparation).
  DenseSet<Value> initChain;
  SmallVector<Operation *> initChainOps;
};

RankedTensorType BatchSplitter::getMicroType(Type type) const {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[0] /= count;
  return RankedTensorType::get(shape, tensor.getElementType(),
                               tensor.getEncoding());
}

/// A batched value's rows must be split along a parallel loop `d` that is
/// the leading index of every batched operand and appears nowhere else.
LogicalResult BatchSplitter::checkLinalgOp(linalg::LinalgOp op) {
  std::optional<unsigned> batchLoop;
  auto fail = [&](const Twine &why) {
    return op->emitOpError("does not treat batch rows independently (")
           << why << "); --micro-batches needs every op on the batch to";
  };
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isBatched(operand.get()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto dim = map.getNumResults() ? dyn_cast<AffineDimExpr>(map.getResult(0))
                                   : nullptr;
    if (!dim)
      return fail("operand " + Twine(operand.getOperandNumber()) +
                  " is not indexed by a loop in its batch dimension");
    if (batchLoop && *batchLoop != dim.getPosition())
      return fail("its batched operands use different loops for the batch");
    batchLoop = dim.getPosition();
    for (AffineExpr expr : map.getResults().drop_front())
      if (expr.isFunctionOfDim(*batchLoop))
        return fail("the batch loop indexes another dimension too");
  }
  if (!batchLoop)
    return success();
  if (op.getIteratorTypesArray()[*batchLoop] != utils::IteratorType::parallel)
    return fail("it reads across the batch dimension: loop d" +
                Twine(*batchLoop) + " is a reduction");
  for (OpOperand &operand : op->getOpOperands()) {
    if (isBatched(operand.get()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (op.isDpsInit(&operand)) {
      if (map.getNumResults() == 0 ||
          map.getResult(0) != getAffineDimExpr(*batchLoop, op->getContext()))
        return fail("its result is not indexed by the batch loop first");
      if (failed(markInitChain(operand.get(), op)))
        return failure();
      continue;
    }
    if (map.isFunctionOfDim(*batchLoop))
      return fail("operand " + Twine(operand.getOperandNumber()) +
                  " is read per batch row but not derived from the batch");
  }
  bool readsIndex = false;
  op.getBlock()->walk([&](linalg::IndexOp index) {
    readsIndex |= index.getDim() == *batchLoop;
  });
  if (readsIndex)
    return fail("its body reads the batch index (linalg.index " +
                Twine(*batchLoop) + ")");
  return success();
}

/// An init not derived from the batch must be rebuilt per micro-batch: an
/// empty tensor or a fill of one.
LogicalResult BatchSplitter::markInitChain(Value init, Operation *user) {
  Operation *def = init.getDefiningOp();
  auto type = dyn_cast<RankedTensorType>(init.getType());
  if (!def || !type || type.getRank() == 0 || type.isDynamicDim(0) ||
      type.getDimSize(0) % count != 0)
    return user->emitOpError("has an init that is not derived from the "
                             "batch; --micro-batches cannot split it");
  if (auto fill = dyn_cast<linalg::FillOp>(def)) {
    if (failed(markInitChain(fill.getOutputs()[0], user)))
      return failure();
  } else if (!isa<tensor::EmptyOp>(def)) {
    return user->emitOpError("has an init that is not derived from the "
                             "batch; --micro-batches cannot split it");
  }
  if (initChain.insert(init).second)
    initChainOps.push_back(def);
  return success();
}

LogicalResult BatchSplitter::analyze(Block &body) {
  for (Operation &op : body.without_terminator()) {
    if (isResultSink(&op))
      continue;
    if (llvm::none_of(op.getOperands(),
                      [&](Value v) { return isBatched(v); }))
      continue;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op)) {
      if (failed(checkLinalgOp(linalgOp)))
        return failure();
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(&op)) {
      // The batch stays the outermost index of the first group.
      (void)collapse;
    } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(&op)) {
      if (expand.getResultType().getDimSize(0) % count != 0)
        return op.emitOpError("splits the batch dimension into ")
               << expand.getResultType().getDimSize(0)
               << " outer rows, not a multiple of --micro-batches=" << count;
    } else if (isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) &&
               op.getNumResults() == 1 &&
               isa<RankedTensorType>(op.getResult(0).getType())) {
      for (Value operand : op.getOperands())
        if (isa<RankedTensorType>(operand.getType()) && !isBatched(operand))
          return op.emitOpError("combines the batch with a tensor not "
                                "derived from it; --micro-batches cannot "
                                "split it");
    } else if (!isa<flow::TensorTransferOp>(op)) {
      return op.emitOpError("is not supported on the batch dimension by "
                            "--micro-batches (it may read across batch "
                            "rows)");
    }
    batchedOps.insert(&op);
    for (Value result : op.getResults())
      if (isa<RankedTensorType>(result.getType()))
        batched.insert(result);
  }
  return success();
}

/// Micro-batch `microBatch`'s own copy of an init chain value, once.
void BatchSplitter::cloneInitChain(OpBuilder &builder, Value init,
                                   IRMapping &mapping, int64_t microBatch) {
  if (!initChain.contains(init) || mapping.contains(init))
    return;
  Operation *def = init.getDefiningOp();
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    cloneInitChain(builder, fill.getOutputs()[0], mapping, microBatch);
  Operation *clone = builder.clone(*def, mapping);
  clone->getResult(0).setType(getMicroType(init.getType()));
  clone->setAttr("fleet.micro_batch",
                 IntegerAttr::get(IntegerType::get(def->getContext(), 64),
                                  microBatch));
}

Operation *BatchSplitter::cloneForMicroBatch(OpBuilder &builder,
                                             Operation *op,
                                             IRMapping &mapping) {
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    auto clone = tensor::ExpandShapeOp::create(
        builder, op->getLoc(), getMicroType(expand.getResultType()),
        mapping.lookup(expand.getSrc()), expand.getReassociationIndices());
    mapping.map(expand.getResult(), clone.getResult());
    return clone;
  }
  Operation *clone = builder.clone(*op, mapping);
  for (auto [result, cloned] :
       llvm::zip(op->getResults(), clone->getResults()))
    if (isBatched(result))
      cloned.setType(getMicroType(result.getType()));
  return clone;
}

FailureOr<bool> BatchSplitter::run() {
  Block &body = func.getFunctionBody().front();
  SmallVector<hal::TensorImportOp> imports(body.getOps<hal::TensorImportOp>());
  if (imports.empty())
    return false;
  auto first = cast<RankedTensorType>(imports.front().getType());
  // Another public function (an initializer, say) may take no batch: it is
  // left alone, and the reason reported only if no function is split.
  skipAt = imports.front();
  if (first.getRank() == 0 || first.isDynamicDim(0)) {
    skipReason = "has no static leading (batch) dimension to split into "
                 "--micro-batches";
    return false;
  }
  batch = first.getDimSize(0);
  if (batch % count != 0) {
    skipReason = ("has batch dimension " + Twine(batch) +
                  ", not a multiple of --micro-batches=" + Twine(count))
                     .str();
    return false;
  }
  for (hal::TensorImportOp import : imports) {
    auto type = cast<RankedTensorType>(import.getType());
    if (type.getRank() > 0 && type.getDimSize(0) == batch)
      batched.insert(import.getResult());
  }
  if (failed(analyze(body)))
    return failure();
  SmallVector<Operation *> ordered;
  for (Operation &op : body)
    if (batchedOps.contains(&op))
      ordered.push_back(&op);
  if (ordered.empty())
    return false;

  MLIRContext *context = func.getContext();
  auto i64 = IntegerType::get(context, 64);
  // Templates: every compute op keeps the position it had.
  int64_t nextTemplate = 0;
  DenseMap<Operation *, int64_t> templateOf;
  for (Operation &op : body)
    templateOf[&op] = nextTemplate++;
  for (Operation &op : body)
    if (isCostedOp(&op) && !batchedOps.contains(&op))
      op.setAttr("fleet.template", IntegerAttr::get(i64, templateOf[&op]));

  // Ops after the first micro-batch op that do not use the batch move before
  // it (they cannot depend on it), so the micro-batches are contiguous.
  // An op staying after the anchor keeps its users there too.
  Operation *anchor = ordered.front();
  DenseSet<Operation *> staying;
  for (Operation *op = anchor->getNextNode(); op;) {
    Operation *next = op->getNextNode();
    bool stays = op->hasTrait<OpTrait::IsTerminator>() ||
                 batchedOps.contains(op) || isResultSink(op) ||
                 llvm::any_of(op->getOperands(), [&](Value v) {
                   return isBatched(v) || staying.contains(v.getDefiningOp());
                 });
    if (stays)
      staying.insert(op);
    else
      op->moveBefore(anchor);
    op = next;
  }

  // Micro-batch k: its slice of each batched input, then its ops (a slice
  // is a copy; taking it just before its consumers lets micro-batch 0 start
  // without waiting for the others' slices).
  OpBuilder builder(anchor);
  SmallVector<IRMapping> mappings(count);
  DenseMap<Operation *, int64_t> sliceTemplates;
  for (hal::TensorImportOp import : imports)
    if (isBatched(import.getResult()))
      sliceTemplates[import] = nextTemplate++;
  for (int64_t k = 0; k < count; ++k) {
    for (hal::TensorImportOp import : imports) {
      if (!isBatched(import.getResult()))
        continue;
      auto type = cast<RankedTensorType>(import.getType());
      RankedTensorType micro = getMicroType(type);
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        builder.getIndexAttr(0));
      offsets[0] = builder.getIndexAttr(k * micro.getDimSize(0));
      SmallVector<OpFoldResult> sizes, strides(type.getRank(),
                                               builder.getIndexAttr(1));
      for (int64_t size : micro.getShape())
        sizes.push_back(builder.getIndexAttr(size));
      auto slice = tensor::ExtractSliceOp::create(
          builder, import.getLoc(), micro, import.getResult(), offsets, sizes,
          strides);
      slice->setAttr("fleet.micro_batch", IntegerAttr::get(i64, k));
      slice->setAttr("fleet.template",
                     IntegerAttr::get(i64, sliceTemplates[import]));
      mappings[k].map(import.getResult(), slice.getResult());
    }
    for (Operation *op : ordered) {
      for (Value operand : op->getOperands())
        cloneInitChain(builder, operand, mappings[k], k);
      Operation *clone = cloneForMicroBatch(builder, op, mappings[k]);
      clone->setAttr("fleet.micro_batch", IntegerAttr::get(i64, k));
      if (isCostedOp(clone))
        clone->setAttr("fleet.template",
                       IntegerAttr::get(i64, templateOf[op]));
    }
  }
  for (Operation &sink : body) {
    if (!isResultSink(&sink))
      continue;
    for (OpOperand &operand : sink.getOpOperands()) {
      if (!isBatched(operand.get()))
        continue;
      builder.setInsertionPoint(&sink);
      SmallVector<Value> parts;
      for (int64_t k = 0; k < count; ++k)
        parts.push_back(mappings[k].lookup(operand.get()));
      auto concat =
          tensor::ConcatOp::create(builder, sink.getLoc(), /*dim=*/0, parts);
      concat->setAttr("fleet.template",
                      IntegerAttr::get(i64, nextTemplate++));
      operand.set(concat.getResult());
    }
  }
  for (Operation *op : llvm::reverse(ordered))
    if (op->use_empty())
      op->erase();
  // Fills before the empties they fill (initChainOps lists them after).
  for (Operation *op : llvm::reverse(initChainOps))
    if (op->use_empty())
      op->erase();
  LLVM_DEBUG(llvm::dbgs() << "split @" << func.getSymName() << " batch "
                          << batch << " into " << count << " micro-batches ("
                          << ordered.size() << " ops each)\n");
  return true;
}

struct SplitMicroBatchesPass
    : public flow::impl::SplitMicroBatchesPassBase<SplitMicroBatchesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (count < 1) {
      module.emitError("--micro-batches=")
          << int64_t(count) << ": expected a count of at least 1";
      return signalPassFailure();
    }
    if (count == 1)
      return;
    bool split = false;
    std::string skipReason;
    Operation *skipAt = nullptr;
    for (util::FuncOp func : module.getOps<util::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      if (!func.getFunctionBody().hasOneBlock()) {
        func.emitError("--micro-batches needs a function without control "
                       "flow between blocks");
        return signalPassFailure();
      }
      BatchSplitter splitter(func, count);
      FailureOr<bool> result = splitter.run();
      if (failed(result))
        return signalPassFailure();
      split |= *result;
      if (!*result && !splitter.skipReason.empty()) {
        LLVM_DEBUG(llvm::dbgs() << "@" << func.getSymName()
                                << " left whole: " << splitter.skipReason
                                << "\n");
        if (!skipAt) {
          skipAt = splitter.skipAt;
          skipReason = splitter.skipReason;
        }
      }
    }
    if (!split && skipAt) {
      skipAt->emitOpError(skipReason);
      return signalPassFailure();
    }
    if (!split) {
      module.emitError("--micro-batches=")
          << int64_t(count)
          << ": no public function computes on a batched tensor input";
      return signalPassFailure();
    }
  }
};

} // namespace
