//===- MemoizeDeviceQueries.cpp - ask each device question once -----------===//
//
// Invariant established: every hal.device.query and hal.device.query.link on
// devices read from immutable globals is asked once, in an initializer, and
// its answer read from globals everywhere else. Device configuration and
// topology do not change while a program runs, so this changes no result.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "InitializerHoisting.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-memoize-device-queries"

namespace fleet::hal {
#define GEN_PASS_DEF_MEMOIZEDEVICEQUERIESPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

/// Keeps `name` usable inside a symbol name.
std::string sanitize(StringRef name) {
  std::string result;
  for (char c : name)
    result.push_back(llvm::isAlnum(c) ? c : '_');
  return result;
}

struct MemoizeDeviceQueriesPass
    : public fleet::hal::impl::MemoizeDeviceQueriesPassBase<
          MemoizeDeviceQueriesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    InitializerHoister hoister(module);

    // Unique queries in first-use order: key → (name, ops, device globals).
    struct Group {
      std::string name;
      SmallVector<Operation *> ops;
      SmallVector<util::GlobalOp> deviceGlobals;
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
    auto addQuery = [&](Operation *op, ValueRange devices, StringRef what,
                        Attribute defaultValue) {
      SmallVector<util::GlobalOp> globals;
      std::string key = op->getName().getStringRef().str();
      std::string name = "__device";
      for (Value device : devices) {
        auto load = device.getDefiningOp<util::GlobalLoadOp>();
        util::GlobalOp global = load ? hoister.getHoistableGlobal(load) : nullptr;
        if (!global) {
          LLVM_DEBUG(llvm::dbgs() << "skip: device of " << *op
                                  << " is not an immutable global\n");
          return;
        }
        globals.push_back(global);
        key += " @" + global.getSymName().str();
        name += "_" + sanitize(global.getSymName());
      }
      key += " " + what.str();
      if (defaultValue) {
        std::string printed;
        llvm::raw_string_ostream os(printed);
        defaultValue.print(os);
        key += " = " + printed;
      }
      name += (isa<DeviceQueryLinkOp>(op) ? "_link_" : "_query_") +
              sanitize(what);
      Group &group = getGroup(key);
      if (group.ops.empty()) {
        group.name = name;
        group.deviceGlobals = globals;
      }
      group.ops.push_back(op);
    };
    for (Operation &topLevel : module.getBody()->getOperations()) {
      if (!isa<util::FuncOp, util::InitializerOp>(topLevel))
        continue;
      topLevel.walk([&](Operation *op) {
        if (auto query = dyn_cast<DeviceQueryOp>(op))
          addQuery(op, query.getDevice(),
                   (query.getCategory() + "::" + query.getKey()).str(),
                   query.getDefaultValueAttr());
        else if (auto link = dyn_cast<DeviceQueryLinkOp>(op))
          addQuery(op, {link.getSourceDevice(), link.getTargetDevice()},
                   link.getKey(), link.getDefaultValueAttr());
      });
    }

    for (auto &[key, group] : groups) {
      // Before every user, after whatever initializes the devices.
      Operation *anchor = nullptr;
      for (Operation *op : group.ops) {
        Operation *topLevel = hoister.getTopLevelOp(op);
        if (!anchor || topLevel->isBeforeInBlock(anchor))
          anchor = topLevel;
      }
      if (!llvm::all_of(group.deviceGlobals, [&](util::GlobalOp global) {
            return hoister.isInitializedBefore(global, anchor);
          })) {
        LLVM_DEBUG(llvm::dbgs() << "skip: " << key
                                << " reads a device stored after its use\n");
        continue;
      }
      Operation *prototype = group.ops.front();
      SmallVector<Type> types(prototype->getResultTypes());
      SmallVector<std::string> names = {group.name + "_ok", group.name};
      SmallVector<util::GlobalOp> globals = hoister.hoist(
          anchor, prototype->getLoc(), names, types, [&](OpBuilder &builder) {
            IRMapping mapping;
            for (auto [operand, global] : llvm::zip_equal(
                     prototype->getOperands(), group.deviceGlobals))
              mapping.map(operand, util::GlobalLoadOp::create(
                                       builder, prototype->getLoc(), global));
            Operation *clone = builder.clone(*prototype, mapping);
            return SmallVector<Value>(clone->getResults());
          });
      for (Operation *op : group.ops) {
        OpBuilder builder(op);
        for (auto [result, global] :
             llvm::zip_equal(op->getResults(), globals))
          result.replaceAllUsesWith(
              util::GlobalLoadOp::create(builder, op->getLoc(), global));
        op->erase();
      }
    }
  }
};

} // namespace
