//===- AffinityAnalysis.cpp - where values live and ops execute -----------===//

#include "fleet/Dialect/Stream/Analysis/AffinityAnalysis.h"

#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/Stream/IR/DeviceTopology.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "affinity-analysis"

using namespace mlir;
using namespace fleet;
using namespace fleet::stream;

/// Values that live on a device: tensors (input level) and resources.
static bool isDeviceValue(Value value) {
  return isa<RankedTensorType, ResourceType>(value.getType());
}

Attribute fleet::stream::getPinnedExecutionAffinity(Operation *op) {
  if (auto affinityOp = dyn_cast<AffinityOpInterface>(op))
    if (Attribute affinity = affinityOp.getAffinityAttr())
      return affinity;
  return op->getAttr("stream.affinity");
}

Attribute fleet::stream::getGlobalHomeAffinity(Operation *global) {
  return stream::getDefaultAffinity(global);
}

Attribute fleet::stream::getUsePin(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto affinityOp = dyn_cast<AffinityOpInterface>(user))
    return affinityOp.pinsOperandPlacement() ? affinityOp.getAffinityAttr()
                                             : Attribute();
  if (auto ret = dyn_cast<util::ReturnOp>(user)) {
    auto func = dyn_cast<util::FuncOp>(ret->getParentOp());
    if (!func || !func.getResAttrsAttr())
      return {};
    auto dict = dyn_cast_or_null<DictionaryAttr>(
        func.getResAttrsAttr()[use.getOperandNumber()]);
    return dict ? dict.get("iree.abi.affinity") : Attribute();
  }
  return {};
}

bool AffinityAnalysis::isFloating(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<ShapedType>(constant.getType());
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
    return isFloating(op->getOperand(0));
  return false;
}

Attribute AffinityAnalysis::getDefaultAffinity(Operation *op) const {
  return stream::getDefaultAffinity(op);
}

Attribute AffinityAnalysis::getExecutionAffinity(Operation *op) const {
  return executionAffinities.lookup(op);
}

Attribute AffinityAnalysis::getValueAffinity(Value value) const {
  return valueAffinities.lookup(value);
}

/// Rule 3: the first placed device operand.
Attribute AffinityAnalysis::placeOperands(Operation *op) const {
  for (Value operand : op->getOperands())
    if (Attribute affinity = valueAffinities.lookup(operand))
      return affinity;
  return {};
}

void AffinityAnalysis::visit(Operation *op) {
  Attribute pinned = getPinnedExecutionAffinity(op);
  auto setResults = [&](Attribute affinity) {
    for (Value result : op->getResults())
      if (isDeviceValue(result) && affinity)
        valueAffinities[result] = affinity;
  };

  llvm::TypeSwitch<Operation *>(op)
      // Floating values are placed at their consumers.
      .Case<arith::ConstantOp, tensor::EmptyOp>([&](auto) {})
      .Case<tensor::ExpandShapeOp, tensor::CollapseShapeOp>([&](Operation *op) {
        if (Attribute a = valueAffinities.lookup(op->getOperand(0)))
          valueAffinities[op->getResult(0)] = a;
      })
      .Case([&](flow::TensorTransferOp op) {
        executionAffinities[op] = placeOperands(op);
        if (!executionAffinities[op])
          executionAffinities[op] = getDefaultAffinity(op);
        valueAffinities[op.getResult()] = op.getTargetAttr();
      })
      .Case([&](util::GlobalLoadOp op) {
        auto global = symbols.lookupNearestSymbolFrom<util::GlobalOp>(
            op, op.getGlobalAttr());
        Attribute home = global ? getGlobalHomeAffinity(global) : Attribute();
        if (!home || !isDeviceValue(op.getResult()))
          return;
        executionAffinities[op] = home;
        valueAffinities[op.getResult()] = home;
      })
      .Case([&](util::GlobalStoreOp op) {
        auto global = symbols.lookupNearestSymbolFrom<util::GlobalOp>(
            op, op.getGlobalAttr());
        Attribute home = global ? getGlobalHomeAffinity(global) : Attribute();
        if (home && isDeviceValue(op.getValue()))
          executionAffinities[op] = home;
      })
      .Case([&](flow::TensorBarrierOp op) {
        executionAffinities[op] = op.getTargetAttr();
        valueAffinities[op.getResult()] = op.getTargetAttr();
      })
      .Case([&](AsyncTransferOp op) {
        executionAffinities[op] = op.getAffinityAttr();
        Attribute target = op.getTargetAffinityAttr();
        valueAffinities[op.getResult()] =
            target ? target : executionAffinities[op];
      })
      .Default([&](Operation *op) {
        bool touchesDevice =
            llvm::any_of(op->getOperands(), isDeviceValue) ||
            llvm::any_of(op->getResults(), isDeviceValue);
        if (!touchesDevice && !pinned)
          return;
        Attribute affinity = pinned;
        if (!affinity)
          affinity = placeOperands(op);
        if (!affinity)
          affinity = getDefaultAffinity(op);
        executionAffinities[op] = affinity;
        // Tied results stay where their operand lives.
        if (auto tied = dyn_cast<util::TiedOpInterface>(op)) {
          for (OpResult result : op->getResults()) {
            if (Value operand = tied.getTiedResultOperand(result))
              if (Attribute a = valueAffinities.lookup(operand)) {
                valueAffinities[result] = a;
                continue;
              }
            if (isDeviceValue(result) && affinity)
              valueAffinities[result] = affinity;
          }
          return;
        }
        setResults(affinity);
      });
}

LogicalResult AffinityAnalysis::run() {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Executables (any symbol table nested in the program, such as
    // stream.executable) hold kernels, not host code.
    if (op != root && !isa<ModuleOp>(op) &&
        op->hasTrait<OpTrait::SymbolTable>())
      return WalkResult::skip();
    if (isa<util::FuncOp, util::InitializerOp>(op)) {
      Attribute defaultAffinity = getDefaultAffinity(op);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isDeviceValue(arg) && defaultAffinity)
              valueAffinities[arg] = defaultAffinity;
      return WalkResult::advance();
    }
    if (!isa<ModuleOp>(op))
      visit(op);
    // Region arguments of control flow (loop-carried values) not placed
    // otherwise take the default affinity at the op; the placement of their
    // init is not propagated into the region.
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isDeviceValue(arg) && !valueAffinities.count(arg))
            if (Attribute a = getDefaultAffinity(op))
              valueAffinities[arg] = a;
    return WalkResult::advance();
  });
  return success();
}

SmallVector<Attribute>
AffinityAnalysis::getConsumerAffinities(Value value) const {
  llvm::SetVector<Attribute> affinities;
  for (Operation *user : value.getUsers())
    if (Attribute affinity = executionAffinities.lookup(user))
      affinities.insert(affinity);
  return affinities.takeVector();
}

SmallVector<Attribute>
AffinityAnalysis::getPinnedAffinities(Value value) const {
  llvm::SetVector<Attribute> pins;
  for (OpOperand &use : value.getUses())
    if (Attribute pin = getUsePin(use))
      pins.insert(pin);
  return pins.takeVector();
}
