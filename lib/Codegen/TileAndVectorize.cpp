//===- TileAndVectorize.cpp - per-workgroup tiling and vectorization ------===//
//
// Works on one workgroup's tile, still in tensor form (docs/design.md §6), so
// that after vectorization the accumulators are loop-carried vectors and
// bufferization writes results straight into the bindings. Strategies
// (docs/kernels.md):
// - matmul: register tiles (KernelConfig.h getMatmulRegisterTile: 8 x 2
//   vectors with 512-bit registers, 6 x 2 with 256-bit, more columns for
//   fewer rows) with every producer (fill) and consumer epilogue fused, the
//   contraction's reduction tiled by 1 so each step is an outer product
//   (broadcast A, FMA a row of B into the accumulators); dynamic edge tiles
//   are cut again into 1-row, vector-wide pieces of static shape; the
//   reduction in blocks, with B's block first copied to a temporary for a
//   short A (KernelConfig::copyBBlocks); an epilogue over a product in
//   reduction blocks follows the product, in vector chunks;
// - elementwise: chunks of 4 vectors along the innermost loop (and whole
//   inner loops outwards, but never a loop an input index combines with
//   one already in the chunk: a window copy's w = wlo + kw); a transpose
//   in blocks of up to a vector's lanes along both loops it swaps;
// - reduction (TileReductions.cpp): one row at a time, each op of the row
//   in chunks of 4 vectors, reductions accumulated in vectors (partial
//   reduction) and merged once per row; the next row is prefetched when
//   several loops visit a row (PrefetchNextRows.cpp);
// - generic: left to scalar loops.
// Loops whose trip count the tile does not divide are peeled, so the main
// part has static shapes and vectorizes; other remainders with dynamic
// shapes stay scalar loops (correct for any size, including 1x1).
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "fleet/Codegen/KernelConfig.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "codegen-tile-and-vectorize"

namespace fleet::codegen::detail {

LogicalResult vectorizeOp(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (failed(linalg::vectorizeOpPrecondition(op)))
    return failure();
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> result =
      linalg::vectorize(rewriter, op);
  if (failed(result))
    return failure();
  if (result->replacements.empty())
    rewriter.eraseOp(op);
  else
    rewriter.replaceOp(op, result->replacements);
  return success();
}

/// Ops with more iterations than this are not vectorized whole (one vector
/// per iteration space would be huge); they only appear untiled in the
/// generic strategy.
constexpr int64_t kMaxVectorizedIterations = 4096;

int64_t getLanes(Type type, const TargetInfo &target) {
  return getVectorLanes(target.vectorBits, getElementBits(type));
}

void eraseDeadOps(func::FuncOp func, RewriterBase &rewriter) {
  SmallVector<Operation *> dead;
  bool changed = true;
  while (changed) {
    changed = false;
    func.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if (op != func.getOperation() && isOpTriviallyDead(op)) {
        rewriter.eraseOp(op);
        changed = true;
      }
    });
  }
}

SmallVector<scf::ForOp> asForLoops(ArrayRef<LoopLikeOpInterface> loops) {
  SmallVector<scf::ForOp> result;
  for (LoopLikeOpInterface loop : loops)
    if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
      result.push_back(forOp);
  return result;
}

/// Marks the copy of a B block (copyBBlock), which register tiling must not
/// fuse into its tiles: each tile would copy its own part again.
constexpr StringLiteral kBBlockCopyAttr = "fleet.b_block_copy";

FailureOr<SmallVector<scf::ForOp>>
tileAndFuse(RewriterBase &rewriter, TilingInterface op, ArrayRef<int64_t> tiles,
            ArrayRef<int64_t> interchange) {
  if (llvm::all_of(tiles, [](int64_t tile) { return tile == 0; }))
    return SmallVector<scf::ForOp>();
  scf::SCFTilingOptions tilingOptions;
  tilingOptions.setTileSizes(getAsIndexOpFoldResult(op->getContext(), tiles));
  tilingOptions.setInterchange(interchange);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tilingOptions);
  options.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer,
         bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (producer.getOwner()->hasAttr(kBBlockCopyAttr))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  return tileAndFuse(rewriter, op, options);
}

