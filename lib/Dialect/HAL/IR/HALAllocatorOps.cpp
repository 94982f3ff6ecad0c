//===- HALAllocatorOps.cpp - memory properties and allocation -------------===//
//
// Folders, verifiers, canonicalizations and interfaces of the ops in
// HALAllocatorOps.td (docs/ir-reference.md, "Memory properties and
// allocation").
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

//===----------------------------------------------------------------------===//
// hal.memory_type / hal.buffer_usage
//===----------------------------------------------------------------------===//

// Both are the i32 value of their bitfield, so consumers fold through them.
OpFoldResult MemoryTypeOp::fold(FoldAdaptor) {
  return IntegerAttr::get(getType(), static_cast<int64_t>(getValue()));
}

OpFoldResult BufferUsageOp::fold(FoldAdaptor) {
  return IntegerAttr::get(getType(), static_cast<int64_t>(getValue()));
}

//===----------------------------------------------------------------------===//
// hal.allocator.select
//===----------------------------------------------------------------------===//

LogicalResult AllocatorSelectOp::verify() {
  // docs/ir-reference.md: at least one (device, affinity) pair, equal counts.
  size_t devices = getDevices().size();
  size_t queueAffinities = getQueueAffinities().size();
  if (devices != queueAffinities)
    return emitOpError("needs one queue affinity per candidate device; got ")
           << devices << " devices and " << queueAffinities
           << " queue affinities";
  if (devices == 0)
    return emitOpError("needs at least one candidate (device, queue "
                       "affinity) pair");
  return success();
}

namespace {

/// One candidate, or several that are all the same (device, affinity) pair:
/// that pair is the selection whatever the memory type and usage.
struct FoldSingleCandidate : OpRewritePattern<AllocatorSelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllocatorSelectOp op,
                                PatternRewriter &rewriter) const override {
    ValueRange devices = op.getDevices();
    ValueRange queueAffinities = op.getQueueAffinities();
    if (devices.empty() || devices.size() != queueAffinities.size())
      return rewriter.notifyMatchFailure(op, "malformed candidate list");
    for (auto [device, queueAffinity] :
         llvm::zip_equal(devices, queueAffinities)) {
      if (device != devices.front() ||
          queueAffinity != queueAffinities.front())
        return rewriter.notifyMatchFailure(op, "candidates differ");
    }
    rewriter.replaceOp(op, {devices.front(), queueAffinities.front()});
    return success();
  }
};

/// Candidates that all name the same device value: that device is selected
/// (only the queue still depends on the run-time choice).
struct FoldCommonDevice : OpRewritePattern<AllocatorSelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllocatorSelectOp op,
                                PatternRewriter &rewriter) const override {
    ValueRange devices = op.getDevices();
    if (devices.empty())
      return rewriter.notifyMatchFailure(op, "no candidates");
    if (op.getSelectedDevice().use_empty())
      return rewriter.notifyMatchFailure(op, "selected device is unused");
    if (!llvm::all_equal(devices))
      return rewriter.notifyMatchFailure(op, "candidate devices differ");
    rewriter.replaceAllUsesWith(op.getSelectedDevice(), devices.front());
    return success();
  }
};

} // namespace

void AllocatorSelectOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                    MLIRContext *context) {
  results.add<FoldSingleCandidate, FoldCommonDevice>(context);
}

//===----------------------------------------------------------------------===//
// Size-aware allocations
//===----------------------------------------------------------------------===//

Value AllocatorAllocateOp::getOperandSize(unsigned) { return {}; }

Value AllocatorAllocateOp::getResultSize(unsigned) { return getResultSize(); }

Value AllocatorImportOp::getOperandSize(unsigned) { return {}; }

// The imported buffer covers exactly [offset, offset + length) of the host
// buffer.
Value AllocatorImportOp::getResultSize(unsigned idx) {
  return idx == 1 ? getLength() : Value();
}

//===----------------------------------------------------------------------===//
// Result names (IREE's, docs/ir-reference.md "Result names")
//===----------------------------------------------------------------------===//

void AllocatorAllocateOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "buffer");
}

void AllocatorImportOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getDidImport(), "did_import");
  setNameFn(getResult(), "mapped");
}
