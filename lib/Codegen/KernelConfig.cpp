//===- KernelConfig.cpp - strategy and workgroup tile selection -----------===//
//
// The rules (docs/kernels.md "Workgroup tiles"), from the target's vector
// width and per-core L2 size (CPUTarget.h):
// - matmul: the two innermost parallel loops of the root are (M, N). The
//   register tile is R x C (R = 8 rows with 32 vector registers, else 4; C =
//   two vectors of f32, TileAndVectorize.cpp); a workgroup tile is up to
//   8 R x 4 C (64 x 128 with AVX-512, 32 x 64 with AVX2), halved (N first)
//   until its A panel (M x K) and B panel (K x N) fit L2 together, so both
//   stay cached while the workgroup walks them; outer parallel loops
//   (batch) get 1; reductions are never split.
// - elementwise/reduction/generic: a workgroup covers about L2 / 16
//   iterations (a quarter of L2 per f32 operand), filled from the innermost
//   loop out, so each workgroup streams contiguous memory. For reductions
//   the innermost loop stays whole (rows are never split across
//   workgroups).
//
//===----------------------------------------------------------------------===//

#include "fleet/Codegen/KernelConfig.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "codegen-kernel-config"

using namespace mlir;

namespace fleet::codegen {

namespace {

/// Iterations of the root one workgroup covers in the streaming strategies:
/// a quarter of L2 per f32 operand (64K elements with a 1 MiB L2, at least
/// 256 workgroups for 16M elements so workers balance).
int64_t getElementsPerWorkgroup(const CPUTarget &target) {
  return std::max<int64_t>(1024, target.l2Bytes / 16);
}

/// Register tiles per workgroup tile, along M and N.
constexpr int64_t kRegisterTilesM = 8, kRegisterTilesN = 4;

/// Bytes of a block of B in a B-block kernel (docs/kernels.md "B blocks").
/// 8 x 4096 x 4096 on Zen 4 (1 MiB of L2), blocks copied, medians of 20
/// calls: blocks of 512 KiB 6.5-6.8 ms, 256 KiB 4.9-5.0, 128 KiB 4.6-4.7,
/// 64 KiB 4.8; at 32 rows 12.1, 12.2 and 13.0-13.2 ms for the last three.
constexpr int64_t kBBlockBytes = 128 * 1024;

/// A tile for a loop of `size` iterations: the whole loop when it fits,
/// else the largest multiple of `granule` in [max/2, max] dividing `size`
/// (no partial tiles), else `max`.
int64_t pickTile(int64_t size, int64_t max, int64_t granule) {
  if (size <= max)
    return size;
  for (int64_t tile = max; tile >= max / 2 && tile >= granule;
       tile -= granule)
    if (size % tile == 0)
      return tile;
  return max;
}

/// Steps per block of a matmul's reduction of `steps` (docs/kernels.md
/// "Register tiles"): 256, else another divisor of it in [128, 512], so
/// blocks have static shapes; 0 (no blocks) up to 512 steps or without
/// such a divisor.
int64_t pickReductionBlock(int64_t steps) {
  if (steps <= 512)
    return 0;
  for (int64_t block : {256, 384, 512, 192, 128})
    if (steps % block == 0)
      return block;
  return 0;
}

/// Bytes of one row of a matmul panel: the product of the root's reduction
/// loop ranges (K) times the element size of its first operand.
int64_t getPanelRowBytes(linalg::LinalgOp root, ArrayRef<int64_t> ranges) {
  int64_t depth = 1;
  for (auto [i, iterator] : llvm::enumerate(root.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction)
      depth *= std::max<int64_t>(1, ranges[i]);
  int64_t elementBytes = 4;
  if (auto type = dyn_cast<ShapedType>(root->getOperand(0).getType()))
    elementBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  return depth * elementBytes;
}

bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

} // namespace

bool readsRowsOfB(linalg::LinalgOp root) {
  if (!linalg::isaContractionOpInterface(root) || root.getNumDpsInputs() != 2)
    return false;
  OpOperand *b = root.getDpsInputOperand(1);
  AffineMap map = root.getMatchingIndexingMap(b);
  if (map.getNumResults() != 2)
    return false;
  auto rowDim = dyn_cast<AffineDimExpr>(map.getResult(0));
  auto columnDim = dyn_cast<AffineDimExpr>(map.getResult(1));
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  return rowDim && columnDim &&
         iterators[rowDim.getPosition()] == utils::IteratorType::reduction &&
         iterators[columnDim.getPosition()] == utils::IteratorType::parallel;
}

int64_t getElementBits(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
}

int64_t getVectorLanes(int64_t vectorBits, int64_t elementBits) {
  return std::max<int64_t>(4, vectorBits / std::max<int64_t>(8, elementBits));
}

RegisterTile getMatmulRegisterTile(int64_t m, int64_t vectorBits,
                                   int64_t elementBits) {
  int64_t lanes = getVectorLanes(vectorBits, elementBits);
  // AVX-512: 16 of 32 registers accumulate (8 x 2 zmm); 16 registers:
  // 12 accumulate (6 x 2 ymm, the Haswell kernel shape of BLIS and
  // OpenBLAS), 2 hold B's row and 1 the broadcast of A.
  int64_t accumulators = vectorBits >= 512 ? 16 : 12;
  int64_t maxRows = vectorBits >= 512 ? 8 : 6;
  int64_t rows = m <= 0 ? maxRows : std::min(m, maxRows);
  // More rows than one tile: the row count in [4, maxRows] whose tiles take
  // the fewest cycles per reduction step. A tile of r rows has 2r
  // independent accumulators; with an FMA latency of 4 cycles and 2 FMAs
  // per cycle (Haswell to Zen 4) a step takes max(r, 4) cycles, so a
  // remainder of 1-3 rows costs as much as 4 (M = 8 with AVX2: 4 + 4
  // rows, not 6 + 2). Only a saving of 10% or more changes the tile (not
  // M = 200's 202 -> 200 cycles), and ties keep the larger tile.
  if (m > maxRows) {
    auto cycles = [&](int64_t r) {
      return m / r * r + (m % r ? std::max<int64_t>(m % r, 4) : 0);
    };
    int64_t best = maxRows;
    for (int64_t r = maxRows - 1; r >= 4; --r)
      if (cycles(r) < cycles(best))
        best = r;
    if (10 * cycles(best) <= 9 * cycles(maxRows))
      rows = best;
  }
  int64_t vectors = std::max<int64_t>(2, int64_t(llvm::bit_floor(uint64_t(accumulators / rows))));
  return {rows, vectors * lanes};
}

StringRef stringifyKernelKind(KernelKind kind) {
  switch (kind) {
  case KernelKind::Matmul:
    return "matmul";
  case KernelKind::Elementwise:
    return "elementwise";
  case KernelKind::Reduction:
    return "reduction";
  case KernelKind::Generic:
    return "generic";
  }
  return "generic";
}

std::optional<KernelKind> symbolizeKernelKind(StringRef name) {
  return llvm::StringSwitch<std::optional<KernelKind>>(name)
      .Case("matmul", KernelKind::Matmul)
      .Case("elementwise", KernelKind::Elementwise)
      .Case("reduction", KernelKind::Reduction)
      .Case("generic", KernelKind::Generic)
      .Default(std::nullopt);
}

DictionaryAttr KernelConfig::toAttr(MLIRContext *context) const {
  Builder b(context);
  SmallVector<NamedAttribute> entries;
  entries.push_back(b.getNamedAttr("kind", b.getStringAttr(stringifyKernelKind(kind))));
  entries.push_back(
      b.getNamedAttr("workgroup_tiles", b.getDenseI64ArrayAttr(workgroupTiles)));
  if (reductionBlock)
    entries.push_back(b.getNamedAttr("reduction_block",
                                     b.getI64IntegerAttr(reductionBlock)));
  if (copyBBlocks)
    entries.push_back(b.getNamedAttr("copy_b_blocks", b.getUnitAttr()));
  if (prefetchBBlocks)
    entries.push_back(b.getNamedAttr("prefetch_b_blocks", b.getUnitAttr()));
  return b.getDictionaryAttr(entries);
}

std::optional<KernelConfig> KernelConfig::fromAttr(Attribute attr) {
  auto dict = dyn_cast_or_null<DictionaryAttr>(attr);
  if (!dict)
    return std::nullopt;
  auto kindName = dict.getAs<StringAttr>("kind");
  if (!kindName)
    return std::nullopt;
  std::optional<KernelKind> kind = symbolizeKernelKind(kindName.getValue());
  if (!kind)
    return std::nullopt;
  KernelConfig config;
  config.kind = *kind;
  if (Attribute tiles = dict.get("workgroup_tiles")) {
    auto array = dyn_cast<DenseI64ArrayAttr>(tiles);
    if (!array)
      return std::nullopt;
    config.workgroupTiles.assign(array.asArrayRef().begin(),
                                 array.asArrayRef().end());
  }
  if (Attribute block = dict.get("reduction_block")) {
    auto value = dyn_cast<IntegerAttr>(block);
    if (!value || value.getInt() < 0)
      return std::nullopt;
    config.reductionBlock = value.getInt();
  }
  config.copyBBlocks = dict.contains("copy_b_blocks");
  config.prefetchBBlocks = dict.contains("prefetch_b_blocks");
  return config;
}

linalg::LinalgOp getEpilogueProduct(linalg::LinalgOp root) {
  if (isContraction(root) || root.getNumReductionLoops() != 0)
    return {};
  for (OpOperand *input : root.getDpsInputOperands()) {
    auto product = input->get().getDefiningOp<linalg::LinalgOp>();
    if (product && isContraction(product) && product->getNumResults() == 1 &&
        root.getMatchingIndexingMap(input).isIdentity())
      return product;
  }
  return {};
}

linalg::LinalgOp findRootOp(func::FuncOp func) {
  SmallVector<bufferization::MaterializeInDestinationOp> stores;
  func.walk([&](bufferization::MaterializeInDestinationOp store) {
    stores.push_back(store);
  });
  if (stores.size() != 1 || !isa<MemRefType>(stores[0].getDest().getType()))
    return {};
  auto root = stores[0].getSource().getDefiningOp<linalg::LinalgOp>();
  if (!root || root->getNumResults() != 1 || !root->getResult(0).hasOneUse() ||
      root->getParentOp() != func.getOperation())
    return {};
  return root;
}

KernelKind classifyKernel(func::FuncOp func, linalg::LinalgOp root) {
  bool contraction = false, reduction = false, convolution = false;
  func.walk([&](linalg::LinalgOp op) {
    if (isContraction(op))
      contraction = true;
    else if (linalg::isaConvolutionOpInterface(op))
      convolution = true;
    else if (op.getNumReductionLoops() > 0)
      reduction = true;
  });
  if (convolution)
    return KernelKind::Generic;
  if (contraction)
    return KernelKind::Matmul;
  if (reduction)
    return KernelKind::Reduction;
  return KernelKind::Elementwise;
}

KernelConfig selectKernelConfig(func::FuncOp func, linalg::LinalgOp root,
                                const CPUTarget &target) {
  // An epilogue's loops are its product's parallel loops (the identity map
  // reads the product's result): configure the product, then carry each
  // tile to the root loop indexing the same result dimension.
  if (linalg::LinalgOp product = getEpilogueProduct(root)) {
    KernelConfig config = selectKernelConfig(func, product, target);
    AffineMap resultMap =
        product.getMatchingIndexingMap(product.getDpsInitOperand(0));
    if (resultMap.getNumResults() != root.getNumLoops())
      config.workgroupTiles.clear();
    if (config.workgroupTiles.empty())
      return config;
    SmallVector<int64_t> tiles;
    for (AffineExpr result : resultMap.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(result);
      if (!dim) {
        config.workgroupTiles.clear();
        return config;
      }
      tiles.push_back(config.workgroupTiles[dim.getPosition()]);
    }
    config.workgroupTiles = std::move(tiles);
    LLVM_DEBUG(llvm::dbgs() << "epilogue configured as its product at "
                            << product.getLoc() << "\n");
    return config;
  }
  KernelConfig config;
  config.kind = classifyKernel(func, root);
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return config;
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  SmallVector<unsigned> parallelLoops;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      parallelLoops.push_back(i);
  SmallVector<int64_t> tiles(ranges.size(), 0);

  if (config.kind == KernelKind::Matmul &&
      isa<linalg::Mmt4DOp, linalg::BatchMmt4DOp>(root.getOperation())) {
    // Packed operands (flow-data-tiling): loops (b,) m1, n1, k1, m0, n0, k0.
    // A workgroup takes up to 8 x 4 inner tiles, fewer where its A panels
    // (tm M0 x K) or its B panels (K x tn N0) would exceed half of L2 each:
    // the walk over n1 re-reads A and the walk over m1 re-reads B from L2.
    unsigned m1 = parallelLoops[parallelLoops.size() - 4];
    unsigned n1 = parallelLoops[parallelLoops.size() - 3];
    unsigned m0 = parallelLoops[parallelLoops.size() - 2];
    unsigned n0 = parallelLoops[parallelLoops.size() - 1];
    for (unsigned loop : parallelLoops)
      tiles[loop] = 1;
    tiles[m0] = tiles[n0] = 0;
    int64_t panelRowBytes = getPanelRowBytes(root, ranges);
    int64_t tm = kRegisterTilesM, tn = kRegisterTilesN;
    unsigned k1 = 0;
    for (auto [i, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::reduction && ranges[i] > 1)
        k1 = i;
    int64_t block = tm * ranges[m0] * panelRowBytes > target.l2Bytes / 2
                        ? pickReductionBlock(ranges[k1])
                        : 0;
    if (block) {
      // Fewer than 8 whole A panels fit half of L2 (K = 2048, M0 = 6, 512
      // KiB of L2: 5). Goto's order instead: the reduction in blocks of
      // `block` steps, as many A panels' blocks as fill half of L2, and
      // each B panel's block (block x N0, 16 KiB) in L1 while they pass
      // over it (the n1 loop outside m1, TileAndVectorize.cpp). 2048^3 on
      // Zen 3: mmt4d 310 -> 226-249 ms.
      config.reductionBlock = block;
      int64_t blockRowBytes = panelRowBytes / ranges[k1] * block;
      tm = std::max<int64_t>(1, target.l2Bytes / 2 /
                                    (ranges[m0] * blockRowBytes));
      tn = 2;
    } else {
      while (tm > 1 && tm * ranges[m0] * panelRowBytes > target.l2Bytes / 2)
        tm /= 2;
      while (tn > 1 && tn * ranges[n0] * panelRowBytes > target.l2Bytes / 2)
        tn /= 2;
    }
    // A short A (see the unpacked rule below): all of its rows in each
    // workgroup, so B streams from memory once.
    int64_t rows = ranges[m1] * ranges[m0], columns = ranges[n1] * ranges[n0];
    if (4 * rows <= columns)
      tm = std::max(tm, ranges[m1]);
    tiles[m1] = pickTile(ranges[m1], tm, 1);
    tiles[n1] = pickTile(ranges[n1], tn, 1);
  } else if (config.kind == KernelKind::Matmul && parallelLoops.size() >= 2) {
    unsigned n = parallelLoops.back();
    unsigned m = parallelLoops[parallelLoops.size() - 2];
    for (unsigned loop : parallelLoops)
      tiles[loop] = 1;
    // Register tile R x C (TileAndVectorize.cpp), workgroup tile a multiple.
    RegisterTile registers = getMatmulRegisterTile(
        ranges[m], target.vectorBits,
        getElementBits(root->getResult(0).getType()));
    int64_t granuleM = registers.rows;
    int64_t granuleN = registers.columns;
    int64_t maxM = kRegisterTilesM * granuleM;
    int64_t maxN = kRegisterTilesN * granuleN;
    int64_t panelRowBytes = getPanelRowBytes(root, ranges);
    // The A panel (M x K) and B panel (K x N) fit L2 together. When A is
    // much shorter than B is wide (a few tokens times a weight), its rows
    // are not split: each workgroup row would stream all of B from memory
    // again (M = 32, K = N = 4096 with 512 KiB of L2: three times; M = 49,
    // N = 512: 48 rows, then one row alone). Workgroups then split N only,
    // which still gives at least 4 per register tile row.
    auto panels = [&] { return (maxM + maxN) * panelRowBytes; };
    bool skinny = 4 * ranges[m] <= ranges[n];
    while (panels() > target.l2Bytes && maxN > granuleN)
      maxN /= 2;
    while (!skinny && panels() > target.l2Bytes && maxM > granuleM)
      maxM /= 2;
    if (skinny)
      maxM = std::max(maxM, ranges[m]);
    // B where it lies, rows N x 4 bytes apart: a register tile walking all
    // of K touches K / (4096 / (N x 4)) pages (K = 4608, N = 512: 2,304,
    // more than Zen 3's 2,048-entry L2 TLB), and the next register tile
    // walks them again, so K is walked in blocks when at least 4 register
    // tiles share B's panel (with 1 or 2, as at M = 8, blocks only added
    // restarts: 20 -> 34 ms at 8 x 4096 x 4096 on Zen 3).
    std::optional<unsigned> k;
    if (linalg::isaContractionOpInterface(root) &&
        root.getNumReductionLoops() == 1)
      for (auto [i, iterator] : llvm::enumerate(iterators))
        if (iterator == utils::IteratorType::reduction)
          k = i;
    if (k && ranges[m] >= 4 * granuleM)
      config.reductionBlock = pickReductionBlock(ranges[*k]);
    // B blocks (docs/kernels.md "B blocks"): a short A against rows of B
    // read where they lie, one register tile's columns (1-16 lines) of
    // each. B's rows are walked in blocks, and each register tile first
    // prefetches the lines under its columns in the next block
    // (PrefetchNextRows.cpp), so memory streams while the tiles compute.
    // On 16-register targets with more than 3 register tile rows, each
    // block is first copied into a temporary, reading B's rows front to
    // back, and the tiles (1 line wide, each reading the block again) walk
    // the copy in L2; otherwise the tiles read B in place, which measured
    // faster there (8 x 4096 x 4096 with AVX-512: 3.3-3.5 ms against
    // 4.8-4.9 with the copy; with AVX2 4.6 against 4.9, but 32 rows 14.2
    // against 13.1). Rows of the block as long as possible with 2
    // workgroups at least (the hardware prefetchers follow a row within
    // its pages, and restart at each row). Blocks are used when B's panel
    // does not fit half of L2, and then hold kBBlockBytes (or a quarter of
    // L2, if less): the block and the next one stay in L2 together.
    if (k && skinny && readsRowsOfB(root)) {
      int64_t bytes = std::max<int64_t>(
          1, getElementBits(root->getResult(0).getType()) / 8);
      int64_t width = granuleN;
      while (4 * width <= ranges[n])
        width *= 2;
      int64_t steps = ranges[*k];
      auto rowsIn = [&](int64_t budget) {
        int64_t rows = int64_t(llvm::bit_floor(
            uint64_t(std::max<int64_t>(1, budget / (width * bytes)))));
        while (rows >= 8 && steps % rows != 0)
          rows /= 2;
        return rows;
      };
      int64_t half = rowsIn(target.l2Bytes / 2);
      int64_t rows = rowsIn(std::min(target.l2Bytes / 4, kBBlockBytes));
      if (half >= 8 && half < steps && rows >= 8) {
        config.reductionBlock = rows;
        config.prefetchBBlocks = true;
        config.copyBBlocks = target.vectorBits < 512 &&
                             llvm::divideCeil(ranges[m], registers.rows) > 3;
        maxN = width;
      }
    }
    tiles[m] = pickTile(ranges[m], maxM, std::min(granuleM, maxM));
    tiles[n] = pickTile(ranges[n], maxN, std::min(granuleN, maxN));
  } else {
    // Streaming: fill a workgroup from the innermost loop outwards.
    int64_t budget = getElementsPerWorkgroup(target);
    SmallVector<unsigned> candidates(parallelLoops);
    for (auto [i, iterator] : llvm::enumerate(iterators))
      if (iterator != utils::IteratorType::parallel)
        budget /= std::max<int64_t>(1, ranges[i]);
    // Rows of a reduction are never split (they are reduced by producers
    // fused into the tile).
    if (config.kind == KernelKind::Reduction && !candidates.empty() &&
        root.getNumReductionLoops() == 0) {
      budget /= std::max<int64_t>(1, ranges[candidates.back()]);
      candidates.pop_back();
    }
    budget = std::max<int64_t>(1, budget);
    for (unsigned loop : llvm::reverse(candidates)) {
      if (ranges[loop] <= budget) {
        tiles[loop] = ranges[loop];
        budget /= std::max<int64_t>(1, ranges[loop]);
        continue;
      }
      int64_t tile = budget;
      // Keep vector-friendly tiles on the innermost loop.
      if (loop + 1 == ranges.size() && tile >= 64)
        tile -= tile % 64;
      tiles[loop] = std::max<int64_t>(1, tile);
      budget = 1;
    }
  }
  // A tile covering the whole loop means the loop is not distributed.
  for (auto [tile, range] : llvm::zip(tiles, ranges))
    if (tile >= range)
      tile = 0;
  if (llvm::any_of(tiles, [](int64_t tile) { return tile != 0; }))
    config.workgroupTiles = tiles;
  return config;
}

} // namespace fleet::codegen
