//===- KernelCompilerInternal.h - steps of the kernel compiler --*- C++ -*-===//
//
// Internal to lib/Codegen: the steps compileKernelModule runs, in order,
// on its private copy of the dispatch module.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_CODEGEN_KERNELCOMPILERINTERNAL_H
#define FLEET_LIB_CODEGEN_KERNELCOMPILERINTERNAL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Error.h"

#include <string>

namespace fleet::codegen::detail {

/// Collects the diagnostics of a compiler's private context so errors are
/// values: error(what) is `prefix` + what + every diagnostic seen.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *context,
                               std::string prefix = "")
      : prefix(std::move(prefix)),
        handler(context, [this](mlir::Diagnostic &diagnostic) {
          llvm::raw_string_ostream os(messages);
          os << "\n  " << diagnostic.getLocation() << ": " << diagnostic;
          for (mlir::Diagnostic &note : diagnostic.getNotes())
            os << "\n    note: " << note;
          return mlir::success();
        }) {}

  llvm::Error error(const llvm::Twine &what) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   prefix + what + messages);
  }

private:
  std::string prefix;
  std::string messages;
  mlir::ScopedDiagnosticHandler handler;
};

/// One-shot bufferization of the kernel module as both kernel compilers do
/// it: empty tensors eliminated first, function boundaries left alone,
/// copies as linalg.copy.
mlir::LogicalResult bufferizeKernelModule(mlir::ModuleOp module);

/// What the runtime-facing entry point needs to know about one dispatch
/// function after it was rewritten by prepareDispatchFunction.
struct DispatchSignature {
  /// The KernelABI.h symbol.
  std::string symbol;
  /// The rewritten function (internal linkage in the object).
  std::string implName;
  /// The original argument types: `!stream.binding` or a primitive.
  llvm::SmallVector<mlir::Type> argumentTypes;
};

/// Target facts the tiling strategies need.
struct TargetInfo {
  /// Widest native vector register, in bits (128, 256 or 512).
  int64_t vectorBits = 128;
};

/// Rewrites `func` (a dispatch function, docs/pipeline.md) into the form
/// the rest of the compiler lowers: each `!stream.binding` argument becomes
/// a `memref<?xi8>` and each `stream.binding.subspan` a `memref.view` of it;
/// six trailing `index` arguments carry the workgroup id (x, y, z) and count
/// (x, y, z) that replace `stream.dispatch.workgroup.id/count`. The function
/// is renamed `<symbol>__impl`.
mlir::FailureOr<DispatchSignature>
prepareDispatchFunction(mlir::func::FuncOp func, llvm::StringRef symbol);

/// Views every i1 binding of `func` as bytes (one per element, 0 or 1, the
/// host's layout) and converts at its tensor reads and writes
/// (docs/kernels.md "Booleans in buffers"; BooleanBindings.cpp). Runs
/// before prepareDispatchFunction; fails on a use it cannot convert.
mlir::LogicalResult storeBooleansAsBytes(mlir::func::FuncOp func);

/// Makes every integer division and remainder in `func` total (never a
/// trap): x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0
/// (docs/kernels.md "Integer division"; TotalIntegerDivision.cpp).
void makeIntegerDivisionTotal(mlir::func::FuncOp func);

/// Rewrites reductions that skip elements by selecting their accumulator
/// into ones that yield their combining op on a masked element, which the
/// vectorizer takes (MaskedReductions.cpp). Before tiling.
void exposeMaskedReductions(mlir::func::FuncOp func);

/// Vectorizes `op` with upstream's linalg::vectorize and replaces it (or
/// erases it, for ops on buffers); fails, leaving `op`, when it cannot.
mlir::LogicalResult vectorizeOp(mlir::RewriterBase &rewriter,
                                mlir::linalg::LinalgOp op);

// Tiling helpers of the strategies (TileAndVectorize.cpp).

/// Vector lanes of `type`'s elements in the widest native register.
int64_t getLanes(mlir::Type type, const TargetInfo &target);

/// Erases the ops of `func` that are trivially dead, until none is left.
void eraseDeadOps(mlir::func::FuncOp func, mlir::RewriterBase &rewriter);

/// The scf.for loops among `loops`.
llvm::SmallVector<mlir::scf::ForOp>
asForLoops(llvm::ArrayRef<mlir::LoopLikeOpInterface> loops);

/// Tiles `op` with scf.for loops, fusing its producers into the innermost
/// loop. Returns the loops, outermost first.
mlir::FailureOr<llvm::SmallVector<mlir::scf::ForOp>>
tileAndFuse(mlir::RewriterBase &rewriter, mlir::TilingInterface op,
            llvm::ArrayRef<int64_t> tiles,
            llvm::ArrayRef<int64_t> interchange = {});

/// Tiles `op` and fuses its producers per `options`, replacing the uses
/// (after the loops) of what it tiled and of the producers it yields;
/// `fused`, when given, receives the producers fused. Returns the loops,
/// outermost first.
mlir::FailureOr<llvm::SmallVector<mlir::scf::ForOp>>
tileAndFuse(mlir::RewriterBase &rewriter, mlir::TilingInterface op,
            const mlir::scf::SCFTileAndFuseOptions &options,
            llvm::SetVector<mlir::Operation *> *fused = nullptr);

