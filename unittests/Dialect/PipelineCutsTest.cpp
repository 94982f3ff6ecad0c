//===- PipelineCutsTest.cpp - optimal pipeline cuts against brute force ---===//
//
// solvePipelineCuts (lib/Dialect/Flow/Transforms/PipelineCuts.h) must find
// the least busiest stage over every contiguous cut, pins and empty stages
// included. Random problems are checked against enumerating every cut.
//
//===----------------------------------------------------------------------===//

#include "PipelineCuts.h"

#include "gtest/gtest.h"

#include <functional>
#include <random>

using namespace fleet::flow;

namespace {

/// Every monotone assignment of n nodes to `stages` stages.
void forEachCut(int n, int stages,
                const std::function<void(llvm::ArrayRef<int>)> &visit) {
  llvm::SmallVector<int> cut(n, 0);
  std::function<void(int, int)> place = [&](int node, int minStage) {
    if (node == n) {
      visit(cut);
      return;
    }
    for (int s = minStage; s < stages; ++s) {
      cut[node] = s;
      place(node + 1, s);
    }
  };
  place(0, 0);
}

double transferSeconds(double bytes, int from, int to) {
  // Links of different speed, so the stages differ.
  return 1e-6 + bytes * (1 + std::abs(from - to)) * 1e-9;
}
bool copiesBytes(int, int) { return true; }

PipelineProblem randomProblem(std::mt19937 &rng, int n, int stages,
                              bool pins) {
  PipelineProblem problem;
  problem.numStages = stages;
  problem.transferSeconds = transferSeconds;
  problem.copiesBytes = copiesBytes;
  std::uniform_real_distribution<double> seconds(1e-6, 1e-3);
  std::uniform_int_distribution<int> coin(0, 3);
  for (int i = 0; i < n; ++i) {
    PipelineProblem::Node node;
    node.seconds = seconds(rng);
    problem.nodes.push_back(node);
  }
  if (pins) {
    // Pins in device order, so a cut exists.
    int stage = 0;
    for (int i = 0; i < n; ++i) {
      if (coin(rng) == 0) {
        stage = std::min(stages - 1,
                         stage + std::uniform_int_distribution<int>(0, 1)(rng));
        problem.nodes[i].pinnedStage = stage;
      }
    }
  }
  std::uniform_real_distribution<double> bytes(0, 2e6);
  for (int p = 0; p < n; ++p) {
    PipelineProblem::Value value;
    value.producer = p;
    value.bytes = bytes(rng);
    for (int c = p + 1; c < n; ++c)
      if (coin(rng) == 0 || c == p + 1)
        value.consumers.push_back(c);
    if (!value.consumers.empty())
      problem.values.push_back(value);
  }
  // Inputs: one pinned to a device, one placed with its first consumer.
  for (int source : {1, -1}) {
    PipelineProblem::Value input;
    input.sourceStage = std::min(source, stages - 1);
    input.bytes = bytes(rng);
    for (int c = 0; c < n; ++c)
      if (coin(rng) == 0)
        input.consumers.push_back(c);
    if (!input.consumers.empty())
      problem.values.push_back(input);
  }
  return problem;
}

double bruteForce(const PipelineProblem &problem) {
  double best = std::numeric_limits<double>::infinity();
  forEachCut(problem.nodes.size(), problem.numStages,
             [&](llvm::ArrayRef<int> cut) {
               for (auto [i, node] : llvm::enumerate(problem.nodes))
                 if (node.pinnedStage >= 0 && node.pinnedStage != cut[i])
                   return;
               best = std::min(best,
                               evaluatePipelineCut(problem, cut).busiest);
             });
  return best;
}

TEST(PipelineCuts, MatchesBruteForce) {
  std::mt19937 rng(32);
  int compared = 0;
  for (int round = 0; round < 300; ++round) {
    int n = 1 + round % 9;
    int stages = 1 + round % 4;
    bool pins = round % 3 == 0;
    PipelineProblem problem = randomProblem(rng, n, stages, pins);
    double expected = bruteForce(problem);
    std::optional<PipelineCut> cut = solvePipelineCuts(problem);
    ASSERT_TRUE(cut.has_value()) << "round " << round;
    // The solver estimates transfers from the previous stage; with links of
    // different speed its optimum may differ from the exact one only when a
    // value skips a stage. Its cut's exact cost is never better than the
    // optimum, and matches it on every problem where values cross one
    // stage at most.
    EXPECT_GE(cut->busiest, expected * (1 - 1e-9)) << "round " << round;
    bool adjacentOnly = stages <= 2;
    if (adjacentOnly) {
      EXPECT_NEAR(cut->busiest, expected, expected * 1e-9)
          << "round " << round << ": " << n << " nodes, " << stages
          << " stages";
      ++compared;
    }
  }
  EXPECT_GT(compared, 100);
}

double uniformTransferSeconds(double bytes, int, int) {
  return 1e-6 + bytes * 1e-9;
}

TEST(PipelineCuts, OptimalWithUniformLinks) {
  // Every link alike: the solver's transfer estimate is exact, so its cut
  // is optimal for any number of stages.
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    int n = 1 + round % 9;
    int stages = 1 + round % 4;
    PipelineProblem problem = randomProblem(rng, n, stages, round % 3 == 0);
    problem.transferSeconds = uniformTransferSeconds;
    double expected = bruteForce(problem);
    std::optional<PipelineCut> cut = solvePipelineCuts(problem);
    ASSERT_TRUE(cut.has_value()) << "round " << round;
    EXPECT_NEAR(cut->busiest, expected, expected * 1e-9)
        << "round " << round << ": " << n << " nodes, " << stages
        << " stages";
  }
}

TEST(PipelineCuts, RefusesPinsOutOfOrder) {
  PipelineProblem problem;
  problem.numStages = 2;
  problem.transferSeconds = transferSeconds;
  problem.copiesBytes = copiesBytes;
  problem.nodes.resize(2);
  problem.nodes[0].pinnedStage = 1;
  problem.nodes[1].pinnedStage = 0;
  EXPECT_FALSE(solvePipelineCuts(problem).has_value());
}

} // namespace
