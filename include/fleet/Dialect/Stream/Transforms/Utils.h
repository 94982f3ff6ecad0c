//===- Utils.h - helpers shared by the stream passes ------------*- C++ -*-===//
#ifndef FLEET_LIB_DIALECT_STREAM_TRANSFORMS_UTILS_H
#define FLEET_LIB_DIALECT_STREAM_TRANSFORMS_UTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringRef.h"

namespace fleet::stream {

/// The byte size (`index`) of a resource value: the size operand its producer
/// carries (SizeAwareOpInterface), the matching capture size for a region
/// argument, else a new `stream.resource.size` at the builder's position.
mlir::Value getResourceSize(mlir::OpBuilder &builder, mlir::Location loc,
                            mlir::Value resource);

/// docs/design.md §3 canExecuteTogether: equal, either null, or compatible per
/// AffinityAttrInterface (same device, one queue mask containing the other).
bool canExecuteTogether(mlir::Attribute a, mlir::Attribute b);

/// The device global an `#hal.device.affinity` names, or "" for other (or
/// null) affinities.
llvm::StringRef getAffinityDeviceName(mlir::Attribute affinity);

/// The host callables a callable-anchored pass processes from `root`: root
/// itself when it is a CallableOpInterface op, else every util.func and
/// util.initializer under it (a module), never a kernel function inside an
/// executable (docs/contributing.md "Pass anchors").
llvm::SmallVector<mlir::Operation *> getHostCallables(mlir::Operation *root);

/// Whether a callable-anchored pass may run on ops named `name`: modules
/// and CallableOpInterface ops (as IREE's InterfacePass<CallableOpInterface>,
/// plus modules so existing `--pass` invocations keep working).
bool canScheduleOnHostCallable(mlir::RegisteredOperationName name);

/// True for a dispatch op (stream.async/cmd/tensor.dispatch) with an entry
/// point that names no `stream.executable.export` in the module (IREE
/// accepts these; docs/ir-reference.md "Unresolved dispatches"). Passes
/// assume such a dispatch reads and writes every resource operand.
bool isUnresolvedDispatch(mlir::Operation *op,
                          mlir::SymbolTableCollection &symbols);

/// What a region holding `ops` exchanges with its surroundings, for the
/// passes that outline ops into `stream.async.execute` and
/// `stream.async.concurrent` regions (one owner: docs/contributing.md
/// "Layering").
struct RegionInterface {
  /// Resources used by `ops` or ops nested in them and defined outside
  /// `ops`, in first-use order: the region's captures.
  llvm::SetVector<mlir::Value> captures;
  /// Results of `ops` with a use outside `ops`: what the region yields.
  llvm::SetVector<mlir::Value> results;
  /// Byte sizes (`index`) of the captures and results, and result types.
  llvm::SmallVector<mlir::Value> captureSizes, resultSizes;
  llvm::SmallVector<mlir::Type> resultTypes;
};

/// Computes the interface of a region that would hold `ops` (all in one
/// block); the sizes are found or made at the builder's position.
RegionInterface getRegionInterface(mlir::OpBuilder &builder,
                                   mlir::Location loc,
                                   llvm::ArrayRef<mlir::Operation *> ops);

/// Moves `ops` in order into a new entry block of `region` with one argument
/// per capture, rewires every use of a capture inside them (nested ops too)
/// to its argument, and ends the block with a `stream.yield` of the results.
/// Uses of the results outside the region are left for the caller.
void moveIntoRegion(mlir::OpBuilder &builder, mlir::Region &region,
                    mlir::Location loc, llvm::ArrayRef<mlir::Operation *> ops,
                    const RegionInterface &interface);

} // namespace fleet::stream

#endif // FLEET_LIB_DIALECT_STREAM_TRANSFORMS_UTILS_H
