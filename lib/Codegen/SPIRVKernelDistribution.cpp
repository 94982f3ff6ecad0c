//===- SPIRVKernelDistribution.cpp - a tile's work over invocations -------===//
//
// distributeToInvocations: once the dispatch function is in loops (linalg
// ops lowered to `scf.parallel` over their parallel dimensions, `scf.for`
// over the rest), the invocations of one workgroup share its tile:
// - every outermost `scf.parallel` becomes one `scf.for` over
//   ceil(iterations / invocations) steps; step k of invocation t runs the
//   parallel iteration k * invocations + t of the row-major linearized
//   space (consecutive invocations take consecutive elements), guarded
//   against the partial last step; nested `scf.parallel` loops run
//   serially inside it;
// - a store outside every parallel loop (a reduction to a scalar, a 0-d
//   fill) is done by invocation 0 alone: the largest enclosing operation
//   without a parallel loop runs under `scf.if (thread_id == 0)` when it
//   has no results, else just the store does;
// - a workgroup barrier follows each of these, so the next loop nest reads
//   what this one wrote. Barriers stay in uniform control flow: every
//   region outside a distributed loop depends on the workgroup id and the
//   push constants only.
// The conversion to SPIR-V makes the barriers cover storage-buffer memory
// too (SPIRVKernelCompiler.cpp).
//
//===----------------------------------------------------------------------===//

#include "SPIRVKernelInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fleet-spirv-distribution"

using namespace mlir;

namespace fleet::codegen::detail {
namespace {

/// Trip count of dimension `d` of `loop`: ceil(max(ub - lb, 0) / step)
/// (the max keeps the unsigned division, and the loop budget's bounds, on
/// non-negative values).
Value getTripCount(OpBuilder &builder, scf::ParallelOp loop, unsigned d) {
  Location loc = loop.getLoc();
  Value extent = arith::SubIOp::create(builder, loc, loop.getUpperBound()[d],
                                       loop.getLowerBound()[d]);
  extent = arith::MaxSIOp::create(
      builder, loc, extent, arith::ConstantIndexOp::create(builder, loc, 0));
  return arith::CeilDivUIOp::create(builder, loc, extent, loop.getStep()[d]);
}

/// Moves the body of `loop` before `before`, its induction variables
/// replaced by `ivs`, dropping its `scf.reduce` terminator.
void inlineBody(RewriterBase &rewriter, scf::ParallelOp loop,
                Operation *before, ValueRange ivs) {
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, before, ivs);
  rewriter.eraseOp(loop);
}

/// A nested `scf.parallel` becomes a serial `scf.for` nest.
void serialize(RewriterBase &rewriter, scf::ParallelOp loop) {
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> ivs;
  Operation *innermostTerminator = nullptr;
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
    auto serial = scf::ForOp::create(rewriter, loop.getLoc(), lb, ub, step);
    ivs.push_back(serial.getInductionVar());
    innermostTerminator = serial.getBody()->getTerminator();
    rewriter.setInsertionPoint(innermostTerminator);
  }
  inlineBody(rewriter, loop, innermostTerminator, ivs);
}

/// Rewrites the outermost `loop` (see the file comment); returns the loop
/// that replaces it.
scf::ForOp distribute(RewriterBase &rewriter, scf::ParallelOp loop,
                      Value threadId, int64_t invocations) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  unsigned rank = loop.getNumLoops();
  SmallVector<Value> trips;
  Value total = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (unsigned d = 0; d < rank; ++d) {
    trips.push_back(getTripCount(rewriter, loop, d));
    total = arith::MulIOp::create(rewriter, loc, total, trips.back());
  }
  Value width = arith::ConstantIndexOp::create(rewriter, loc, invocations);
  Value steps = arith::CeilDivUIOp::create(rewriter, loc, total, width);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto serial = scf::ForOp::create(rewriter, loc, zero, steps, one);
  rewriter.setInsertionPoint(serial.getBody()->getTerminator());
  Value linear = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, serial.getInductionVar(), width),
      threadId);
  Value inRange = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                        linear, total);
  auto guard = scf::IfOp::create(rewriter, loc, inRange,
                                 /*withElseRegion=*/false);
  rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
  // Row-major delinearization: the last dimension varies fastest.
  SmallVector<Value> ivs(rank);
  Value rest = linear;
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value index = d == 0 ? rest
                         : arith::RemUIOp::create(rewriter, loc, rest,
                                                  trips[d])
                               .getResult();
    if (d != 0)
      rest = arith::DivUIOp::create(rewriter, loc, rest, trips[d]);
    Value scaled =
        arith::MulIOp::create(rewriter, loc, index, loop.getStep()[d]);
    ivs[d] =
        arith::AddIOp::create(rewriter, loc, loop.getLowerBound()[d], scaled);
  }
  inlineBody(rewriter, loop, guard.thenBlock()->getTerminator(), ivs);
  return serial;
}

bool containsParallelLoop(Operation *op) {
  return op->walk([](scf::ParallelOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

} // namespace

LogicalResult distributeToInvocations(func::FuncOp func, int64_t invocations) {
  SmallVector<scf::ParallelOp> outermost;
  SmallVector<scf::ParallelOp> nested;
  SmallVector<memref::StoreOp> serialStores;
  func.walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      (loop->getParentOfType<scf::ParallelOp>() ? nested : outermost)
          .push_back(loop);
      return;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op))
      if (!store->getParentOfType<scf::ParallelOp>())
        serialStores.push_back(store);
  });
  for (scf::ParallelOp loop : llvm::concat<scf::ParallelOp>(outermost, nested))
    if (!loop.getInitVals().empty())
      return loop.emitOpError("with reductions cannot be distributed over "
                              "invocations");
  LLVM_DEBUG(llvm::dbgs() << "distribute " << func.getSymName() << ": "
                          << outermost.size() << " parallel loop nests, "
                          << serialStores.size()
                          << " stores outside them, over " << invocations
                          << " invocations\n");

  IRRewriter rewriter(func.getContext());
  Block &entry = func.getBody().front();
  rewriter.setInsertionPointToStart(&entry);
  Location loc = func.getLoc();
  Value threadId = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value isFirst = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        threadId, zero);

  // Serial stores first, while the parallel loops still mark where the
  // invocations split: the largest enclosing op without a parallel loop.
  llvm::SetVector<Operation *> barrierAfter;
  llvm::SetVector<Operation *> firstOnly;
  for (memref::StoreOp store : serialStores) {
    Operation *root = store;
    while (root->getParentOp() != func &&
           !containsParallelLoop(root->getParentOp()))
      root = root->getParentOp();
    barrierAfter.insert(root);
    firstOnly.insert(root->getNumResults() == 0 ? root : store.getOperation());
  }
  for (Operation *op : firstOnly) {
    rewriter.setInsertionPoint(op);
    auto guard = scf::IfOp::create(rewriter, op->getLoc(), isFirst,
                                   /*withElseRegion=*/false);
    rewriter.moveOpBefore(op, guard.thenBlock()->getTerminator());
    if (barrierAfter.remove(op))
      barrierAfter.insert(guard);
  }

  for (scf::ParallelOp loop : nested)
    serialize(rewriter, loop);
  for (scf::ParallelOp loop : outermost)
    barrierAfter.insert(distribute(rewriter, loop, threadId, invocations));

  for (Operation *op : barrierAfter) {
    rewriter.setInsertionPointAfter(op);
    gpu::BarrierOp::create(rewriter, op->getLoc());
  }
  return success();
}

} // namespace fleet::codegen::detail
