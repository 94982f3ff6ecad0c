//===- LowerTopologyQueries.cpp - memory properties at run time -----------===//
//
// Invariant established: no hal.allocator.resolve_memory_properties remains.
// What the static topology could not prove is asked of the runtime topology
// with hal.device.query.link, and arith forms the bits with the same rule
// as the static fold (docs/design.md §3, DeviceSet.h): the allocating device X
// is the first member (declaration order) every other member reaches, and each
// peer Y adds the bits of its link Y -> X. The runtime's
// hal.allocator.select applies the same rule, so both pick the same X.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

#include <map>

#define DEBUG_TYPE "hal-lower-topology-queries"

namespace fleet::hal {
#define GEN_PASS_DEF_LOWERTOPOLOGYQUERIESPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

/// Builds the run-time form of one query.
class QueryLowering {
public:
  QueryLowering(OpBuilder &builder, Location loc, const DeviceSet &devices)
      : builder(builder), loc(loc), devices(devices) {}

  LogicalResult lower(AllocatorResolveMemoryPropertiesOp op,
                      ArrayRef<AffinityMember> members,
                      const MemoryPropertyOptions &options) {
    for (const AffinityMember &member : members) {
      const DeviceInfo *info = devices.lookup(member.device);
      if (!info)
        return op.emitOpError() << "names device @" << member.device
                                << ", which is not a declared !hal.device "
                                   "global";
      deviceValues.push_back(
          util::GlobalLoadOp::create(builder, loc, info->global));
    }
    MemoryProperties base =
        getLifetimeBaseProperties(op.getLifetime(), options);
    Value memoryTypes = buildMemoryType(base.memoryTypes);
    Value bufferUsage = buildBufferUsage(base.bufferUsage);

    // X = the first candidate every other member reaches: isX(i) is
    // reachedByAll(i) and no earlier candidate was.
    Value earlierFound = buildBool(false);
    for (unsigned owner = 0; owner < members.size(); ++owner) {
      Value reachedByAll = buildBool(true);
      Value extraTypes = buildMemoryType(MemoryType::None);
      Value extraUsage = buildBufferUsage(BufferUsage::None);
      for (unsigned peer = 0; peer < members.size(); ++peer) {
        if (peer == owner ||
            devices.isSameDevice(members[peer].device, members[owner].device))
          continue;
        // unified_memory holds in both directions even if one side says so.
        Value unifiedForward = query(peer, owner, "unified_memory");
        Value unifiedBackward = query(owner, peer, "unified_memory");
        Value unified = arith::OrIOp::create(builder, loc, unifiedForward,
                                             unifiedBackward);
        Value transparent = query(peer, owner, "transparent_access");
        Value exportImport = query(peer, owner, "export_import");
        Value reaches = arith::OrIOp::create(
            builder, loc,
            arith::OrIOp::create(builder, loc, unified, transparent),
            exportImport);
        reachedByAll =
            arith::AndIOp::create(builder, loc, reachedByAll, reaches);
        // The first kind that applies decides: unified, transparent, export.
        Value notUnified = negate(unified);
        Value useTransparent =
            arith::AndIOp::create(builder, loc, notUnified, transparent);
        Value useExport = arith::AndIOp::create(
            builder, loc,
            arith::AndIOp::create(builder, loc, notUnified,
                                  negate(transparent)),
            exportImport);
        MemoryProperties transparentBits =
            getPeerAccessProperties(PeerAccess::Transparent);
        MemoryProperties exportBits =
            getPeerAccessProperties(PeerAccess::ExportImport);
        extraTypes = orIf(extraTypes, useTransparent,
                          static_cast<uint32_t>(transparentBits.memoryTypes),
                          /*isMemoryType=*/true);
        extraUsage = orIf(extraUsage, useTransparent,
                          static_cast<uint32_t>(transparentBits.bufferUsage),
                          /*isMemoryType=*/false);
        extraTypes = orIf(extraTypes, useExport,
                          static_cast<uint32_t>(exportBits.memoryTypes),
                          /*isMemoryType=*/true);
        extraUsage = orIf(extraUsage, useExport,
                          static_cast<uint32_t>(exportBits.bufferUsage),
                          /*isMemoryType=*/false);
      }
      Value isOwner = arith::AndIOp::create(builder, loc, reachedByAll,
                                            negate(earlierFound));
      earlierFound =
          arith::OrIOp::create(builder, loc, earlierFound, reachedByAll);
      memoryTypes = orIf(memoryTypes, isOwner, extraTypes);
      bufferUsage = orIf(bufferUsage, isOwner, extraUsage);
    }
    // No member reached by all: the run-time select fails with a message
    // naming the devices; the base bits stand until then.
    op.getMemoryTypes().replaceAllUsesWith(memoryTypes);
    op.getBufferUsage().replaceAllUsesWith(bufferUsage);
    return success();
  }

private:
  Value buildBool(bool value) {
    return arith::ConstantIntOp::create(builder, loc, value ? 1 : 0, 1);
  }
  Value negate(Value value) {
    return arith::XOrIOp::create(builder, loc, value, buildBool(true));
  }
  Value buildMemoryType(MemoryType bits) {
    return MemoryTypeOp::create(
        builder, loc, builder.getI32Type(),
        MemoryTypeAttr::get(builder.getContext(), bits));
  }
  Value buildBufferUsage(BufferUsage bits) {
    return BufferUsageOp::create(
        builder, loc, builder.getI32Type(),
        BufferUsageAttr::get(builder.getContext(), bits));
  }
  /// `accumulated | (condition ? bits : 0)` for constant bits (nothing
  /// when there are none).
  Value orIf(Value accumulated, Value condition, uint32_t bits,
             bool isMemoryType) {
    if (bits == 0)
      return accumulated;
    Value value =
        isMemoryType
            ? buildMemoryType(static_cast<MemoryType>(bits))
            : buildBufferUsage(static_cast<BufferUsage>(bits));
    return orIf(accumulated, condition, value);
  }
  /// `accumulated | (condition ? bits : 0)`.
  Value orIf(Value accumulated, Value condition, Value bits) {
    Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
    Value chosen =
        arith::SelectOp::create(builder, loc, condition, bits, zero);
    return arith::OrIOp::create(builder, loc, accumulated, chosen);
  }
  /// The run-time answer for link `source -> target` (false when unknown).
  Value query(unsigned source, unsigned target, StringRef key) {
    auto cacheKey = std::make_tuple(source, target, key.str());
    auto it = answers.find(cacheKey);
    if (it != answers.end())
      return it->second;
    auto i1 = builder.getI1Type();
    auto op = DeviceQueryLinkOp::create(
        builder, loc, i1, i1, deviceValues[source], deviceValues[target],
        builder.getStringAttr(key), cast<TypedAttr>(builder.getBoolAttr(false)));
    return answers[cacheKey] = op.getValue();
  }

