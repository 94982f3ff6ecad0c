//===- CostModel.cpp - estimated time of compute ops and transfers --------===//

#include "fleet/Dialect/Flow/Transforms/CostModel.h"

#include "DispatchNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::flow;

/// Payload FLOP of a division (see getPayloadFlops); docs/partitioning.md
/// "Cost model".
static constexpr double kDivisionFlops = 4;

static llvm::Expected<llvm::json::Value> readJSON(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read %s: %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  auto value = llvm::json::parse((*buffer)->getBuffer());
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s is not JSON: %s", path.str().c_str(),
                                   llvm::toString(value.takeError()).c_str());
  return std::move(*value);
}

llvm::Expected<CostConstants> CostConstants::load(StringRef path) {
  auto value = readJSON(path);
  if (!value)
    return value.takeError();
  const llvm::json::Object *object = value->getAsObject();
  if (!object)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: expected a JSON object",
                                   path.str().c_str());
  CostConstants constants;
  std::pair<StringRef, double *> keys[] = {
      {"contraction_flops_per_s", &constants.contractionFlopsPerSecond},
      {"vector_flops_per_s", &constants.vectorFlopsPerSecond},
      {"transcendental_flops", &constants.transcendentalFlops},
      {"bytes_per_s", &constants.bytesPerSecond},
      {"dispatch_s", &constants.dispatchSeconds},
      {"transfer_bytes_per_s", &constants.transferBytesPerSecond},
      {"transfer_s", &constants.transferSeconds}};
  for (const auto &entry : *object) {
    StringRef key = entry.first;
    auto it = llvm::find_if(keys, [&](auto &k) { return k.first == key; });
    if (it == std::end(keys)) {
      // Calibration scripts may record what they measured on; keys starting
      // with "_" are comments.
      if (key.starts_with("_"))
        continue;
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s: unknown cost-model key '%s'",
                                     path.str().c_str(), key.str().c_str());
    }
    std::optional<double> number = entry.second.getAsNumber();
    if (!number || *number <= 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s: '%s' must be a positive number", path.str().c_str(),
          key.str().c_str());
    *it->second = *number;
  }
  return constants;
}

llvm::Expected<Profile> Profile::load(StringRef path) {
  auto value = readJSON(path);
  if (!value)
    return value.takeError();
  const llvm::json::Object *object = value->getAsObject();
  const llvm::json::Object *dispatches =
      object ? object->getObject("dispatches") : nullptr;
  if (!dispatches)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: expected {\"dispatches\": {...}} (fleet-run --profile_out)",
        path.str().c_str());
  Profile profile;
  for (const auto &entry : *dispatches) {
    const llvm::json::Object *record = entry.second.getAsObject();
    std::optional<double> median =
        record ? record->getNumber("median_us") : std::nullopt;
    if (!median || *median < 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s: dispatch '%s' has no non-negative \"median_us\"",
          path.str().c_str(), entry.first.str().c_str());
    profile.seconds[entry.first.str()] = *median * 1e-6;
  }
  return profile;
}

int64_t fleet::flow::getStaticByteSize(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  int64_t bits = tensor.getElementType().isIntOrFloat()
                     ? tensor.getElementTypeBitWidth()
                     : 32;
  return tensor.getNumElements() * std::max<int64_t>(1, bits / 8);
}

static bool isHostCopy(Operation *op) {
  return isa<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp,
             tensor::PadOp>(op);
}

static bool isElementwiseTensorOp(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (!dialect || !isa<arith::ArithDialect, math::MathDialect>(dialect))
    return false;
  return op->getNumResults() == 1 &&
         isa<RankedTensorType>(op->getResult(0).getType()) &&
         !isa<arith::ConstantOp>(op);
}

bool fleet::flow::isCostedOp(Operation *op) {
  if (isa<linalg::LinalgOp>(op))
    return true;
  return isHostCopy(op) || isElementwiseTensorOp(op);
}

/// A body computing acc + a * b (in any order): a contraction kernel.
static bool isMultiplyAccumulate(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return false;
  Block *body = op.getBlock();
  bool hasMul = false, hasAdd = false;
  for (Operation &inner : body->without_terminator()) {
    hasMul |= isa<arith::MulFOp, arith::MulIOp>(inner);
    hasAdd |= isa<arith::AddFOp, arith::AddIOp>(inner);
  }
  return hasMul && hasAdd;
}

/// FLOP a payload op counts for: transcendental functions (math dialect:
/// exp, tanh, rsqrt, ...) and divisions expand into several instructions.
static double getPayloadFlops(Operation *op, const CostConstants &constants) {
  if (isa<math::MathDialect>(op->getDialect()))
    return constants.transcendentalFlops;
  if (isa<arith::DivFOp, arith::RemFOp>(op))
    return kDivisionFlops;
  return 1;
}

OpCost fleet::flow::estimateOpCost(Operation *op,
                                   const CostConstants &constants,
                                   const Profile *profile) {
  OpCost cost;
  if (!isCostedOp(op))
    return cost;
  if (isHostCopy(op)) {
    // Reads what it writes: the result's bytes, twice.
    cost.bytes = 2.0 * getStaticByteSize(op->getResult(0).getType());
  } else {
    for (Value operand : op->getOperands())
      cost.bytes += getStaticByteSize(operand.getType());
    for (Value result : op->getResults())
      cost.bytes += getStaticByteSize(result.getType());
  }
  double rate = constants.vectorFlopsPerSecond;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    // DPS inits are read only when the payload uses them; count results once.
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      if (!linalgOp.payloadUsesValueFromOperand(&init))
        cost.bytes -= getStaticByteSize(init.get().getType());
    double iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges())
      iterations *= ShapedType::isDynamic(range) ? 1 : range;
    double bodyFlops = 0;
    linalgOp.getBlock()->walk([&](Operation *inner) {
      if (!isa<linalg::YieldOp, linalg::IndexOp, arith::ConstantOp>(inner))
        bodyFlops += getPayloadFlops(inner, constants);
    });
    cost.flops = iterations * std::max(1.0, bodyFlops);
    if (isMultiplyAccumulate(linalgOp))
      rate = constants.contractionFlopsPerSecond;
  } else if (isElementwiseTensorOp(op)) {
    // Dynamic dimensions count as 1, as linalg's dynamic loop ranges do.
    double elements = 1;
    for (int64_t size :
         cast<RankedTensorType>(op->getResult(0).getType()).getShape())
      elements *= ShapedType::isDynamic(size) ? 1 : size;
    cost.flops = elements * getPayloadFlops(op, constants);
  }
  // A host copy streams its bytes and dispatches no kernel.
  double fixed = isHostCopy(op) ? 0 : constants.dispatchSeconds;
  cost.estimatedSeconds =
      std::max(cost.flops / rate, cost.bytes / constants.bytesPerSecond) +
      fixed;
  cost.seconds = cost.estimatedSeconds;
  if (profile) {
    std::string key = getProfileKey(op);
    auto it = key.empty() ? profile->seconds.end() : profile->seconds.find(key);
    if (it != profile->seconds.end()) {
      cost.seconds = it->second;
      cost.measured = true;
    }
  }
  return cost;
}

double fleet::flow::estimateTransferSeconds(double bytes, bool direct,
                                            const CostConstants &constants) {
  return constants.transferSeconds +
         (direct ? 0.0 : bytes / constants.transferBytesPerSecond);
}

std::string fleet::flow::getProfileKey(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || isa<linalg::FillOp>(op))
    return {};
  return describeDispatchRoot(linalgOp);
}