FailureOr<SmallVector<scf::ForOp>>
tileAndFuse(RewriterBase &rewriter, TilingInterface op,
            const scf::SCFTileAndFuseOptions &options,
            llvm::SetVector<Operation *> *fused) {
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTileAndFuseResult> tiled =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, op, options);
  if (failed(tiled))
    return failure();
  // Uses after the loops only: a yielded producer's dead slice left inside
  // them keeps reading the original.
  Operation *outer =
      tiled->loops.empty() ? nullptr : tiled->loops.front().getOperation();
  for (auto [original, replacement] : tiled->replacements)
    rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
      return !outer || !outer->isAncestor(use.getOwner());
    });
  if (fused)
    *fused = tiled->fusedProducers;
  return asForLoops(tiled->loops);
}

scf::SCFTilingOptions getTilingOptions(TilingInterface op,
                                       ArrayRef<int64_t> tiles,
                                       bool partialReduction) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), tiles));
  if (partialReduction) {
    SmallVector<unsigned> reductionDims;
    for (auto [i, iterator] : llvm::enumerate(op.getLoopIteratorTypes()))
      if (iterator == utils::IteratorType::reduction && tiles[i] != 0)
        reductionDims.push_back(i);
    options.setReductionTilingStrategy(
        ReductionTilingStrategy::PartialReductionOuterReduction);
    options.setReductionDims(reductionDims);
  }
  return options;
}

FailureOr<SmallVector<scf::ForOp>> tileOp(RewriterBase &rewriter,
                                          TilingInterface op,
                                          ArrayRef<int64_t> tiles,
                                          bool partialReduction) {
  if (llvm::all_of(tiles, [](int64_t tile) { return tile == 0; }))
    return SmallVector<scf::ForOp>();
  scf::SCFTilingOptions options = getTilingOptions(op, tiles, partialReduction);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, op, options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  return asForLoops(tiled->loops);
}

void peelLoops(RewriterBase &rewriter, ArrayRef<scf::ForOp> loops) {
  for (scf::ForOp loop : llvm::reverse(loops)) {
    scf::ForOp partial;
    rewriter.setInsertionPoint(loop);
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial);
  }
}

LogicalResult simplify(func::FuncOp func,
                       function_ref<void(RewritePatternSet &)> extra) {
  MLIRContext *context = func.getContext();
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  // A tile of tensor.empty is an empty tile: lets empty-tensor elimination
  // compute tiles in place in the result binding.
  tensor::populateFoldTensorEmptyPatterns(patterns);
  if (extra)
    extra(patterns);
  if (failed(applyPatternsGreedily(func, std::move(patterns))))
    return func.emitOpError("kernel simplification did not converge");
  IRRewriter rewriter(context);
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, func);
  return success();
}

