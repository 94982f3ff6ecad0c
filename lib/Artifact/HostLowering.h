//===- HostLowering.h - host IR to op records (the emitter) -------*- C++ -*-===//
//
// FunctionLowering turns one util.func or util.initializer body into an
// EmittedFunction: the records of the .fleet artifact (runtime/schema/
// artifact.fbs), each an OpKind of the shared op table
// (fleet/runtime/host/OpTable.def) with its slots, immediates, data index
// and jump target. It runs once per function when fleet-compile writes the
// artifact:
//   1. every SSA value gets a typed register (constants get their value in
//      the frame template instead of a record, load-time values a fixup;
//      results of scf.for/while alias the loop's block arguments);
//   2. each op becomes one record (or none), structured control flow becomes
//      ForEnter/ForNext/BranchIfFalse/Jump records and parallel moves;
//   3. labels are resolved to record indices, and every record is checked
//      against its kind's layout (checkRecord, the loader's own check).
// Unsupported ops, types and attributes are reported with the op's name and
// location; lowering continues so one compile reports every problem.
//
// Ownership: the lowering borrows the module environment and fills the
// EmittedFunction it is given. Thread safety: one lowering per thread; the
// IR must not change meanwhile. Failure behaviour: errors accumulate in
// LoweringEnv::errors (one line each, "file:line:col: in @f: message").
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_ARTIFACT_HOSTLOWERING_H
#define FLEET_LIB_ARTIFACT_HOSTLOWERING_H

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "fleet/runtime/host/ArtifactFormat.h"
#include "fleet/runtime/host/Context.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace fleet::artifact {

using runtime::host::OpKind;
using runtime::host::ValueType;

/// Bit 31 of a tagged slot: a reference register.
constexpr uint32_t kRefSlot = 0x80000000u;
inline bool isRefSlot(uint32_t slot) { return (slot & kRefSlot) != 0; }
inline uint32_t slotIndex(uint32_t slot) { return slot & ~kRefSlot; }
constexpr uint32_t kNoIndex = 0xFFFFFFFFu;

struct EmittedRecord {
  OpKind kind;
  uint32_t slotOffset = 0;
  uint32_t slotCount = 0;
  uint32_t data = 0;
  /// A label until finalize(), then a record index (kNoIndex: none).
  int64_t target = -1;
  uint32_t site = 0;
  int64_t imm = 0;
  int64_t imm2 = 0;
};

struct EmittedFixup {
  uint32_t slot;
  /// 0: address of global `index`; 1: the number of runtime devices.
  uint8_t kind;
  uint32_t index;
};

struct EmittedFunction {
  std::string name;
  std::string displayName;
  /// formatLocation of the function op.
  std::string location;
  bool isDeclaration = false;
  bool isPublic = false;
  bool isInitializer = false;
  runtime::host::FunctionSignature signature;
  std::vector<uint32_t> argumentSlots;
  std::vector<uint8_t> scalarTypes;
  std::vector<uint8_t> refTypes;
  std::vector<uint64_t> scalarTemplate;
  std::vector<EmittedFixup> fixups;
  std::vector<EmittedRecord> records;
  std::vector<uint32_t> slots;
  /// (op, location) per site.
  std::vector<std::pair<std::string, std::string>> sites;
};

struct GlobalInfo {
  uint32_t index;
  ValueType type;
};

struct EmittedConstant {
  /// The constant's bytes: a view of the attribute's own storage (a
  /// resource blob or non-splat dense data; the module outlives the
  /// artifact's writing) or of `owned`, so weights are not copied.
  llvm::ArrayRef<uint8_t> bytes;
  std::vector<uint8_t> owned;
  uint32_t alignment;
};
struct EmittedDeviceQuery {
  std::string category, key;
  ValueType type;
  uint64_t defaultBits;
};
struct EmittedLinkQuery {
  std::string key;
  uint64_t defaultBits;
};

/// What the lowering of one module needs and produces besides functions.
struct LoweringEnv {
  llvm::StringMap<GlobalInfo> globals;
  /// Function index by symbol.
  llvm::StringMap<uint32_t> functions;
  llvm::StringMap<uint32_t> executables;
  std::vector<EmittedConstant> constants;
  std::vector<std::string> strings;
  std::vector<EmittedDeviceQuery> deviceQueries;
  std::vector<EmittedLinkQuery> linkQueries;
  std::vector<std::string> errors;
};

/// The host ValueType of an IR type, or nullopt when the executor cannot
/// hold such values (tensors, vectors, ...).
std::optional<ValueType> classifyType(mlir::Type type);
/// "file.mlir:3:7" for the first file location inside `location`.
std::string formatLocation(mlir::Location location);
/// The signature of an export (Signature.cpp): types, convention and the
/// tensors its buffer views hold.
runtime::host::FunctionSignature analyzeSignature(::fleet::util::FuncOp func);

class FunctionLowering {
public:
  FunctionLowering(LoweringEnv &env, EmittedFunction &code);

  /// Lowers `body` (a util.func or util.initializer region); the entry
  /// block's arguments become the function's arguments. Returns false after
  /// reporting errors.
  bool lower(mlir::Region &body);

private:
  // ---- registers ----
  uint32_t slot(mlir::Value value) const;
  uint32_t plain(mlir::Value value) const { return slotIndex(slot(value)); }
  uint32_t newSlot(ValueType type);
  ValueType slotType(uint32_t tagged) const;
  bool assign(mlir::Value value);
  bool alias(mlir::Value value, uint32_t existing);
  bool assignRegion(mlir::Region &region);
  bool assignOp(mlir::Operation *op);
  bool assignConstant(mlir::Operation *op);

  // ---- records ----
  using Label = int;
  Label newLabel();
  void bind(Label label);
  size_t emit(mlir::Operation *op, OpKind kind, llvm::ArrayRef<uint32_t> slots,
              int64_t imm = 0, int64_t imm2 = 0, uint32_t data = 0,
              Label target = -1);
  void emitMoves(mlir::Operation *op, llvm::ArrayRef<uint32_t> sources,
                 llvm::ArrayRef<uint32_t> targets);
  void emitMoves(mlir::Operation *op, mlir::ValueRange sources,
                 mlir::ValueRange targets);
  uint32_t siteOf(mlir::Operation *op);
  uint32_t addString(std::string text);
  void finalize();

  // ---- ops ----
  struct RegionExit {
    enum Kind { Return, Yield, Condition } kind = Return;
    llvm::SmallVector<uint32_t> targets;
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
  EmittedFunction &code_;
  llvm::DenseMap<mlir::Value, uint32_t> slots_;
  llvm::DenseMap<mlir::Block *, Label> blockLabels_;
  std::vector<size_t> labelPositions_;
  llvm::DenseMap<mlir::Operation *, uint32_t> siteIndex_;
  llvm::DenseMap<mlir::Operation *, std::string> typeErrors_;
  bool failed_ = false;
};

} // namespace fleet::artifact

#endif // FLEET_LIB_ARTIFACT_HOSTLOWERING_H
