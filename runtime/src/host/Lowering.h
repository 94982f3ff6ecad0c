//===- Lowering.h - host IR to the compact form -------------------*- C++ -*-===//
//
// FunctionLowering turns one util.func or util.initializer body into a
// FunctionCode (Program.h). It runs once per function at module load:
//   1. every SSA value gets a register (constants get their value in the
//      frame template instead of a record; results of scf.for/while alias
//      the loop's block arguments, so no copy leaves the loop);
//   2. each op becomes one record (or none), structured control flow becomes
//      forEnter/forNext/branchIfFalse/jump records and parallel moves;
//   3. labels are resolved to record pointers.
// Unsupported ops, types and attributes are reported with the op's name and
// location; lowering continues so one load reports every problem.
//
// Ownership: the lowering borrows the module environment and fills the
// FunctionCode it is given. Thread safety: one lowering per thread; the IR
// must not change meanwhile. Failure behaviour: errors accumulate in
// LoweringEnv::errors.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_HOST_LOWERING_H
#define FLEET_RUNTIME_SRC_HOST_LOWERING_H

#include "HALHandlers.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace fleet::runtime::host {

/// A module global: its type and storage (a uint64_t, or a RefCounted*).
struct GlobalInfo {
  ValueType type;
  void *storage;
};

/// What the lowering of one module needs to know about the module.
struct LoweringEnv {
  Context *context = nullptr;
  std::string moduleName;
  llvm::StringMap<GlobalInfo> globals;
  llvm::StringMap<FunctionCode *> functions;
  llvm::StringMap<ExecutableTable *> executables;
  /// Objects referenced by records (util.buffer.constant data).
  std::vector<hal::Ref<hal::RefCounted>> *constants = nullptr;
  std::vector<std::string> errors;
  /// Records emitted, for statistics.
  uint64_t opRecords = 0;
};

/// The host ValueType of an IR type, or nullopt when the executor cannot
/// hold such values (tensors, f16, vectors, ...).
std::optional<ValueType> classifyType(mlir::Type type);
/// "file.mlir:3:7" for the first file location inside `location`.
std::string formatLocation(mlir::Location location);

class FunctionLowering {
public:
  FunctionLowering(LoweringEnv &env, FunctionCode &code);

  /// Lowers `body` (a util.func or util.initializer region); the entry
  /// block's arguments become the function's arguments. Returns false after
  /// reporting errors.
  bool lower(mlir::Region &body);

private:
  // ---- registers ----
  /// Tagged slot of a value; assigned in the pre-pass.
  uint32_t slot(mlir::Value value) const;
  uint32_t plain(mlir::Value value) const { return slotIndex(slot(value)); }
  /// A fresh register of the kind of `type`.
  uint32_t newSlot(ValueType type);
  bool assign(mlir::Value value);
  bool alias(mlir::Value value, uint32_t existing);
  bool assignRegion(mlir::Region &region);
  bool assignOp(mlir::Operation *op);
  /// Constant-like ops whose value is known at load: fills the template.
  bool assignConstant(mlir::Operation *op);

  // ---- records ----
  using Label = int;
  Label newLabel();
  void bind(Label label);
  size_t emit(mlir::Operation *op, Handler handler,
              llvm::ArrayRef<uint32_t> slots, int64_t imm = 0,
              int64_t imm2 = 0, const void *data = nullptr,
              Label target = -1);
  /// Parallel move of tagged slots (sources and targets may overlap).
  void emitMoves(mlir::Operation *op, llvm::ArrayRef<uint32_t> sources,
                 llvm::ArrayRef<uint32_t> targets);
  void emitMoves(mlir::Operation *op, mlir::ValueRange sources,
                 mlir::ValueRange targets);
  uint32_t siteOf(mlir::Operation *op);
  void finalize();

  // ---- ops ----
  /// Where a region's terminator sends its operands.
  struct RegionExit {
    enum Kind { Return, Yield, Condition } kind = Return;
    /// Yield: registers receiving the operands; Condition: the after
    /// region's arguments.
    llvm::SmallVector<uint32_t> targets;
    /// Yield: where to continue (-1: fall through); Condition: loop exit.
    Label label = -1;
  };
  bool lowerBlock(mlir::Block &block, const RegionExit &exit);
  bool lowerOp(mlir::Operation *op, const RegionExit &exit);
  bool lowerTerminator(mlir::Operation *op, const RegionExit &exit);
  bool lowerStructured(mlir::Operation *op);
  bool lowerUtil(mlir::Operation *op);
  bool lowerArith(mlir::Operation *op);
  /// LowerHAL.cpp.
  bool lowerHAL(mlir::Operation *op);

  bool error(mlir::Operation *op, const llvm::Twine &message);
  ValueType typeOf(mlir::Value value) const;

  LoweringEnv &env_;
  FunctionCode &code_;
  llvm::DenseMap<mlir::Value, uint32_t> slots_;
  llvm::DenseMap<mlir::Block *, Label> blockLabels_;
  uint32_t scalarCount_ = 0;
  uint32_t refCount_ = 0;
  /// Per record: slot offset and target label (resolved in finalize).
  std::vector<std::pair<size_t, Label>> pending_;
  std::vector<size_t> labelPositions_;
  llvm::DenseMap<mlir::Operation *, uint32_t> siteIndex_;
  /// Ops with results of types the executor cannot hold, reported when the
  /// op is lowered (unless it is unsupported altogether).
  llvm::DenseMap<mlir::Operation *, std::string> typeErrors_;
  bool failed_ = false;
};

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_SRC_HOST_LOWERING_H
