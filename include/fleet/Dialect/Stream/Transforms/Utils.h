//===- Utils.h - helpers shared by the stream passes ------------*- C++ -*-===//
#ifndef FLEET_LIB_DIALECT_STREAM_TRANSFORMS_UTILS_H
#define FLEET_LIB_DIALECT_STREAM_TRANSFORMS_UTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Value.h"
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

} // namespace fleet::stream

#endif // FLEET_LIB_DIALECT_STREAM_TRANSFORMS_UTILS_H
