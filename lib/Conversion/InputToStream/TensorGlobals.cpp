//===- TensorGlobals.cpp - tensor globals to resource globals -------------===//
//
// Part of stream-conversion (ConvertToStream.cpp). Invariant established: no
// util.global, util.global.load or util.global.store has a tensor type.
//
// - `util.global @w : tensor<T> = dense<…>` (immutable) becomes
//   `util.global @w : !stream.resource<constant>` at its home affinity
//   (AffinityAnalysis rule 5), stored once by a util.initializer placed
//   after it: `stream.async.constant on(home)`. Every other device that
//   reads it gets `@w__on_<device>`, a copy transferred at initialization
//   (elide-async-copies removes the transfer when the device reaches the
//   home's memory: the replica then is the same buffer). So a weight costs
//   at most one upload per device, never one per call.
// - A mutable tensor global becomes `!stream.resource<variable>` with
//   `@g__timepoint`, the timepoint its value is ready at; its initial value
//   is copied into a variable at initialization. Stores transfer the value
//   to the home as a variable and store it with its timepoint (a barrier:
//   no host wait); loads await the timepoint (on the device, once
//   schedule-execution moved the wait into the reading regions).
// - Loads are resource loads; consumers on another device read the replica
//   or get a transfer (Placement::getResourceAt).
// - A non-splat tensor constant in host code (one too large to be cloned
//   into its dispatches) is hoisted into such an immutable global first, so
//   it is placed once at load as well; splats stay floating (a fill is
//   cheaper than a copy).
//
//===----------------------------------------------------------------------===//

#include "Placement.h"

#include "fleet/Dialect/Stream/Transforms/Utils.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-conversion"

using namespace mlir;
using namespace fleet;