namespace {

/// Vectorizes every linalg op whose iteration space is static and small.
void vectorizeStaticOps(func::FuncOp func, RewriterBase &rewriter) {
  SmallVector<linalg::LinalgOp> candidates;
  func.walk([&](linalg::LinalgOp op) { candidates.push_back(op); });
  for (linalg::LinalgOp op : candidates) {
    if (!op.hasPureTensorSemantics())
      continue;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      continue;
    int64_t iterations = 1;
    for (int64_t range : ranges)
      iterations *= range;
    // Zero iterations: nothing to vectorize (a vector dim cannot be 0); the
    // op lowers to loops that do not run.
    if (iterations == 0 || iterations > kMaxVectorizedIterations)
      continue;
    // i1 tensors hold one byte per element, but a vector<Nxi1> transfer
    // reads N packed bits: such ops stay scalar loops (a wrong result
    // otherwise, ONNX's reduce_max on bools).
    auto isI1 = [](Type type) {
      return getElementTypeOrSelf(type).isInteger(1);
    };
    if (llvm::any_of(op->getOperandTypes(), isI1) ||
        llvm::any_of(op->getResultTypes(), isI1)) {
      LLVM_DEBUG(llvm::dbgs()
                 << "not vectorized (i1 tensor): " << op->getName() << "\n");
      continue;
    }
    (void)vectorizeOp(rewriter, op);
  }
}

/// Marks the floating-point arith ops in `op` `contract`, so the multiply
/// and add of a contraction step become one FMA in LLVM (FMA rounds once:
/// at least as accurate as mul + add). Only contraction bodies: elementwise
/// kernels stay bit-exact with separately rounded ops.
void allowContraction(Operation *root) {
  root->walk([](arith::ArithFastMathInterface op) {
    arith::FastMathFlags flags = op.getFastMathFlagsAttr()
                                     ? op.getFastMathFlagsAttr().getValue()
                                     : arith::FastMathFlags::none;
    op->setAttr(op.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(
                    op->getContext(), flags | arith::FastMathFlags::contract));
  });
}

/// After vectorization: fold slices into transfers, turn multiply-reduce
/// into vector.contract, forward stores to loads, and hoist the
/// accumulators out of the reduction loops (loop-carried vectors).
/// One step of a register tile reads A's M0 elements as a vector and
/// spreads each along a row: transpose(broadcast(read : vector<M0>) :
/// vector<N0 x M0>). Lowered as written, LLVM loads the vector in pieces
/// (4 + 2 lanes for M0 = 6) and shuffles lanes out of them, taking shuffle
/// slots beside the FMAs. Rewritten, each row is a one-element read
/// broadcast along the row, which x86 does as one broadcast load
/// (`vbroadcastss` from memory).
struct ReadRowsOfBroadcastTranspose
    : public OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    VectorType type = transpose.getResultVectorType();
    if (type.getRank() != 2 || type.isScalable() ||
        transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
      return failure();
    auto broadcast =
        transpose.getVector().getDefiningOp<vector::BroadcastOp>();
    auto read = broadcast ? broadcast.getSource()
                                .getDefiningOp<vector::TransferReadOp>()
                          : nullptr;
    if (!read || read.getVectorType().getRank() != 1 || read.getMask() ||
        !read.getPermutationMap().isProjectedPermutation() ||
        !read.getInBoundsValues()[0] ||
        read.getVectorType().getDimSize(0) != type.getDimSize(0))
      return failure();
    auto dim = dyn_cast<AffineDimExpr>(read.getPermutationMap().getResult(0));
    if (!dim)
      return failure();
    Location loc = transpose.getLoc();
    auto one = VectorType::get({1}, type.getElementType());
    auto row = VectorType::get({type.getDimSize(1)}, type.getElementType());
    Value result = ub::PoisonOp::create(rewriter, loc, type);
    SmallVector<Value> indices(read.getIndices());
    Value first = indices[dim.getPosition()];
    for (int64_t i = 0; i < type.getDimSize(0); ++i) {
      indices[dim.getPosition()] =
          i == 0 ? first
                 : arith::AddIOp::create(
                       rewriter, loc, first,
                       arith::ConstantIndexOp::create(rewriter, loc, i));
      Value element = vector::TransferReadOp::create(
          rewriter, loc, one, read.getBase(), indices,
          AffineMapAttr::get(read.getPermutationMap()), read.getPadding(),
          /*mask=*/Value(), rewriter.getBoolArrayAttr({true}));
      Value spread = vector::BroadcastOp::create(rewriter, loc, row, element);
      result = vector::InsertOp::create(rewriter, loc, spread, result, i);
    }
    rewriter.replaceOp(transpose, result);
    return success();
  }
};

