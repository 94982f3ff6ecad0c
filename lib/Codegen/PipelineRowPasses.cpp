//===- PipelineRowPasses.cpp - a row's first pass beside the last one -----===//
//
// A reduction kernel visits each row in several chunk loops (softmax: max,
// exp and sum, scale; docs/pipeline.md "Row groups"). Its last loop writes
// the row's result, with streaming stores when the result is large
// (NonTemporalStores.cpp), and its first loop only reads the row and
// reduces it. Run one after the other, the stores and the next row's reads
// take turns with the memory. After this step the row loop is software
// pipelined by one pass: the first loop of the next row runs fused with the
// last loop of this row (one loop over the columns, upstream's
// fuseIndependentSiblingForLoops), its reductions are carried to the next
// iteration, and a prologue computes them for the tile's first row; the
// last iteration reads its own row again (the next row index is clamped to
// the tile), whose result it drops (docs/kernels.md "Streaming stores").
//
// Invariant: results are unchanged: the first loop and the ops that finish
// its reductions are free of memory effects and depend on the row only
// through the row loop's induction variable, and the loops fused read and
// write disjoint values.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

using namespace mlir;

#define DEBUG_TYPE "codegen-tile-and-vectorize"

namespace fleet::codegen::detail {

namespace {

/// True when `a` and `b` iterate over the same constant range.
bool sameRange(scf::ForOp a, scf::ForOp b) {
  for (auto [x, y] : {std::pair(a.getLowerBound(), b.getLowerBound()),
                      std::pair(a.getUpperBound(), b.getUpperBound()),
                      std::pair(a.getStep(), b.getStep())}) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (!cx || cx != cy)
      return false;
  }
  return true;
}

/// Pipelines `rowLoop` when its body is [pre ops] first [reduction ops]
/// second ... last [ops], the chunk loops over the same constant range.
bool pipeline(scf::ForOp rowLoop) {
  std::optional<int64_t> lower = getConstantIntValue(rowLoop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(rowLoop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(rowLoop.getStep());
  if (!lower || !upper || !step || *step != 1 || *upper - *lower < 2)
    return false;
  Block *body = rowLoop.getBody();
  SmallVector<scf::ForOp> chunks;
  for (Operation &op : body->without_terminator())
    if (auto loop = dyn_cast<scf::ForOp>(op))
      chunks.push_back(loop);
  if (chunks.size() < 3)
    return false;
  scf::ForOp first = chunks.front(), second = chunks[1], last = chunks.back();
  if (!llvm::all_of(chunks, [&](scf::ForOp c) { return sameRange(c, first); }))
    return false;
  // The first loop only reads and reduces: no tensor results.
  if (llvm::any_of(first.getResultTypes(),
                   [](Type t) { return isa<TensorType>(t); }))
    return false;
  // Everything before the second loop is pure and is recomputed per row
  // from the induction variable.
  SmallVector<Operation *> head;
  for (Operation &op : body->without_terminator()) {
    if (&op == second.getOperation())
      break;
    if (!isMemoryEffectFree(&op))
      return false;
    head.push_back(&op);
  }
  // What the rest of the row uses from the first loop's part of the head
  // (its results and what is computed from them) is carried.
  llvm::SmallPtrSet<Operation *, 16> fromFirst = {first.getOperation()};
  for (Operation *op : head)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && fromFirst.count(def))
        fromFirst.insert(op);
  SmallVector<Value> carried;
  for (Operation *op : head) {
    if (!fromFirst.count(op))
      continue;
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *inBody = body->findAncestorOpInBlock(*user);
            return !inBody || !llvm::is_contained(head, inBody);
          }))
        carried.push_back(result);
  }
  if (carried.empty())
    return false;
  // The last loop must not read what the first one reads and writes
  // nothing the first one reads: the first reads bindings only (values
  // from outside the row loop), the last writes the row's result.
  bool firstReadsOutside = true;
  first.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isa<TensorType>(operand.getType()) &&
          rowLoop->isAncestor(operand.getParentRegion()->getParentOp()) &&
          !first->isAncestor(operand.getParentRegion()->getParentOp()))
        firstReadsOutside = false;
  });
  if (!firstReadsOutside)
    return false;

  IRRewriter rewriter(rowLoop);
  Location loc = rowLoop.getLoc();
  Value iv = rowLoop.getInductionVar();
  // The prologue: the head for the first row.
  rewriter.setInsertionPoint(rowLoop);
  IRMapping prologue;
  prologue.map(iv, rowLoop.getLowerBound());
  for (Operation *op : head)
    rewriter.clone(*op, prologue);
  SmallVector<Value> inits(rowLoop.getInitArgs());
  for (Value value : carried)
    inits.push_back(prologue.lookup(value));

  auto pipelined = scf::ForOp::create(
      rewriter, loc, rowLoop.getLowerBound(), rowLoop.getUpperBound(),
      rowLoop.getStep(), inits);
  Block *newBody = pipelined.getBody();
  rewriter.setInsertionPointToStart(newBody);
  IRMapping now;
  now.map(iv, pipelined.getInductionVar());
  for (auto [old, fresh] : llvm::zip(rowLoop.getRegionIterArgs(),
                                     pipelined.getRegionIterArgs()))
    now.map(old, fresh);
  // This row's head without the first loop's part (row indices, ...).
  for (Operation *op : head)
    if (!fromFirst.count(op))
      rewriter.clone(*op, now);
  for (auto [value, arg] : llvm::zip(
           carried, pipelined.getRegionIterArgs().drop_front(
                        rowLoop.getNumRegionIterArgs())))
    now.map(value, arg);
  // The next row's head, its index clamped to the tile's last row.
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value lastRow = arith::ConstantIndexOp::create(rewriter, loc, *upper - 1);
  Value next = arith::MinSIOp::create(
      rewriter, loc,
      arith::AddIOp::create(rewriter, loc, pipelined.getInductionVar(), one),
      lastRow);
  IRMapping ahead;
  ahead.map(iv, next);
  // The rest of the row up to its last loop, then the next row's first loop
  // and this row's last loop side by side, then the next row's reductions
  // and the rest of this row.
  Operation *nextFirst = nullptr;
  for (Operation &op : body->without_terminator()) {
    if (llvm::is_contained(head, &op))
      continue;
    if (&op == last.getOperation()) {
      for (Operation *h : head)
        if (!fromFirst.count(h) || h == first.getOperation()) {
          Operation *copy = rewriter.clone(*h, ahead);
          if (h == first.getOperation())
            nextFirst = copy;
        }
    }
    rewriter.clone(op, now);
  }
  for (Operation *h : head)
    if (fromFirst.count(h) && h != first.getOperation())
      rewriter.clone(*h, ahead);
  SmallVector<Value> yielded;
  for (Value value : body->getTerminator()->getOperands())
    yielded.push_back(now.lookupOrDefault(value));
  for (Value value : carried)
    yielded.push_back(ahead.lookup(value));
  scf::YieldOp::create(rewriter, loc, yielded);

  auto nextLoop = cast<scf::ForOp>(nextFirst);
  auto thisLast = cast<scf::ForOp>(now.lookup(last.getOperation()));
  fuseIndependentSiblingForLoops(nextLoop, thisLast, rewriter);
  rewriter.replaceOp(rowLoop, pipelined.getResults().take_front(
                                  rowLoop.getNumResults()));
  LLVM_DEBUG(llvm::dbgs() << "row passes pipelined at " << loc << " ("
                          << chunks.size() << " chunk loops, "
                          << carried.size() << " values carried)\n");
  return true;
}

} // namespace

void pipelineRowPasses(func::FuncOp func) {
  SmallVector<scf::ForOp> rowLoops;
  func.walk([&](scf::ForOp loop) {
    if (!loop->getParentOfType<scf::ForOp>())
      rowLoops.push_back(loop);
  });
  for (scf::ForOp loop : rowLoops)
    pipeline(loop);
}

} // namespace fleet::codegen::detail