namespace fleet::stream_conversion {

namespace {

/// `@g__timepoint`: when the value of mutable tensor global @g is ready.
std::string getTimepointGlobalName(util::GlobalOp global) {
  return (global.getSymName() + "__timepoint").str();
}

stream::Lifetime getGlobalLifetime(util::GlobalOp global) {
  return global.getIsMutable() ? stream::Lifetime::Variable
                               : stream::Lifetime::Constant;
}

/// The loads of each global in the module (one walk for all globals).
using LoadMap = DenseMap<StringAttr, SmallVector<util::GlobalLoadOp>>;

/// The devices other than `home` on which `loads` (of one global) are
/// consumed.
SmallVector<Attribute> getReplicaAffinities(ArrayRef<util::GlobalLoadOp> loads,
                                            Attribute home,
                                            const stream::AffinityAnalysis &a) {
  llvm::SetVector<Attribute> affinities;
  for (util::GlobalLoadOp load : loads)
    for (Attribute affinity : a.getConsumerAffinities(load.getResult()))
      if (affinity != home && !stream::getAffinityDeviceName(affinity).empty())
        affinities.insert(affinity);
  return affinities.takeVector();
}

LogicalResult prepareGlobal(util::GlobalOp global, const LoadMap &loads,
                            Placement &placement) {
  auto type = cast<RankedTensorType>(global.getType());
  MLIRContext *context = global.getContext();
  Attribute home = stream::getGlobalHomeAffinity(global);
  if (!home)
    return global.emitOpError()
           << "is a tensor global without an affinity: give it "
              "`stream.affinity` or the module a default device";
  Attribute initial = global.getInitialValueAttr();
  auto elements = dyn_cast_or_null<ElementsAttr>(initial);
  if (initial && !elements)
    return global.emitOpError()
           << "has initial value " << initial
           << "; a tensor global's initial value must be an elements "
              "attribute (dense, dense_resource, splat)";
  if (elements && cast<ShapedType>(elements.getType()).getElementType() !=
                      type.getElementType())
    return global.emitOpError()
           << "has an initial value of element type "
           << cast<ShapedType>(elements.getType()).getElementType()
           << " but the global holds " << type.getElementType()
           << "; the stream phase stores the value's bytes as they are";

  stream::Lifetime lifetime = getGlobalLifetime(global);
  auto resourceType = stream::ResourceType::get(context, lifetime);
  auto constantType =
      stream::ResourceType::get(context, stream::Lifetime::Constant);
  SmallVector<Attribute> replicaAffinities;
  if (elements && !global.getIsMutable())
    replicaAffinities =
        getReplicaAffinities(loads.lookup(global.getSymNameAttr()), home,
                             placement.getAnalysis());

  global.setTypeAttr(TypeAttr::get(resourceType));
  global.removeInitialValueAttr();
  OpBuilder builder(context);
  builder.setInsertionPointAfter(global);
  Location loc = global.getLoc();
  // A mutable global carries the timepoint its value is ready at: stores
  // do not wait on the host, loads wait on the device (rule of IREE's
  // stream globals).
  util::GlobalOp timepointGlobal;
  if (global.getIsMutable()) {
    timepointGlobal = util::GlobalOp::create(
        builder, loc, getTimepointGlobalName(global), /*isMutable=*/true,
        stream::TimepointType::get(context), /*initialValue=*/Attribute{});
    timepointGlobal.setSymVisibility("private");
  }
  if (!elements && !timepointGlobal)
    return success();

  SmallVector<util::GlobalOp> replicas;
  for (Attribute affinity : replicaAffinities) {
    std::string name = (global.getSymName() + "__on_" +
                        stream::getAffinityDeviceName(affinity))
                           .str();
    auto replica =
        util::GlobalOp::create(builder, loc, name, /*isMutable=*/false,
                               constantType, /*initialValue=*/Attribute{});
    replica.setSymVisibility("private");
    replicas.push_back(replica);
    placement.addReplica(global.getSymNameAttr(), affinity,
                         FlatSymbolRefAttr::get(replica.getSymNameAttr()));
    LLVM_DEBUG(llvm::dbgs() << "replica @" << name << " of @"
                            << global.getSymName() << "\n");
  }

  auto initializer = util::InitializerOp::create(builder, loc);
  Block *body = builder.createBlock(&initializer.getBody());
  builder.setInsertionPointToStart(body);
  if (timepointGlobal) {
    Value ready = stream::TimepointImmediateOp::create(
        builder, loc, stream::TimepointType::get(context));
    util::GlobalStoreOp::create(builder, loc, ready,
                                timepointGlobal.getSymName());
  }
  if (!elements) {
    util::ReturnOp::create(builder, loc, ValueRange{});
    return success();
  }
  Value size = placement.getSize(builder, loc, type);
  Value constant = stream::AsyncConstantOp::create(
      builder, loc, constantType, elements, size, /*await_timepoint=*/Value{},
      home);
  Value stored = constant;
  if (lifetime != stream::Lifetime::Constant)
    stored = stream::AsyncTransferOp::create(builder, loc, resourceType,
                                             constant, size, size, Attribute{},
                                             home, home);
  util::GlobalStoreOp::create(builder, loc, stored, global.getSymName());
  for (auto [replica, affinity] : llvm::zip(replicas, replicaAffinities)) {
    Value copy = stream::AsyncTransferOp::create(
        builder, loc, constantType, constant, size, size, Attribute{}, home,
        affinity);
    util::GlobalStoreOp::create(builder, loc, copy, replica.getSymName());
  }
  util::ReturnOp::create(builder, loc, ValueRange{});
  return success();
}

/// The tensor global (already a resource global) `symbol` names from `op`.
util::GlobalOp lookupTensorGlobal(Operation *op, FlatSymbolRefAttr symbol,
                                  SymbolTableCollection &symbols) {
  auto global = symbols.lookupNearestSymbolFrom<util::GlobalOp>(op, symbol);
  return global && isa<stream::ResourceType>(global.getType())
             ? global
             : util::GlobalOp();
}

struct GlobalLoadPattern : public PlacementPattern<util::GlobalLoadOp> {
  GlobalLoadPattern(const TypeConverter &converter, MLIRContext *context,
                    Placement &placement)
      : PlacementPattern(converter, context, placement) {}

  LogicalResult
  matchAndRewrite(util::GlobalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    util::GlobalOp global = lookupTensorGlobal(op, op.getGlobalAttr(),
                                               placement.getSymbols());
    if (!global)
      return rewriter.notifyMatchFailure(op, "not a converted tensor global");
    Location loc = op.getLoc();
    Value loaded = util::GlobalLoadOp::create(
        rewriter, loc, global.getType(), op.getGlobalAttr(),
        op.getIsImmutableAttr());
    if (global.getIsMutable()) {
      // Ready when its timepoint is; schedule-execution moves this wait
      // into the regions that read the value.
      Value ready = util::GlobalLoadOp::create(
          rewriter, loc, stream::TimepointType::get(op.getContext()),
          FlatSymbolRefAttr::get(op.getContext(),
                                 getTimepointGlobalName(global)),
          UnitAttr());
      Value size = placement.getSize(
          rewriter, loc, cast<RankedTensorType>(op.getType()));
      loaded = stream::TimepointAwaitOp::create(
                   rewriter, loc, TypeRange{global.getType()},
                   ValueRange{loaded}, ValueRange{size}, ready,
                   /*sync=*/false)
                   .getResult(0);
    }
    rewriter.replaceOp(
        op, placement.asUnknown(rewriter, loc, loaded,
                                cast<RankedTensorType>(op.getType()),
                                stream::getGlobalHomeAffinity(global),
                                /*foldable=*/true));
    return success();
  }
};

struct GlobalStorePattern : public PlacementPattern<util::GlobalStoreOp> {
  GlobalStorePattern(const TypeConverter &converter, MLIRContext *context,
                     Placement &placement)
      : PlacementPattern(converter, context, placement) {}

