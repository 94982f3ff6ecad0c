//===- ConfigureWorkgroups.cpp - distribute dispatch tiles over workgroups ===//
//
// Invariant established: every export of every `hal.executable.variant` of
// Fleet's CPU target or of `vulkan-spirv` (and of every `stream.executable`,
// for tests of the kernels alone) has a count region returning a constant grid chosen for
// that variant's target (CPUTarget.h: vector width, cache sizes), and its
// dispatch function in that variant carries `fleet.codegen` (KernelConfig.h)
// and computes exactly the tile of workgroup
// `stream.dispatch.workgroup.id[0..2]`: it reads slices of its input
// bindings and writes only its slice of the result binding, so workgroups
// write disjoint bytes and may run concurrently (KernelABI.h). The function
// stays in tensor form (docs/design.md §6). Two variants of one executable
// get their own tiles and grids.
//
//===----------------------------------------------------------------------===//

#include "fleet/Codegen/Passes.h"

#include "fleet/Codegen/KernelCompiler.h"
#include "fleet/Codegen/KernelConfig.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "codegen-configure-workgroups"

namespace fleet::codegen {
#define GEN_PASS_DEF_CONFIGUREWORKGROUPSPASS
#include "fleet/Codegen/Passes.h.inc"
} // namespace fleet::codegen

using namespace mlir;
using namespace fleet;
using namespace fleet::codegen;

namespace {

/// Erases ops of `func` left dead by tiling (the untiled producers).
void eraseDeadOps(func::FuncOp func, RewriterBase &rewriter) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op :
         llvm::make_early_inc_range(llvm::reverse(func.getBody().front()))) {
      if (isOpTriviallyDead(&op)) {
        rewriter.eraseOp(&op);
        changed = true;
      }
    }
  }
}

