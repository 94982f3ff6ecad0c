//===- InitializerHoisting.cpp - computing values once at load ------------===//

#include "InitializerHoisting.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

InitializerHoister::InitializerHoister(ModuleOp module)
    : module(module), symbols(module) {
  unsigned position = 0;
  for (Operation &op : module.getBody()->getOperations()) {
    positions[&op] = position;
    if (auto initializer = dyn_cast<util::InitializerOp>(op))
      initializer.walk([&](util::GlobalStoreOp store) {
        lastStore[store.getGlobal()] = position;
      });
    ++position;
  }
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

unsigned InitializerHoister::getPosition(Operation *topLevelOp) const {
  auto it = positions.find(topLevelOp);
  assert(it != positions.end() && "op made after the hoister");
  return it->second;
}

std::optional<unsigned>
InitializerHoister::getLastStorePosition(util::GlobalOp global) const {
  auto it = lastStore.find(global.getSymName());
  if (it == lastStore.end())
    return std::nullopt;
  return it->second;
}

bool InitializerHoister::isInitializedBefore(util::GlobalOp global,
                                             Operation *anchor) {
  std::optional<unsigned> store = getLastStorePosition(global);
  return !store || *store < getPosition(anchor);
}

SmallVector<util::GlobalOp> InitializerHoister::hoist(
    OpBuilder &builder, Location loc, ArrayRef<std::string> names,
    TypeRange types,
    function_ref<void(OpBuilder &, ArrayRef<util::GlobalOp>)> build) {
  SmallVector<util::GlobalOp> globals;
  for (auto [name, type] : llvm::zip_equal(names, types)) {
    auto global = util::GlobalOp::create(builder, loc, name,
                                         /*isMutable=*/false, type);
    global.setPrivate();
    symbols.insert(global); // renames on collision
    globals.push_back(global);
  }
  auto initializer = util::InitializerOp::create(builder, loc);
  OpBuilder::InsertionGuard guard(builder);
  Block *body = builder.createBlock(&initializer.getBody());
  builder.setInsertionPointToStart(body);
  build(builder, globals);
  util::ReturnOp::create(builder, loc);
  return globals;
}
