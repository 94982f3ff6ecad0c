//===- TimepointCoverage.cpp - which timepoints imply which ---------------===//
//
// The lattice of a timepoint is the set of timepoints it covers, ordered by
// reverse inclusion: the optimistic start (not yet visited) stands for every
// timepoint and the framework's join is the intersection, so merges keep
// only what every path guarantees (the greatest fixpoint of a must-analysis,
// as for available expressions). Rules: TimepointCoverage.h.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Stream/Analysis/TimepointCoverage.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-timepoint-coverage"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

/// The timepoints known reached whenever the anchor timepoint is.
class CoveredSet {
public:
  /// Not yet known: the optimistic start, standing for every timepoint.
  CoveredSet() = default;
  static CoveredSet nothing() {
    CoveredSet set;
    set.known = true;
    return set;
  }

  bool isKnown() const { return known; }
  bool contains(Value value) const { return !known || values.contains(value); }

  /// What `value` covers together with `value` itself.
  static CoveredSet including(Value value, const CoveredSet &covered) {
    CoveredSet set = covered;
    if (set.known)
      set.values.insert(value);
    return set;
  }
  /// Reached after both: the union (unknown absorbs).
  void unite(const CoveredSet &other) {
    if (!other.known) {
      *this = CoveredSet();
      return;
    }
    if (known)
      values.insert(other.values.begin(), other.values.end());
  }
  /// Reached after either: the intersection, the lattice join.
  static CoveredSet join(const CoveredSet &a, const CoveredSet &b) {
    if (!a.known)
      return b;
    if (!b.known)
      return a;
    CoveredSet set = nothing();
    for (Value value : a.values)
      if (b.values.contains(value))
        set.values.insert(value);
    return set;
  }

  bool operator==(const CoveredSet &other) const {
    if (known != other.known || values.size() != other.values.size())
      return false;
    return llvm::all_of(values,
                        [&](Value v) { return other.values.contains(v); });
  }

  void print(raw_ostream &os) const {
    if (!known) {
      os << "<not yet known>";
      return;
    }
    os << "covers " << values.size() << " timepoint(s)";
  }

private:
  bool known = false;
  llvm::SetVector<Value> values;
};

class CoverageLattice : public dataflow::Lattice<CoveredSet> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CoverageLattice)
  using Lattice::Lattice;
};

bool isTimepoint(Value value) { return isa<TimepointType>(value.getType()); }

