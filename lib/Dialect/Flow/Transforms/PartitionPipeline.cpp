//===- PartitionPipeline.cpp - contiguous stages over the devices ---------===//
//
// Invariant established (mode `pipeline`): in every public host function,
// the compute ops are cut into contiguous stages, stage s on the module's
// s-th `!hal.device` global, minimizing the busiest stage's estimated time
// (compute plus transfers in; CostModel.h, PipelineCuts.h). A value consumed
// on another device than the one it lives on reaches it through one
// `flow.tensor.transfer` per (value, device), placed after its definition;
// a function input or tensor global without affinity is imported on (lives
// on) the device of its first consumer; an op of a stage off the default device with no placed operand
// carries that stage's `stream.affinity`. Explicit placements stay: an op
// with `stream.affinity`, or reading the result of a `flow.tensor.transfer`
// the user wrote, is pinned to that device's stage; inputs with an affinity
// and the user's transfers keep placing their values. Ops cloned
// per micro-batch (flow-split-micro-batches) are cut as their template, so
// every micro-batch crosses the same cuts. `fleet.template` and
// `fleet.micro_batch` are removed in every mode.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Flow/Transforms/Passes.h"

#include "PartitionExplain.h"
#include "PipelineCuts.h"

#include "fleet/Dialect/Flow/Transforms/CostModel.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "fleet/Dialect/Stream/IR/DeviceTopology.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "flow-partition-pipeline"

namespace fleet::flow {
#define GEN_PASS_DEF_PARTITIONPIPELINEPASS
#include "fleet/Dialect/Flow/Transforms/Passes.h.inc"
} // namespace fleet::flow

using namespace mlir;
using namespace fleet;
using namespace fleet::flow;

namespace {

/// Where a tensor operand comes from, looking through reshapes.
struct Source {
  enum Kind { Floating, Node, Input } kind = Floating;
  int node = -1;
  /// For inputs: the value imported or loaded, and its device's stage (-1:
  /// not placed).
  Value input;
  int stage = -1;
};

class FunctionPartitioner {
public:
  FunctionPartitioner(util::FuncOp func, ArrayRef<Attribute> devices,
                      stream::DeviceTopology &topology,
                      const CostConstants &constants, const Profile *profile)
      : func(func), devices(devices), topology(topology), constants(constants),
        profile(profile) {}

  LogicalResult run(bool explain);

private:
  int getStageOf(Attribute affinity);
  bool isFloating(Value value);
  Source traceSource(Value value);
  LogicalResult buildProblem(PipelineProblem &problem);
  void rewrite(const PipelineCut &cut);

  util::FuncOp func;
  ArrayRef<Attribute> devices;
  stream::DeviceTopology &topology;
  const CostConstants &constants;
  const Profile *profile;