/// Replaces the workgroup loop `forall` (whose single result is stored into
/// `store`'s memref) by its body executed for one workgroup: loop dimension
/// rank-1 is workgroup x, rank-2 is y, and the outer ones are linearized into
/// z. Returns the grid (x, y, z).
FailureOr<std::array<int64_t, 3>>
forallToWorkgroups(scf::ForallOp forall,
                   bufferization::MaterializeInDestinationOp store,
                   RewriterBase &rewriter) {
  Location loc = forall.getLoc();
  std::optional<SmallVector<int64_t>> lbs =
      getConstantIntValues(forall.getMixedLowerBound());
  std::optional<SmallVector<int64_t>> ubs =
      getConstantIntValues(forall.getMixedUpperBound());
  std::optional<SmallVector<int64_t>> steps =
      getConstantIntValues(forall.getMixedStep());
  if (!lbs || !ubs || !steps || forall.getNumResults() != 1)
    return failure();
  int64_t rank = forall.getRank();
  SmallVector<int64_t> counts;
  for (int64_t d = 0; d < rank; ++d)
    counts.push_back(llvm::divideCeil((*ubs)[d] - (*lbs)[d], (*steps)[d]));

  std::array<int64_t, 3> grid = {1, 1, 1};
  rewriter.setInsertionPoint(forall);
  SmallVector<Value> ids(rank);
  auto workgroupId = [&](unsigned dim) -> Value {
    return stream::DispatchWorkgroupIDOp::create(
        rewriter, loc, rewriter.getIndexType(), rewriter.getIndexAttr(dim));
  };
  ids[rank - 1] = workgroupId(0);
  grid[0] = counts[rank - 1];
  if (rank >= 2) {
    ids[rank - 2] = workgroupId(1);
    grid[1] = counts[rank - 2];
  }
  if (rank == 3) {
    ids[0] = workgroupId(2);
    grid[2] = counts[0];
  } else if (rank > 3) {
    ArrayRef<int64_t> outer = ArrayRef<int64_t>(counts).drop_back(2);
    auto delinearize = affine::AffineDelinearizeIndexOp::create(
        rewriter, loc, workgroupId(2), outer, /*hasOuterBound=*/true);
    for (int64_t d = 0; d < rank - 2; ++d)
      ids[d] = delinearize.getResult(d);
    grid[2] = 1;
    for (int64_t count : outer)
      grid[2] *= count;
  }
  SmallVector<Value> replacements;
  for (int64_t d = 0; d < rank; ++d) {
    Value step = arith::ConstantIndexOp::create(rewriter, loc, (*steps)[d]);
    Value iv = arith::MulIOp::create(rewriter, loc, ids[d], step);
    if ((*lbs)[d] != 0) {
      Value lb = arith::ConstantIndexOp::create(rewriter, loc, (*lbs)[d]);
      iv = arith::AddIOp::create(rewriter, loc, iv, lb);
    }
    replacements.push_back(iv);
  }
  // Inside the tile, the shared output is the untiled destination.
  llvm::append_range(replacements, forall.getOutputs());

  scf::InParallelOp terminator = forall.getTerminator();
  rewriter.inlineBlockBefore(forall.getBody(), forall, replacements);
  rewriter.setInsertionPoint(terminator);
  for (Operation &yielding : terminator.getYieldingOps()) {
    auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(&yielding);
    if (!insert)
      return failure();
    auto fold = [](ArrayRef<OpFoldResult> values) {
      SmallVector<OpFoldResult> folded;
      for (OpFoldResult value : values) {
        if (auto constant = getConstantIntValue(value))
          folded.push_back(OpBuilder(value.getContext()).getIndexAttr(*constant));
        else
          folded.push_back(value);
      }
      return folded;
    };
    auto subview = memref::SubViewOp::create(
        rewriter, loc, store.getDest(), fold(insert.getMixedOffsets()),
        fold(insert.getMixedSizes()), fold(insert.getMixedStrides()));
    auto tileStore = bufferization::MaterializeInDestinationOp::create(
        rewriter, loc, TypeRange{}, insert.getSource(), subview);
    tileStore.setRestrict(true);
    tileStore.setWritable(true);
  }
  rewriter.eraseOp(terminator);
  rewriter.eraseOp(store);
  rewriter.eraseOp(forall);
  return grid;
}

/// Tiles `root` by `tiles` with producers fused and distributes the tiles.
FailureOr<std::array<int64_t, 3>>
distributeToWorkgroups(func::FuncOp func, linalg::LinalgOp root,
                       ArrayRef<int64_t> tiles) {
  IRRewriter rewriter(func.getContext());
  auto store = cast<bufferization::MaterializeInDestinationOp>(
      *root->getResult(0).getUsers().begin());
  scf::SCFTilingOptions tilingOptions;
  tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(func.getContext(), tiles));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tilingOptions);
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> tiled =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(tiled) || tiled->loops.size() != 1)
    return failure();
  for (auto [original, replacement] : tiled->replacements)
    rewriter.replaceAllUsesWith(original, replacement);
  auto forall = dyn_cast<scf::ForallOp>(tiled->loops.front().getOperation());
  if (!forall)
    return failure();
  FailureOr<std::array<int64_t, 3>> grid =
      forallToWorkgroups(forall, store, rewriter);
  if (succeeded(grid))
    eraseDeadOps(func, rewriter);
  return grid;
}

/// Makes `region` (a stream `workgroups` or HAL `count` region; its block
/// arguments stay) return the constant `grid` through ReturnOpT.
/// An empty region gets a block with `leadingArgs` (the HAL count region's
/// `!hal.device`).
template <typename ReturnOpT>
void setWorkgroupCount(Region &region, Location loc,
                       std::array<int64_t, 3> grid,
                       TypeRange leadingArgs = {}) {
  OpBuilder builder(region.getContext());
  Block *block;
  if (region.empty()) {
    block = builder.createBlock(&region);
    for (Type type : leadingArgs)
      block->addArgument(type, loc);
  } else {
    block = &region.front();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
      op.erase();
  }
  builder.setInsertionPointToEnd(block);
  SmallVector<Value> counts;
  llvm::SmallDenseMap<int64_t, Value> constants;
  for (int64_t count : grid) {
    Value &constant = constants[count];
    if (!constant)
      constant = arith::ConstantIndexOp::create(builder, loc, count);
    counts.push_back(constant);
  }
  ReturnOpT::create(builder, loc, counts);
}

