//===- TimepointCoverage.h - which timepoints imply which -------*- C++ -*-===//
//
// A module-level must-analysis on MLIR's sparse data-flow framework: for each
// `!stream.timepoint` value t, the set of timepoints known reached whenever t
// is (t *covers* them). Facts:
//  - an op's result timepoint (TimelineOpInterface) covers what it awaits and
//    everything those cover; a join covers all its operands;
//  - the import of a timeline-aware op's signal fence covers the timepoints
//    exported into (or chained onto) its wait fences;
//  - `arith.select` of timepoints covers what both choices cover;
//  - block arguments, loop-carried values and region results cover what
//    every incoming value covers (the framework's join is the intersection);
//  - a call's result covers the call operand passed as argument j when every
//    return of the callee returns a timepoint covering argument j (a summary
//    per callee; the callee's arguments themselves cover nothing).
// Function arguments, globals and other producers cover nothing. Unreachable
// code (DeadCodeAnalysis) is optimistic and never asked about.
//
// Usage: `TimepointCoverage coverage(module); if (failed(coverage.run()))
// ...; coverage.covers(t, other)`. Not thread-safe to build; queries are
// read-only. Values must not be erased between run() and the queries.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_STREAM_ANALYSIS_TIMEPOINTCOVERAGE_H
#define FLEET_DIALECT_STREAM_ANALYSIS_TIMEPOINTCOVERAGE_H

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ImmutableSet.h"

#include <memory>

namespace fleet::stream {

class TimepointCoverage {
public:
  explicit TimepointCoverage(mlir::Operation *root);
  ~TimepointCoverage();

  /// Runs the solver over `root` (a module). Fails only when the framework
  /// does (malformed IR).
  mlir::LogicalResult run();

  /// True when `timepoint` is known reached only after `other` is (`other`
  /// is in its covered set). False when unknown or unreachable.
  bool covers(mlir::Value timepoint, mlir::Value other) const;

private:
  mlir::Operation *root;
  /// Owns the covered sets' trees (ImmutableSet's factory); declared before
  /// the solver, whose lattices hold them, so it outlives them.
  std::unique_ptr<llvm::ImmutableSet<const void *>::Factory> factory;
  mlir::DataFlowSolver solver;
};

} // namespace fleet::stream

#endif // FLEET_DIALECT_STREAM_ANALYSIS_TIMEPOINTCOVERAGE_H
