//===- HostTensorOps.cpp - host-side tensor ops as copies -----------------===//
//
// Part of stream-conversion (ConvertToStream.cpp). Invariant established: no
// tensor.extract_slice, insert_slice, concat, pad or reshape remains in host
// code; each became byte copies between resources on the device where its
// operand lives (docs/pipeline.md "Host-side tensor ops"):
// - a slice is one `stream.async.copy` per contiguous run of the source
//   (row-major: a run spans the innermost dimensions the slice takes whole,
//   plus the next one), into a fresh `stream.async.alloca`;
// - insert_slice clones the destination and copies the runs of the source
//   into the clone; concat copies each input's runs into one alloca; pad
//   splats the padding value's bits and copies the source's runs into it;
// - reshape (like expand/collapse_shape) is the same bytes;
// - a scalar tensor.extract / insert goes through a staging copy that the
//   host reads (`stream.async.load`) or writes (`stream.async.store`).
// Static shapes, offsets and unit strides only; anything else, and slices
// of more than kMaxRuns runs, is a located error.
//
//===----------------------------------------------------------------------===//

#include "Placement.h"

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "stream-conversion"

using namespace mlir;
using namespace fleet;

namespace fleet::stream_conversion {

namespace {

/// Copies per op before the host-side form is refused (each is a queue
/// command; a strided slice that large belongs in a kernel).
constexpr int64_t kMaxRuns = 4096;

int64_t getElementBytes(RankedTensorType type) {
  return std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
}

/// Contiguous byte runs of a box `sizes` at `offsets` inside a row-major
/// array of `shape`: (byte offset in the array, byte offset in the box's
/// own row-major layout) per run, and the run length in bytes.
struct Runs {
  SmallVector<std::pair<int64_t, int64_t>> starts;
  int64_t length = 0;
};

FailureOr<Runs> getRuns(ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets,
                        ArrayRef<int64_t> sizes, int64_t elementBytes) {
  int64_t rank = shape.size();
  Runs runs;
  if (llvm::is_contained(sizes, 0))
    return runs;
  // Innermost dimensions taken whole, then the one the run stops in.
  int64_t k = rank - 1;
  while (k > 0 && sizes[k] == shape[k])
    --k;
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  int64_t runElements = rank == 0 ? 1 : sizes[k] * strides[k];
  runs.length = runElements * elementBytes;
  int64_t count = 1;
  for (int64_t d = 0; d < k; ++d)
    count *= sizes[d];
  if (count > kMaxRuns)
    return failure();
  SmallVector<int64_t> index(std::max<int64_t>(k, 0), 0);
  for (int64_t run = 0; run < count; ++run) {
    int64_t element = rank == 0 ? 0 : offsets[k] * strides[k];
    for (int64_t d = 0; d < k; ++d)
      element += (offsets[d] + index[d]) * strides[d];
    runs.starts.push_back({element * elementBytes, run * runs.length});
    for (int64_t d = k - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return runs;
}

/// Copies the runs of `source` (a resource of `sourceSize` bytes) into
/// `target`: `fromBox` says whether the source is the box (its runs are
/// contiguous in it) or the array the box sits in.
Value copyRuns(OpBuilder &b, Location loc, const Runs &runs, Value source,
               Value sourceSize, Value target, Value targetSize, bool fromBox,
               Attribute affinity) {
  Value length = arith::ConstantIndexOp::create(b, loc, runs.length);
  for (auto [inArray, inBox] : runs.starts) {
    int64_t from = fromBox ? inBox : inArray;
    int64_t to = fromBox ? inArray : inBox;
    Value sourceOffset = arith::ConstantIndexOp::create(b, loc, from);
    Value sourceEnd = arith::ConstantIndexOp::create(b, loc, from + runs.length);
    Value targetOffset = arith::ConstantIndexOp::create(b, loc, to);
    Value targetEnd = arith::ConstantIndexOp::create(b, loc, to + runs.length);
    target = stream::AsyncCopyOp::create(
        b, loc, target.getType(), source, sourceSize, sourceOffset, sourceEnd,
        target, targetSize, targetOffset, targetEnd, length, affinity);
  }
  return target;
}

stream::ResourceType getUnknownType(MLIRContext *context) {
  return stream::ResourceType::get(context, stream::Lifetime::Unknown);
}

LogicalResult requireStatic(Operation *op, ArrayRef<int64_t> values,
                            StringRef what) {
  if (llvm::any_of(values, ShapedType::isDynamic))
    return op->emitOpError() << "has dynamic " << what
                             << "; host-side tensor ops need static ones";
  return success();
}

LogicalResult requireUnitStrides(Operation *op, ArrayRef<int64_t> strides) {
  if (!llvm::all_of(strides, [](int64_t stride) { return stride == 1; }))
    return op->emitOpError("has non-unit strides; host-side slices copy "
                           "contiguous runs only");
  return success();
}

LogicalResult requireRuns(Operation *op, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                          int64_t elementBytes) {
  if (failed(getRuns(shape, offsets, sizes, elementBytes)))
    return op->emitOpError() << "would copy more than " << kMaxRuns
                             << " separate runs on the host; compute it in "
                                "a kernel";
  return success();
}

/// The pad value's bits, or failure (with a diagnostic) when it has none
/// the host can splat.
FailureOr<APInt> getPadBits(tensor::PadOp op) {
  Value padValue = op.getConstantPaddingValue();
  Attribute padAttr;
  if (!padValue || !matchPattern(padValue, m_Constant(&padAttr)))
    return op.emitOpError("pads with a value that is not a constant; "
                          "host-side pads splat a constant");
  if (auto floatAttr = dyn_cast<FloatAttr>(padAttr))
    return floatAttr.getValue().bitcastToAPInt();
  if (auto intAttr = dyn_cast<IntegerAttr>(padAttr))
    return intAttr.getValue();
  return op.emitOpError("pads with an unsupported constant");
}

struct ExtractSlicePattern : public PlacementPattern<tensor::ExtractSliceOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(tensor::ExtractSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType sourceType = op.getSourceType();
    FailureOr<Runs> runs =
        getRuns(sourceType.getShape(), op.getStaticOffsets(),
                op.getStaticSizes(), getElementBytes(sourceType));
    if (failed(runs))
      return rewriter.notifyMatchFailure(op, "not verified");
    Attribute affinity = getExecution(op);
    FailureOr<Value> source =
        getResourceForOp(rewriter, op, op.getSource(), adaptor.getSource());
    if (failed(source))
      return failure();
    Value sourceSize = placement.getSize(rewriter, loc, sourceType);
    Value resultSize = placement.getSize(rewriter, loc, op.getType());
    Value result = stream::AsyncAllocaOp::create(
        rewriter, loc, getUnknownType(op.getContext()), resultSize, affinity);
    result = copyRuns(rewriter, loc, *runs, *source, sourceSize, result,
                      resultSize, /*fromBox=*/false, affinity);
    LLVM_DEBUG(llvm::dbgs() << "extract_slice: " << runs->starts.size()
                            << " copies of " << runs->length << " bytes\n");
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct InsertSlicePattern : public PlacementPattern<tensor::InsertSliceOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(tensor::InsertSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType destType = op.getDestType();
    FailureOr<Runs> runs =
        getRuns(destType.getShape(), op.getStaticOffsets(),
                op.getStaticSizes(), getElementBytes(destType));
    if (failed(runs))
      return rewriter.notifyMatchFailure(op, "not verified");
    Attribute affinity = getExecution(op);
    FailureOr<Value> source =
        getResourceForOp(rewriter, op, op.getSource(), adaptor.getSource());
    FailureOr<Value> dest =
        getResourceForOp(rewriter, op, op.getDest(), adaptor.getDest());
    if (failed(source) || failed(dest))
      return failure();
    Value sourceSize = placement.getSize(rewriter, loc, op.getSourceType());
    Value destSize = placement.getSize(rewriter, loc, destType);
    // The destination value stays as it was: update a copy of it.
    Value result = stream::AsyncCloneOp::create(
        rewriter, loc, getUnknownType(op.getContext()), *dest, destSize,
        destSize, affinity);
    result = copyRuns(rewriter, loc, *runs, *source, sourceSize, result,
                      destSize, /*fromBox=*/true, affinity);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConcatPattern : public PlacementPattern<tensor::ConcatOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(tensor::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Attribute affinity = getExecution(op);
    Value resultSize = placement.getSize(rewriter, loc, resultType);
    Value result = stream::AsyncAllocaOp::create(
        rewriter, loc, getUnknownType(op.getContext()), resultSize, affinity);
    int64_t dim = op.getDim();
    int64_t offset = 0;
    for (auto [input, converted] :
         llvm::zip(op.getInputs(), adaptor.getInputs())) {
      auto inputType = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> offsets(resultType.getRank(), 0);
      offsets[dim] = offset;
      offset += inputType.getDimSize(dim);
      FailureOr<Runs> runs =
          getRuns(resultType.getShape(), offsets, inputType.getShape(),
                  getElementBytes(resultType));
      if (failed(runs))
        return rewriter.notifyMatchFailure(op, "not verified");
      FailureOr<Value> source =
          getResourceForOp(rewriter, op, input, converted);
      if (failed(source))
        return failure();
      result = copyRuns(rewriter, loc, *runs, *source,
                        placement.getSize(rewriter, loc, inputType), result,
                        resultSize, /*fromBox=*/true, affinity);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A pad fills at most this many gaps between its copied runs; more, and
/// the whole result is splatted first.
constexpr size_t kMaxPadFills = 8;

struct PadPattern : public PlacementPattern<tensor::PadOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(tensor::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResultType();
    FailureOr<APInt> bits = getPadBits(op);
    int64_t elementBytes = getElementBytes(resultType);
    FailureOr<Runs> runs =
        getRuns(resultType.getShape(), op.getStaticLow(),
                op.getSourceType().getShape(), elementBytes);
    if (failed(bits) || failed(runs))
      return rewriter.notifyMatchFailure(op, "not verified");
    Attribute affinity = getExecution(op);
    FailureOr<Value> source =
        getResourceForOp(rewriter, op, op.getSource(), adaptor.getSource());
    if (failed(source))
      return failure();
    // i1 pads one byte per element (0 or 1).
    APInt pattern = bits->zextOrTrunc(elementBytes * 8);
    Value patternValue = arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getIntegerAttr(rewriter.getIntegerType(elementBytes * 8),
                                pattern));
    Value resultSize = placement.getSize(rewriter, loc, resultType);
    // The bytes no run covers: with few such gaps (padding rows at the end
    // of a matmul operand) only they are filled, not the whole result
    // first; with many (padding around every row) one splat is cheaper.
    SmallVector<std::pair<int64_t, int64_t>> gaps;
    int64_t covered = 0;
    SmallVector<int64_t> starts;
    for (auto [inResult, inSource] : runs->starts)
      starts.push_back(inResult);
    llvm::sort(starts);
    for (int64_t start : starts) {
      if (start > covered)
        gaps.push_back({covered, start});
      covered = start + runs->length;
    }
    int64_t total = resultType.getNumElements() * elementBytes;
    if (covered < total)
      gaps.push_back({covered, total});
    Value result;
    if (gaps.size() <= kMaxPadFills) {
      result = stream::AsyncAllocaOp::create(
          rewriter, loc, getUnknownType(op.getContext()), resultSize, affinity);
      for (auto [begin, end] : gaps)
        result = stream::AsyncFillOp::create(
            rewriter, loc, result.getType(), result, resultSize,
            arith::ConstantIndexOp::create(rewriter, loc, begin),
            arith::ConstantIndexOp::create(rewriter, loc, end),
            arith::ConstantIndexOp::create(rewriter, loc, end - begin),
            patternValue, affinity);
    } else {
      result = stream::AsyncSplatOp::create(
          rewriter, loc, getUnknownType(op.getContext()), patternValue,
          resultSize, /*await_timepoint=*/Value{}, affinity);
    }
    LLVM_DEBUG(llvm::dbgs() << "pad: " << gaps.size() << " gaps, "
                            << (gaps.size() <= kMaxPadFills ? "filled"
                                                            : "one splat")
                            << "\n");
    result = copyRuns(rewriter, loc, *runs, *source,
                      placement.getSize(rewriter, loc, op.getSourceType()),
                      result, resultSize, /*fromBox=*/true, affinity);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tensor.reshape: the same bytes in another shape.
struct TensorReshapePattern : public PlacementPattern<tensor::ReshapeOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(tensor::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

/// The byte offset of element `indices` (row-major) in `type`.
Value getElementOffset(OpBuilder &b, Location loc, RankedTensorType type,
                       ValueRange indices) {
  Value offset = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value extent =
        arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
    offset = arith::MulIOp::create(b, loc, offset, extent);
    offset = arith::AddIOp::create(b, loc, offset, index);
  }
  Value bytes =
      arith::ConstantIndexOp::create(b, loc, getElementBytes(type));
  return arith::MulIOp::create(b, loc, offset, bytes);
}

/// A staging copy of `tensor` on the device it lives on (or `op`'s
/// default), for host reads and writes.
FailureOr<Value> stageTensor(ConversionPatternRewriter &rewriter,
                             Placement &placement, Operation *op,
                             Value tensor, Value converted, Attribute lives) {
  FailureOr<Value> resource = placement.getResourceAt(
      rewriter, op->getLoc(), tensor, converted, lives);
  if (failed(resource))
    return failure();
  return placement.asLifetime(rewriter, op->getLoc(), *resource,
                              cast<RankedTensorType>(tensor.getType()),
                              stream::Lifetime::Staging, lives);
}

/// tensor.extract of a scalar on the host: the tensor is copied to staging
/// memory on its device and the host reads the element after awaiting it.
struct ExtractPattern : public PlacementPattern<tensor::ExtractOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(tensor::ExtractOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getTensor().getType();
    FailureOr<Value> staging =
        stageTensor(rewriter, placement, op, op.getTensor(),
                    adaptor.getTensor(), getAffinityOr(op.getTensor(), op));
    if (failed(staging))
      return failure();
    Location loc = op.getLoc();
    Value offset = getElementOffset(rewriter, loc, type, adaptor.getIndices());
    rewriter.replaceOpWithNewOp<stream::AsyncLoadOp>(
        op, op.getType(), *staging, placement.getSize(rewriter, loc, type),
        offset);
    return success();
  }
};

/// tensor.insert of a scalar on the host: written into a staging copy of
/// the tensor, which goes back to the tensor's device.
struct InsertPattern : public PlacementPattern<tensor::InsertOp> {
  using PlacementPattern::PlacementPattern;
  LogicalResult
  matchAndRewrite(tensor::InsertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getDest().getType();
    Attribute lives = getAffinityOr(op.getDest(), op);
    FailureOr<Value> staging = stageTensor(rewriter, placement, op,
                                           op.getDest(), adaptor.getDest(),
                                           lives);
    if (failed(staging))
      return failure();
    Location loc = op.getLoc();
    Value size = placement.getSize(rewriter, loc, type);
    Value offset = getElementOffset(rewriter, loc, type, adaptor.getIndices());
    Value stored = stream::AsyncStoreOp::create(
        rewriter, loc, staging->getType(), *staging, size, offset,
        adaptor.getScalar());
    rewriter.replaceOp(op, placement.asLifetime(rewriter, loc, stored, type,
                                                stream::Lifetime::Unknown,
                                                lives));
    return success();
  }
};

} // namespace

LogicalResult verifyHostTensorOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([](tensor::ExtractSliceOp op) -> LogicalResult {
        if (failed(requireStatic(op, op.getStaticOffsets(), "offsets")) ||
            failed(requireStatic(op, op.getStaticSizes(), "sizes")) ||
            failed(requireUnitStrides(op, op.getStaticStrides())))
          return failure();
        return requireRuns(op, op.getSourceType().getShape(),
                           op.getStaticOffsets(), op.getStaticSizes(),
                           getElementBytes(op.getSourceType()));
      })
      .Case([](tensor::InsertSliceOp op) -> LogicalResult {
        if (failed(requireStatic(op, op.getStaticOffsets(), "offsets")) ||
            failed(requireStatic(op, op.getStaticSizes(), "sizes")) ||
            failed(requireUnitStrides(op, op.getStaticStrides())))
          return failure();
        return requireRuns(op, op.getDestType().getShape(),
                           op.getStaticOffsets(), op.getStaticSizes(),
                           getElementBytes(op.getDestType()));
      })
      .Case([](tensor::ConcatOp op) -> LogicalResult {
        auto resultType = cast<RankedTensorType>(op.getType());
        if (!resultType.hasStaticShape())
          return op.emitOpError("has a dynamic shape; host-side concat needs "
                                "a static one");
        int64_t offset = 0;
        for (Value input : op.getInputs()) {
          auto inputType = cast<RankedTensorType>(input.getType());
          SmallVector<int64_t> offsets(resultType.getRank(), 0);
          offsets[op.getDim()] = offset;
          offset += inputType.getDimSize(op.getDim());
          if (failed(requireRuns(op, resultType.getShape(), offsets,
                                 inputType.getShape(),
                                 getElementBytes(resultType))))
            return failure();
        }
        return success();
      })
      .Case([](tensor::PadOp op) -> LogicalResult {
        RankedTensorType resultType = op.getResultType();
        if (!resultType.hasStaticShape() ||
            failed(requireStatic(op, op.getStaticLow(), "low padding")))
          return op.emitOpError("has dynamic padding; host-side pads need "
                                "static shapes and padding");
        if (failed(getPadBits(op)))
          return failure();
        int64_t elementBytes = getElementBytes(resultType);
        if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 &&
            elementBytes != 8)
          return op.emitOpError("pads elements of an unsupported width");
        return requireRuns(op, resultType.getShape(), op.getStaticLow(),
                           op.getSourceType().getShape(), elementBytes);
      })
      .Case([](tensor::ReshapeOp op) -> LogicalResult {
        if (!op.getResultType().hasStaticShape())
          return op.emitOpError("has a dynamic result shape; host-side "
                                "reshapes need a static one");
        return success();
      })
      .Default([](Operation *) { return success(); });
}

void populateHostTensorPatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns,
                                Placement &placement) {
  patterns.add<ExtractSlicePattern, InsertSlicePattern, ConcatPattern,
               PadPattern, TensorReshapePattern, ExtractPattern, InsertPattern>(
      converter, patterns.getContext(), placement);
}

} // namespace fleet::stream_conversion
