//===- InitializerHoisting.h - computing values once at load ----*- C++ -*-===//
//
// Shared by the memoize passes: moves a computation over constants and
// immutable globals into a new util.initializer that stores its results in
// new private globals, and finds where that initializer may go (initializers
// run in module order, so it must follow every initializer that stores a
// global it reads and precede every function or initializer that uses it).
//
// Order questions are answered from positions numbered once, when the
// hoister is made, never with Operation::isBeforeInBlock: every hoist
// inserts ops into the module block, and the block would renumber all its
// ops at the next order query (quadratic in the number of hoists).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_DIALECT_HAL_TRANSFORMS_INITIALIZERHOISTING_H
#define FLEET_LIB_DIALECT_HAL_TRANSFORMS_INITIALIZERHOISTING_H

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace fleet::hal {

class InitializerHoister {
public:
  explicit InitializerHoister(mlir::ModuleOp module);

  /// The global `load` reads when it may be read at load time: an immutable
  /// global (so its value never changes after initialization); else null.
  util::GlobalOp getHoistableGlobal(util::GlobalLoadOp load);

  /// The top-level op (function, initializer, global) containing `op`.
  mlir::Operation *getTopLevelOp(mlir::Operation *op);

  /// The position of top-level op `op` in the module when the hoister was
  /// made (ops made since have none).
  unsigned getPosition(mlir::Operation *topLevelOp) const;

  /// The position of the last initializer storing `global`, if any.
  std::optional<unsigned> getLastStorePosition(util::GlobalOp global) const;

  /// True when every initializer storing `global` comes before `anchor`.
  bool isInitializedBefore(util::GlobalOp global, mlir::Operation *anchor);

  /// Creates private globals named after `names` (renamed when taken) with
  /// `types` at `builder`'s insertion point (in the module body), then an
  /// initializer whose body `build` fills, storing into the globals, before
  /// the `util.return` added here. The builder ends up after the
  /// initializer.
  llvm::SmallVector<util::GlobalOp>
  hoist(mlir::OpBuilder &builder, mlir::Location loc,
        llvm::ArrayRef<std::string> names, mlir::TypeRange types,
        llvm::function_ref<void(mlir::OpBuilder &,
                                llvm::ArrayRef<util::GlobalOp>)>
            build);

private:
  mlir::ModuleOp module;
  mlir::SymbolTable symbols;
  llvm::DenseMap<mlir::Operation *, unsigned> positions;
  /// Global name → position of the last initializer storing it.
  llvm::StringMap<unsigned> lastStore;
};

} // namespace fleet::hal

#endif // FLEET_LIB_DIALECT_HAL_TRANSFORMS_INITIALIZERHOISTING_H
