//===- PipelineCuts.h - optimal contiguous stages of a dispatch graph -*- C++ -*-===//
//
// The combinatorial core of flow-partition-pipeline: nodes in a topological
// order (the program order of a straight-line function), each with a cost,
// and values flowing from a producer node (or a function input) to consumer
// nodes. A cut assigns nodes to S stages so that stage s holds a contiguous
// range of nodes and stages follow the order; the busy time of a stage is
// its nodes' cost plus the transfers of the values it consumes from other
// stages (each value once per consuming stage). solvePipelineCuts returns a
// cut minimizing the busiest stage (ties: the earliest last cut) by dynamic
// programming over (stage, prefix). Stages but the last are extended node by
// node only while their compute stays within the bound of the equal-compute
// cut (O(N^2 / S) steps per stage); the last stage's cost for every start is
// read off suffix sums and a difference array of the values crossing into
// it, so two stages take O(N + values) after one sweep of the first.
//
// A node may be pinned to a stage (an explicit placement the user wrote);
// stages may stay empty.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_DIALECT_FLOW_TRANSFORMS_PIPELINECUTS_H
#define FLEET_LIB_DIALECT_FLOW_TRANSFORMS_PIPELINECUTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace fleet::flow {

struct PipelineProblem {
  struct Node {
    double seconds = 0;
    /// Stage the node must be in, or -1.
    int pinnedStage = -1;
  };
  struct Value {
    /// Producing node, or -1 for a function input living on `sourceStage`'s
    /// device (or, when `sourceStage` is -1, placed with its first consumer).
    int producer = -1;
    int sourceStage = -1;
    double bytes = 0;
    /// Consuming nodes (any order, repeats allowed).
    llvm::SmallVector<int> consumers;
  };
  int numStages = 1;
  llvm::SmallVector<Node> nodes;
  llvm::SmallVector<Value> values;
  /// Seconds to move `bytes` from stage `from`'s device to stage `to`'s.
  llvm::function_ref<double(double bytes, int from, int to)> transferSeconds;
  /// False when stage `to`'s device reads stage `from`'s memory in place.
  llvm::function_ref<bool(int from, int to)> copiesBytes;
};

struct PipelineCut {
  /// Stage of each node.
  llvm::SmallVector<int> stageOfNode;
  /// Per stage: busy time (compute + transfers in), compute alone, bytes
  /// copied in (values read in place excluded).
  llvm::SmallVector<double> stageSeconds;
  llvm::SmallVector<double> computeSeconds;
  llvm::SmallVector<double> bytesIn;
  double busiest = 0;
};

/// Busy times of an arbitrary assignment (exact transfer costs).
PipelineCut evaluatePipelineCut(const PipelineProblem &problem,
                                llvm::ArrayRef<int> stageOfNode);

/// The optimal contiguous cut, or nullopt when the pins cannot be met in
/// order (a node pinned to an earlier stage than a node before it).
std::optional<PipelineCut> solvePipelineCuts(const PipelineProblem &problem);

/// The cut that fills each stage up to an equal share of the total compute,
/// ignoring transfers and pins (what a greedy partitioner does); for
/// explanations.
llvm::SmallVector<int> getEqualComputeCut(const PipelineProblem &problem);

} // namespace fleet::flow

#endif // FLEET_LIB_DIALECT_FLOW_TRANSFORMS_PIPELINECUTS_H
