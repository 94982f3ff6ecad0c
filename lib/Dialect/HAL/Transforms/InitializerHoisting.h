//===- InitializerHoisting.h - computing values once at load ----*- C++ -*-===//
//
// Shared by the memoize passes: moves a computation over constants and
// immutable globals into a new util.initializer that stores its results in
// new private globals, and finds where that initializer may go (initializers
// run in module order, so it must follow every initializer that stores a
// global it reads and precede every function or initializer that uses it).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_DIALECT_HAL_TRANSFORMS_INITIALIZERHOISTING_H
#define FLEET_LIB_DIALECT_HAL_TRANSFORMS_INITIALIZERHOISTING_H

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace fleet::hal {

class InitializerHoister {
public:
  explicit InitializerHoister(mlir::ModuleOp module);

  /// The global `load` reads when it may be read at load time: an immutable
  /// global (so its value never changes after initialization); else null.
  util::GlobalOp getHoistableGlobal(util::GlobalLoadOp load);

  /// The top-level op (function, initializer) containing `op`.
  mlir::Operation *getTopLevelOp(mlir::Operation *op);

  /// True when every initializer storing `global` comes before `anchor`.
  bool isInitializedBefore(util::GlobalOp global, mlir::Operation *anchor);

  /// Creates private globals named after `names` (uniqued) with `types` and
  /// an initializer before `anchor` whose body `build` fills; `build`
  /// returns the values to store, one per global.
  llvm::SmallVector<util::GlobalOp>
  hoist(mlir::Operation *anchor, mlir::Location loc,
        llvm::ArrayRef<std::string> names, mlir::TypeRange types,
        llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &)>
            build);

private:
  mlir::ModuleOp module;
  mlir::SymbolTable symbols;
  /// Global name → initializers that store it.
  llvm::StringMap<llvm::SmallVector<mlir::Operation *>> storers;
};

} // namespace fleet::hal

#endif // FLEET_LIB_DIALECT_HAL_TRANSFORMS_INITIALIZERHOISTING_H
