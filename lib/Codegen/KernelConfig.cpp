//===- KernelConfig.cpp - strategy and workgroup tile selection -----------===//
//
// The rules (docs/kernels.md):
// - matmul: the two innermost parallel loops of the root are (M, N) and get
//   64x128 workgroup tiles, so a workgroup's A panel (64xK) and B panel
//   (Kx128) stay in L2 and the grid has enough tiles for several workers;
//   outer parallel loops (batch) get 1; reductions are never split.
// - elementwise/reduction/generic: a workgroup covers about
//   kElementsPerWorkgroup iterations, filled from the innermost loop out, so
//   each workgroup streams contiguous memory. For reductions the innermost
//   loop stays whole (rows are never split across workgroups).
//
//===----------------------------------------------------------------------===//

#include "fleet/Codegen/KernelConfig.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace fleet::codegen {

namespace {

/// Iterations of the root one workgroup covers in the streaming strategies:
/// 64K f32 = 256 KiB per operand, well inside L2, and at least 256
/// workgroups for 16M elements so workers balance.
constexpr int64_t kElementsPerWorkgroup = 64 * 1024;
/// Matmul workgroup tile (M, N) and the register-tile granules they keep a
/// multiple of when they can.
constexpr int64_t kMatmulTileM = 64, kMatmulGranuleM = 8;
constexpr int64_t kMatmulTileN = 128, kMatmulGranuleN = 32;

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

bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

} // namespace

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
  return config;
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

KernelConfig selectKernelConfig(func::FuncOp func, linalg::LinalgOp root) {
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

  if (config.kind == KernelKind::Matmul && parallelLoops.size() >= 2) {
    unsigned n = parallelLoops.back();
    unsigned m = parallelLoops[parallelLoops.size() - 2];
    for (unsigned loop : parallelLoops)
      tiles[loop] = 1;
    tiles[m] = pickTile(ranges[m], kMatmulTileM, kMatmulGranuleM);
    tiles[n] = pickTile(ranges[n], kMatmulTileN, kMatmulGranuleN);
  } else {
    // Streaming: fill a workgroup from the innermost loop outwards.
    int64_t budget = kElementsPerWorkgroup;
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