  /// Compute ops in program order, their node (template), node order.
  SmallVector<Operation *> ops;
  DenseMap<Operation *, int> nodeOfOp;
  SmallVector<SmallVector<Operation *>> opsOfNode;
  SmallVector<OpCost> costOfNode;
  int64_t microBatches = 1;
  DenseMap<Value, int> inputStage;
};

int FunctionPartitioner::getStageOf(Attribute affinity) {
  if (!affinity)
    return -1;
  Attribute device = topology.getPlacementDevice(affinity);
  if (!device)
    return -1;
  for (auto [i, candidate] : llvm::enumerate(devices))
    if (topology.isSameDevice(device, candidate))
      return i;
  return -1;
}

/// The global `value` loads, when it is a tensor global.
static util::GlobalOp getLoadedGlobal(Value value) {
  auto load = value.getDefiningOp<util::GlobalLoadOp>();
  if (!load)
    return {};
  return SymbolTable::lookupNearestSymbolFrom<util::GlobalOp>(
      load, load.getGlobalAttr());
}

bool FunctionPartitioner::isFloating(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (isa<tensor::EmptyOp, arith::ConstantOp>(def))
    return true;
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    return isFloating(fill.getOutputs()[0]);
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return isFloating(def->getOperand(0));
  return false;
}

Source FunctionPartitioner::traceSource(Value value) {
  Source source;
  if (isFloating(value))
    return source;
  Operation *def = value.getDefiningOp();
  if (def && isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return traceSource(def->getOperand(0));
  if (def && nodeOfOp.count(def)) {
    source.kind = Source::Node;
    source.node = nodeOfOp.lookup(def);
    return source;
  }
  source.kind = Source::Input;
  source.input = value;
  if (auto import = dyn_cast_or_null<hal::TensorImportOp>(def))
    source.stage = getStageOf(import.getAffinityAttr());
  else if (auto transfer = dyn_cast_or_null<flow::TensorTransferOp>(def))
    source.stage = getStageOf(transfer.getTargetAttr());
  else if (auto global = getLoadedGlobal(value))
    source.stage = getStageOf(global->getAttr("stream.affinity"));
  else if (def)
    source.stage = getStageOf(stream::getDefaultAffinity(def));
  return source;
}

LogicalResult FunctionPartitioner::buildProblem(PipelineProblem &problem) {
  Block &body = func.getFunctionBody().front();
  DenseMap<int64_t, int> nodeOfTemplate;
  for (Operation &op : body) {
    if (!isCostedOp(&op) ||
        (isa<linalg::FillOp>(op) && isFloating(op.getResult(0))))
      continue;
    if (auto k = op.getAttrOfType<IntegerAttr>("fleet.micro_batch"))
      microBatches = std::max<int64_t>(microBatches, k.getInt() + 1);
    int node;
    auto templ = op.getAttrOfType<IntegerAttr>("fleet.template");
    auto it = templ ? nodeOfTemplate.find(templ.getInt())
                    : nodeOfTemplate.end();
    if (it != nodeOfTemplate.end()) {
      node = it->second;
    } else {
      node = opsOfNode.size();
      opsOfNode.emplace_back();
      costOfNode.emplace_back();
      problem.nodes.emplace_back();
      if (templ)
        nodeOfTemplate[templ.getInt()] = node;
    }
    ops.push_back(&op);
    nodeOfOp[&op] = node;
    opsOfNode[node].push_back(&op);
    OpCost cost = estimateOpCost(&op, constants, profile);
    OpCost &total = costOfNode[node];
    total.flops += cost.flops;
    total.bytes += cost.bytes;
    total.seconds += cost.seconds;
    total.estimatedSeconds += cost.estimatedSeconds;
    total.measured |= cost.measured;
    // The user's placements: the op's own affinity, else the target of a
    // transfer the user wrote for one of its operands.
    Attribute pin = op.getAttr("stream.affinity");
    for (Value operand : op.getOperands())
      if (auto transfer = operand.getDefiningOp<flow::TensorTransferOp>();
          transfer && !pin)
        pin = transfer.getTargetAttr();
    if (int stage = getStageOf(pin); stage >= 0)
      problem.nodes[node].pinnedStage = stage;
  }
  // Costs per micro-batch: a node's ops run once per micro-batch, shared ops
  // once for all of them.
  for (auto [node, cost] : llvm::enumerate(costOfNode)) {
    cost.seconds /= microBatches;
    cost.estimatedSeconds /= microBatches;
    cost.flops /= microBatches;
    cost.bytes /= microBatches;
    problem.nodes[node].seconds = cost.seconds;
  }

  // Values by origin: a node's result (by result number) or an input.
  DenseMap<std::pair<int, unsigned>, int> valueOfResult;
  DenseMap<Value, int> valueOfInput;
  DenseSet<Value> counted;
  for (Operation *op : ops) {
    int consumer = nodeOfOp.lookup(op);
    for (Value operand : op->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()))
        continue;
      Source source = traceSource(operand);
      if (source.kind == Source::Floating)
        continue;
      int index;
      if (source.kind == Source::Node) {
        if (source.node == consumer)
          continue;
        // The cuts assume producers come first; a pass between the split
        // and this one that rebuilt ops without their `fleet.template`
        // breaks that, and the cut would be silently wrong.
        if (source.node > consumer)
          return op->emitError("--partition=pipeline: operand ")
                 << operand << " comes from a later node (" << source.node
                 << " > " << consumer
                 << "): ops of one micro-batch lost their template marks";
        Value origin = operand;
        while (Operation *def = origin.getDefiningOp()) {
          if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
            break;
          origin = def->getOperand(0);
        }
        auto key = std::make_pair(source.node,
                                  cast<OpResult>(origin).getResultNumber());
        auto [it, inserted] = valueOfResult.try_emplace(key, 0);
        if (inserted) {
          it->second = problem.values.size();
          problem.values.emplace_back();
          problem.values.back().producer = source.node;
        }
        index = it->second;
        // One micro-batch's copy of the value crosses per micro-batch.
        if (counted.insert(origin).second)
          problem.values[index].bytes +=
              double(getStaticByteSize(origin.getType())) / microBatches;
      } else {
        auto [it, inserted] = valueOfInput.try_emplace(source.input, 0);
        if (inserted) {
          it->second = problem.values.size();
          problem.values.emplace_back();
          problem.values.back().sourceStage = source.stage;
          // An input shared by all micro-batches moves once per call.
          problem.values.back().bytes =
              double(getStaticByteSize(source.input.getType())) /
              microBatches;
        }
        index = it->second;
      }
      problem.values[index].consumers.push_back(consumer);
    }
  }
  return success();
}

