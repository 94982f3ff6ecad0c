//===- AffinityAnalysis.h - where values live and ops execute ---*- C++ -*-===//
//
// Whole-program placement of the host program (Fleet issue 7,
// docs/design.md §3), usable on input-level IR (tensors, flow/hal ops) and on
// stream IR.
//
// Rules (a documented fixed point: one forward walk per function in SSA
// order reaches it, because placement only flows from producers to consumers
// except for floating values, which are placed at each consumer):
//  1. Pinned execution: an op's own `on(...)` (AffinityOpInterface) or
//     discardable `stream.affinity`; imports/exports/aliases/barriers with
//     an affinity; `flow.tensor.transfer`/`barrier` targets.
//  2. Value placement: imports and aliases live on their affinity, transfer
//     and barrier results on their target, compute results where the op
//     executes, reshapes where their operand lives. Constants and empty
//     tensors *float*: they are placed (and materialized) at each consumer.
//  3. An unpinned op executes where its first placed resource/tensor operand
//     lives; with none, on the default of its innermost ancestor carrying
//     `stream.affinity`, else the module's `stream.affinity.default`.
//  4. Pins of a value: the affinities of ops that fix where it must be
//     consumed (ops whose AffinityOpInterface says they pin their operands:
//     exports and aliases with `on(...)`; results of a function whose result
//     carries `iree.abi.affinity`); getUsePin is the one rule.
//  5. Globals: a tensor global lives at its home, the `stream.affinity` on
//     the util.global, else the module's `stream.affinity.default`; loads
//     live there and stores execute there (getGlobalHomeAffinity).
//
// Usage (IREE's analysis style): `AffinityAnalysis a(module); if
// (failed(a.run())) ...; a.getExecutionAffinity(op)`. Not thread-safe to
// build; read-only queries afterwards may be shared.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_STREAM_ANALYSIS_AFFINITYANALYSIS_H
#define FLEET_DIALECT_STREAM_ANALYSIS_AFFINITYANALYSIS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace fleet::stream {

class AffinityAnalysis {
public:
  explicit AffinityAnalysis(mlir::Operation *root) : root(root) {}

  /// Walks every function and initializer under the root.
  mlir::LogicalResult run();

  /// Where `op` executes (never null for an op the walk visited that does
  /// device work; null for pure host ops).
  mlir::Attribute getExecutionAffinity(mlir::Operation *op) const;

  /// Where `value` lives; null for floating values (constants, empty
  /// tensors) and non-device values.
  mlir::Attribute getValueAffinity(mlir::Value value) const;

  /// The default affinity for ops nested in `op` (innermost `stream.affinity`,
  /// else the module's `stream.affinity.default`), or null.
  mlir::Attribute getDefaultAffinity(mlir::Operation *op) const;

  /// Affinities of the ops that read `value`, in use order, deduplicated.
  llvm::SmallVector<mlir::Attribute> getConsumerAffinities(mlir::Value value) const;

  /// Affinities `value` is pinned to by its consumers (rule 4).
  llvm::SmallVector<mlir::Attribute> getPinnedAffinities(mlir::Value value) const;

  /// True for values that float (rule 2).
  static bool isFloating(mlir::Value value);

private:
  void visit(mlir::Operation *op);
  mlir::Attribute placeOperands(mlir::Operation *op) const;

  mlir::Operation *root;
  mlir::SymbolTableCollection symbols;
  llvm::DenseMap<mlir::Operation *, mlir::Attribute> executionAffinities;
  llvm::DenseMap<mlir::Value, mlir::Attribute> valueAffinities;
};

/// Where the global `global` (a util.global) lives (rule 5), or null.
mlir::Attribute getGlobalHomeAffinity(mlir::Operation *global);

/// The affinity `use` pins its value to (rule 4), or null: the affinity of
/// an op that hands the value to the host there (AffinityOpInterface::
/// pinsOperandPlacement: stream.tensor.export, hal.tensor.export/alias), or
/// the `iree.abi.affinity` of the function result it is returned as. The one
/// owner of the rule; the analysis and place-transfer-executions use it.
mlir::Attribute getUsePin(mlir::OpOperand &use);

/// The explicit execution affinity an op names itself (rule 1), or null.
mlir::Attribute getPinnedExecutionAffinity(mlir::Operation *op);

} // namespace fleet::stream

#endif // FLEET_DIALECT_STREAM_ANALYSIS_AFFINITYANALYSIS_H