class CoverageAnalysis
    : public dataflow::SparseForwardDataFlowAnalysis<CoverageLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  void setToEntryState(CoverageLattice *lattice) override {
    propagateIfChanged(lattice, lattice->join(CoveredSet::nothing()));
  }

  LogicalResult visitOperation(Operation *op,
                               ArrayRef<const CoverageLattice *> operands,
                               ArrayRef<CoverageLattice *> results) override {
    ProgramPoint *point = getProgramPointAfter(op);
    auto coverOf = [&](Value value) {
      return CoveredSet::including(
          value, getLatticeElementFor(point, value)->getValue());
    };
    for (auto [result, lattice] : llvm::zip_equal(op->getResults(), results)) {
      if (!isTimepoint(result)) {
        setToEntryState(lattice);
        continue;
      }
      CoveredSet set = CoveredSet::nothing();
      if (auto select = dyn_cast<arith::SelectOp>(op)) {
        set = CoveredSet::join(coverOf(select.getTrueValue()),
                               coverOf(select.getFalseValue()));
      } else if (auto join = dyn_cast<TimepointJoinOp>(op)) {
        for (Value await : join.getAwaitTimepoints())
          set.unite(coverOf(await));
      } else if (auto import = dyn_cast<TimepointImportOp>(op)) {
        for (Value await : getAwareWaits(import))
          set.unite(coverOf(await));
      } else if (auto timeline = dyn_cast<TimelineOpInterface>(op)) {
        if (timeline.getResultTimepoint() == result)
          for (Value await : timeline.getAwaitTimepoints())
            set.unite(coverOf(await));
      }
      propagateIfChanged(lattice, lattice->join(set));
    }
    return success();
  }

  /// A call's timepoint result covers the operands its callee's returns all
  /// cover (as arguments); the callee's own lattices stay local to it.
  LogicalResult visitCallOperation(
      CallOpInterface call,
      ArrayRef<const dataflow::AbstractSparseLattice *> operandLattices,
      ArrayRef<dataflow::AbstractSparseLattice *> resultLattices) override {
    auto callable = dyn_cast_if_present<CallableOpInterface>(
        call.resolveCallableInTable(&symbols));
    Region *body = callable ? callable.getCallableRegion() : nullptr;
    ProgramPoint *point = getProgramPointAfter(call);
    SmallVector<Operation *> returns;
    if (body)
      for (Block &block : *body)
        if (block.mightHaveTerminator() &&
            block.getTerminator()->hasTrait<OpTrait::ReturnLike>())
          returns.push_back(block.getTerminator());
    ValueRange args = call.getArgOperands();
    for (auto [index, abstract] : llvm::enumerate(resultLattices)) {
      auto *lattice = static_cast<CoverageLattice *>(abstract);
      Value result = call->getResult(index);
      if (!isTimepoint(result) || returns.empty() || body->empty()) {
        setToEntryState(lattice);
        continue;
      }
      Block &entry = body->front();
      CoveredSet set = CoveredSet::nothing();
      for (auto [argIndex, arg] : llvm::enumerate(entry.getArguments())) {
        if (!isTimepoint(arg) || argIndex >= args.size())
          continue;
        bool coveredByAll = llvm::all_of(returns, [&](Operation *ret) {
          if (index >= ret->getNumOperands())
            return false;
          Value returned = ret->getOperand(index);
          return returned == arg ||
                 getLatticeElementFor(point, returned)->getValue().contains(
                     arg);
        });
        if (coveredByAll)
          set.unite(CoveredSet::including(
              args[argIndex],
              getLatticeElementFor(point, args[argIndex])->getValue()));
      }
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] call result #" << index
                              << " of " << call->getName() << ": ";
                 set.print(llvm::dbgs()); llvm::dbgs() << "\n");
      propagateIfChanged(lattice, lattice->join(set));
    }
    return success();
  }

  /// Arguments of a callable cover nothing: coverage never crosses into a
  /// callee (its facts would name the caller's values).
  void visitCallableOperation(
      CallableOpInterface,
      ArrayRef<dataflow::AbstractSparseLattice *> argLattices) override {
    for (dataflow::AbstractSparseLattice *lattice : argLattices)
      setToEntryState(static_cast<CoverageLattice *>(lattice));
  }

private:
  /// The timepoints flowing into the waits of the timeline-aware op whose
  /// signal fence `import` imports.
  SmallVector<Value> getAwareWaits(TimepointImportOp import) {
    SmallVector<Value> awaits;
    for (Value fence : import.getOperands())
      for (Operation *user : fence.getUsers()) {
        auto aware = dyn_cast<TimelineAwareOpInterface>(user);
        if (!aware || !aware.isTimelineAware() ||
            aware.getSignalFence() != fence)
          continue;
        for (Value wait : aware.getWaitFences()) {
          if (auto exported = wait.getDefiningOp<TimepointExportOp>())
            awaits.push_back(exported.getAwaitTimepoint());
          for (Operation *waitUser : wait.getUsers())
            if (auto chain = dyn_cast<TimepointChainExternalOp>(waitUser))
              awaits.push_back(chain.getAwaitTimepoint());
        }
      }
    return awaits;
  }

  SymbolTableCollection symbols;
};

} // namespace

TimepointCoverage::TimepointCoverage(Operation *root) : root(root) {}

LogicalResult TimepointCoverage::run() {
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<CoverageAnalysis>();
  return solver.initializeAndRun(root);
}

bool TimepointCoverage::covers(Value timepoint, Value other) const {
  const auto *lattice = solver.lookupState<CoverageLattice>(timepoint);
  if (!lattice || !lattice->getValue().isKnown())
    return false;
  return lattice->getValue().contains(other);
}
