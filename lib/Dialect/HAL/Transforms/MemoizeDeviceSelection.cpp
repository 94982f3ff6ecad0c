//===- MemoizeDeviceSelection.cpp - select allocating devices once --------===//
//
// Invariant established: every hal.allocator.select computed only from
// constants and immutable globals (device globals, memoized link answers)
// runs once, in an initializer, and its device and queue affinity are read
// from globals. Identical selections (same computation) share globals.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "InitializerHoisting.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"
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

/// The ops computing a select's operands, with a structural key so that
/// identical computations in different functions share one global.
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
    std::string key = "select(";
    for (Value operand : select.getOperands()) {
      FailureOr<std::string> operandKey = visit(operand, slice);
      if (failed(operandKey))
        return failure();
      key += *operandKey + ",";
    }
    slice.key = key + ")";
    return slice;
  }

private:
  FailureOr<std::string> visit(Value value, Slice &slice) {
    Operation *op = value.getDefiningOp();
    if (!op) {
      LLVM_DEBUG(llvm::dbgs() << "skip: depends on a block argument\n");
      return failure();
    }
    std::string key;
    llvm::raw_string_ostream os(key);
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
      return key;
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
      FailureOr<std::string> operandKey = visit(operand, slice);
      if (failed(operandKey))
        return failure();
      os << *operandKey << ",";
    }
    os << ")#" << cast<OpResult>(value).getResultNumber() << ":"
       << value.getType();
    slice.ops.insert(op);
    return key;
  }

  InitializerHoister &hoister;
};

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
        if (group.selects.empty())
          group.slice = std::move(*slice);
        group.selects.push_back(select);
      });
    }

    unsigned counter = 0;
    for (auto &[key, group] : groups) {
      Operation *anchor = nullptr;
      for (AllocatorSelectOp select : group.selects) {
        Operation *topLevel = hoister.getTopLevelOp(select);
        if (!anchor || topLevel->isBeforeInBlock(anchor))
          anchor = topLevel;
      }
      if (!llvm::all_of(group.slice.globals, [&](util::GlobalOp global) {
            return hoister.isInitializedBefore(global, anchor);
          })) {
        LLVM_DEBUG(llvm::dbgs() << "skip: reads a global stored after its "
                                   "first use\n");
        continue;
      }
      AllocatorSelectOp prototype = group.selects.front();
      std::string name = "__allocator_select_" + std::to_string(counter++);
      // The memory bits are memoized with the choice: the allocation that
      // consumes them needs them too, and they come from the same queries.
      SmallVector<std::string> names = {
          name + "_device", name + "_queue_affinity", name + "_memory_types",
          name + "_buffer_usage"};
      SmallVector<Type> types(prototype->getResultTypes());
      types.push_back(prototype.getMemoryTypes().getType());
      types.push_back(prototype.getBufferUsage().getType());
      SmallVector<util::GlobalOp> globals = hoister.hoist(
          anchor, prototype.getLoc(), names, types,
          [&](OpBuilder &builder) {
            SmallVector<Operation *> ordered(group.slice.ops.begin(),
                                             group.slice.ops.end());
            // Ops of one block: sort so producers come first.
            computeTopologicalSorting(ordered);
            IRMapping mapping;
            for (Operation *op : ordered)
              builder.clone(*op, mapping);
            auto clone =
                cast<AllocatorSelectOp>(builder.clone(*prototype, mapping));
            return SmallVector<Value>{clone.getSelectedDevice(),
                                      clone.getSelectedQueueAffinity(),
                                      clone.getMemoryTypes(),
                                      clone.getBufferUsage()};
          });
      for (AllocatorSelectOp select : group.selects) {
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
                   select->isBeforeInBlock(user);
          });
        }
        select.erase();
        for (Value load : loads)
          if (load.use_empty())
            load.getDefiningOp()->erase();
        // The computation that fed the select is dead now unless shared.
        SmallVector<Operation *> worklist = std::move(inputs);
        while (!worklist.empty()) {
          Operation *op = worklist.pop_back_val();
          if (!isOpTriviallyDead(op))
            continue;
          for (Value operand : op->getOperands())
            if (Operation *def = operand.getDefiningOp())
              worklist.push_back(def);
          op->erase();
        }
      }
    }
  }
};

} // namespace