LogicalResult cleanupVectors(func::FuncOp func) {
  auto patterns = [](RewritePatternSet &set) {
    set.add<ReadRowsOfBroadcastTranspose>(set.getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(set);
    vector::populateVectorReductionToContractPatterns(set);
    vector::populateSinkVectorOpsPatterns(set);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(set);
    vector::populateCastAwayVectorLeadingOneDimPatterns(set);
  };
  if (failed(simplify(func, patterns)))
    return failure();
  IRRewriter rewriter(func.getContext());
  SmallVector<LoopLikeOpInterface> loops;
  func.walk([&](LoopLikeOpInterface loop) { loops.push_back(loop); });
  for (LoopLikeOpInterface loop : loops)
    moveLoopInvariantCode(loop);
  loops.clear();
  func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (LoopLikeOpInterface loop : loops)
    (void)hoistLoopInvariantSubsets(rewriter, loop);
  return simplify(func, patterns);
}

/// Generalizes `op` and drops its unit loops (operands sliced rank-reduced),
/// so vectorization sees only the loops with extent; with `contract` the
/// floating-point ops of its body may fuse (allowContraction).
void dropUnitLoops(RewriterBase &rewriter, linalg::LinalgOp op, bool contract) {
  rewriter.setInsertionPoint(op);
  linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return;
    generic = *generalized;
  }
  if (contract)
    allowContraction(generic);
  // Nothing to drop, or everything (a 0-d op: the vectorizer turns a
  // gather in its body into an invalid vector.gather), or a gather
  // (tensor.extract, whose indices the rewrite would have to remap).
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      llvm::count(ranges, 1) == 0 ||
      llvm::count(ranges, 1) == int64_t(ranges.size()) ||
      !generic.getBody()->getOps<tensor::ExtractOp>().empty())
    return;
  linalg::ControlDropUnitDims control;
  control.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (succeeded(dropped))
    rewriter.replaceOp(generic, dropped->replacements);
}

/// Splits the reduction of `root` (its one reduction loop longer than 1)
/// into blocks of `block` steps: a loop outside the register tiles
/// (KernelConfig::reductionBlock, docs/kernels.md "Register tiles").
/// Returns the op inside the loop.
FailureOr<linalg::LinalgOp> blockReduction(RewriterBase &rewriter,
                                           linalg::LinalgOp root,
                                           int64_t block) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<int64_t> tiles(ranges.size(), 0);
  for (auto [i, kind] : llvm::enumerate(root.getIteratorTypesArray()))
    if (kind == utils::IteratorType::reduction && ranges[i] != 1) {
      if (ShapedType::isDynamic(ranges[i]) || ranges[i] % block != 0 ||
          llvm::any_of(tiles, [](int64_t tile) { return tile != 0; }))
        return failure();
      tiles[i] = block;
    }
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(root->getContext(), tiles));
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(root, tiled->replacements);
  LLVM_DEBUG(llvm::dbgs() << "reduction in blocks of " << block << "\n");
  return cast<linalg::LinalgOp>(tiled->tiledOps.front());
}

/// Copies the B block that the blocked contraction `root` reads where it
/// lies (rows of B's full width apart) into a temporary whose rows are
/// `root`'s columns plus one cache line when that would be a multiple of
/// two lines (docs/kernels.md "B blocks"): the copy reads B's rows
/// front to back, and the register tiles then walk rows a line-odd stride
/// apart in L2 instead of pages apart in memory. Returns the copy, or null
/// when B is not a (K x N) operand of static shape.
linalg::CopyOp copyBBlock(RewriterBase &rewriter, linalg::LinalgOp root,
                          const TargetInfo &target) {
  if (!readsRowsOfB(root))
    return {};
  OpOperand *b = root.getDpsInputOperand(1);
  auto type = dyn_cast<RankedTensorType>(b->get().getType());
  if (!type || type.getRank() != 2 || type.isDynamicDim(0))
    return {};
  // The last workgroup of a loop its tile does not divide has fewer
  // columns: the temporary takes the most any workgroup has.
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  if (ShapedType::isDynamic(columns)) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB,
        ValueBoundsConstraintSet::Variable(b->get(), 1),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(bound) || *bound <= 0)
      return {};
    columns = *bound;
  }
  int64_t lineElements = std::max<int64_t>(
      1, 64 * 8 / getElementBits(type.getElementType()));
  int64_t lines = llvm::divideCeil(columns, lineElements);
  int64_t stride = (lines % 2 == 0 ? lines + 1 : lines) * lineElements;
  Location loc = root.getLoc();
  rewriter.setInsertionPoint(root);
  // An alloc_tensor, not a tensor.empty: a slice of the latter folds into
  // a smaller empty tensor, which would drop the padding.
  Value buffer = bufferization::AllocTensorOp::create(
      rewriter, loc,
      RankedTensorType::get({rows, stride}, type.getElementType()),
      ValueRange{});
  SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, b->get());
  SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
  Value block = tensor::ExtractSliceOp::create(rewriter, loc, type, buffer,
                                               offsets, sizes, strides);
  auto copy = linalg::CopyOp::create(rewriter, loc, b->get(), block);
  copy->setAttr(kBBlockCopyAttr, rewriter.getUnitAttr());
  rewriter.modifyOpInPlace(root, [&] { b->set(copy.getResult(0)); });
  LLVM_DEBUG(llvm::dbgs() << "B block " << rows << " x " << columns
                          << " copied, rows " << stride << " apart\n");
  return copy;
}

