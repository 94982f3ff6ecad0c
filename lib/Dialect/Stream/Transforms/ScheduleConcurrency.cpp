//===- ScheduleConcurrency.cpp - concurrent waves in execute regions ------===//
//
// Invariant established: inside every `stream.async.execute`, each maximal
// run of consecutive ops (program order) none of which uses another's result
// or writes in place what another reads (a wave) is one
// `stream.async.concurrent` region when it has two or more ops; the ops keep
// their order.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Transforms/Passes.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
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
  // Waves are runs of consecutive ops in program order that do not use each
  // other's results: an op joins the current wave unless it reads one of
  // its results. The program's order is kept, so a model written one
  // micro-batch after the other runs that way and each micro-batch's values
  // are still in cache when the next op reads them (docs/pipeline.md
  // "Concurrency"). A dispatch whose export is not in the module may write
  // any operand: it gets a wave of its own.
  // An op writing an operand in place (a tied result) does not share a wave
  // with an op reading that operand, in either order.
  SmallVector<SmallVector<Operation *>> waves;
  DenseSet<Operation *> current;
  DenseSet<Value> readByCurrent, writtenByCurrent;
  bool currentIsClosed = true;
  for (Operation &op : body.without_terminator()) {
    if (!isa<StreamableOpInterface>(op))
      continue;
    bool unresolved = isUnresolvedDispatch(&op, symbols);
    SmallVector<Value> writes;
    if (auto tied = dyn_cast<util::TiedOpInterface>(&op))
      for (Value result : op.getResults())
        if (Value operand = tied.getTiedResultOperand(result))
          writes.push_back(operand);
    bool readsCurrent = llvm::any_of(op.getOperands(), [&](Value operand) {
      Operation *producer = operand.getDefiningOp();
      return (producer && current.contains(producer)) ||
             writtenByCurrent.contains(operand);
    });
    bool writesWhatCurrentReads = llvm::any_of(
        writes, [&](Value operand) { return readByCurrent.contains(operand); });
    if (currentIsClosed || readsCurrent || writesWhatCurrentReads ||
        unresolved) {
      waves.emplace_back();
      current.clear();
      readByCurrent.clear();
      writtenByCurrent.clear();
    }
    waves.back().push_back(&op);
    current.insert(&op);
    readByCurrent.insert(op.getOperands().begin(), op.getOperands().end());
    writtenByCurrent.insert(writes.begin(), writes.end());
    currentIsClosed = unresolved;
    LLVM_DEBUG(if (unresolved) llvm::dbgs()
               << "unresolved dispatch at " << op.getLoc() << ": wave "
               << waves.size() - 1 << " alone\n");
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
        builder, loc, interface.resultTypes, interface.captures.getArrayRef(),
        interface.captureSizes, interface.resultSizes,
        /*tied_operands=*/ArrayAttr{}, Attribute{});
    moveIntoRegion(builder, concurrent.getBody(), loc, wave, interface);
    for (auto [i, result] : llvm::enumerate(results))
      Value(result).replaceUsesWithIf(
          concurrent.getResult(i), [&](OpOperand &use) {
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