/// Options tiling `op` by `tiles`; reduction loops with a non-zero tile as a
/// partial reduction when `partialReduction` (tileOp).
mlir::scf::SCFTilingOptions getTilingOptions(mlir::TilingInterface op,
                                             llvm::ArrayRef<int64_t> tiles,
                                             bool partialReduction);

/// Tiles `op` alone (no fusion); reduction loops with a non-zero tile are
/// tiled as a partial reduction when `partialReduction`, which keeps a
/// vector of partial results across iterations instead of a scalar.
mlir::FailureOr<llvm::SmallVector<mlir::scf::ForOp>>
tileOp(mlir::RewriterBase &rewriter, mlir::TilingInterface op,
       llvm::ArrayRef<int64_t> tiles, bool partialReduction);

/// Peels the loops (innermost first) whose step does not divide the trip
/// count, so their main part has static tile shapes.
void peelLoops(mlir::RewriterBase &rewriter,
               llvm::ArrayRef<mlir::scf::ForOp> loops);

/// Canonicalization of every loaded dialect plus the extra patterns, then
/// CSE.
mlir::LogicalResult
simplify(mlir::func::FuncOp func,
         llvm::function_ref<void(mlir::RewritePatternSet &)> extra = {});

/// The reduction strategy (TileReductions.cpp): rows, each op of a row in
/// vector chunks.
mlir::LogicalResult tileReduction(mlir::func::FuncOp func,
                                  mlir::linalg::LinalgOp root,
                                  const TargetInfo &target,
                                  mlir::RewriterBase &rewriter);

/// The pooling strategy (TilePooling.cpp): a pooling op of static shape as
/// 1-D pooling ops over a vector's width of output columns; other ops are
/// left alone.
mlir::LogicalResult tilePooling(mlir::func::FuncOp func,
                                mlir::linalg::LinalgOp root,
                                const TargetInfo &target,
                                mlir::RewriterBase &rewriter);

/// Tiles the workgroup's tile for caches/registers and vectorizes it, per
/// the function's `fleet.codegen` config (selected here when absent).
/// `dumpStream` (optional) receives the IR after tiling.
mlir::LogicalResult tileAndVectorize(mlir::func::FuncOp func,
                                     const TargetInfo &target,
                                     llvm::raw_ostream *dumpStream);

/// Makes each vector read of a row of a binding inside a loop also prefetch
/// the same columns of the next row (PrefetchNextRows.cpp). For reduction
/// kernels, after vectorization.
void prefetchNextRows(mlir::func::FuncOp func);

/// Software-pipelines each row loop of three or more chunk loops by one
/// pass: the next row's first loop runs fused with this row's last loop
/// (PipelineRowPasses.cpp). For reduction kernels, after prefetchNextRows.
void pipelineRowPasses(mlir::func::FuncOp func);

/// Where the B read by a B-block kernel (KernelConfig::prefetchBBlocks) lies:
/// B's binding view and, for a block's copy (copyBBlocks), the block's first
/// row and column there (null when the register tiles read B itself).
struct BBlockOrigin {
  mlir::TypedValue<mlir::MemRefType> view;
  mlir::Value row, column;
};

/// The origin of the block `copy` copies (index arithmetic built before it),
/// if it reads a static row-major binding through unit-stride slices.
std::optional<BBlockOrigin> findBBlockOrigin(mlir::linalg::CopyOp copy);

/// The origin of the B that the blocked contraction `root` reads in place
/// (its second input, a static row-major binding through unit-stride
/// slices).
std::optional<BBlockOrigin> findBOrigin(mlir::linalg::LinalgOp root);

/// Before a register `tile` reading its columns of the block at `origin`
/// (the copy, or B in place), a loop prefetching into L2 the lines of B
/// under those columns in the next block, `blockRows` rows further on
/// (PrefetchNextRows.cpp): the next block streams in while the tiles
/// compute on this one.
void prefetchNextBBlock(mlir::linalg::LinalgOp tile, const BBlockOrigin &origin,
                        int64_t blockRows);

/// In a reduction kernel writing a binding of 16 MiB or more, makes the
/// vector writes of its innermost loops non-temporal stores in a copy of
/// the loop taken when the bindings are 64-byte aligned
/// (NonTemporalStores.cpp). After bufferization.
void useNonTemporalStores(mlir::func::FuncOp func);

/// Bufferizes and lowers the module to the LLVM dialect.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module,
                                       llvm::raw_ostream *dumpStream);

/// Adds, to the LLVM-dialect `module`, the KernelABI.h entry point
/// `int32_t symbol(const fleet_kernel_state_t *, uint32_t x, y, z)` that
/// unpacks the state and calls the lowered implementation.
mlir::LogicalResult buildEntryPoint(mlir::ModuleOp module,
                                    const DispatchSignature &signature);

} // namespace fleet::codegen::detail

#endif // FLEET_LIB_CODEGEN_KERNELCOMPILERINTERNAL_H
