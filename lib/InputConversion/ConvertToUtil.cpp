//===- ConvertToUtil.cpp - func dialect to util -------------------------===//
//
// Invariant established: no func.func/func.call/func.return remains in the
// host module (executables' inner modules are untouched); a single named inner
// module has been hoisted and its name recorded as `fleet.module_name`.
//
//===----------------------------------------------------------------------===//

#include "fleet/InputConversion/Passes.h"

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "input-convert-to-util"

namespace fleet::input {
#define GEN_PASS_DEF_CONVERTTOUTILPASS
#include "fleet/InputConversion/Passes.h.inc"
} // namespace fleet::input

using namespace mlir;
using namespace fleet;

namespace {

/// Moves the body of a single named `builtin.module @name` into `module`.
LogicalResult hoistNamedModule(ModuleOp module) {
  SmallVector<ModuleOp> named;
  for (auto inner : module.getOps<ModuleOp>())
    if (inner.getSymName())
      named.push_back(inner);
  if (named.empty())
    return success();
  if (named.size() > 1) {
    InFlightDiagnostic diag = named[1].emitError()
                              << "only one named module per compilation unit "
                                 "is supported; compile @"
                              << *named[1].getSymName() << " separately";
    diag.attachNote(named[0].getLoc()) << "first named module here";
    return diag;
  }
  ModuleOp inner = named.front();
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] named module @"
                          << *inner.getSymName()
                          << " hoisted: its name becomes fleet.module_name\n");
  if (module->hasAttr("fleet.module_name"))
    return inner.emitError() << "module already named "
                             << module->getAttr("fleet.module_name");
  module->setAttr("fleet.module_name",
                  StringAttr::get(module.getContext(), *inner.getSymName()));
  for (NamedAttribute attr : inner->getAttrs())
    if (attr.getName() != SymbolTable::getSymbolAttrName() &&
        !module->hasAttr(attr.getName()))
      module->setAttr(attr.getName(), attr.getValue());
  Block *body = module.getBody();
  body->getOperations().splice(Block::iterator(inner),
                               inner.getBody()->getOperations());
  inner.erase();
  return success();
}

void convertFunc(func::FuncOp func) {
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] func.func @" << func.getName()
                          << " -> util.func\n");
  OpBuilder builder(func);
  auto utilFunc = util::FuncOp::create(builder, func.getLoc(), func.getName(),
                                               func.getFunctionType());
  // Keep every attribute except the ones util.func derives itself.
  for (NamedAttribute attr : func->getAttrs()) {
    if (attr.getName() == func.getFunctionTypeAttrName() ||
        attr.getName() == SymbolTable::getSymbolAttrName())
      continue;
    utilFunc->setAttr(attr.getName(), attr.getValue());
  }
  utilFunc.getBody().takeBody(func.getBody());
  func.erase();
}

struct ConvertToUtilPass
    : public fleet::input::impl::ConvertToUtilPassBase<ConvertToUtilPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(hoistNamedModule(module)))
      return signalPassFailure();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      convertFunc(func);
    for (auto func : module.getOps<util::FuncOp>()) {
      func.walk([&](Operation *op) {
        OpBuilder builder(op);
        if (auto ret = dyn_cast<func::ReturnOp>(op)) {
          util::ReturnOp::create(builder, ret.getLoc(), ret.getOperands());
          ret.erase();
        } else if (auto call = dyn_cast<func::CallOp>(op)) {
          auto newCall = util::CallOp::create(builder, 
              call.getLoc(), call.getResultTypes(), call.getCalleeAttr(),
              call.getOperands(), /*tied_operands=*/ArrayAttr{},
              call.getArgAttrsAttr(), call.getResAttrsAttr());
          for (NamedAttribute attr : call->getDiscardableAttrs())
            newCall->setAttr(attr.getName(), attr.getValue());
          call.replaceAllUsesWith(newCall.getResults());
          call.erase();
        }
      });
    }
  }
};

} // namespace
