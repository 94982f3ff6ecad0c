//===- MaterializeWorkgroupCounts.cpp - grids where the host dispatches ---===//
//
// Invariant established: no `hal.executable.calculate_workgroups` remains
// outside executables; each became a copy of the count region of the
// export and variant it names, evaluated on the host with its device and
// workload (docs/pipeline.md §3).
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/Transforms/Passes.h"

#include "fleet/Dialect/HAL/IR/HALOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "hal-materialize-workgroup-counts"

namespace fleet::hal {
#define GEN_PASS_DEF_MATERIALIZEWORKGROUPCOUNTSPASS
#include "fleet/Dialect/HAL/Transforms/Passes.h.inc"
} // namespace fleet::hal

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

namespace {

struct MaterializeWorkgroupCountsPass
    : public fleet::hal::impl::MaterializeWorkgroupCountsPassBase<
          MaterializeWorkgroupCountsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    SmallVector<ExecutableCalculateWorkgroupsOp> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<ExecutableOp>(op))
        return WalkResult::skip();
      if (auto calculate = dyn_cast<ExecutableCalculateWorkgroupsOp>(op))
        ops.push_back(calculate);
      return WalkResult::advance();
    });
    for (ExecutableCalculateWorkgroupsOp op : ops) {
      ExecutableExportOp exportOp = op.lookupExport(symbols);
      if (!exportOp) {
        op.emitOpError("target ") << op.getEntryPointAttr()
                                  << " does not name an export";
        return signalPassFailure();
      }
      OpBuilder builder(op);
      SmallVector<Value, 3> grid;
      Region &count = exportOp.getWorkgroupCount();
      if (count.empty()) {
        Value one = arith::ConstantIndexOp::create(builder, op.getLoc(), 1);
        grid.assign(3, one);
      } else {
        Block &block = count.front();
        if (block.getNumArguments() != op.getWorkload().size() + 1) {
          op.emitOpError("passes ")
              << op.getWorkload().size()
              << " workload values but the count region of "
              << op.getEntryPointAttr() << " takes "
              << (block.getNumArguments() - 1);
          return signalPassFailure();
        }
        IRMapping mapping;
        mapping.map(block.getArgument(0), op.getDevice());
        for (auto [argument, workload] : llvm::zip_equal(
                 block.getArguments().drop_front(), op.getWorkload()))
          mapping.map(argument, workload);
        for (Operation &nested : block) {
          if (auto ret = dyn_cast<ReturnOp>(nested)) {
            for (Value value : ret.getOperands())
              grid.push_back(mapping.lookupOrDefault(value));
            continue;
          }
          builder.clone(nested, mapping);
        }
      }
      if (grid.size() != 3) {
        op.emitOpError("count region of ")
            << op.getEntryPointAttr() << " returns " << grid.size()
            << " values, not 3";
        return signalPassFailure();
      }
      LLVM_DEBUG(llvm::dbgs() << "grid of " << op.getEntryPointAttr()
                              << " materialized\n");
      op.replaceAllUsesWith(grid);
      op.erase();
    }
  }
};

} // namespace
