//===- Placement.cpp - where converted tensors live -----------------------===//

#include "Placement.h"

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-conversion"

using namespace mlir;
using namespace fleet;

namespace fleet::stream_conversion {

int64_t getByteSize(RankedTensorType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

Value Placement::getSize(OpBuilder &b, Location loc, RankedTensorType type) {
  return arith::ConstantIndexOp::create(b, loc, getByteSize(type));
}

FailureOr<Value> Placement::materializeFloating(OpBuilder &b, Location loc,
                                                Value tensor,
                                                Attribute affinity) {
  auto key = std::make_pair(tensor, affinity);
  if (Value existing = placed.lookup(key))
    return existing;
  Operation *producer = tensor.getDefiningOp();
  auto type = cast<RankedTensorType>(tensor.getType());
  MLIRContext *context = b.getContext();
  Value result;
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(producer)) {
    // Same bytes, another shape.
    FailureOr<Value> source =
        materializeFloating(b, loc, producer->getOperand(0), affinity);
    if (failed(source))
      return failure();
    result = *source;
  } else if (auto constant = dyn_cast<arith::ConstantOp>(producer)) {
    // Where the consumer runs, one copy per affinity, at the constant's
    // position (it dominates every consumer).
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(producer);
    result = stream::AsyncConstantOp::create(
        b, loc,
        stream::ResourceType::get(context, stream::Lifetime::Constant),
        constant.getValue(), getSize(b, loc, type),
        /*await_timepoint=*/Value{}, affinity);
  } else if (isa<tensor::EmptyOp>(producer)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(producer);
    result = stream::AsyncAllocaOp::create(
        b, loc, stream::ResourceType::get(context, stream::Lifetime::Unknown),
        getSize(b, loc, type), affinity);
  } else {
    return emitError(loc) << "cannot place value produced by '"
                          << producer->getName() << "'";
  }
  LLVM_DEBUG(llvm::dbgs() << "floating value of " << producer->getName()
                          << " materialized on " << affinity << "\n");
  placed[key] = result;
  return result;
}

FailureOr<Value> Placement::getResourceAt(OpBuilder &b, Location loc,
                                          Value tensor, Value converted,
                                          Attribute affinity) {
  if (stream::AffinityAnalysis::isFloating(tensor))
    return materializeFloating(b, loc, tensor, affinity);
  if (!converted || !isa<stream::ResourceType>(converted.getType()))
    return emitError(loc) << "tensor value has no resource (unsupported "
                             "producer or block argument)";
  // Consumers see the resource with its real lifetime; the adapter only
  // gave the conversion framework the converted type.
  if (auto adapter = converted.getDefiningOp<stream::AsyncTransferOp>())
    if (adapterSet.contains(adapter))
      converted = adapter.getSource();
  Attribute lives = analysis.getValueAffinity(tensor);
  if (!affinity || !lives || lives == affinity)
    return converted;
  auto key = std::make_pair(tensor, affinity);
  if (Value existing = placed.lookup(key))
    return existing;
  if (auto load = tensor.getDefiningOp<util::GlobalLoadOp>()) {
    auto replica = replicas.lookup(
        {load.getGlobalAttr().getAttr(), affinity});
    if (replica) {
      // The copy made for this device at initialization.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(load);
      Value loaded = util::GlobalLoadOp::create(
          b, loc,
          stream::ResourceType::get(b.getContext(),
                                    stream::Lifetime::Constant),
          replica, /*is_immutable=*/b.getUnitAttr());
      placed[key] = loaded;
      return loaded;
    }
  }
  // Read on another affinity than where it lives: transfer (elided later
  // when the topology lets the consumer reach the producer's memory).
  auto type = cast<RankedTensorType>(tensor.getType());
  Value size = getSize(b, loc, type);
  Value transferred = stream::AsyncTransferOp::create(
      b, loc,
      stream::ResourceType::get(b.getContext(), stream::Lifetime::Unknown),
      converted, size, size, /*execution_affinity=*/Attribute{}, lives,
      affinity);
  LLVM_DEBUG(llvm::dbgs() << "transfer " << lives << " -> " << affinity
                          << " at " << loc << "\n");
  placed[key] = transferred;
  return transferred;
}

Value Placement::asLifetime(OpBuilder &b, Location loc, Value resource,
                            RankedTensorType type, stream::Lifetime lifetime,
                            Attribute affinity) {
  auto target = stream::ResourceType::get(b.getContext(), lifetime);
  if (resource.getType() == target)
    return resource;
  Value size = getSize(b, loc, type);
  return stream::AsyncTransferOp::create(b, loc, target, resource, size, size,
                                         Attribute{}, affinity, affinity);
}

Value Placement::asUnknown(OpBuilder &b, Location loc, Value resource,
                           RankedTensorType type, Attribute affinity,
                           bool foldable) {
  Value transferred = asLifetime(b, loc, resource, type,
                                 stream::Lifetime::Unknown, affinity);
  if (transferred == resource)
    return resource;
  auto transfer = cast<stream::AsyncTransferOp>(transferred.getDefiningOp());
  if (foldable) {
    adapters.push_back(transfer);
    adapterSet.insert(transfer);
  }
  return transfer;
}

void Placement::foldLifetimeAdapters() {
  for (stream::AsyncTransferOp transfer : adapters) {
    if (transfer.getResult().use_empty()) {
      transfer.erase();
      continue;
    }
    // Streamable ops take any lifetime unless the operand is tied to a
    // result (whose type must then match).
    auto takesAnyLifetime = [](OpOperand &use) {
      Operation *user = use.getOwner();
      if (!isa<stream::StreamableOpInterface>(user))
        return false;
      auto tied = dyn_cast<util::TiedOpInterface>(user);
      if (!tied)
        return true;
      for (unsigned i = 0; i < user->getNumResults(); ++i)
        if (tied.getTiedResultOperandIndex(i) == use.getOperandNumber())
          return false;
      return true;
    };
    if (!llvm::all_of(transfer.getResult().getUses(), takesAnyLifetime))
      continue;
    transfer.getResult().replaceAllUsesWith(transfer.getSource());
    transfer.erase();
  }
  adapters.clear();
  adapterSet.clear();
}

} // namespace fleet::stream_conversion
