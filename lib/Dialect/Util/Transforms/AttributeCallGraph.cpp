//===- AttributeCallGraph.cpp - callee annotations onto call sites --------===//
//
// Invariant established: every call carries the call-annotation attributes
// (CallAnnotationAttrInterface values, and `nosideeffects`) of its callee,
// except where the call already had an attribute of that name, which is
// kept. Local passes can then read a callee's ABI convention at the call
// (IREE PR 22381; Fleet also annotates the fence-taking calls its ABI
// wrapping creates, docs/design.md §4).
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Util/Transforms/Passes.h"

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "util-attribute-call-graph"

namespace fleet::util {
#define GEN_PASS_DEF_ATTRIBUTECALLGRAPHPASS
#include "fleet/Dialect/Util/Transforms/Passes.h.inc"
} // namespace fleet::util

using namespace mlir;
using namespace fleet;

namespace {

struct AttributeCallGraphPass
    : public fleet::util::impl::AttributeCallGraphPassBase<
          AttributeCallGraphPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbolTables;
    // The annotations of each callee, computed once.
    DenseMap<Operation *, SmallVector<NamedAttribute>> annotations;
    auto getAnnotations = [&](Operation *callee) -> ArrayRef<NamedAttribute> {
      auto [it, inserted] = annotations.try_emplace(callee);
      if (inserted)
        for (NamedAttribute attr : callee->getAttrs())
          if (isa<util::CallAnnotationAttrInterface>(attr.getValue()) ||
              attr.getName() == "nosideeffects")
            it->second.push_back(attr);
      return it->second;
    };
    module.walk([&](CallOpInterface call) {
      if (!isa<util::CallOp, func::CallOp>(call.getOperation()))
        return;
      auto symbol =
          dyn_cast_or_null<SymbolRefAttr>(call.getCallableForCallee().dyn_cast<SymbolRefAttr>());
      if (!symbol)
        return;
      Operation *callee =
          symbolTables.lookupNearestSymbolFrom(call.getOperation(), symbol);
      if (!callee) {
        LLVM_DEBUG(llvm::dbgs() << "skip (callee not found): " << call << "\n");
        return;
      }
      for (NamedAttribute attr : getAnnotations(callee)) {
        if (call->hasAttr(attr.getName())) {
          LLVM_DEBUG(llvm::dbgs() << "kept the call's own " << attr.getName()
                                  << "\n");
          continue;
        }
        call->setAttr(attr.getName(), attr.getValue());
      }
    });
  }
};

} // namespace
