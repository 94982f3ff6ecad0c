//===- ScheduleConcurrency.cpp - concurrent waves in execute regions ------===//
//
// Invariant established: inside every `stream.async.execute`, ops that do
// not depend on each other and sit at the same dependency depth (a wave) are
// grouped in one `stream.async.concurrent` region when there are two or
// more of them; the waves follow each other in dependency order.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-schedule-concurrency"

namespace fleet::stream {
#define GEN_PASS_DEF_SCHEDULECONCURRENCYPASS
#include "fleet/Dialect/Stream/Transforms/Passes.h.inc"
} // namespace fleet::stream

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

void scheduleWaves(AsyncExecuteOp execute, SymbolTableCollection &symbols) {
  Block &body = execute.getBody().front();
  // Depth of each streamable op: 1 + the deepest producer in the region.
  // A dispatch whose export is not in the module may write any operand: it
  // gets a wave of its own, after everything before it, and everything
  // after it comes later (`floor`).
  DenseMap<Operation *, unsigned> depth;
  SmallVector<SmallVector<Operation *>> waves;
  unsigned floor = 0;
  for (Operation &op : body.without_terminator()) {
    if (!isa<StreamableOpInterface>(op))
      continue;
    unsigned d = floor;
    for (Value operand : op.getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (producer->getBlock() == &body)
          d = std::max(d, depth.lookup(producer));
    if (isUnresolvedDispatch(&op, symbols)) {
      d = std::max<unsigned>(d, waves.size());
      floor = d + 1;
      LLVM_DEBUG(llvm::dbgs() << "unresolved dispatch at " << op.getLoc()
                              << ": wave " << d << " alone\n");
    }
    depth[&op] = d + 1;
    if (waves.size() <= d)
      waves.resize(d + 1);
    waves[d].push_back(&op);
  }
  if (llvm::all_of(waves, [](auto &wave) { return wave.size() < 2; }))
    return;

  // Move waves in order before the terminator (a topological order).
  Operation *terminator = body.getTerminator();
  for (auto &wave : waves)
    for (Operation *op : wave)
      op->moveBefore(terminator);

  for (auto &wave : waves) {
    if (wave.size() < 2)
      continue;
    OpBuilder builder(wave.back()->getContext());
    builder.setInsertionPointAfter(wave.back());
    Location loc = wave.front()->getLoc();
    // The ops of a wave do not use each other: their resource operands are
    // the captures, their used results the yields.
    RegionInterface interface = getRegionInterface(builder, loc, wave);
    const llvm::SetVector<Value> &results = interface.results;
    auto concurrent = AsyncConcurrentOp::create(
        builder, loc, interface.resultTypes,
        interface.captures.getArrayRef(), interface.captureSizes,
        interface.resultSizes, /*tied_operands=*/ArrayAttr{}, Attribute{});
    moveIntoRegion(builder, concurrent.getBody(), loc, wave, interface);
    for (auto [i, result] : llvm::enumerate(results))
      Value(result).replaceUsesWithIf(concurrent.getResult(i), [&](OpOperand &use) {
        return !concurrent->isAncestor(use.getOwner());
      });
  }
}

struct ScheduleConcurrencyPass
    : public fleet::stream::impl::ScheduleConcurrencyPassBase<
          ScheduleConcurrencyPass> {
  bool canScheduleOn(RegisteredOperationName name) const override {
    return canScheduleOnHostCallable(name);
  }

  void runOnOperation() override {
    SmallVector<AsyncExecuteOp> executes;
    for (Operation *callable : getHostCallables(getOperation()))
      callable->walk([&](AsyncExecuteOp op) { executes.push_back(op); });
    SymbolTableCollection symbols;
    for (AsyncExecuteOp execute : executes)
      scheduleWaves(execute, symbols);
  }
};

} // namespace
