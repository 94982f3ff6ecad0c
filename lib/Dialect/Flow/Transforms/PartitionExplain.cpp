//===- PartitionExplain.cpp - --explain-placement's report ----------------===//

#include "PartitionExplain.h"

#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::flow;

static void printMillis(llvm::raw_ostream &os, double seconds) {
  os << llvm::format("%.3f ms", seconds * 1e3);
}

static void printDevice(llvm::raw_ostream &os, Attribute device) {
  if (auto affinity = dyn_cast<hal::DeviceAffinityAttr>(device))
    os << affinity.getDevice();
  else
    os << device;
}

/// The op that names a node: its costliest (the mmt4d of a data-tiled
/// matmul, not the pack before it).
static Operation *getNamingOp(ArrayRef<Operation *> ops) {
  CostConstants defaults;
  Operation *best = ops.front();
  double bestSeconds = -1;
  for (Operation *op : ops) {
    double seconds = estimateOpCost(op, defaults, nullptr).estimatedSeconds;
    if (seconds > bestSeconds) {
      best = op;
      bestSeconds = seconds;
    }
  }
  return best;
}

void fleet::flow::printPlacementReport(const PlacementReport &report,
                                       llvm::raw_ostream &os) {
  const PipelineCut &cut = report.cut;
  int stages = report.problem.numStages;
  os << "placement of @" << report.func.getSymName() << ": "
     << report.problem.nodes.size() << " ops in " << stages << " stages";
  if (report.microBatches > 1)
    os << ", " << report.microBatches << " micro-batches (times per "
       << "micro-batch)";
  os << "\n";
  for (int s = 0; s < stages; ++s) {
    double estimated = 0, measured = 0;
    int count = 0;
    bool anyMeasured = false;
    for (auto [node, stage] : llvm::enumerate(cut.stageOfNode)) {
      if (stage != s)
        continue;
      ++count;
      estimated += report.costOfNode[node].estimatedSeconds;
      measured += report.costOfNode[node].seconds;
      anyMeasured |= report.costOfNode[node].measured;
    }
    os << "stage " << s << " on ";
    printDevice(os, report.devices[s]);
    os << ": busy ";
    printMillis(os, cut.stageSeconds[s]);
    os << " = compute ";
    printMillis(os, cut.computeSeconds[s]);
    os << " (estimated ";
    printMillis(os, estimated);
    if (anyMeasured) {
      os << ", with measured times ";
      printMillis(os, measured);
    }
    os << ") + transfers in ";
    printMillis(os, cut.stageSeconds[s] - cut.computeSeconds[s]);
    os << "; " << llvm::format("%.0f", cut.bytesIn[s]) << " B copied in; " << count
       << " ops\n";
    for (auto [node, stage] : llvm::enumerate(cut.stageOfNode)) {
      if (stage != s)
        continue;
      const OpCost &cost = report.costOfNode[node];
      ArrayRef<Operation *> ops = report.opsOfNode[node];
      Operation *op = getNamingOp(ops);
      os << "  ";
      printMillis(os, cost.seconds);
      os << (cost.measured ? " measured " : " estimated ") << op->getName();
      if (std::string key = getProfileKey(op); !key.empty())
        os << " " << key;
      os << " " << op->getLoc();
      // A template node holds each micro-batch's copy of its ops.
      int64_t copies = std::max<int64_t>(1, report.microBatches);
      if (ops.size() > size_t(copies) && ops.size() % copies == 0)
        os << " (with " << ops.size() / copies - 1 << " more ops)";
      os << "\n";
    }
  }
  // Each cut against its neighbours: the cut sits where moving it by one op
  // either way makes the busiest stage no less busy.
  for (int node = 1; node < (int)cut.stageOfNode.size(); ++node) {
    int before = cut.stageOfNode[node - 1], after = cut.stageOfNode[node];
    if (before == after)
      continue;
    double bytes = 0;
    for (const auto &value : report.problem.values) {
      if (value.producer < 0 || value.producer >= node)
        continue;
      if (llvm::any_of(value.consumers, [&](int c) { return c >= node; }))
        bytes += value.bytes;
    }
    Operation *last = getNamingOp(report.opsOfNode[node - 1]);
    os << "cut stage " << before << " | stage " << after << " after "
       << last->getName() << " " << last->getLoc() << ": "
       << llvm::format("%.0f", bytes) << " B cross it; busiest ";
    printMillis(os, cut.busiest);
    SmallVector<int> earlier(cut.stageOfNode), later(cut.stageOfNode);
    earlier[node - 1] = after;
    later[node] = before;
    auto pinned = [&](int n, int stage) {
      int pin = report.problem.nodes[n].pinnedStage;
      return pin >= 0 && pin != stage;
    };
    if (!pinned(node - 1, after)) {
      os << "; one op earlier ";
      printMillis(os, evaluatePipelineCut(report.problem, earlier).busiest);
    }
    if (!pinned(node, before)) {
      os << "; one op later ";
      printMillis(os, evaluatePipelineCut(report.problem, later).busiest);
    }
    os << "\n";
  }
  PipelineCut greedy = evaluatePipelineCut(
      report.problem, getEqualComputeCut(report.problem));
  os << "equal-compute cut (greedy): busiest ";
  printMillis(os, greedy.busiest);
  os << "; chosen: ";
  printMillis(os, cut.busiest);
  os << "\n";
}
