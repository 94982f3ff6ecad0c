//===- InitAll.h - register every dialect and pass Fleet tools use -*- C++ -*-===//
#ifndef FLEET_TOOLS_INITALL_H
#define FLEET_TOOLS_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace fleet {

/// Adds Fleet's dialects (util, flow, stream, hal) and the upstream dialects
/// Fleet consumes or emits (func, arith, math, tensor, linalg, scf, cf,
/// memref, bufferization, affine, vector, transform, llvm) to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers Fleet's passes and pipelines plus the upstream passes useful
/// next to them (canonicalize, cse, ...) with the global pass registry.
/// Safe to call more than once.
void registerAllPasses();

} // namespace fleet

#endif // FLEET_TOOLS_INITALL_H
