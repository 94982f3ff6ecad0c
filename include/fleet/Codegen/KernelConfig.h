//===- KernelConfig.h - per-dispatch kernel strategy -----------*- C++ -*-===//
//
// The strategy decision shared by `codegen-configure-workgroups` (HAL phase,
// once per executable variant: distributes the workgroup tile loop for that
// variant's target) and the kernel compiler (serialization: tiles each
// workgroup's tile for caches and registers and vectorizes). The decision
// travels on the variant's dispatch function as the discardable attribute
// `fleet.codegen` (docs/kernels.md):
//
//   fleet.codegen = {kind = "matmul", workgroup_tiles = array<i64: 64, 128, 0>}
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_CODEGEN_KERNELCONFIG_H
#define FLEET_CODEGEN_KERNELCONFIG_H

#include "fleet/Codegen/CPUTarget.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace fleet::codegen {

/// Name of the discardable function attribute holding a KernelConfig.
inline constexpr llvm::StringLiteral kConfigAttrName = "fleet.codegen";

enum class KernelKind {
  /// A contraction (linalg.matmul, batch_matmul, or a generic with a
  /// contraction body), possibly followed by elementwise epilogues.
  Matmul,
  /// Only parallel loops: vectorized streaming.
  Elementwise,
  /// Some op reduces (softmax/layernorm style rows, sums): each workgroup
  /// owns whole rows so reductions never cross workgroups.
  Reduction,
  /// Anything else (convolutions, pooling, ...): tiled, scalar loops.
  Generic,
};

llvm::StringRef stringifyKernelKind(KernelKind kind);
std::optional<KernelKind> symbolizeKernelKind(llvm::StringRef name);

struct KernelConfig {
  KernelKind kind = KernelKind::Generic;
  /// One entry per loop of the root op; 0 = the loop is not distributed
  /// (each workgroup covers it whole). Empty = one workgroup does all.
  llvm::SmallVector<int64_t> workgroupTiles;
  /// Matmul kernels: steps of the root's reduction walked per block, a loop
  /// outside the register tiles (docs/kernels.md "Register tiles"); 0 =
  /// each register tile walks the whole reduction.
  int64_t reductionBlock = 0;
  /// Matmul kernels with reduction blocks and B read where it lies (K x N,
  /// rows N elements apart; docs/kernels.md "B blocks"): each register
  /// tile first prefetches the lines of B under its columns in the next
  /// block, reductionBlock rows further on.
  bool prefetchBBlocks = false;
  /// With prefetchBBlocks: each block of B is first copied into a
  /// temporary of reductionBlock rows x the workgroup's columns, which the
  /// register tiles read instead of B.
  bool copyBBlocks = false;

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *context) const;
  static std::optional<KernelConfig> fromAttr(mlir::Attribute attr);
};

/// A matmul's register tile: `rows` x `columns` elements of the output kept
/// in vector registers across the reduction (docs/kernels.md "Register
/// tiles"). Accumulators: 16 of 32 registers with AVX-512, 12 of 16
/// otherwise; `rows` = min(M, 8 or 6) and the accumulators left go to
/// columns (a power of two of vectors, at least 2): 8 x 2 vectors for M >= 8
/// with AVX-512 and 6 x 2 with AVX2, but 1 x 16 vectors (256 f32 columns)
/// for M = 1, so a skinny product reads long contiguous rows of B. When M
/// needs several tiles, fewer rows (at least 4) where that leaves no short
/// remainder tile: 4 x 2 vectors for M = 8 with AVX2. `m` <= 0 (unknown):
/// the full-size tile.
struct RegisterTile {
  int64_t rows;
  int64_t columns;
};
RegisterTile getMatmulRegisterTile(int64_t m, int64_t vectorBits,
                                   int64_t elementBits);

/// Whether `root` is a contraction whose second input is read as (K x N):
/// rows along its reduction loop, columns along a parallel loop, so a
/// register tile's walk over K steps over whole rows of it.
bool readsRowsOfB(mlir::linalg::LinalgOp root);

/// The product an epilogue root computes on (docs/kernels.md "Epilogues"):
/// when `root` is a generic with only parallel loops reading, through the
/// identity map, the single result of a contraction, that contraction;
/// null otherwise (also for a contraction root).
mlir::linalg::LinalgOp getEpilogueProduct(mlir::linalg::LinalgOp root);

/// Bits of the element type of `type` (32 when not an int or float).
int64_t getElementBits(mlir::Type type);

/// Elements of `elementBits` in one vector register of `vectorBits`, at
/// least 4.
int64_t getVectorLanes(int64_t vectorBits, int64_t elementBits);

/// The op whose result the dispatch function stores into its single result
/// binding, or null when the function stores several results or the stored
/// value is not produced by a linalg op.
mlir::linalg::LinalgOp findRootOp(mlir::func::FuncOp func);

/// Classifies the body of `func` around `root`.
KernelKind classifyKernel(mlir::func::FuncOp func, mlir::linalg::LinalgOp root);

/// Picks the strategy and workgroup tile sizes for `root` (static shapes)
/// on `target`: register tiles from its vector width, workgroup tiles from
/// its L2 size (docs/kernels.md "Workgroup tiles"). A root without static
/// loop ranges gets empty workgroup tiles. An epilogue root gets its
/// product's configuration, the product's tiles on the root's loops.
KernelConfig selectKernelConfig(mlir::func::FuncOp func,
                                mlir::linalg::LinalgOp root,
                                const CPUTarget &target);

} // namespace fleet::codegen

#endif // FLEET_CODEGEN_KERNELCONFIG_H
