//===- CostModel.h - estimated time of compute ops and transfers -*- C++ -*-===//
//
// The cost model of automatic partitioning (flow-partition-pipeline,
// docs/partitioning.md). Every compute op of a host function (a linalg op,
// an elementwise arith/math op on tensors, a host-side copy) gets an
// estimated time on one worker of a local device:
//
//   seconds = max(flops / rate, bytes / bytesPerSecond) + dispatchSeconds
//
// where flops counts the payload's arith/math ops once per iteration of the
// op's static iteration space (a multiply-add is 2, a math-dialect function
// such as exp or tanh `transcendentalFlops`, a division 4; constants are
// free), `rate` is the
// contraction rate for ops with a reduction loop whose body is a
// multiply-accumulate and the vector rate otherwise, and bytes are the
// static sizes of every tensor operand and result (an init the payload does
// not read excluded). Host-side copies (extract_slice, insert_slice, concat,
// pad) read and write their result's bytes, with no flops and no dispatch;
// reshapes and floating values (empty tensors, constants, fills of them)
// cost nothing.
//
// A measured profile (`fleet-run --profile_out`) replaces the estimate of a
// dispatch root by the median device time recorded under its profile key
// (getProfileKey: the dispatch description of form-dispatches, e.g.
// `matmul_128x256x256_f32`, which does not depend on the dispatch ordinal).
//
// Units: seconds, bytes, FLOP. Not thread-safe to mutate; const use may be
// shared.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_FLOW_TRANSFORMS_COSTMODEL_H
#define FLEET_DIALECT_FLOW_TRANSFORMS_COSTMODEL_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>

namespace fleet::flow {

/// Machine constants of the cost model, per worker. The defaults were
/// measured by `bench/calibrate_cost_model.py` on the development machine
/// (docs/partitioning.md "Calibration"); `--cost_model=FILE` (a JSON object
/// with these keys) replaces any of them.
struct CostConstants {
  /// FLOP/s of a contraction kernel (matmul-like reduction of products).
  double contractionFlopsPerSecond = 8.7e10;
  /// FLOP/s of elementwise and reduction kernels.
  double vectorFlopsPerSecond = 2.2e10;
  /// FLOP one math-dialect function (exp, tanh, rsqrt, ...) counts for.
  double transcendentalFlops = 14;
  /// Bytes/s a kernel streams through (reads + writes).
  double bytesPerSecond = 2.0e10;
  /// Host and queue cost of one dispatch.
  double dispatchSeconds = 1.2e-6;
  /// Bytes/s of a copy between devices that cannot read each other's memory.
  double transferBytesPerSecond = 1.5e10;
  /// Fixed cost of one cross-device transfer (a wait across queues).
  double transferSeconds = 2.5e-5;

  /// Reads the keys present in the JSON object of `path`; a key that is no
  /// constant or a value that is not a positive number is an error.
  static llvm::Expected<CostConstants> load(llvm::StringRef path);
};

/// Median device times by profile key, read from `fleet-run --profile_out`
/// (`{"dispatches": {KEY: {"median_us": T, "count": N}, ...}}`).
struct Profile {
  llvm::StringMap<double> seconds;
  static llvm::Expected<Profile> load(llvm::StringRef path);
};

/// The estimate of one op.
struct OpCost {
  double flops = 0;
  double bytes = 0;
  /// Estimated time, or the profile's median when `measured`.
  double seconds = 0;
  /// Analytical estimate even when measured (for --explain-placement).
  double estimatedSeconds = 0;
  bool measured = false;
};

/// True for ops the model counts (compute and host-side copies).
bool isCostedOp(mlir::Operation *op);

/// Estimate of `op` (zero for ops isCostedOp rejects). `profile` may be
/// null.
OpCost estimateOpCost(mlir::Operation *op, const CostConstants &constants,
                      const Profile *profile);

/// Time to move `bytes` between two devices; `direct` when the consumer
/// reads the producer's memory in place (no bytes move).
double estimateTransferSeconds(double bytes, bool direct,
                               const CostConstants &constants);

/// Static byte size of a ranked tensor type, 0 when dynamic or not a tensor.
int64_t getStaticByteSize(mlir::Type type);

/// The profile key of a dispatch root (see file comment); empty for ops that
/// do not become a dispatch of their own.
std::string getProfileKey(mlir::Operation *op);

} // namespace fleet::flow

#endif // FLEET_DIALECT_FLOW_TRANSFORMS_COSTMODEL_H