  LogicalResult
  matchAndRewrite(util::GlobalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    util::GlobalOp global = lookupTensorGlobal(op, op.getGlobalAttr(),
                                               placement.getSymbols());
    if (!global)
      return rewriter.notifyMatchFailure(op, "not a converted tensor global");
    Location loc = op.getLoc();
    Value value = op.getValue();
    auto type = cast<RankedTensorType>(value.getType());
    Attribute home = stream::getGlobalHomeAffinity(global);
    FailureOr<Value> resource = placement.getResourceAt(
        rewriter, loc, value, adaptor.getValue(), home);
    if (failed(resource))
      return failure();
    Value stored = placement.asLifetime(
        rewriter, loc, *resource, type,
        cast<stream::ResourceType>(global.getType()).getLifetime(), home);
    if (global.getIsMutable()) {
      // The value and the timepoint it is ready at, without a host wait.
      auto barrier = stream::TimepointBarrierOp::create(
          rewriter, loc, stored.getType(),
          stream::TimepointType::get(op.getContext()), stored,
          placement.getSize(rewriter, loc, type), home);
      util::GlobalStoreOp::create(rewriter, loc,
                                  barrier.getResultTimepoint(),
                                  getTimepointGlobalName(global));
      stored = barrier.getResult();
    }
    rewriter.replaceOpWithNewOp<util::GlobalStoreOp>(op, stored,
                                                     op.getGlobalAttr());
    return success();
  }
};

} // namespace

void hoistConstantsToGlobals(ModuleOp module) {
  SymbolTable symbols(module);
  OpBuilder builder(module.getContext());
  // After the device globals, before the functions.
  Block *body = module.getBody();
  auto insertAt = body->begin();
  for (auto it = body->begin(); it != body->end(); ++it)
    if (auto global = dyn_cast<util::GlobalOp>(*it);
        global && !isa<RankedTensorType>(global.getType()))
      insertAt = std::next(it);
  SmallVector<arith::ConstantOp> constants;
  for (Operation &op : *body)
    if (isa<util::FuncOp, util::InitializerOp>(op))
      op.walk([&](arith::ConstantOp constant) {
        auto elements = dyn_cast<ElementsAttr>(constant.getValue());
        auto denseElements = dyn_cast<DenseElementsAttr>(constant.getValue());
        if (elements && isa<RankedTensorType>(constant.getType()) &&
            !(denseElements && denseElements.isSplat()))
          constants.push_back(constant);
      });
  unsigned counter = 0;
  for (arith::ConstantOp constant : constants) {
    builder.setInsertionPoint(body, insertAt);
    auto global = util::GlobalOp::create(
        builder, constant.getLoc(), "__constant_" + std::to_string(counter++),
        /*isMutable=*/false, constant.getType(), constant.getValue());
    global.setSymVisibility("private");
    symbols.insert(global); // uniques the name
    OpBuilder at(constant);
    Value loaded = util::GlobalLoadOp::create(
        at, constant.getLoc(), constant.getType(),
        FlatSymbolRefAttr::get(global.getSymNameAttr()), at.getUnitAttr());
    constant.getResult().replaceAllUsesWith(loaded);
    constant.erase();
    LLVM_DEBUG(llvm::dbgs() << "constant hoisted into @"
                            << global.getSymName() << "\n");
  }
}

LogicalResult prepareTensorGlobals(ModuleOp module, Placement &placement) {
  SmallVector<util::GlobalOp> globals;
  for (auto global : module.getOps<util::GlobalOp>())
    if (isa<RankedTensorType>(global.getType()))
      globals.push_back(global);
  if (globals.empty())
    return success();
  LoadMap loads;
  module.walk([&](util::GlobalLoadOp load) {
    loads[load.getGlobalAttr().getAttr()].push_back(load);
  });
  for (util::GlobalOp global : globals)
    if (failed(prepareGlobal(global, loads, placement)))
      return failure();
  return success();
}

void populateGlobalPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns,
                            Placement &placement) {
  patterns.add<GlobalLoadPattern, GlobalStorePattern>(
      converter, patterns.getContext(), placement);
}

} // namespace fleet::stream_conversion