/// Loop iterations a vulkan-spirv workgroup tile may cost, estimated as
/// below: the SPIR-V compiler unrolls innermost loops by 8 and refuses a
/// kernel over the target's max_loop_iterations (65,535 by default), so
/// tiles are sized to stay well under it.
constexpr int64_t kSPIRVTileBudget = 40000;

/// Halves the largest distributed tile of `tiles` until one tile of every
/// linalg op of `func`, with the root's extents, costs at most `budget`
/// iterations (elements / 8). A workgroup tile runs in one invocation on
/// Vulkan (docs/kernels.md "Vulkan kernels"). Dynamic extents are left
/// alone (the compiler checks what it can bound).
void boundTileWork(func::FuncOp func, linalg::LinalgOp root,
                   SmallVector<int64_t> &tiles, int64_t budget) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  if (tiles.empty() || tiles.size() != ranges.size() ||
      llvm::any_of(ranges, ShapedType::isDynamic))
    return;
  int64_t ops = 0;
  func.walk([&](linalg::LinalgOp) { ++ops; });
  // An epilogue's product walks its reduction for every element of the
  // tile (docs/kernels.md "Epilogues"): its steps count too.
  int64_t steps = 1;
  if (linalg::LinalgOp product = getEpilogueProduct(root))
    for (auto [range, iterator] : llvm::zip(product.getStaticLoopRanges(),
                                            product.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::reduction &&
          !ShapedType::isDynamic(range))
        steps *= std::max<int64_t>(1, range);
  auto extent = [&](size_t i) {
    return tiles[i] ? std::min(tiles[i], ranges[i]) : ranges[i];
  };
  while (true) {
    int64_t work = std::max<int64_t>(ops, 1) * steps;
    for (size_t i = 0; i < ranges.size(); ++i)
      work *= extent(i);
    if (work / 8 <= budget)
      return;
    std::optional<size_t> largest;
    for (size_t i = 0; i < ranges.size(); ++i)
      if (tiles[i] && extent(i) > 1 &&
          (!largest || extent(i) > extent(*largest)))
        largest = i;
    if (!largest)
      return; // The compiler names the kernel if it is still too large.
    tiles[*largest] = (extent(*largest) + 1) / 2;
    LLVM_DEBUG(llvm::dbgs() << "vulkan tile budget: loop " << *largest
                            << " tile -> " << tiles[*largest] << "\n");
  }
}

