//===- PipelineCuts.cpp - optimal contiguous stages of a dispatch graph ---===//

#include "PipelineCuts.h"

#include <algorithm>
#include <limits>

using namespace fleet::flow;

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// The stage a value starts from under `stageOfNode`.
int getSourceStage(const PipelineProblem::Value &value,
                   llvm::ArrayRef<int> stageOfNode) {
  if (value.producer >= 0)
    return stageOfNode[value.producer];
  if (value.sourceStage >= 0)
    return value.sourceStage;
  // Placed with its first consumer in program order.
  int first = *std::min_element(value.consumers.begin(), value.consumers.end());
  return stageOfNode[first];
}
} // namespace

PipelineCut fleet::flow::evaluatePipelineCut(const PipelineProblem &problem,
                                             llvm::ArrayRef<int> stageOfNode) {
  PipelineCut cut;
  cut.stageOfNode.assign(stageOfNode.begin(), stageOfNode.end());
  cut.stageSeconds.assign(problem.numStages, 0);
  cut.computeSeconds.assign(problem.numStages, 0);
  cut.bytesIn.assign(problem.numStages, 0);
  for (auto [i, node] : llvm::enumerate(problem.nodes))
    cut.computeSeconds[stageOfNode[i]] += node.seconds;
  cut.stageSeconds = cut.computeSeconds;
  for (const PipelineProblem::Value &value : problem.values) {
    if (value.consumers.empty())
      continue;
    int from = getSourceStage(value, stageOfNode);
    llvm::SmallVector<bool> paid(problem.numStages, false);
    for (int consumer : value.consumers) {
      int to = stageOfNode[consumer];
      if (to == from || paid[to])
        continue;
      paid[to] = true;
      cut.stageSeconds[to] += problem.transferSeconds(value.bytes, from, to);
      if (problem.copiesBytes(from, to))
        cut.bytesIn[to] += value.bytes;
    }
  }
  cut.busiest = *std::max_element(cut.stageSeconds.begin(),
                                  cut.stageSeconds.end());
  return cut;
}

llvm::SmallVector<int>
fleet::flow::getEqualComputeCut(const PipelineProblem &problem) {
  double total = 0;
  for (const auto &node : problem.nodes)
    total += node.seconds;
  double share = total / problem.numStages;
  llvm::SmallVector<int> stages;
  int stage = 0;
  double filled = 0;
  for (const auto &node : problem.nodes) {
    if (filled >= share * (stage + 1) && stage + 1 < problem.numStages)
      ++stage;
    filled += node.seconds;
    stages.push_back(stage);
  }
  return stages;
}