void FunctionPartitioner::rewrite(const PipelineCut &cut) {
  MLIRContext *context = func.getContext();
  (void)context;
  Attribute defaultAffinity = stream::getDefaultAffinity(func);
  int defaultStage = getStageOf(defaultAffinity);
  // Inputs without a device: imported where their first consumer runs.
  for (Operation *op : ops) {
    int stage = cut.stageOfNode[nodeOfOp.lookup(op)];
    for (Value operand : op->getOperands()) {
      Source source = traceSource(operand);
      if (source.kind != Source::Input || source.stage >= 0 ||
          inputStage.count(source.input))
        continue;
      inputStage[source.input] = stage;
      if (auto import = source.input.getDefiningOp<hal::TensorImportOp>()) {
        import.setAffinityAttr(devices[stage]);
        LLVM_DEBUG(llvm::dbgs() << "import " << import.getName() << " on "
                                << devices[stage] << "\n");
      } else if (util::GlobalOp global = getLoadedGlobal(source.input)) {
        // A global (a weight) lives where it is first used (rule 5 of
        // AffinityAnalysis.h: its home is its `stream.affinity`).
        global->setAttr("stream.affinity", devices[stage]);
        LLVM_DEBUG(llvm::dbgs() << "global @" << global.getSymName()
                                << " on " << devices[stage] << "\n");
      }
    }
  }
  DenseMap<std::pair<Value, int>, Value> transferred;
  for (Operation *op : ops) {
    int stage = cut.stageOfNode[nodeOfOp.lookup(op)];
    if (op->hasAttr("stream.affinity"))
      continue;
    bool placedOperand = false;
    for (OpOperand &use : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(use.get().getType());
      if (!type)
        continue;
      Source source = traceSource(use.get());
      int from;
      if (source.kind == Source::Floating)
        continue;
      if (source.kind == Source::Node)
        from = cut.stageOfNode[source.node];
      else if (source.stage >= 0)
        from = source.stage;
      else
        from = inputStage.lookup(source.input);
      placedOperand = true;
      if (from == stage)
        continue;
      Value &moved = transferred[{use.get(), stage}];
      if (!moved) {
        OpBuilder builder(context);
        builder.setInsertionPointAfterValue(use.get());
        moved = flow::TensorTransferOp::create(builder, op->getLoc(), type,
                                               use.get(), ValueRange{},
                                               devices[stage]);
        LLVM_DEBUG(llvm::dbgs() << "transfer to stage " << stage << " for "
                                << op->getName() << "\n");
      }
      use.set(moved);
    }
    if (!placedOperand && stage != defaultStage)
      op->setAttr("stream.affinity", devices[stage]);
  }
}

