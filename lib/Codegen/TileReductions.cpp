//===- TileReductions.cpp - the reduction strategy -----------------------===//
//
// Reduction kernels (docs/kernels.md "Workgroup tiles", "Streaming
// stores"): the workgroup's rows one at a time, every op of a row in
// chunks of 4 vectors along its innermost loop, reductions accumulated in
// vectors (partial reduction) and merged once per row. An elementwise op
// whose result a later reduction of the row reads is computed in that
// reduction's chunk loop. Invariant: after this step every op of a row
// with static shape has static chunk shapes (peeled remainders), ready for
// vectorization.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "codegen-tile-and-vectorize"

namespace fleet::codegen::detail {

namespace {

/// Tiles the reduction `op` as a partial reduction (tileOp) with
/// `producer`, an elementwise op whose result `op` reads, computed in the
/// same loop; the loop also yields the producer's whole result, which
/// replaces it for its other readers. `producerFused` tells whether the
/// producer joined the loop (upstream may tile `op` without it).
FailureOr<SmallVector<scf::ForOp>>
tileReductionWithProducer(RewriterBase &rewriter, TilingInterface op,
                          ArrayRef<int64_t> tiles, Operation *producer,
                          bool &producerFused) {
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(
      getTilingOptions(op, tiles, /*partialReduction=*/true));
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult candidate,
          bool isDestination)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isDestination || candidate.getOwner() != producer)
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{
            /*yieldProducerReplacement=*/true};
      });
  llvm::SetVector<Operation *> fused;
  FailureOr<SmallVector<scf::ForOp>> loops =
      tileAndFuse(rewriter, op, options, &fused);
  producerFused = succeeded(loops) && fused.contains(producer);
  LLVM_DEBUG(if (producerFused) llvm::dbgs()
             << "row op fused into the chunks of " << op->getName() << "\n");
  return loops;
}

} // namespace

LogicalResult tileReduction(func::FuncOp func, linalg::LinalgOp root,
                            const TargetInfo &target, RewriterBase &rewriter) {
  // Rows: every parallel loop but an innermost parallel one.
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  SmallVector<int64_t> tiles(iterators.size(), 0);
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel && i + 1 != iterators.size())
      tiles[i] = 1;
  if (llvm::any_of(tiles, [](int64_t tile) { return tile != 0; })) {
    FailureOr<SmallVector<scf::ForOp>> rows = tileAndFuse(
        rewriter, cast<TilingInterface>(root.getOperation()), tiles);
    if (failed(rows))
      return root.emitOpError("could not be tiled into rows");
    eraseDeadOps(func, rewriter);
    if (failed(simplify(func)))
      return failure();
  }
  // Each op of a row in vector chunks along its innermost loop.
  SmallVector<linalg::LinalgOp> ops;
  func.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && op.getNumLoops() > 0 &&
        !isa<linalg::FillOp>(op.getOperation()))
      ops.push_back(op);
  });
  // An elementwise op whose result a later reduction of the row reads
  // through the identity map (softmax's exp before its sum) is computed in
  // that reduction's chunk loop, its result yielded for its other readers:
  // one pass over the row instead of two.
  DenseSet<Operation *> fused;
  DenseMap<Operation *, Operation *> fusedProducer;
  for (linalg::LinalgOp op : ops) {
    if (op.getNumReductionLoops() != 1 || op.hasIndexSemantics() ||
        op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
      continue;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
      if (!producer || !llvm::is_contained(ops, producer) ||
          fused.contains(producer) || producer.getNumReductionLoops() != 0 ||
          producer.hasIndexSemantics() || producer->getNumResults() != 1 ||
          producer.getStaticLoopRanges() != op.getStaticLoopRanges() ||
          !op.getMatchingIndexingMap(input).isIdentity())
        continue;
      // Its other readers come after the reduction, where the fused loop's
      // copy of its result is defined.
      if (!llvm::all_of(producer->getUsers(), [&](Operation *user) {
            return user == op.getOperation() ||
                   (user->getBlock() == op->getBlock() &&
                    op->isBeforeInBlock(user));
          }))
        continue;
      fused.insert(producer);
      fusedProducer[op] = producer;
      break;
    }
  }
  for (linalg::LinalgOp op : ops) {
    if (fused.contains(op))
      continue;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      continue;
    int64_t chunk = 4 * getLanes(op->getResult(0).getType(), target);
    SmallVector<int64_t> opTiles(ranges.size(), 0);
    for (auto [i, range] : llvm::enumerate(ranges))
      if (range > 1 && i + 1 != ranges.size())
        opTiles[i] = 1;
    opTiles.back() = chunk;
    // Partial-reduction tiling needs projected-permutation maps: a result
    // map with a constant, (d0, d1) -> (d0, 0) as torch-mlir's keepdim
    // reductions have, crashed upstream's tiling; such ops tile the reduction
    // serially.
    // Upstream's partial-reduction tiling leaves `linalg.index` of the tiled
    // loop relative to the tile (measured: a causal mask compared column
    // j - j0 with the row), so ops reading indices tile serially.
    bool innermostReduces =
        op.getIteratorTypesArray().back() == utils::IteratorType::reduction &&
        !op.hasIndexSemantics() &&
        llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
          return map.isProjectedPermutation();
        });
    auto tilingOp = cast<TilingInterface>(op.getOperation());
    FailureOr<SmallVector<scf::ForOp>> loops = failure();
    Operation *producer = fusedProducer.lookup(op);
    bool producerFused = false;
    if (producer && innermostReduces)
      loops = tileReductionWithProducer(rewriter, tilingOp, opTiles, producer,
                                        producerFused);
    if (failed(loops))
      loops = tileOp(rewriter, tilingOp, opTiles, innermostReduces);
    if (failed(loops) && innermostReduces)
      loops = tileOp(rewriter, tilingOp, opTiles, /*partialReduction=*/false);
    if (failed(loops))
      return op.emitOpError("could not be tiled into vector chunks");
    peelLoops(rewriter, *loops);
    if (producer && !producerFused) {
      // Not fused after all: the producer gets its own chunk loop.
      FailureOr<SmallVector<scf::ForOp>> producerLoops =
          tileOp(rewriter, cast<TilingInterface>(producer), opTiles,
                 /*partialReduction=*/false);
      if (failed(producerLoops))
        return producer->emitOpError("could not be tiled into vector chunks");
      peelLoops(rewriter, *producerLoops);
    }
  }
  return simplify(func);
}

} // namespace fleet::codegen::detail
