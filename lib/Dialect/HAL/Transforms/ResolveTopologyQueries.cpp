//===- ResolveTopologyQueries.cpp - static memory properties --------------===//
//
// Invariant established: every hal.allocator.resolve_memory_properties whose
// answer the device identities and the static `stream.topology` prove is a
// pair of constants, and the hal.allocator.select it fed names the proven
// allocating device (docs/design.md §3). Unproven queries are left unchanged.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "fleet/Dialect/HAL/Analysis/DeviceSet.h"
#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-resolve-topology-queries"

namespace fleet::hal {
#define GEN_PASS_DEF_RESOLVETOPOLOGYQUERIESPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

/// True when `device` is loaded from global `name`.
bool isLoadOf(Value device, StringRef name) {
  auto load = device.getDefiningOp<util::GlobalLoadOp>();
  return load && load.getGlobal() == name;
}

/// Rewires the selects that consume exactly `resolve`'s bits to the
/// candidate of the allocating device `owner`. Selects whose candidates do
/// not include it are left to run time.
void resolveSelects(AllocatorResolveMemoryPropertiesOp resolve,
                    const AffinityMember &owner) {
  SmallVector<AllocatorSelectOp> selects;
  for (Operation *user : resolve->getUsers()) {
    auto select = dyn_cast<AllocatorSelectOp>(user);
    if (select && select.getMemoryTypes() == resolve.getMemoryTypes() &&
        select.getBufferUsage() == resolve.getBufferUsage() &&
        !llvm::is_contained(selects, select))
      selects.push_back(select);
  }
  for (AllocatorSelectOp select : selects) {
    // Prefer the candidate with the member's own queue mask.
    std::optional<unsigned> chosen;
    for (auto [index, device, queue] :
         llvm::enumerate(select.getDevices(), select.getQueueAffinities())) {
      if (!isLoadOf(device, owner.device))
        continue;
      APInt mask;
      bool sameQueue = matchPattern(queue, m_ConstantInt(&mask)) &&
                       mask.getSExtValue() == owner.queueMask;
      if (!chosen || sameQueue)
        chosen = index;
      if (sameQueue)
        break;
    }
    if (!chosen) {
      LLVM_DEBUG(llvm::dbgs() << "select has no candidate on @" << owner.device
                              << "; left to run time\n");
      continue;
    }
    select.getSelectedDevice().replaceAllUsesWith(
        select.getDevices()[*chosen]);
    select.getSelectedQueueAffinity().replaceAllUsesWith(
        select.getQueueAffinities()[*chosen]);
    select.erase();
  }
}

struct ResolveTopologyQueriesPass
    : public fleet::hal::impl::ResolveTopologyQueriesPassBase<
          ResolveTopologyQueriesPass> {
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
    for (AllocatorResolveMemoryPropertiesOp op : queries) {
      stream::Lifetime lifetime = op.getLifetime();
      std::optional<AllocationResolution> resolution;
      SmallVector<AffinityMember> members;
      if (!op.getAffinityAttr()) {
        // No affinity: any one device, so the lifetime alone decides.
        resolution = AllocationResolution();
        resolution->properties = getLifetimeBaseProperties(lifetime, options);
      } else {
        FailureOr<SmallVector<AffinityMember>> found =
            DeviceSet::getAffinityMembers(op.getAffinityAttr(), &devices);
        if (failed(found)) {
          LLVM_DEBUG(llvm::dbgs() << "skip: affinity " << op.getAffinityAttr()
                                  << " is not a device or optimal set\n");
          continue;
        }
        members = std::move(*found);
        resolution = devices.resolveAllocation(members, lifetime, options);
      }
      if (!resolution) {
        LLVM_DEBUG(llvm::dbgs() << "skip: links do not prove the allocating "
                                   "device of "
                                << op.getAffinityAttr() << "\n");
        continue;
      }
      if (!members.empty())
        resolveSelects(op, members[resolution->allocatingMember]);
      OpBuilder builder(op);
      Value memoryTypes = MemoryTypeOp::create(
          builder, op.getLoc(), builder.getI32Type(),
          MemoryTypeAttr::get(builder.getContext(),
                              resolution->properties.memoryTypes));
      Value bufferUsage = BufferUsageOp::create(
          builder, op.getLoc(), builder.getI32Type(),
          BufferUsageAttr::get(builder.getContext(),
                               resolution->properties.bufferUsage));
      op.getMemoryTypes().replaceAllUsesWith(memoryTypes);
      op.getBufferUsage().replaceAllUsesWith(bufferUsage);
      op.erase();
    }
  }
};

} // namespace
