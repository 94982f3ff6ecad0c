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
#include "llvm/ADT/ImmutableSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-timepoint-coverage"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

namespace {

/// The timepoints known reached whenever the anchor timepoint is.
/// Covered sets are persistent AVL trees (llvm::ImmutableSet) from one
/// factory per analysis run: a timepoint's set is its producer's plus a few
/// timepoints, so they share structure, and copying, adding and comparing
/// (shared subtrees compare equal at once) cost O(log n) instead of O(n).
/// With plain sets a chain of n regions took O(n^2) time and memory
/// (bench P3: 10k dispatches, 74 s; now 0.55 s in this pass).
using TimepointSet = llvm::ImmutableSet<const void *>;
thread_local TimepointSet::Factory *currentFactory = nullptr;

TimepointSet::Factory &getFactory() {
  assert(currentFactory && "covered sets are built inside run() only");
  return *currentFactory;
}

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
  bool contains(Value value) const {
    return !known || holds(value);
  }
  /// `value` is among the known elements.
  bool holds(Value value) const {
    return values && values->contains(value.getAsOpaquePointer());
  }

  /// What `value` covers together with `value` itself.
  static CoveredSet including(Value value, const CoveredSet &covered) {
    CoveredSet set = covered;
    if (set.known)
      set.values = getFactory().add(
          set.values ? *set.values : getFactory().getEmptySet(),
          value.getAsOpaquePointer());
    return set;
  }
  /// Reached after both: the union (unknown absorbs). The smaller set is
  /// added into the larger.
  void unite(const CoveredSet &other) {
    if (!other.known) {
      *this = CoveredSet();
      return;
    }
    if (!known || !other.values)
      return;
    if (!values) {
      values = other.values;
      return;
    }
    TimepointSet large = *values, small = *other.values;
    if (large.getHeight() < small.getHeight())
      std::swap(large, small);
    for (const void *value : small)
      large = getFactory().add(large, value);
    values = large;
  }
  /// Reached after either: the intersection, the lattice join.
  static CoveredSet join(const CoveredSet &a, const CoveredSet &b) {
    if (!a.known)
      return b;
    if (!b.known)
      return a;
    CoveredSet set = nothing();
    if (!a.values || !b.values)
      return set;
    if (*a.values == *b.values) {
      set.values = a.values;
      return set;
    }
    const TimepointSet &small =
        a.values->getHeight() <= b.values->getHeight() ? *a.values : *b.values;
    const TimepointSet &large = &small == &*a.values ? *b.values : *a.values;
    TimepointSet result = getFactory().getEmptySet();
    for (const void *value : small)
      if (large.contains(value))
        result = getFactory().add(result, value);
    if (!result.isEmpty())
      set.values = result;
    return set;
  }

  bool operator==(const CoveredSet &other) const {
    if (known != other.known || bool(values) != bool(other.values))
      return false;
    return !values || *values == *other.values;
  }

  void print(raw_ostream &os) const {
    if (!known) {
      os << "<not yet known>";
      return;
    }
    size_t count = 0;
    if (values)
      for (auto it = values->begin(), end = values->end(); it != end; ++it)
        ++count;
    os << "covers " << count << " timepoint(s)";
  }

private:
  bool known = false;
  /// None: the empty set.
  std::optional<TimepointSet> values;
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
      // The union of what the awaited timepoints cover, latest first: an
      // await the set already holds adds nothing new (a set holding a
      // timepoint holds what that one covers), which keeps joins of a long
      // chain with an earlier link of it cheap.
      auto uniteAll = [&](SmallVector<Value> awaits) {
        // Op results before block arguments; by block, then later ops
        // first within a block (a strict weak order).
        llvm::stable_sort(awaits, [](Value a, Value b) {
          Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
          if (!x || !y)
            return x && !y;
          if (x->getBlock() != y->getBlock())
            return std::less<Block *>()(x->getBlock(), y->getBlock());
          return x != y && y->isBeforeInBlock(x);
        });
        for (Value await : awaits)
          if (!set.isKnown() || !set.holds(await))
            set.unite(coverOf(await));
      };
      if (auto select = dyn_cast<arith::SelectOp>(op)) {
        set = CoveredSet::join(coverOf(select.getTrueValue()),
                               coverOf(select.getFalseValue()));
      } else if (auto join = dyn_cast<TimepointJoinOp>(op)) {
        uniteAll(llvm::to_vector(join.getAwaitTimepoints()));
      } else if (auto import = dyn_cast<TimepointImportOp>(op)) {
        uniteAll(getAwareWaits(import));
      } else if (auto timeline = dyn_cast<TimelineOpInterface>(op)) {
        if (timeline.getResultTimepoint() == result)
          uniteAll(llvm::to_vector(timeline.getAwaitTimepoints()));
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

TimepointCoverage::~TimepointCoverage() = default;

LogicalResult TimepointCoverage::run() {
  // Not canonicalized: the factory's canonical-tree cache compared each new
  // tree with the whole contents of others in its bucket, quadratic again
  // on long chains; equal sets compare by content with shared subtrees
  // skipped.
  factory = std::make_unique<TimepointSet::Factory>(/*canonicalize=*/false);
  TimepointSet::Factory *outer = currentFactory;
  currentFactory = factory.get();
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<CoverageAnalysis>();
  LogicalResult result = solver.initializeAndRun(root);
  currentFactory = outer;
  return result;
}

bool TimepointCoverage::covers(Value timepoint, Value other) const {
  const auto *lattice = solver.lookupState<CoverageLattice>(timepoint);
  if (!lattice || !lattice->getValue().isKnown())
    return false;
  return lattice->getValue().contains(other);
}
