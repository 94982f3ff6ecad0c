//===- PrefetchNextRows.cpp - reduction kernels fetch the next row -------===//
//
// A reduction kernel visits each row of its input several times (softmax:
// max, exp, sum, divide; docs/pipeline.md "Row groups"). Only the first
// visit reads memory; the later ones compute on the row in L1/L2 while
// memory sits idle, so the first visit of the next row waits for DRAM again.
// After this step each vector read of the last loop visiting a row (when
// several do) also prefetches the cache lines of the same columns one row
// further on (`memref.prefetch`, an upstream op lowered to `llvm.prefetch`),
// so the next row streams in while this one computes (docs/kernels.md
// "Streaming stores"). Invariant: prefetches never change a kernel's
// result; their row index is clamped to the binding's last row.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "codegen-tile-and-vectorize"

namespace fleet::codegen::detail {

namespace {

/// x86 and AArch64 cache lines.
constexpr int64_t kCacheLineBytes = 64;

/// The row-major binding view `read` reads from, if it reads a whole
/// in-bounds vector along the innermost dimension of a rank >= 2 view at a
/// varying row and column (a chunk loop's read), else null.
TypedValue<MemRefType> rowMajorSource(vector::TransferReadOp read) {
  auto toTensor = read.getBase().getDefiningOp<bufferization::ToTensorOp>();
  if (!toTensor)
    return nullptr;
  auto view = dyn_cast<TypedValue<MemRefType>>(toTensor.getBuffer());
  if (!view || view.getType().getRank() < 2 ||
      !view.getType().hasStaticShape() ||
      !view.getType().getLayout().isIdentity())
    return nullptr;
  VectorType vector = read.getVectorType();
  if (vector.getRank() != 1 || !read.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
    return nullptr;
  // A loop's read: the row and the column vary (a peeled remainder's
  // column is constant).
  Value row = read.getIndices()[view.getType().getRank() - 2];
  Value column = read.getIndices().back();
  if (matchPattern(row, m_Constant()) || matchPattern(column, m_Constant()))
    return nullptr;
  return view;
}

} // namespace

void prefetchNextRows(func::FuncOp func) {
  // Per row of a binding: how many loops visit it, and the reads of the
  // last one. A row read by one loop only streams, and the hardware
  // prefetcher follows a stream without help.
  struct Visits {
    int64_t loops = 0;
    SmallVector<vector::TransferReadOp> lastReads;
  };
  llvm::MapVector<std::pair<Value, Value>, Visits> rows;
  func.walk([&](vector::TransferReadOp read) {
    TypedValue<MemRefType> view = rowMajorSource(read);
    auto loop = read->getParentOfType<scf::ForOp>();
    if (!view || !loop)
      return;
    Value row = read.getIndices()[view.getType().getRank() - 2];
    Visits &visits = rows[{view, row}];
    if (visits.lastReads.empty() ||
        visits.lastReads.back()->getParentOfType<scf::ForOp>() != loop) {
      ++visits.loops;
      visits.lastReads.clear();
    }
    visits.lastReads.push_back(read);
  });
  SmallVector<std::pair<vector::TransferReadOp, Value>> reads;
  for (auto &[key, visits] : rows)
    if (visits.loops > 1)
      for (vector::TransferReadOp read : visits.lastReads)
        reads.push_back({read, key.first});
  for (auto [read, view] : reads) {
    auto type = cast<MemRefType>(view.getType());
    int64_t rank = type.getRank();
    int64_t elementBytes =
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    int64_t lineElements = std::max<int64_t>(1, kCacheLineBytes / elementBytes);
    int64_t vectorElements = read.getVectorType().getNumElements();

    OpBuilder builder(read);
    Location loc = read.getLoc();
    SmallVector<Value> indices(read.getIndices());
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value lastRow = arith::ConstantIndexOp::create(
        builder, loc, type.getDimSize(rank - 2) - 1);
    Value nextRow = arith::AddIOp::create(builder, loc, indices[rank - 2], one);
    indices[rank - 2] = arith::MinSIOp::create(builder, loc, nextRow, lastRow);
    Value column = indices[rank - 1];
    for (int64_t offset = 0; offset < vectorElements; offset += lineElements) {
      Value step = arith::ConstantIndexOp::create(builder, loc, offset);
      indices[rank - 1] =
          offset == 0 ? column
                      : arith::AddIOp::create(builder, loc, column, step);
      // Locality 2 (x86 `prefetcht1`, into L2) rather than 3 (`prefetcht0`,
      // into L1): the row waits in L2 for the first visit, and the fills do
      // not take L1's miss buffers from the passes computing on this row.
      // Softmax over [4096, 4096] on Zen 4, medians of 10 calls: 7.16-7.47
      // ms with 3, 6.90-7.11 with 2; 1 (`prefetcht2`) and 0 (`prefetchnta`)
      // as 2; two or three rows ahead no faster.
      memref::PrefetchOp::create(builder, loc, view, indices,
                                 /*isWrite=*/false, /*localityHint=*/2,
                                 /*isDataCache=*/true);
    }
    LLVM_DEBUG(llvm::dbgs()
               << "prefetch the next row of " << type << " at " << loc << "\n");
  }
}

} // namespace fleet::codegen::detail