std::optional<PipelineCut>
fleet::flow::solvePipelineCuts(const PipelineProblem &problem) {
  const int n = problem.nodes.size();
  const int stages = problem.numStages;
  if (n == 0)
    return evaluatePipelineCut(problem, {});

  // Values each node consumes, once per node.
  llvm::SmallVector<llvm::SmallVector<int>> consumed(n);
  for (auto [v, value] : llvm::enumerate(problem.values))
    for (int consumer : value.consumers)
      if (consumed[consumer].empty() || consumed[consumer].back() != (int)v)
        consumed[consumer].push_back(v);
  // First consumer of unplaced inputs: they start in that consumer's stage.
  llvm::SmallVector<int> firstConsumer(problem.values.size(), n);
  for (auto [v, value] : llvm::enumerate(problem.values))
    for (int consumer : value.consumers)
      firstConsumer[v] = std::min(firstConsumer[v], consumer);

  // The equal-compute cut (made to respect pins where it can) bounds the
  // answer: no stage of the optimum is busier, so a stage whose compute
  // alone exceeds the bound is not extended.
  double bound = kInfinity;
  {
    llvm::SmallVector<int> greedy = getEqualComputeCut(problem);
    bool respectsPins = true;
    for (int i = 0; i < n; ++i)
      respectsPins &= problem.nodes[i].pinnedStage < 0 ||
                      problem.nodes[i].pinnedStage == greedy[i];
    if (respectsPins)
      bound = evaluatePipelineCut(problem, greedy).busiest;
    // One stage holding everything is also a cut.
    bool unpinned = llvm::all_of(problem.nodes, [](auto &node) {
      return node.pinnedStage < 0 || node.pinnedStage == 0;
    });
    if (unpinned)
      bound = std::min(bound, evaluatePipelineCut(
                                  problem, llvm::SmallVector<int>(n, 0))
                                  .busiest);
  }

  // best[s][j]: the least busiest stage over cuts of nodes [0, j) into
  // stages 0..s; from[s][j]: where stage s starts in it.
  llvm::SmallVector<llvm::SmallVector<double>> best(
      stages, llvm::SmallVector<double>(n + 1, kInfinity));
  llvm::SmallVector<llvm::SmallVector<int>> from(
      stages, llvm::SmallVector<int>(n + 1, -1));
  // Stage 0 may be empty.
  best[0][0] = 0;
  from[0][0] = 0;
  llvm::SmallVector<int> stamp(problem.values.size(), -1);
  llvm::SmallVector<double> transfers(stages);
  const double slack = 1e-12;

  for (int i = 0; i <= n; ++i) {
    // Empty stages: stage s may end where stage s-1 ended.
    for (int s = 1; s < stages; ++s)
      if (best[s - 1][i] < best[s][i]) {
        best[s][i] = best[s - 1][i];
        from[s][i] = i;
      }
    if (i == n)
      break;
    bool reachable = i == 0;
    for (int s = 0; s + 1 < stages && !reachable; ++s)
      reachable = best[s][i] < kInfinity;
    if (!reachable)
      continue;
    std::fill(transfers.begin(), transfers.end(), 0.0);
    double compute = 0;
    int minPin = stages, maxPin = -1;
    for (int j = i; j < n; ++j) {
      const auto &node = problem.nodes[j];
      compute += node.seconds;
      if (compute > bound + slack)
        break;
      if (node.pinnedStage >= 0) {
        minPin = std::min(minPin, node.pinnedStage);
        maxPin = std::max(maxPin, node.pinnedStage);
      }
      for (int v : consumed[j]) {
        if (stamp[v] == i)
          continue;
        stamp[v] = i;
        const auto &value = problem.values[v];
        for (int s = 0; s < stages; ++s) {
          if (value.producer >= 0) {
            // Produced before the stage: it arrives from an earlier stage
            // (the previous one for the estimate; exact costs are
            // re-evaluated on the final cut).
            if (value.producer < i && s > 0)
              transfers[s] +=
                  problem.transferSeconds(value.bytes, s - 1, s);
          } else if (value.sourceStage >= 0) {
            if (value.sourceStage != s)
              transfers[s] +=
                  problem.transferSeconds(value.bytes, value.sourceStage, s);
          } else if (firstConsumer[v] < i && s > 0) {
            transfers[s] += problem.transferSeconds(value.bytes, s - 1, s);
          }
        }
      }
      for (int s = 0; s < stages; ++s) {
        if (maxPin >= 0 && (minPin != s || maxPin != s))
          continue;
        double before = s == 0 ? (i == 0 ? 0.0 : kInfinity) : best[s - 1][i];
        if (before == kInfinity)
          continue;
        double busiest = std::max(before, compute + transfers[s]);
        if (busiest + slack < best[s][j + 1]) {
          best[s][j + 1] = busiest;
          from[s][j + 1] = i;
        }
      }
    }
  }
  if (best[stages - 1][n] == kInfinity)
    return std::nullopt;

  llvm::SmallVector<int> stageOfNode(n, 0);
  int end = n;
  for (int s = stages - 1; s >= 0; --s) {
    int start = s == 0 ? 0 : from[s][end];
    for (int k = start; k < end; ++k)
      stageOfNode[k] = s;
    end = start;
  }
  return evaluatePipelineCut(problem, stageOfNode);
}