LogicalResult tileMatmul(func::FuncOp func, linalg::LinalgOp root,
                         const TargetInfo &target, int64_t reductionBlock,
                         bool prefetchBBlocks, bool copyBBlocks,
                         RewriterBase &rewriter) {
  // Blocks of the reduction first; within a block, packed B panels (mmt4d
  // loops m1, n1, ...) are walked in the outer loop so that each B panel's
  // block stays in L1 while A's pass over it.
  // A root the blocks do not fit (not expected from KernelConfig) keeps
  // its whole reduction: blocks only change speed.
  SmallVector<int64_t> interchange;
  linalg::CopyOp bBlockCopy;
  std::optional<BBlockOrigin> bBlockOrigin;
  if (reductionBlock > 0) {
    FailureOr<linalg::LinalgOp> blocked =
        blockReduction(rewriter, root, reductionBlock);
    if (succeeded(blocked)) {
      root = *blocked;
      if (isa<linalg::Mmt4DOp>(root.getOperation()))
        interchange = {1, 0, 2, 3, 4, 5};
      else if (copyBBlocks)
        bBlockCopy = copyBBlock(rewriter, root, target);
      if (prefetchBBlocks && bBlockCopy)
        bBlockOrigin = findBBlockOrigin(bBlockCopy);
      else if (prefetchBBlocks && !isa<linalg::Mmt4DOp>(root.getOperation()))
        bBlockOrigin = findBOrigin(root);
    } else {
      LLVM_DEBUG(llvm::dbgs() << "reduction not blocked by "
                              << reductionBlock << "\n");
    }
  }
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  SmallVector<int64_t> tiles(iterators.size(), 0);
  SmallVector<unsigned> parallel;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel) {
      tiles[i] = 1;
      parallel.push_back(i);
    }
  // The register tile for this workgroup's rows (KernelConfig.h; dynamic
  // edge tiles take the full-size rule).
  int64_t m = 0;
  if (parallel.size() >= 2) {
    int64_t range = root.getStaticLoopRanges()[parallel[parallel.size() - 2]];
    if (!ShapedType::isDynamic(range))
      m = range;
  }
  // An epilogue root's tile holds its product's accumulators.
  linalg::LinalgOp product = getEpilogueProduct(root);
  Type accumulator = (product ? product : root)->getResult(0).getType();
  RegisterTile registers = getMatmulRegisterTile(m, target.vectorBits,
                                                 getElementBits(accumulator));
  int64_t rows = registers.rows, columns = registers.columns;
  if (!parallel.empty())
    tiles[parallel.back()] = columns;
  if (parallel.size() >= 2)
    tiles[parallel[parallel.size() - 2]] = rows;
  FailureOr<SmallVector<scf::ForOp>> loops = tileAndFuse(
      rewriter, cast<TilingInterface>(root.getOperation()), tiles, interchange);
  if (failed(loops))
    return root.emitOpError("could not be tiled into register tiles");
  // Each register tile of a B-block kernel first prefetches the lines of
  // the next block under its columns (while the origin's index arithmetic,
  // built before the copy, is still unused and alive).
  if (bBlockOrigin && !loops->empty())
    loops->back().walk([&](linalg::LinalgOp tile) {
      if (linalg::isaContractionOpInterface(tile))
        prefetchNextBBlock(tile, *bBlockOrigin, reductionBlock);
    });
  eraseDeadOps(func, rewriter);
  peelLoops(rewriter, *loops);
  // The B block's copy in rows of 4 vectors (peeled), so it vectorizes.
  if (bBlockCopy) {
    int64_t lanes = getLanes(bBlockCopy.getType(0), target);
    FailureOr<SmallVector<scf::ForOp>> copyLoops =
        tileOp(rewriter, cast<TilingInterface>(bBlockCopy.getOperation()),
               {1, 4 * lanes}, /*partialReduction=*/false);
    if (failed(copyLoops))
      return bBlockCopy.emitOpError("could not be tiled into rows");
    peelLoops(rewriter, *copyLoops);
  }
  if (failed(simplify(func)))
    return failure();
  // Edge tiles: a contraction left with a dynamic parallel extent (the
  // remainder peeled off a loop its tile does not divide, such as the last
  // 4 of 196 rows) would stay scalar code. Its dynamic rows are tiled by 1
  // and its dynamic columns by a vector (peeled, the rest by 1), so the
  // pieces have static shapes and vectorize: rows of the register tile, a
  // vector wide.
  auto dynamicContractions = [&] {
    SmallVector<linalg::LinalgOp> edges;
    func.walk([&](linalg::LinalgOp op) {
      if (!linalg::isaContractionOpInterface(op) ||
          !op.hasPureTensorSemantics())
        return;
      for (auto [range, kind] :
           llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
        if (kind == utils::IteratorType::parallel &&
            ShapedType::isDynamic(range)) {
          edges.push_back(op);
          return;
        }
    });
    return edges;
  };
  for (bool vectorColumns : {true, false}) {
    SmallVector<linalg::LinalgOp> edges = dynamicContractions();
    for (linalg::LinalgOp op : edges) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
      int64_t columnLoop = -1;
      for (auto [i, kind] : llvm::enumerate(kinds))
        if (kind == utils::IteratorType::parallel)
          columnLoop = i;
      SmallVector<int64_t> edgeTiles(ranges.size(), 0);
      for (auto [i, range] : llvm::enumerate(ranges))
        if (kinds[i] == utils::IteratorType::parallel &&
            ShapedType::isDynamic(range))
          edgeTiles[i] = int64_t(i) == columnLoop && vectorColumns
                             ? getLanes(op->getResult(0).getType(), target)
                             : 1;
      FailureOr<SmallVector<scf::ForOp>> edgeLoops =
          tileOp(rewriter, cast<TilingInterface>(op.getOperation()), edgeTiles,
                 /*partialReduction=*/false);
      if (failed(edgeLoops))
        return op.emitOpError("could not tile an edge tile");
      if (vectorColumns)
        peelLoops(rewriter, *edgeLoops);
      LLVM_DEBUG(llvm::dbgs() << "edge tile at " << op.getLoc() << "\n");
    }
    if (!edges.empty() && failed(simplify(func)))
      return failure();
  }
  // One reduction step per iteration: an outer product per step.
  SmallVector<linalg::LinalgOp> contractions;
  func.walk([&](linalg::LinalgOp op) {
    if (linalg::isaContractionOpInterface(op) && op.getNumReductionLoops() > 0)
      contractions.push_back(op);
  });
  for (linalg::LinalgOp op : contractions) {
    SmallVector<int64_t> steps;
    for (utils::IteratorType iterator : op.getIteratorTypesArray())
      steps.push_back(iterator == utils::IteratorType::reduction ? 1 : 0);
    if (failed(tileOp(rewriter, cast<TilingInterface>(op.getOperation()), steps,
                      /*partialReduction=*/false)))
      return op.emitOpError("could not tile the reduction loop");
  }
  // Each step is now an outer product with unit reduction dims (and, for
  // packed layouts such as mmt4d, unit outer dims): drop them so the
  // operands vectorize as rows, not as vectors with trailing unit dims
  // that transfers would unroll element by element. The step's multiply
  // and add may fuse into FMAs.
  SmallVector<linalg::LinalgOp> steps;
  func.walk([&](linalg::LinalgOp op) {
    if (linalg::isaContractionOpInterface(op) && op.hasPureTensorSemantics())
      steps.push_back(op);
  });
  for (linalg::LinalgOp op : steps)
    dropUnitLoops(rewriter, op, /*contract=*/true);
  return success();
}