LogicalResult FunctionPartitioner::run(bool explain) {
  Block &body = func.getFunctionBody().front();
  for (Operation &op : body) {
    if (op.getNumRegions() == 0 || isCostedOp(&op))
      continue;
    bool holdsCompute = false;
    for (Region &region : op.getRegions())
      region.walk([&](Operation *inner) { holdsCompute |= isCostedOp(inner); });
    if (holdsCompute)
      return op.emitOpError("holds compute ops; --partition=pipeline cuts "
                            "straight-line functions only");
  }
  PipelineProblem problem;
  problem.numStages = devices.size();
  auto transferSeconds = [&](double bytes, int from, int to) {
    bool direct = topology.hasDirectAccess(devices[to], devices[from]);
    return estimateTransferSeconds(bytes, direct, constants);
  };
  problem.transferSeconds = transferSeconds;
  auto copiesBytes = [&](int from, int to) {
    return !topology.hasDirectAccess(devices[to], devices[from]);
  };
  problem.copiesBytes = copiesBytes;
  if (failed(buildProblem(problem)))
    return failure();
  if (problem.nodes.empty())
    return success();
  std::optional<PipelineCut> cut = solvePipelineCuts(problem);
  if (!cut)
    return func.emitError("--partition=pipeline: the explicit placements "
                          "are not in device order, so no contiguous "
                          "stages can keep them");
  LLVM_DEBUG({
    llvm::dbgs() << "@" << func.getSymName() << ": busiest stage "
                 << cut->busiest * 1e3 << " ms\n";
  });
  if (explain) {
    PlacementReport report{func,        devices, problem, *cut,
                           opsOfNode,   costOfNode, microBatches};
    printPlacementReport(report, llvm::errs());
  }
  rewrite(*cut);
  return success();
}

struct PartitionPipelinePass
    : public flow::impl::PartitionPipelinePassBase<PartitionPipelinePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode == "pipeline") {
      if (failed(partition(module)))
        return signalPassFailure();
    } else if (mode == "none" && (explain || !profile.empty() ||
                                  !costModel.empty())) {
      module.emitError("--explain-placement, --profile and --cost-model "
                       "apply to --partition=pipeline only");
      return signalPassFailure();
    } else if (mode != "none") {
      module.emitError("unknown --partition mode '")
          << mode << "' (expected none or pipeline)";
      return signalPassFailure();
    }
    module.walk([](Operation *op) {
      op->removeAttr("fleet.template");
      op->removeAttr("fleet.micro_batch");
    });
  }

  LogicalResult partition(ModuleOp module) {
    CostConstants constants;
    if (!costModel.empty()) {
      auto loaded = CostConstants::load(costModel);
      if (!loaded)
        return module.emitError("--cost-model: ")
               << llvm::toString(loaded.takeError());
      constants = *loaded;
    }
    std::optional<Profile> profileData;
    if (!profile.empty()) {
      auto loaded = Profile::load(profile);
      if (!loaded)
        return module.emitError("--profile: ")
               << llvm::toString(loaded.takeError());
      profileData = std::move(*loaded);
    }
    SmallVector<Attribute> devices;
    for (auto global : module.getOps<util::GlobalOp>())
      if (isa<hal::DeviceType>(global.getType()))
        devices.push_back(hal::DeviceAffinityAttr::get(
            module.getContext(),
            FlatSymbolRefAttr::get(global.getSymNameAttr()), -1));
    if (devices.empty())
      return module.emitError("--partition=pipeline: the module declares no "
                              "device");
    stream::DeviceTopology topology(module);
    for (util::FuncOp func : module.getOps<util::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      if (!func.getFunctionBody().hasOneBlock())
        return func.emitError("--partition=pipeline cuts functions of one "
                              "block only");
      FunctionPartitioner partitioner(func, devices, topology, constants,
                                      profileData ? &*profileData : nullptr);
      if (failed(partitioner.run(explain)))
        return failure();
    }
    return success();
  }
};

} // namespace
