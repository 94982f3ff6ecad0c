//===- InitializerHoisting.cpp - computing values once at load ------------===//

#include "InitializerHoisting.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

InitializerHoister::InitializerHoister(ModuleOp module)
    : module(module), symbols(module) {
  for (auto initializer : module.getOps<util::InitializerOp>())
    initializer.walk([&](util::GlobalStoreOp store) {
      storers[store.getGlobal()].push_back(initializer);
    });
}

util::GlobalOp InitializerHoister::getHoistableGlobal(util::GlobalLoadOp load) {
  auto global = symbols.lookup<util::GlobalOp>(load.getGlobal());
  if (!global || global.getIsMutable())
    return {};
  return global;
}

Operation *InitializerHoister::getTopLevelOp(Operation *op) {
  while (op && op->getParentOp() != module.getOperation())
    op = op->getParentOp();
  return op;
}

bool InitializerHoister::isInitializedBefore(util::GlobalOp global,
                                             Operation *anchor) {
  auto it = storers.find(global.getSymName());
  if (it == storers.end())
    return true;
  return llvm::all_of(it->second, [&](Operation *storer) {
    return storer != anchor && storer->isBeforeInBlock(anchor);
  });
}

SmallVector<util::GlobalOp> InitializerHoister::hoist(
    Operation *anchor, Location loc, ArrayRef<std::string> names,
    TypeRange types,
    function_ref<SmallVector<Value>(OpBuilder &)> build) {
  OpBuilder builder(anchor);
  SmallVector<util::GlobalOp> globals;
  for (auto [name, type] : llvm::zip_equal(names, types)) {
    auto global = util::GlobalOp::create(builder, loc, name,
                                         /*isMutable=*/false, type);
    global.setPrivate();
    symbols.insert(global); // renames on collision
    globals.push_back(global);
  }
  auto initializer = util::InitializerOp::create(builder, loc);
  Block *body = builder.createBlock(&initializer.getBody());
  builder.setInsertionPointToStart(body);
  SmallVector<Value> values = build(builder);
  for (auto [value, global] : llvm::zip_equal(values, globals)) {
    util::GlobalStoreOp::create(builder, loc, value, global.getSymName());
    storers[global.getSymName()].push_back(initializer);
  }
  util::ReturnOp::create(builder, loc);
  return globals;
}
