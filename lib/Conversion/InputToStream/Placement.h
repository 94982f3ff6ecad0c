//===- Placement.h - where converted tensors live, for stream-conversion -===//
//
// Internal to lib/Conversion/InputToStream. stream-conversion's patterns ask
// one Placement for the resource holding a (pre-conversion) tensor value on
// an affinity: the value's converted resource where it lives, a transfer
// from there, or — for floating values (constants, empty tensors and
// reshapes of them, AffinityAnalysis::isFloating) — a copy materialized at
// the consumer's affinity. Results are cached per (tensor, affinity), so
// every consumer on one affinity shares one transfer or one constant.
//
// Not thread-safe; one Placement per pass run. The analysis must have run
// on the IR before conversion; values and ops are the originals, which the
// conversion framework keeps alive until it finishes.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_CONVERSION_INPUTTOSTREAM_PLACEMENT_H
#define FLEET_LIB_CONVERSION_INPUTTOSTREAM_PLACEMENT_H

#include "fleet/Dialect/Stream/Analysis/AffinityAnalysis.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace fleet::stream_conversion {

/// Bytes of a static tensor in a buffer (i1 takes a byte per element).
int64_t getByteSize(mlir::RankedTensorType type);

class Placement {
public:
  explicit Placement(const stream::AffinityAnalysis &analysis)
      : analysis(analysis) {}

  const stream::AffinityAnalysis &getAnalysis() const { return analysis; }
  /// Symbol lookups of the patterns (cached per symbol table).
  mlir::SymbolTableCollection &getSymbols() { return symbols; }

  /// An `index` constant holding the byte size of `type`.
  mlir::Value getSize(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::RankedTensorType type);

  /// The resource holding `tensor` on `affinity`. `converted` is the value
  /// the conversion gave `tensor` (ignored for floating tensors; a lifetime
  /// adapter is looked through, so consumers see the real lifetime); a null
  /// affinity means "where it lives".
  mlir::FailureOr<mlir::Value> getResourceAt(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::Value tensor,
                                             mlir::Value converted,
                                             mlir::Attribute affinity);

  /// `resource` as a `!stream.resource<*>` on `affinity`: itself, or a
  /// lifetime-only transfer. Transfers made with `foldable` are recorded
  /// and removed after the conversion where only stream ops use them
  /// (foldLifetimeAdapters).
  mlir::Value asUnknown(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value resource, mlir::RankedTensorType type,
                        mlir::Attribute affinity, bool foldable);

  /// Consumers on `affinity` of loads of the tensor global `global` read the
  /// replica global `replica` instead (an immutable global's copy for a
  /// device that does not reach its home, made once at initialization).
  void addReplica(mlir::StringAttr global, mlir::Attribute affinity,
                  mlir::FlatSymbolRefAttr replica) {
    replicas[{global, affinity}] = replica;
  }

  /// `resource` (holding a `type` tensor) with lifetime `lifetime` on
  /// `affinity`: itself when it has it, else a same-affinity lifetime
  /// transfer (a copy into memory of that kind).
  mlir::Value asLifetime(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value resource, mlir::RankedTensorType type,
                         stream::Lifetime lifetime, mlir::Attribute affinity);

  /// Replaces each recorded lifetime adapter by its source where every user
  /// is a streamable op reading it untied (those take any lifetime); control
  /// flow, barriers, awaits and tied operands keep them, as their types must
  /// agree.
  void foldLifetimeAdapters();

private:
  mlir::FailureOr<mlir::Value> materializeFloating(mlir::OpBuilder &b,
                                                   mlir::Location loc,
                                                   mlir::Value tensor,
                                                   mlir::Attribute affinity);

  const stream::AffinityAnalysis &analysis;
  mlir::SymbolTableCollection symbols;
  llvm::DenseMap<std::pair<mlir::Value, mlir::Attribute>, mlir::Value> placed;
  llvm::DenseMap<std::pair<mlir::StringAttr, mlir::Attribute>,
                 mlir::FlatSymbolRefAttr>
      replicas;
  llvm::SmallVector<stream::AsyncTransferOp> adapters;
  llvm::SmallPtrSet<mlir::Operation *, 16> adapterSet;
};

/// A conversion pattern with the shared Placement.
template <typename OpTy>
struct PlacementPattern : public mlir::OpConversionPattern<OpTy> {
  PlacementPattern(const mlir::TypeConverter &converter,
                   mlir::MLIRContext *context, Placement &placement)
      : mlir::OpConversionPattern<OpTy>(converter, context),
        placement(placement) {}

  mlir::Attribute getExecution(mlir::Operation *op) const {
    return placement.getAnalysis().getExecutionAffinity(op);
  }
  /// The resource holding `tensor` (converted: `converted`) where `op`
  /// executes.
  mlir::FailureOr<mlir::Value> getResourceForOp(mlir::OpBuilder &b,
                                                mlir::Operation *op,
                                                mlir::Value tensor,
                                                mlir::Value converted) const {
    return placement.getResourceAt(b, op->getLoc(), tensor, converted,
                                   getExecution(op));
  }
  /// Where `value` lives, else the default affinity at `op`.
  mlir::Attribute getAffinityOr(mlir::Value value, mlir::Operation *op) const {
    mlir::Attribute affinity = placement.getAnalysis().getValueAffinity(value);
    return affinity ? affinity : placement.getAnalysis().getDefaultAffinity(op);
  }

  Placement &placement;
};

/// Tensor globals (TensorGlobals.cpp): each util.global of tensor type
/// becomes a resource global (`constant` when immutable, `variable` when
/// mutable) at its home affinity, its initial value stored by a new
/// util.initializer, plus one replica per other device that reads an
/// immutable global with an initial value (recorded in `placement`).
/// Fails, with a located error, on an initial value of another element
/// type or one that is not an elements attribute.
mlir::LogicalResult prepareTensorGlobals(mlir::ModuleOp module,
                                         Placement &placement);

/// Moves every non-splat tensor constant of host code into an immutable
/// tensor global `@__constant_N` (loaded where the constant was), so that
/// prepareTensorGlobals places it once at load. Runs before the analysis.
void hoistConstantsToGlobals(mlir::ModuleOp module);

/// util.global.load/store of tensors -> of resources.
void populateGlobalPatterns(const mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns,
                            Placement &placement);

/// Host-side tensor.extract_slice/insert_slice/concat/pad/reshape -> copies
/// (HostTensorOps.cpp). verifyHostTensorOp reports, before the conversion,
/// what the patterns cannot copy (dynamic shapes, strides, pad values).
mlir::LogicalResult verifyHostTensorOp(mlir::Operation *op);
void populateHostTensorPatterns(const mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns,
                                Placement &placement);

} // namespace fleet::stream_conversion

#endif // FLEET_LIB_CONVERSION_INPUTTOSTREAM_PLACEMENT_H