struct ConfigureWorkgroupsPass
    : public fleet::codegen::impl::ConfigureWorkgroupsPassBase<
          ConfigureWorkgroupsPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // The tiling interface models of linalg/tensor ops live outside their
    // dialects.
    registerKernelInputDialects(registry);
  }

  void runOnOperation() override {
    CPUTarget defaults = getDefaultCPUTarget(targetCPU, cacheSizes);
    for (auto executable : getOperation().getOps<stream::ExecutableOp>()) {
      ModuleOp inner = executable.getInnerModule();
      if (!inner)
        continue;
      for (auto exportOp :
           executable.getBody().front().getOps<stream::ExecutableExportOp>()) {
        FailureOr<std::optional<std::array<int64_t, 3>>> grid =
            configureFunction(inner, exportOp.getFunctionRef(), defaults);
        if (failed(grid))
          return signalPassFailure();
        if (*grid)
          setWorkgroupCount<stream::ReturnOp>(exportOp.getWorkgroupCount(),
                                              exportOp.getLoc(), **grid);
      }
    }
    for (auto executable : getOperation().getOps<hal::ExecutableOp>()) {
      for (auto variant : executable.getOps<hal::ExecutableVariantOp>()) {
        ModuleOp inner = variant.getInnerModule();
        bool spirv = variant.getTarget().getBackend().getValue() ==
                     "vulkan-spirv";
        if (!inner || (!spirv && !isCPUExecutableTarget(variant.getTarget())))
          continue;
        CPUTarget target = getCPUTarget(variant.getTarget(), defaults);
        if (spirv) {
          // A Vulkan workgroup runs its tile in one invocation for now
          // (docs/kernels.md "Vulkan kernels"): small tiles give the device
          // many workgroups to run at once.
          target.cpu = "generic";
          target.features.clear();
          target.vectorBits = 128;
          target.l1Bytes = 4 << 10;
          target.l2Bytes = 16 << 10;
        }
        LLVM_DEBUG(llvm::dbgs()
                   << "@" << executable.getSymName() << "::@"
                   << variant.getSymName() << ": cpu " << target.cpu << ", "
                   << target.vectorBits << "-bit vectors, L2 "
                   << target.l2Bytes << " bytes\n");
        for (auto exportOp : variant.getOps<hal::ExecutableExportOp>()) {
          FailureOr<std::optional<std::array<int64_t, 3>>> grid =
              configureFunction(inner, exportOp.getSymName(), target,
                                spirv ? kSPIRVTileBudget : 0);
          if (failed(grid))
            return signalPassFailure();
          if (*grid)
            setWorkgroupCount<hal::ReturnOp>(
                exportOp.getWorkgroupCount(), exportOp.getLoc(), **grid,
                hal::DeviceType::get(exportOp.getContext()));
        }
      }
    }
  }

  /// Tiles the dispatch function `name` of `inner` for `target`; returns its
  /// grid, or nullopt when there is nothing to configure (no body, or
  /// configured before).
  FailureOr<std::optional<std::array<int64_t, 3>>>
  configureFunction(ModuleOp inner, StringRef name, const CPUTarget &target,
                    int64_t tileBudget = 0) {
    auto func = inner.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal()) {
      LLVM_DEBUG(llvm::dbgs() << "skip " << name
                              << ": no dispatch function body\n");
      return std::optional<std::array<int64_t, 3>>();
    }
    if (func->hasAttr(kConfigAttrName)) {
      LLVM_DEBUG(llvm::dbgs() << "skip " << func.getSymName()
                              << ": already configured\n");
      return std::optional<std::array<int64_t, 3>>();
    }
    KernelConfig config;
    std::array<int64_t, 3> grid = {1, 1, 1};
    linalg::LinalgOp root = findRootOp(func);
    if (!root) {
      LLVM_DEBUG(llvm::dbgs() << "no single tileable root in "
                              << func.getSymName() << ": 1x1x1 grid\n");
      config.kind = KernelKind::Generic;
    } else {
      config = selectKernelConfig(func, root, target);
      if (tileBudget)
        boundTileWork(func, root, config.workgroupTiles, tileBudget);
    }
    if (!config.workgroupTiles.empty()) {
      FailureOr<std::array<int64_t, 3>> distributed =
          distributeToWorkgroups(func, root, config.workgroupTiles);
      if (failed(distributed))
        return func.emitOpError()
               << "could not distribute the " << stringifyKernelKind(config.kind)
               << " kernel over workgroups";
      grid = *distributed;
    }
    LLVM_DEBUG(llvm::dbgs() << func.getSymName() << ": "
                            << stringifyKernelKind(config.kind) << " grid "
                            << grid[0] << "x" << grid[1] << "x" << grid[2]
                            << "\n");
    func->setAttr(kConfigAttrName, config.toAttr(func.getContext()));
    return std::optional<std::array<int64_t, 3>>(grid);
  }
};

} // namespace
