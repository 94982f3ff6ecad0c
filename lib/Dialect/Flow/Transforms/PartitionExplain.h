//===- PartitionExplain.h - --explain-placement's report --------*- C++ -*-===//
//
// The report flow-partition-pipeline prints with --explain-placement: per
// stage its device, busy time (compute, estimated and measured, plus
// transfers in), bytes crossing into it and its ops; per cut the bytes
// crossing it and the busiest stage were the cut one op earlier or later;
// and the busiest stage of the equal-compute cut a greedy partitioner
// would take. Times are per micro-batch.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_LIB_DIALECT_FLOW_TRANSFORMS_PARTITIONEXPLAIN_H
#define FLEET_LIB_DIALECT_FLOW_TRANSFORMS_PARTITIONEXPLAIN_H

#include "PipelineCuts.h"

#include "fleet/Dialect/Flow/Transforms/CostModel.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "llvm/Support/raw_ostream.h"

namespace fleet::flow {

struct PlacementReport {
  mutable util::FuncOp func;
  llvm::ArrayRef<mlir::Attribute> devices;
  const PipelineProblem &problem;
  const PipelineCut &cut;
  llvm::ArrayRef<llvm::SmallVector<mlir::Operation *>> opsOfNode;
  llvm::ArrayRef<OpCost> costOfNode;
  int64_t microBatches;
};

void printPlacementReport(const PlacementReport &report,
                          llvm::raw_ostream &os);

} // namespace fleet::flow

#endif // FLEET_LIB_DIALECT_FLOW_TRANSFORMS_PARTITIONEXPLAIN_H