LogicalResult tileElementwise(func::FuncOp func, linalg::LinalgOp root,
                              const TargetInfo &target,
                              RewriterBase &rewriter) {
  // A chunk of 4 vectors' worth of iterations, taken from the innermost
  // loops with extent outwards: a loop shorter than what is left is taken
  // whole (tile 0) and the rest comes from the next loop out, so a
  // transpose to [.., K, 8, 1] moves 8 x 8 blocks, not single elements.
  // A loop whose index an input combines with a loop already in the chunk
  // (a window copy's w = wlo + kw) ends the chunk: the chunk's read would
  // not be a projected permutation, and the vectorizer would copy element
  // by element.
  int64_t budget = 4 * getLanes(root->getResult(0).getType(), target);
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  SmallVector<int64_t> tiles(root.getNumLoops(), 1);
  SmallVector<unsigned> chunkLoops;
  auto combinesWithChunk = [&](unsigned loop) {
    for (OpOperand *input : root.getDpsInputOperands())
      for (AffineExpr result :
           root.getMatchingIndexingMap(input).getResults())
        if (result.isFunctionOfDim(loop) &&
            llvm::any_of(chunkLoops, [&](unsigned other) {
              return result.isFunctionOfDim(other);
            }))
          return true;
    return false;
  };
  for (int64_t i = int64_t(tiles.size()) - 1; i >= 0; --i) {
    if (iterators[i] == utils::IteratorType::parallel && ranges[i] != 1 &&
        budget > 1 && combinesWithChunk(i))
      budget = 1;
    if (iterators[i] != utils::IteratorType::parallel || ranges[i] == 1) {
      tiles[i] = 0;
    } else if (budget <= 1) {
      tiles[i] = 1;
    } else if (!ShapedType::isDynamic(ranges[i]) && ranges[i] <= budget) {
      tiles[i] = 0;
      budget /= ranges[i];
      chunkLoops.push_back(i);
    } else {
      tiles[i] = budget;
      budget = 1;
      chunkLoops.push_back(i);
    }
  }
  // A transpose: an input whose innermost dimension (unit dimensions
  // aside) is another loop `p` than the iteration's innermost loop.
  // Chunks along the innermost loop alone would read that input one element
  // per row; blocks of up to a vector's lanes along both loops read whole
  // vectors of it and transpose them in registers (docs/kernels.md
  // "Transposes").
  int64_t lanes = getLanes(root->getResult(0).getType(), target);
  auto isUnit = [&](int64_t loop) { return ranges[loop] == 1; };
  int64_t innermost = int64_t(tiles.size()) - 1;
  while (innermost >= 0 && isUnit(innermost))
    --innermost;
  for (OpOperand *input : root.getDpsInputOperands()) {
    if (innermost < 0)
      break;
    std::optional<int64_t> p;
    for (AffineExpr result :
         llvm::reverse(root.getMatchingIndexingMap(input).getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(result);
      if (!dim)
        break;
      if (!isUnit(dim.getPosition())) {
        p = dim.getPosition();
        break;
      }
    }
    if (!p || *p == innermost)
      continue;
    auto blockable = [&](int64_t loop) {
      return iterators[loop] == utils::IteratorType::parallel &&
             !ShapedType::isDynamic(ranges[loop]) && ranges[loop] >= 4;
    };
    if (!blockable(*p) || !blockable(innermost))
      continue;
    for (auto [i, tile] : llvm::enumerate(tiles))
      tile =
          iterators[i] == utils::IteratorType::parallel && !isUnit(i) ? 1 : 0;
    for (int64_t loop : {*p, innermost})
      tiles[loop] = ranges[loop] <= lanes ? 0 : lanes;
    LLVM_DEBUG(llvm::dbgs() << "transpose: blocks of loops " << *p << " and "
                            << innermost << " (" << lanes << " lanes)\n");
    break;
  }
  FailureOr<SmallVector<scf::ForOp>> loops =
      tileAndFuse(rewriter, cast<TilingInterface>(root.getOperation()), tiles);
  if (failed(loops))
    return root.emitOpError("could not be tiled into vector chunks");
  eraseDeadOps(func, rewriter);
  peelLoops(rewriter, *loops);
  if (failed(simplify(func)))
    return failure();
  SmallVector<linalg::LinalgOp> chunks;
  func.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && !isa<linalg::FillOp>(op.getOperation()))
      chunks.push_back(op);
  });
  for (linalg::LinalgOp op : chunks)
    dropUnitLoops(rewriter, op, /*contract=*/false);
  return simplify(func);
}

} // namespace

