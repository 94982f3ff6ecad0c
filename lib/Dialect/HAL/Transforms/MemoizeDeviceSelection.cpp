//===- MemoizeDeviceSelection.cpp - select allocating devices once --------===//
//
// Invariant established: every hal.allocator.select computed only from
// constants and immutable globals (device globals, memoized link answers)
// runs once, in an initializer, and its device and queue affinity are read
// from globals. Identical selections (same computation) share globals.
//
// Layout (IREE's, docs/pipeline.md "Memoized globals"): each selection's
// private globals @__allocator_select_device and _affinity (then Fleet's
// _memory_types and _buffer_usage) and its initializer go right before the
// first function or initializer using it; later selections get the names
// with `_0`, `_1`, ... appended, as IREE's symbol table renames them.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "InitializerHoisting.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-memoize-device-selection"

namespace fleet::hal {
#define GEN_PASS_DEF_MEMOIZEDEVICESELECTIONPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

/// The ops computing a select's operands (producers first), with a
/// structural key so that identical computations in different functions
/// share one global.
struct Slice {
  llvm::SetVector<Operation *> ops;
  SmallVector<util::GlobalOp> globals;
  std::string key;
};

class SliceBuilder {
public:
  explicit SliceBuilder(InitializerHoister &hoister) : hoister(hoister) {}

  /// Fails when a value depends on anything but constants, immutable global
  /// loads and side-effect-free region-free ops.
  FailureOr<Slice> build(AllocatorSelectOp select) {
    Slice slice;
    visited.clear();
    std::string key = "select(";
    llvm::raw_string_ostream os(key);
    for (Value operand : select.getOperands()) {
      if (failed(visit(operand, slice, os)))
        return failure();
      os << ",";
    }
    os << ")";
    slice.key = std::move(key);
    return slice;
  }

private:
  /// Appends the key of `value` to `os`. A value seen before in this slice
  /// is written as a back reference (`$n`, its visit number), so the key
  /// grows with the slice, not with the number of paths through it.
  LogicalResult visit(Value value, Slice &slice, llvm::raw_ostream &os) {
    auto [it, inserted] = visited.try_emplace(value, visited.size());
    if (!inserted) {
      os << "$" << it->second;
      return success();
    }
    Operation *op = value.getDefiningOp();
    if (!op) {
      LLVM_DEBUG(llvm::dbgs() << "skip: depends on a block argument\n");
      return failure();
    }
    if (auto load = dyn_cast<util::GlobalLoadOp>(op)) {
      util::GlobalOp global = hoister.getHoistableGlobal(load);
      if (!global) {
        LLVM_DEBUG(llvm::dbgs() << "skip: reads mutable @" << load.getGlobal()
                                << "\n");
        return failure();
      }
      if (!llvm::is_contained(slice.globals, global))
        slice.globals.push_back(global);
      slice.ops.insert(op);
      os << "@" << load.getGlobal();
      return success();
    }
    bool hoistable = op->getNumRegions() == 0 &&
                     (matchPattern(op, m_Constant()) || isPure(op));
    if (!hoistable) {
      LLVM_DEBUG(llvm::dbgs() << "skip: depends on " << op->getName()
                              << ", which has effects or regions\n");
      return failure();
    }
    os << op->getName() << "{";
    if (Attribute properties = op->getPropertiesAsAttribute())
      properties.print(os);
    op->getDiscardableAttrDictionary().print(os);
    os << "}(";
    for (Value operand : op->getOperands()) {
      if (failed(visit(operand, slice, os)))
        return failure();
      os << ",";
    }
    os << ")#" << cast<OpResult>(value).getResultNumber() << ":"
       << value.getType();
    // After its operands: the slice lists producers first.
    slice.ops.insert(op);
    return success();
  }

  InitializerHoister &hoister;
  /// Values of the slice being built → visit number.
  DenseMap<Value, unsigned> visited;
};

/// Positions of the ops of blocks, numbered once per block on first use:
/// Operation::isBeforeInBlock would renumber the whole block after every
/// batch of loads this pass inserts (quadratic in the number of selects).
class BlockOrder {
public:
  /// True when `a` comes before `b`; both are in one block and existed when
  /// that block was first numbered.
  bool isBefore(Operation *a, Operation *b) {
    DenseMap<Operation *, unsigned> &order = getOrder(a->getBlock());
    return order.lookup(a) < order.lookup(b);
  }

private:
  DenseMap<Operation *, unsigned> &getOrder(Block *block) {
    auto [it, inserted] = orders.try_emplace(block);
    if (inserted) {
      unsigned position = 0;
      for (Operation &op : *block)
        it->second[&op] = position++;
    }
    return it->second;
  }

  DenseMap<Block *, DenseMap<Operation *, unsigned>> orders;
};

/// The names of the globals of the `index`-th selection, as IREE's symbol
/// table would unique them: the base names first, then `_0`, `_1`, ...
SmallVector<std::string> getSelectionNames(unsigned index) {
  std::string suffix = index == 0 ? "" : "_" + std::to_string(index - 1);
  // The memory bits are Fleet's: the allocation consuming them needs them
  // too, and they come from the same (memoized) queries.
  return {"__allocator_select_device" + suffix,
          "__allocator_select_affinity" + suffix,
          "__allocator_select_memory_types" + suffix,
          "__allocator_select_buffer_usage" + suffix};
}

struct MemoizeDeviceSelectionPass
    : public fleet::hal::impl::MemoizeDeviceSelectionPassBase<
          MemoizeDeviceSelectionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    InitializerHoister hoister(module);
    SliceBuilder sliceBuilder(hoister);

