//===- Utils.cpp - helpers shared by the stream passes --------------------===//

#include "fleet/Dialect/Stream/Transforms/Utils.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;

namespace fleet::stream {

Value getResourceSize(OpBuilder &builder, Location loc, Value resource) {
  // Loop-carried resources keep the size of their init (a loop carries one
  // value of one size).
  if (auto loop = dyn_cast_or_null<scf::ForOp>(resource.getDefiningOp())) {
    unsigned index = cast<OpResult>(resource).getResultNumber();
    return getResourceSize(builder, loc, loop.getInitArgs()[index]);
  }
  if (auto arg = dyn_cast<BlockArgument>(resource))
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (arg.getArgNumber() >= loop.getNumInductionVars())
        return getResourceSize(
            builder, loc,
            loop.getInitArgs()[arg.getArgNumber() - loop.getNumInductionVars()]);
  if (auto await = dyn_cast_or_null<TimepointAwaitOp>(resource.getDefiningOp()))
    return await.getResourceOperandSizes()[cast<OpResult>(resource)
                                               .getResultNumber()];
  if (auto result = dyn_cast<OpResult>(resource)) {
    if (auto sizeAware = dyn_cast<util::SizeAwareOpInterface>(result.getOwner()))
      if (Value size = sizeAware.getResultSize(result.getResultNumber()))
        return size;
  } else if (auto arg = dyn_cast<BlockArgument>(resource)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto sizeAware = dyn_cast_or_null<util::SizeAwareOpInterface>(parent))
      if (arg.getOwner()->isEntryBlock())
        if (Value size = sizeAware.getOperandSize(arg.getArgNumber()))
          return size;
  }
  return ResourceSizeOp::create(builder, loc, builder.getIndexType(), resource)
      .getResult();
}

bool canExecuteTogether(Attribute a, Attribute b) {
  if (!a || !b || a == b)
    return true;
  if (auto affinity = dyn_cast<AffinityAttrInterface>(a))
    return affinity.isExecutableWith(b);
  return false;
}

StringRef getAffinityDeviceName(Attribute affinity) {
  if (auto iface = dyn_cast_or_null<AffinityAttrInterface>(affinity))
    return iface.getDeviceName();
  return {};
}

SmallVector<Operation *> getHostCallables(Operation *root) {
  if (isa<CallableOpInterface>(root))
    return {root};
  SmallVector<Operation *> callables;
  root->walk([&](Operation *op) {
    if (isa<ExecutableOp>(op))
      return WalkResult::skip();
    if (isa<util::FuncOp, util::InitializerOp>(op)) {
      callables.push_back(op);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  return callables;
}

bool canScheduleOnHostCallable(RegisteredOperationName name) {
  return name.getStringRef() == ModuleOp::getOperationName() ||
         name.hasInterface<CallableOpInterface>();
}

bool isUnresolvedDispatch(Operation *op, SymbolTableCollection &symbols) {
  ArrayAttr entryPoints;
  if (auto dispatch = dyn_cast<AsyncDispatchOp>(op))
    entryPoints = dispatch.getEntryPoints();
  else if (auto dispatch = dyn_cast<CmdDispatchOp>(op))
    entryPoints = dispatch.getEntryPoints();
  else if (auto dispatch = dyn_cast<TensorDispatchOp>(op))
    entryPoints = dispatch.getEntryPoints();
  else
    return false;
  return llvm::any_of(entryPoints, [&](Attribute entryPoint) {
    return !symbols.lookupNearestSymbolFrom<ExecutableExportOp>(
        op, cast<SymbolRefAttr>(entryPoint));
  });
}

RegionInterface getRegionInterface(OpBuilder &builder, Location loc,
                                   ArrayRef<Operation *> ops) {
  RegionInterface interface;
  llvm::SmallPtrSet<Operation *, 16> members(ops.begin(), ops.end());
  for (Operation *op : ops) {
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        if (!isa<ResourceType>(operand.getType()))
          continue;
        Operation *producer = operand.getDefiningOp();
        bool inside = producer && (members.contains(producer) ||
                                   op->isProperAncestor(producer));
        if (!inside)
          interface.captures.insert(operand);
      }
    });
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        interface.results.insert(result);
  }
  for (Value capture : interface.captures)
    interface.captureSizes.push_back(getResourceSize(builder, loc, capture));
  for (Value result : interface.results) {
    interface.resultTypes.push_back(result.getType());
    interface.resultSizes.push_back(getResourceSize(builder, loc, result));
  }
  return interface;
}

void moveIntoRegion(OpBuilder &builder, Region &region, Location loc,
                    ArrayRef<Operation *> ops,
                    const RegionInterface &interface) {
  OpBuilder::InsertionGuard guard(builder);
  Block *body = builder.createBlock(&region);
  IRMapping mapping;
  for (Value capture : interface.captures)
    mapping.map(capture, body->addArgument(capture.getType(), loc));
  for (Operation *op : ops) {
    op->moveBefore(body, body->end());
    op->walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands())
        if (Value mapped = mapping.lookupOrNull(operand.get()))
          operand.set(mapped);
    });
  }
  builder.setInsertionPointToEnd(body);
  YieldOp::create(builder, loc, interface.results.getArrayRef(),
                  interface.resultSizes);
}

} // namespace fleet::stream