LogicalResult tileAndVectorize(func::FuncOp func, const TargetInfo &target,
                               llvm::raw_ostream *dumpStream) {
  IRRewriter rewriter(func.getContext());
  linalg::LinalgOp root = findRootOp(func);
  std::optional<KernelConfig> config =
      KernelConfig::fromAttr(func->getAttr(kConfigAttrName));
  KernelKind kind = config ? config->kind
                    : root ? classifyKernel(func, root)
                           : KernelKind::Generic;
  // Nothing to tile without a single root or without loops (0-d ops), or
  // when some loop has no iterations (a zero-size dimension: the op yields
  // its init, and tile sizes of an empty range are meaningless).
  bool emptyIterationSpace = false;
  func.walk([&](linalg::LinalgOp op) {
    if (llvm::is_contained(op.getStaticLoopRanges(), 0))
      emptyIterationSpace = true;
  });
  if (!root || root.getNumLoops() == 0 || emptyIterationSpace) {
    LLVM_DEBUG(if (emptyIterationSpace) llvm::dbgs()
               << "zero-size iteration space in @" << func.getSymName()
               << ": generic (no tiling)\n");
    kind = KernelKind::Generic;
  }
  LogicalResult tiled = success();
  switch (kind) {
  case KernelKind::Matmul: {
    int64_t block = config ? config->reductionBlock : 0;
    bool copyB = config && config->copyBBlocks;
    bool prefetchB = config && config->prefetchBBlocks;
    linalg::LinalgOp product = getEpilogueProduct(root);
    if (block > 0 && product) {
      // An epilogue over a product walked in reduction blocks: every block
      // precedes the epilogue, so the product is tiled as a root of its own
      // and the epilogue then reads its finished tile in vector chunks
      // (docs/kernels.md "Epilogues").
      tiled = tileMatmul(func, product, target, block, prefetchB, copyB,
                         rewriter);
      if (succeeded(tiled)) {
        root = findRootOp(func);
        tiled = root ? tileElementwise(func, root, target, rewriter)
                     : func.emitOpError("lost its epilogue root");
      }
      break;
    }
    tiled = tileMatmul(func, root, target, block, prefetchB, copyB, rewriter);
    break;
  }
  case KernelKind::Elementwise:
    tiled = tileElementwise(func, root, target, rewriter);
    break;
  case KernelKind::Reduction:
    tiled = tileReduction(func, root, target, rewriter);
    break;
  case KernelKind::Generic:
    if (root)
      tiled = tilePooling(func, root, target, rewriter);
    break;
  }
  if (failed(tiled))
    return failure();
  if (dumpStream)
    *dumpStream << "// -----// after tiling (" << stringifyKernelKind(kind)
                << ")\n"
                << func << "\n";
  vectorizeStaticOps(func, rewriter);
  if (failed(cleanupVectors(func)))
    return failure();
  if (kind == KernelKind::Reduction) {
    prefetchNextRows(func);
    pipelineRowPasses(func);
  }
  return success();
}

} // namespace fleet::codegen::detail
