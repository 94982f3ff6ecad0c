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
  if (stages == 1) {
    for (const auto &node : problem.nodes)
      if (node.pinnedStage > 0)
        return std::nullopt;
    return evaluatePipelineCut(problem, llvm::SmallVector<int>(n, 0));
  }
  const int last = stages - 1;

  // Values each node consumes, once per node; first and last consumers.
  llvm::SmallVector<llvm::SmallVector<int>> consumed(n);
  llvm::SmallVector<int> firstConsumer(problem.values.size(), n);
  llvm::SmallVector<int> lastConsumer(problem.values.size(), -1);
  for (auto [v, value] : llvm::enumerate(problem.values))
    for (int consumer : value.consumers) {
      if (consumed[consumer].empty() || consumed[consumer].back() != (int)v)
        consumed[consumer].push_back(v);
      firstConsumer[v] = std::min(firstConsumer[v], consumer);
      lastConsumer[v] = std::max(lastConsumer[v], consumer);
    }
  // What a value costs stage `s` starting at node `i` when the stage reads
  // it: it arrives from an earlier stage (the previous one for the
  // estimate; exact costs are re-evaluated on the final cut) or from the
  // device its input lives on.
  auto transferInto = [&](int v, int s, int i) -> double {
    const auto &value = problem.values[v];
    if (value.producer >= 0)
      return value.producer < i && s > 0
                 ? problem.transferSeconds(value.bytes, s - 1, s)
                 : 0.0;
    if (value.sourceStage >= 0)
      return value.sourceStage != s
                 ? problem.transferSeconds(value.bytes, value.sourceStage, s)
                 : 0.0;
    return firstConsumer[v] < i && s > 0
               ? problem.transferSeconds(value.bytes, s - 1, s)
               : 0.0;
  };

  // The equal-compute cut (when it respects the pins) and the one-stage cut
  // bound the answer: no stage of the optimum is busier, so a stage whose
  // compute alone exceeds the bound is not extended.
  double bound = kInfinity;
  {
    llvm::SmallVector<int> greedy = getEqualComputeCut(problem);
    bool respectsPins = true;
    for (int i = 0; i < n; ++i)
      respectsPins &= problem.nodes[i].pinnedStage < 0 ||
                      problem.nodes[i].pinnedStage == greedy[i];
    if (respectsPins)
      bound = evaluatePipelineCut(problem, greedy).busiest;
    if (llvm::all_of(problem.nodes,
                     [](auto &node) { return node.pinnedStage <= 0; }))
      bound = std::min(bound, evaluatePipelineCut(
                                  problem, llvm::SmallVector<int>(n, 0))
                                  .busiest);
  }
  const double slack = 1e-12;

  // best[s][j]: the least busiest stage over cuts of nodes [0, j) into
  // stages 0..s (s < last); from[s][j]: where stage s starts in it.
  llvm::SmallVector<llvm::SmallVector<double>> best(
      last, llvm::SmallVector<double>(n + 1, kInfinity));
  llvm::SmallVector<llvm::SmallVector<int>> from(
      last, llvm::SmallVector<int>(n + 1, -1));
  best[0][0] = 0; // Stage 0 may be empty.
  from[0][0] = 0;
  llvm::SmallVector<int> stamp(problem.values.size(), -1);
  llvm::SmallVector<double> transfers(stages);
  for (int i = 0; i <= n; ++i) {
    // Empty stages: stage s may end where stage s-1 ended.
    for (int s = 1; s < last; ++s)
      if (best[s - 1][i] < best[s][i]) {
        best[s][i] = best[s - 1][i];
        from[s][i] = i;
      }
    if (i == n)
      break;
    // Stage 0 starts at node 0; later stages (but the last) anywhere a
    // previous one ended.
    int lo = i == 0 ? 0 : 1;
    bool reachable = false;
    for (int s = std::max(lo, 1); s < last && !reachable; ++s)
      reachable = best[s - 1][i] < kInfinity;
    if (lo == 0)
      reachable = true;
    if (!reachable || lo > last - 1)
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
        for (int s = lo; s < last; ++s)
          transfers[s] += transferInto(v, s, i);
      }
      for (int s = lo; s < last; ++s) {
        if (maxPin >= 0 && (minPin != s || maxPin != s))
          continue;
        double before = s == 0 ? 0.0 : best[s - 1][i];
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

  // The last stage [i, n): its cost for every start i at once. Compute from
  // suffix sums; transfers from a difference array over the starts for
  // which each value is read by the stage and comes from elsewhere.
  llvm::SmallVector<double> suffix(n + 1, 0.0), delta(n + 2, 0.0);
  for (int i = n - 1; i >= 0; --i)
    suffix[i] = suffix[i + 1] + problem.nodes[i].seconds;
  for (auto [v, value] : llvm::enumerate(problem.values)) {
    if (lastConsumer[v] < 0)
      continue;
    // Starts i <= lastConsumer read it; those after its producer (or first
    // consumer) pay the estimate of transferInto.
    int firstStart = 0;
    if (value.producer >= 0)
      firstStart = value.producer + 1;
    else if (value.sourceStage < 0)
      firstStart = firstConsumer[v] + 1;
    double cost = transferInto(v, last, firstStart);
    if (firstStart > lastConsumer[v] || cost == 0.0)
      continue;
    delta[firstStart] += cost;
    delta[lastConsumer[v] + 1] -= cost;
  }
  int lastForeignPin = -1;
  for (int i = 0; i < n; ++i)
    if (problem.nodes[i].pinnedStage >= 0 &&
        problem.nodes[i].pinnedStage != last)
      lastForeignPin = i;
  double answer = kInfinity;
  int lastStart = -1;
  double running = 0;
  for (int i = 0; i <= n; ++i) {
    running += delta[i];
    if (i <= lastForeignPin || best[last - 1][i] == kInfinity)
      continue;
    double busiest = std::max(best[last - 1][i], suffix[i] + running);
    if (busiest + slack < answer) {
      answer = busiest;
      lastStart = i;
    }
  }
  if (lastStart < 0)
    return std::nullopt;

  llvm::SmallVector<int> stageOfNode(n, last);
  int end = lastStart;
  for (int s = last - 1; s >= 0; --s) {
    int start = s == 0 ? 0 : from[s][end];
    for (int k = start; k < end; ++k)
      stageOfNode[k] = s;
    end = start;
  }
  return evaluatePipelineCut(problem, stageOfNode);
}