  OpBuilder &builder;
  Location loc;
  const DeviceSet &devices;
  SmallVector<Value> deviceValues;
  std::map<std::tuple<unsigned, unsigned, std::string>, Value> answers;
};

struct LowerTopologyQueriesPass
    : public fleet::hal::impl::LowerTopologyQueriesPassBase<
          LowerTopologyQueriesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    DeviceSet devices(module);
    MemoryPropertyOptions options;
    options.externalResourcesMappable = externalResourcesMappable;

    SmallVector<AllocatorResolveMemoryPropertiesOp> queries;
    module.walk([&](AllocatorResolveMemoryPropertiesOp op) {
      queries.push_back(op);
    });
    if (queries.empty()) {
      // Nothing changes: the pass manager need not verify the module again.
      markAllAnalysesPreserved();
      return;
    }
    bool failedAny = false;
    for (AllocatorResolveMemoryPropertiesOp op : queries) {
      SmallVector<AffinityMember> members;
      if (op.getAffinityAttr()) {
        FailureOr<SmallVector<AffinityMember>> found =
            DeviceSet::getAffinityMembers(op.getAffinityAttr(), &devices);
        if (failed(found)) {
          op.emitOpError()
              << "has affinity " << op.getAffinityAttr()
              << ", which names no device; memory properties cannot be "
                 "resolved at run time";
          failedAny = true;
          continue;
        }
        members = std::move(*found);
      }
      LLVM_DEBUG(llvm::dbgs()
                 << "[" DEBUG_TYPE "] " << op.getLoc() << ": lifetime "
                 << op.getLifetimeAttr() << " over "
                 << members.size()
                 << " device(s) resolved at run time from device.query.link "
                    "answers (unified_memory, transparent_access, "
                    "export_import per ordered pair)\n");
      OpBuilder builder(op);
      QueryLowering lowering(builder, op.getLoc(), devices);
      if (failed(lowering.lower(op, members, options))) {
        failedAny = true;
        continue;
      }
      op.erase();
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
