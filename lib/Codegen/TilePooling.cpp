//===- TilePooling.cpp - pooling windows as vectorizable 1-D ops ---------===//
//
// A pooling op (`linalg.pooling_*`: max pools, average pools' sums) is a
// `generic` kernel (docs/kernels.md "Workgroup tiles"), which otherwise
// stays scalar loops. Here it is tiled to one output row of a vector's
// width of output columns, one window row at a time (every other parallel
// loop and the window's first reduction loop by 1), and the tile is
// rewritten as the 1-D pooling op (upstream decomposition); the vectorizer
// then reads each window row as vectors and combines them, strides and
// all (docs/kernels.md "Pooling"). Invariant: after this step a pooling op
// of static shape is 1-D ops of static shape, ready for vectorization; one
// that does not match is left as it was.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "codegen-tile-and-vectorize"

namespace fleet::codegen::detail {

LogicalResult tilePooling(func::FuncOp func, linalg::LinalgOp root,
                          const TargetInfo &target, RewriterBase &rewriter) {
  if (!root->getName().getStringRef().starts_with("linalg.pooling_") ||
      !root.hasPureTensorSemantics() ||
      llvm::any_of(root.getStaticLoopRanges(),
                   [](int64_t range) {
                     return ShapedType::isDynamic(range) || range == 0;
                   }))
    return success();
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(root);
  if (failed(dims) || dims->outputImage.size() != 2 ||
      dims->filterLoop.size() != 2)
    return success();
  // Every parallel loop by 1 but the output's columns (a vector's width),
  // the window's rows by 1, its columns whole.
  SmallVector<int64_t> tiles;
  for (utils::IteratorType iterator : root.getIteratorTypesArray())
    tiles.push_back(iterator == utils::IteratorType::parallel ? 1 : 0);
  tiles[dims->outputImage[1]] = getLanes(root->getResult(0).getType(), target);
  tiles[dims->filterLoop[0]] = 1;
  tiles[dims->filterLoop[1]] = 0;
  FailureOr<SmallVector<scf::ForOp>> loops =
      tileOp(rewriter, cast<TilingInterface>(root.getOperation()), tiles,
             /*partialReduction=*/false);
  if (failed(loops))
    return root.emitOpError("could not be tiled into pooling rows");
  peelLoops(rewriter, *loops);
  LLVM_DEBUG(llvm::dbgs() << "pooling in rows of "
                          << tiles[dims->outputImage[1]] << " at "
                          << root.getLoc() << "\n");
  return simplify(func, [](RewritePatternSet &patterns) {
    linalg::populateDecomposeConvolutionPatterns(patterns);
  });
}

} // namespace fleet::codegen::detail