    struct Group {
      Slice slice;
      SmallVector<AllocatorSelectOp> selects;
      /// The first top-level op (function, initializer) using it.
      Operation *anchor = nullptr;
    };
    // In first-use order, keyed by the structural key.
    std::vector<std::pair<std::string, Group>> groups;
    llvm::StringMap<unsigned> groupIndex;
    auto getGroup = [&](const std::string &key) -> Group & {
      auto [it, inserted] = groupIndex.try_emplace(key, groups.size());
      if (inserted)
        groups.emplace_back(key, Group());
      return groups[it->second].second;
    };
    for (Operation &topLevel : module.getBody()->getOperations()) {
      if (!isa<util::FuncOp, util::InitializerOp>(topLevel))
        continue;
      topLevel.walk([&](AllocatorSelectOp select) {
        FailureOr<Slice> slice = sliceBuilder.build(select);
        if (failed(slice))
          return;
        Group &group = getGroup(slice->key);
        if (group.selects.empty()) {
          group.slice = std::move(*slice);
          // Top-level ops are walked in module order.
          group.anchor = &topLevel;
        }
        group.selects.push_back(select);
      });
    }

    BlockOrder blockOrder;
    unsigned memoized = 0;
    for (auto &[key, group] : groups) {
      Operation *anchor = group.anchor;
      if (!llvm::all_of(group.slice.globals, [&](util::GlobalOp global) {
            return hoister.isInitializedBefore(global, anchor);
          })) {
        LLVM_DEBUG(llvm::dbgs() << "skip: reads a global stored after its "
                                   "first use\n");
        continue;
      }
      AllocatorSelectOp prototype = group.selects.front();
      SmallVector<std::string> names = getSelectionNames(memoized++);
      SmallVector<Type> types(prototype->getResultTypes());
      types.push_back(prototype.getMemoryTypes().getType());
      types.push_back(prototype.getBufferUsage().getType());
      OpBuilder moduleBuilder(anchor);
      SmallVector<util::GlobalOp> globals = hoister.hoist(
          moduleBuilder, prototype.getLoc(), names, types,
          [&](OpBuilder &builder, ArrayRef<util::GlobalOp> globals) {
            IRMapping mapping;
            for (Operation *op : group.slice.ops)
              builder.clone(*op, mapping);
            auto clone =
                cast<AllocatorSelectOp>(builder.clone(*prototype, mapping));
            Value values[] = {clone.getSelectedDevice(),
                              clone.getSelectedQueueAffinity(),
                              clone.getMemoryTypes(), clone.getBufferUsage()};
            for (auto [value, global] : llvm::zip_equal(values, globals))
              util::GlobalStoreOp::create(builder, prototype.getLoc(), value,
                                          util::GlobalOp(global).getSymName());
          });
      for (AllocatorSelectOp select : group.selects)
        replaceSelect(select, globals, blockOrder);
    }
    if (memoized == 0)
      markAllAnalysesPreserved();
  }

  /// Replaces `select` with loads of the memoized `globals` and erases the
  /// computation that fed only it.
  void replaceSelect(AllocatorSelectOp select, ArrayRef<util::GlobalOp> globals,
                     BlockOrder &blockOrder) {
    OpBuilder builder(select);
    SmallVector<Operation *> inputs;
    for (Value operand : select->getOperands())
      if (Operation *def = operand.getDefiningOp())
        inputs.push_back(def);
    SmallVector<Value> loads;
    for (util::GlobalOp global : globals)
      loads.push_back(
          util::GlobalLoadOp::create(builder, select.getLoc(), global));
    select.getSelectedDevice().replaceAllUsesWith(loads[0]);
    select.getSelectedQueueAffinity().replaceAllUsesWith(loads[1]);
    // Other users of the bits (the allocation) are dominated by the
    // select's operands, not necessarily by the select: replace them in
    // the select's block only after it, where the loads dominate.
    SmallVector<Value, 2> bitsOperands = {select.getMemoryTypes(),
                                          select.getBufferUsage()};
    for (auto [bits, load] : llvm::zip_equal(
             bitsOperands, ArrayRef<Value>(loads).drop_front(2))) {
      if (matchPattern(bits, m_Constant()))
        continue;
      bits.replaceUsesWithIf(load, [&](OpOperand &use) {
        Operation *user = use.getOwner();
        return user != select.getOperation() &&
               user->getBlock() == select->getBlock() &&
               blockOrder.isBefore(select, user);
      });
    }
    select.erase();
    for (Value load : loads)
      if (load.use_empty())
        load.getDefiningOp()->erase();
    // The computation that fed the select is dead now unless shared. An op
    // may be reached twice (an operand used twice): erase it once.
    SmallVector<Operation *> worklist = std::move(inputs);
    llvm::SmallPtrSet<Operation *, 16> erased;
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (erased.contains(op) || !isOpTriviallyDead(op))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.push_back(def);
      erased.insert(op);
      op->erase();
    }
  }
};

} // namespace
