//===- SplitMicroBatches.cpp - a batch as K independent micro-batches -----===//
//
// Invariant established (count K > 1): in every public host function with a
// tensor input, the leading dimension B of input 0 (the batch) is computed
// as K micro-batches of B/K rows. Every input whose leading dimension is B
// is sliced into K parts (`tensor.extract_slice`); every op reached from
// them is cloned once per micro-batch on B/K rows, micro-batch-major (all of
// micro-batch 0, then 1, ...); every result derived from them is the
// `tensor.concat` of its K parts. Ops not reached from the batch (weight
// preparation) stay once, before the micro-batches. Clones carry
// `fleet.micro_batch = k` and every compute op `fleet.template = t` (the
// op it was cloned from), which flow-partition-pipeline reads and removes.
//
// An op that does not treat batch rows independently is an error naming it:
// a linalg op whose batch loop is a reduction, appears in an operand not
// derived from the batch, or is read by `linalg.index`; a reshape that does
// not keep the batch outermost; any other op on a batched tensor
// (docs/partitioning.md "Micro-batches").
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

class BatchSplitter {
public:
  BatchSplitter(util::FuncOp func, int64_t count) : func(func), count(count) {}

  /// Splits the function; false when it has no tensor input (left alone).
  FailureOr<bool> run();

private:
  bool isBatched(Value value) const { return batched.contains(value); }
  RankedTensorType getMicroType(Type type) const;
  LogicalResult checkLinalgOp(linalg::LinalgOp op);
  LogicalResult markInitChain(Value init, Operation *user);
  LogicalResult analyze(Block &body);
  Operation *cloneForMicroBatch(OpBuilder &builder, Operation *op,
                                IRMapping &mapping);

  util::FuncOp func;
  int64_t count;
  int64_t batch = 0;
  DenseSet<Value> batched;
  DenseSet<Operation *> batchedOps;
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
  batchedOps.insert(def);
  batched.insert(init);
  return success();
}

LogicalResult BatchSplitter::analyze(Block &body) {
  for (Operation &op : body.without_terminator()) {
    if (isa<hal::TensorExportOp>(op))
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
  if (first.getRank() == 0 || first.isDynamicDim(0))
    return imports.front()->emitOpError(
        "has no static leading (batch) dimension to split into "
        "--micro-batches");
  batch = first.getDimSize(0);
  if (batch % count != 0)
    return imports.front()->emitOpError("has batch dimension ")
           << batch << ", not a multiple of --micro-batches=" << count;
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
  Operation *anchor = ordered.front();
  for (Operation *op = anchor->getNextNode(); op;) {
    Operation *next = op->getNextNode();
    if (!op->hasTrait<OpTrait::IsTerminator>() && !batchedOps.contains(op) &&
        !isa<hal::TensorExportOp>(op) &&
        llvm::none_of(op->getOperands(), [&](Value v) { return isBatched(v); }))
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
      Operation *clone = cloneForMicroBatch(builder, op, mappings[k]);
      clone->setAttr("fleet.micro_batch", IntegerAttr::get(i64, k));
      if (isCostedOp(clone))
        clone->setAttr("fleet.template",
                       IntegerAttr::get(i64, templateOf[op]));
    }
  }
  for (hal::TensorExportOp exportOp : body.getOps<hal::TensorExportOp>()) {
    if (!isBatched(exportOp.getSource()))
      continue;
    builder.setInsertionPoint(exportOp);
    SmallVector<Value> parts;
    for (int64_t k = 0; k < count; ++k)
      parts.push_back(mappings[k].lookup(exportOp.getSource()));
    auto concat =
        tensor::ConcatOp::create(builder, exportOp.getLoc(), /*dim=*/0, parts);
    concat->setAttr("fleet.template", IntegerAttr::get(i64, nextTemplate++));
    exportOp.getSourceMutable().set(concat.getResult());
  }
  for (Operation *op : llvm::reverse(ordered))
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
    if (count <= 1)
      return;
    ModuleOp module = getOperation();
    bool split = false;
    for (util::FuncOp func : module.getOps<util::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      if (!func.getFunctionBody().hasOneBlock()) {
        func.emitError("--micro-batches needs a function without control "
                       "flow between blocks");
        return signalPassFailure();
      }
      FailureOr<bool> result = BatchSplitter(func, count).run();
      if (failed(result))
        return signalPassFailure();
      split |= *result;
    }
    if (!split) {
      module.emitError("--micro-batches=")
          << count << ": no public function computes on a batched tensor "
          << "input";
      return signalPassFailure();
    }
  }
};

} // namespace
