//===- TensorOpsToLinalg.cpp - tensor ops that belong in a kernel ---------===//
//
// Part of flow-form-dispatches (not a pass of its own). Before dispatches
// are formed:
//
// - ops implementing linalg's AggregatedOpInterface (`linalg.softmax`) are
//   decomposed with the interface's own `decomposeOperation` into the
//   generics, fills and reductions they stand for; a softmax's last generic
//   then multiplies by its row sum's reciprocal instead of dividing, and
//   its f32 exp, whose argument is at most 0, is expanded for that range;
// - a `tensor.pad`, `tensor.extract_slice` or `tensor.insert_slice` the host
//   program would not copy (docs/pipeline.md "Host-side tensor ops": strides
//   other than 1, dynamic slice offsets or padding, more than 4,096
//   contiguous runs, a padding value that is not a constant) or whose only user is an elementwise `linalg.generic`
//   (so it fuses into that kernel) becomes a `linalg.generic` over its
//   result: a slice reads its source through an affine indexing map
//   (offset + stride * index; a gather with tensor.extract when the offsets
//   are dynamic), a pad or insert reads its source with
//   `tensor.extract` at clamped indices and selects the padding value (or
//   the destination's element) outside the source's box. Every read is in
//   bounds.
//
// - every `tensor.extract` inside a linalg op (a gather: an embedding
//   lookup, a pad's read) reads at indices clamped into the source's
//   bounds: an out-of-range index reads the nearest element (as XLA's
//   gathers do), never memory outside the tensor.
//
// - a linalg operand made by a dynamic tensor.reshape of a static source
//   gets a static reshape when the op's other operands pin all but one of
//   its dimensions (the element count gives the last).
//
// - `cf.assert` in host functions (torch-mlir's shape checks) becomes
//   `util.status.check_ok` of `select(cond, 0, 1)`: a failed check ends the
//   call with the assert's message.
//
// Invariant after it: every such op left is one the host can copy, and no
// gather in a kernel reads out of bounds.
//
//===----------------------------------------------------------------------===//

#include "TensorOpsToLinalg.h"

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "flow-form-dispatches"

using namespace mlir;

namespace {

/// HostTensorOps.cpp's limit on the contiguous runs one host copy op makes.
constexpr int64_t kMaxHostRuns = 4096;

/// Contiguous runs of a box of `sizes` inside a row-major array of `shape`
/// (the innermost dimensions taken whole plus the next one form a run).
int64_t countRuns(ArrayRef<int64_t> shape, ArrayRef<int64_t> sizes) {
  int64_t rank = shape.size();
  if (rank == 0)
    return 1;
  int64_t k = rank - 1;
  while (k > 0 && sizes[k] == shape[k])
    --k;
  int64_t count = 1;
  for (int64_t d = 0; d < k; ++d)
    count *= sizes[d];
  return count;
}

bool allStatic(ArrayRef<int64_t> values) {
  return llvm::none_of(values, ShapedType::isDynamic);
}

bool isElementwiseGeneric(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops();
}

/// True when the only user of `value` is an elementwise generic, which the
/// op producing it then fuses into.
bool feedsElementwiseKernel(Value value) {
  if (value.use_empty())
    return false;
  Operation *user = *value.getUsers().begin();
  return isElementwiseGeneric(user) &&
         llvm::all_of(value.getUsers(),
                      [&](Operation *other) { return other == user; });
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// A generic over `resultType` whose element i is
/// `source[(i - offsets) / strides]` inside the box the source covers and
/// `background(b, loc, i)` outside it. `dropped` marks result dimensions
/// the (rank-reduced) source does not have; the box is 1 wide there.
Value buildInsertGeneric(
    RewriterBase &rewriter, Location loc, RankedTensorType resultType,
    Value source, ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> strides,
    const llvm::SmallBitVector &dropped, ValueRange extraInputs,
    function_ref<Value(OpBuilder &, Location, ValueRange, ValueRange)>
        background) {
  int64_t rank = resultType.getRank();
  auto sourceType = cast<RankedTensorType>(source.getType());
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<AffineMap> maps(extraInputs.size() + 1,
                              rewriter.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, resultType, extraInputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> index, sourceIndex;
        Value inside;
        auto both = [&](Value condition) {
          inside = inside ? arith::AndIOp::create(b, loc, inside, condition)
                                .getResult()
                          : condition;
        };
        Value zero = indexConstant(b, loc, 0);
        int64_t sourceDim = 0;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(b, loc, d);
          index.push_back(i);
          int64_t size = dropped.test(d)
                             ? 1
                             : sourceType.getDimSize(sourceDim);
          int64_t stride = strides[d];
          bool zeroOffset = isZeroInteger(offsets[d]);
          Value shifted =
              zeroOffset
                  ? i
                  : arith::SubIOp::create(
                        b, loc, i,
                        getValueOrCreateConstantIndexOp(b, loc, offsets[d]))
                        .getResult();
          bool covered =
              zeroOffset && stride == 1 && size == resultType.getDimSize(d);
          if (!covered) {
            both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                       shifted, zero));
            both(arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::slt, shifted,
                indexConstant(b, loc, (size - 1) * stride + 1)));
          }
          if (stride != 1) {
            Value strideValue = indexConstant(b, loc, stride);
            both(arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq,
                arith::RemSIOp::create(b, loc, shifted, strideValue), zero));
            shifted = arith::DivSIOp::create(b, loc, shifted, strideValue);
          }
          if (dropped.test(d))
            continue;
          // Clamped into [0, size - 1]: the read is in bounds even where
          // the element is not selected.
          if (!covered) {
            shifted = arith::MaxSIOp::create(b, loc, shifted, zero);
            shifted = arith::MinSIOp::create(b, loc, shifted,
                                             indexConstant(b, loc, size - 1));
          }
          sourceIndex.push_back(shifted);
          ++sourceDim;
        }
        Value value = tensor::ExtractOp::create(b, loc, source, sourceIndex);
        if (inside)
          value = arith::SelectOp::create(
              b, loc, inside, value,
              background(b, loc, index, args.drop_back()));
        linalg::YieldOp::create(b, loc, value);
      });
  return generic.getResult(0);
}

/// tensor.pad with static shapes → generic (the low padding may be
/// dynamic: a value computed at run time).
LogicalResult convertPad(RewriterBase &rewriter, tensor::PadOp op) {
  RankedTensorType resultType = op.getResultType();
  if (!resultType.hasStaticShape() || !op.getSourceType().hasStaticShape() ||
      op.getSourceType().getNumElements() == 0)
    return failure();
  Block &body = op.getRegion().front();
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> strides(resultType.getRank(), 1);
  Value result = buildInsertGeneric(
      rewriter, op.getLoc(), resultType, op.getSource(), op.getMixedLowPad(),
      strides, llvm::SmallBitVector(resultType.getRank()), ValueRange{},
      [&](OpBuilder &b, Location loc, ValueRange index, ValueRange) {
        // The pad's region computes the value from the result's indices.
        IRMapping mapping;
        mapping.map(body.getArguments(), index);
        for (Operation &nested : body.without_terminator())
          b.clone(nested, mapping);
        return mapping.lookupOrDefault(
            cast<tensor::YieldOp>(body.getTerminator()).getValue());
      });
  rewriter.replaceOp(op, result);
  return success();
}

/// tensor.insert_slice with static offsets, sizes and strides → generic.
LogicalResult convertInsertSlice(RewriterBase &rewriter,
                                 tensor::InsertSliceOp op) {
  RankedTensorType resultType = op.getDestType();
  if (!resultType.hasStaticShape() || !op.getSourceType().hasStaticShape() ||
      !allStatic(op.getStaticStrides()) ||
      op.getSourceType().getNumElements() == 0)
    return failure();
  rewriter.setInsertionPoint(op);
  Value result = buildInsertGeneric(
      rewriter, op.getLoc(), resultType, op.getSource(), op.getMixedOffsets(),
      op.getStaticStrides(), op.getDroppedDims(), ValueRange{op.getDest()},
      [](OpBuilder &, Location, ValueRange, ValueRange inputs) {
        return inputs.front();
      });
  rewriter.replaceOp(op, result);
  return success();
}

/// tensor.extract_slice with dynamic offsets (static sizes and strides) →
/// a gather: element i reads source[offset + stride * i] with
/// tensor.extract (clamped into bounds later, clampGatherIndices).
LogicalResult convertDynamicExtractSlice(RewriterBase &rewriter,
                                         tensor::ExtractSliceOp op) {
  RankedTensorType resultType = op.getResultType();
  int64_t rank = resultType.getRank();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, resultType, ValueRange{}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location loc, ValueRange) {
        SmallVector<Value> index;
        int64_t resultDim = 0;
        for (auto [d, offset] : llvm::enumerate(offsets)) {
          Value start = getValueOrCreateConstantIndexOp(b, loc, offset);
          if (dropped.test(d)) {
            index.push_back(start);
            continue;
          }
          Value i = linalg::IndexOp::create(b, loc, resultDim++);
          int64_t stride = op.getStaticStrides()[d];
          if (stride != 1)
            i = arith::MulIOp::create(b, loc, i, indexConstant(b, loc, stride));
          index.push_back(arith::AddIOp::create(b, loc, start, i));
        }
        Value value =
            tensor::ExtractOp::create(b, loc, op.getSource(), index);
        linalg::YieldOp::create(b, loc, value);
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

/// tensor.extract_slice with static offsets, sizes and strides → generic
/// reading the source through offset + stride * index.
LogicalResult convertExtractSlice(RewriterBase &rewriter,
                                  tensor::ExtractSliceOp op) {
  RankedTensorType resultType = op.getResultType();
  if (!resultType.hasStaticShape() || !op.getSourceType().hasStaticShape() ||
      !allStatic(op.getStaticStrides()) || resultType.getNumElements() == 0)
    return failure();
  MLIRContext *context = op.getContext();
  int64_t rank = resultType.getRank();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  if (!allStatic(op.getStaticOffsets()))
    return convertDynamicExtractSlice(rewriter, op);
  SmallVector<AffineExpr> exprs;
  int64_t resultDim = 0;
  for (auto [d, offset, stride] :
       llvm::enumerate(op.getStaticOffsets(), op.getStaticStrides())) {
    if (dropped.test(d)) {
      exprs.push_back(getAffineConstantExpr(offset, context));
      continue;
    }
    exprs.push_back(getAffineDimExpr(resultDim++, context) * stride + offset);
  }
  if (resultDim != rank)
    return failure();
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, exprs, context),
      rewriter.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, resultType, ValueRange{op.getSource()}, ValueRange{init},
      maps, iterators, [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args.front());
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

bool hasUnitStrides(ArrayRef<int64_t> strides) {
  return llvm::all_of(strides, [](int64_t s) { return s == 1; });
}

/// Why the op goes into a kernel, or null when the host keeps it.
const char *kernelReason(Operation *op) {
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    if (!allStatic(pad.getStaticLow()))
      return "dynamic padding";
    if (!pad.getConstantPaddingValue())
      return "padding value is not a constant";
    if (countRuns(pad.getResultType().getShape(),
                  pad.getSourceType().getShape()) > kMaxHostRuns)
      return "more runs than the host copies";
    if (feedsElementwiseKernel(pad.getResult()))
      return "fuses into its elementwise user";
    return nullptr;
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    if (!hasUnitStrides(slice.getStaticStrides()))
      return "strided";
    if (!allStatic(slice.getStaticOffsets()))
      return "dynamic offsets";
    if (allStatic(slice.getStaticSizes()) &&
        countRuns(slice.getSourceType().getShape(), slice.getStaticSizes()) >
            kMaxHostRuns)
      return "more runs than the host copies";
    return nullptr;
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    if (!hasUnitStrides(insert.getStaticStrides()))
      return "strided";
    if (!allStatic(insert.getStaticOffsets()))
      return "dynamic offsets";
    if (allStatic(insert.getStaticSizes()) &&
        countRuns(insert.getDestType().getShape(), insert.getStaticSizes()) >
            kMaxHostRuns)
      return "more runs than the host copies";
    return nullptr;
  }
  return nullptr;
}

/// True for `min(max(x, 0), dim - 1)` (the form buildInsertGeneric makes).
bool isClamped(Value index, int64_t dim) {
  auto min = index.getDefiningOp<arith::MinSIOp>();
  if (!min || getConstantIntValue(min.getRhs()) != dim - 1)
    return false;
  auto max = min.getLhs().getDefiningOp<arith::MaxSIOp>();
  return max && getConstantIntValue(max.getRhs()) == 0;
}

/// A type for `reshape` (a tensor.reshape of a static source with a dynamic
/// result) from the sizes `known` says (dynamic where unknown): the reshape
/// keeps the source's element count, so one unknown dimension is that count
/// over the others. Null when more are unknown or the sizes do not fit.
RankedTensorType refineReshapeType(tensor::ReshapeOp reshape,
                                   ArrayRef<int64_t> known) {
  int64_t elements = reshape.getSource().getType().getNumElements();
  SmallVector<int64_t> shape(known);
  int64_t product = 1, dynamic = -1;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (!ShapedType::isDynamic(size)) {
      product *= size;
      continue;
    }
    if (dynamic >= 0)
      return {};
    dynamic = d;
  }
  if (dynamic >= 0) {
    if (product == 0 || elements % product != 0)
      return {};
    shape[dynamic] = elements / product;
  } else if (product != elements) {
    return {};
  }
  return RankedTensorType::get(shape,
                               reshape.getResultType().getElementType());
}

/// Operands of `op` made by a dynamic tensor.reshape of a static source get
/// a static reshape when the op's other operands pin all but one of its
/// dimensions (ONNX reductions over axes given as inputs: torch-mlir
/// reshapes to a computed `?x?x?` shape that the reduction's static result
/// fixes but for the reduced dimension).
void refineReshapeOperands(linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> ranges(op.getNumLoops(), ShapedType::kDynamic);
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = maps[operand.getOperandNumber()];
    for (auto [d, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        if (!type.isDynamicDim(d))
          ranges[dim.getPosition()] = type.getDimSize(d);
  }
  for (OpOperand &operand : op->getOpOperands()) {
    auto reshape = operand.get().getDefiningOp<tensor::ReshapeOp>();
    if (!reshape || reshape.getResultType().hasStaticShape() ||
        !reshape.getSource().getType().hasStaticShape())
      continue;
    AffineMap map = maps[operand.getOperandNumber()];
    SmallVector<int64_t> known(reshape.getResultType().getShape());
    for (auto [d, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        if (ShapedType::isDynamic(known[d]))
          known[d] = ranges[dim.getPosition()];
    RankedTensorType refined = refineReshapeType(reshape, known);
    if (!refined)
      continue;
    OpBuilder b(reshape);
    b.setInsertionPointAfter(reshape);
    // The shape as a constant: the computed one is no longer needed.
    auto shapeType = cast<RankedTensorType>(reshape.getShape().getType());
    SmallVector<Attribute> sizes;
    for (int64_t size : refined.getShape())
      sizes.push_back(b.getIntegerAttr(shapeType.getElementType(), size));
    Value shape = arith::ConstantOp::create(
        b, reshape.getLoc(), DenseElementsAttr::get(shapeType, sizes));
    Value result = tensor::ReshapeOp::create(b, reshape.getLoc(), refined,
                                             reshape.getSource(), shape);
    // Linalg operands take the static value; other uses (tensor.dim) see
    // it through a cast, which canonicalization folds away.
    Value widened = tensor::CastOp::create(b, reshape.getLoc(),
                                           reshape.getResultType(), result);
    reshape.getResult().replaceUsesWithIf(widened, [&](OpOperand &use) {
      return !isa<linalg::LinalgOp>(use.getOwner());
    });
    reshape.getResult().replaceUsesWithIf(result, [&](OpOperand &use) {
      return isa<linalg::LinalgOp>(use.getOwner()) &&
             use.getOwner()->getParentRegion() ==
                 op->getParentRegion();
    });
    if (!reshape->use_empty())
      continue;
    Operation *shapeOp = reshape.getShape().getDefiningOp();
    reshape->erase();
    if (shapeOp && shapeOp->use_empty() && isMemoryEffectFree(shapeOp))
      shapeOp->erase();
    LLVM_DEBUG(llvm::dbgs() << "reshape refined to " << refined << "\n");
  }
}

} // namespace

namespace fleet::flow {

void refineStaticShapes(Operation *root) {
  SmallVector<linalg::LinalgOp> ops;
  root->walk([&](linalg::LinalgOp op) { ops.push_back(op); });
  for (linalg::LinalgOp op : ops)
    refineReshapeOperands(op);
  // Upstream folds: tensor.dim of static tensors.
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  tensor::CastOp::getCanonicalizationPatterns(patterns, context);
  tensor::DimOp::getCanonicalizationPatterns(patterns, context);
  (void)applyPatternsGreedily(root, std::move(patterns));
}

void lowerAsserts(Operation *root) {
  SmallVector<cf::AssertOp> asserts;
  // Only the host program's: asserts in kernels stay for codegen.
  root->walk([&](cf::AssertOp op) {
    if (!op->getParentOfType<linalg::LinalgOp>())
      asserts.push_back(op);
  });
  for (cf::AssertOp op : asserts) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value ok = arith::ConstantIntOp::create(b, loc, 0, 32);
    Value failed = arith::ConstantIntOp::create(b, loc, 1, 32);
    Value status = arith::SelectOp::create(b, loc, op.getArg(), ok, failed);
    fleet::util::StatusCheckOkOp::create(b, loc, status, op.getMsgAttr());
    op.erase();
  }
}

void clampGatherIndices(Operation *root) {
  SmallVector<tensor::ExtractOp> gathers;
  root->walk([&](tensor::ExtractOp op) {
    if (op->getParentOfType<linalg::LinalgOp>())
      gathers.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (tensor::ExtractOp op : gathers) {
    RankedTensorType type = op.getTensor().getType();
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    for (OpOperand &operand : op.getIndicesMutable()) {
      int64_t d = operand.getOperandNumber() - 1;
      int64_t dim = type.getDimSize(d);
      Value index = operand.get();
      APInt constant;
      if (dim == 0 || ShapedType::isDynamic(dim) || isClamped(index, dim) ||
          (matchPattern(index, m_ConstantInt(&constant)) &&
           constant.getSExtValue() >= 0 && constant.getSExtValue() < dim))
        continue;
      Value clamped = arith::MaxSIOp::create(rewriter, loc, index,
                                             indexConstant(rewriter, loc, 0));
      clamped = arith::MinSIOp::create(rewriter, loc, clamped,
                                       indexConstant(rewriter, loc, dim - 1));
      rewriter.modifyOpInPlace(op, [&] { operand.set(clamped); });
      LLVM_DEBUG(llvm::dbgs() << "clamped gather index " << d << " of "
                              << op.getLoc() << "\n");
    }
  }
}

/// A decomposed softmax's last generic divides each exp by its row's sum
/// (`divf %e, %sum`, the sum read through a map without the softmax
/// dimension): it multiplies by the sum's reciprocal instead, which the
/// kernel computes once per row (the divisor is the same for the whole
/// row, so LLVM hoists the reciprocal out of the row's loop), as PyTorch's
/// and oneDNN's CPU softmax do. A 512-bit division costs ~5 cycles per 16
/// elements on Zen 4, a multiplication 0.5: softmax over [4096, 4096]
/// took 5.9-6.1 ms instead of 6.6 (docs/kernels.md "Streaming stores").
/// Results move by about an ulp (the reciprocal's rounding).
static void multiplyByReciprocal(RewriterBase &rewriter, Value result) {
  auto generic = result.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1)
    return;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto divide = yield.getValues().front().getDefiningOp<arith::DivFOp>();
  if (!divide || &body.front() != divide.getOperation() ||
      divide.getLhs() != body.getArgument(0) ||
      divide.getRhs() != body.getArgument(1))
    return;
  // The divisor must be the same along the innermost loop (the row the
  // kernel walks; a softmax over another dimension would pay a division
  // and a multiplication per element), and f32 or f64 (in f16 the second
  // rounding would cost more than an ulp).
  AffineMap divisorMap = generic.getIndexingMapsArray()[1];
  unsigned innermost = generic.getNumLoops() - 1;
  if (!divisorMap.isProjectedPermutation() ||
      divisorMap.isFunctionOfDim(innermost) ||
      !(divide.getType().isF32() || divide.getType().isF64()))
    return;
  rewriter.setInsertionPoint(divide);
  Location loc = divide.getLoc();
  Value one = arith::ConstantOp::create(
      rewriter, loc, rewriter.getFloatAttr(divide.getType(), 1.0));
  Value reciprocal = arith::DivFOp::create(rewriter, loc, one,
                                           divide.getRhs());
  rewriter.replaceOpWithNewOp<arith::MulFOp>(divide, divide.getLhs(),
                                             reciprocal);
  LLVM_DEBUG(llvm::dbgs() << "softmax multiplies by the reciprocal of its "
                             "sum at "
                          << generic.getLoc() << "\n");
}

/// A decomposed softmax's exp reads `x - max(row)`: at most 0, or NaN. In
/// f32 it becomes arithmetic for that range only (docs/kernels.md "Streaming
/// stores"): n = roundeven(a * log2(e)), r = a - n * ln(2) in two steps
/// (Cody and Waite), exp(r) by a degree-5 polynomial (near-minimax on
/// [-ln(2)/2, ln(2)/2]), 2^n from n in the exponent bits; arguments below
/// ln(FLT_MIN) (-inf too) give 0, NaN stays NaN. At most 2.2 ulp from exp
/// over [-87.3, 0], 0.67 on average (a numpy model, 4.2 M points; degree 6
/// gave 0.88 ulp and a 4.5% slower softmax). The kernel's exp-and-sum loop
/// is 95 instructions per 64 elements instead of the general expansion's
/// 111 (36 FMAs or multiplies instead of 44: the softmax is bound by
/// them, BWsmax). n is rounded by roundeven, not by adding and subtracting
/// 1.5 * 2^23: a Vulkan driver may fold that pair away.
static void expandSoftmaxExp(RewriterBase &rewriter, Value result) {
  auto last = result.getDefiningOp<linalg::GenericOp>();
  if (!last || last.getNumDpsInputs() != 2)
    return;
  auto generic = last.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 2)
    return;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto exp = yield.getValues().front().getDefiningOp<math::ExpOp>();
  if (!exp || !exp.getType().isF32())
    return;
  // x - m, m read through a map without the softmax dimension, from the
  // max reduction of the same x.
  auto sub = exp.getOperand().getDefiningOp<arith::SubFOp>();
  auto max = generic.getDpsInputs()[1].getDefiningOp<linalg::GenericOp>();
  if (!sub || sub.getLhs() != body.getArgument(0) ||
      sub.getRhs() != body.getArgument(1) || !max ||
      max.getNumDpsInputs() != 1 ||
      max.getDpsInputs()[0] != generic.getDpsInputs()[0])
    return;
  auto combiner = cast<linalg::YieldOp>(max.getRegion().front().getTerminator())
                      .getValues()
                      .front()
                      .getDefiningOp();
  if (!isa_and_nonnull<arith::MaxNumFOp, arith::MaximumFOp>(combiner))
    return;
  rewriter.setInsertionPoint(exp);
  Location loc = exp.getLoc();
  Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
  auto constant = [&](float value) -> Value {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getF32FloatAttr(value));
  };
  auto integer = [&](int32_t value) -> Value {
    return arith::ConstantOp::create(rewriter, loc,
                                     rewriter.getI32IntegerAttr(value));
  };
  Value a = exp.getOperand();
  Value lowest = constant(-87.33654f); // ln(FLT_MIN): n >= -126.
  // select(a < lowest, lowest, a): NaN stays (one vmaxps); n comes from
  // maxnumf(a, lowest), never NaN (fptosi of NaN is poison).
  Value below = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT,
                                      a, lowest);
  Value clamped = arith::SelectOp::create(rewriter, loc, below, lowest, a);
  Value finite = arith::MaxNumFOp::create(rewriter, loc, a, lowest);
  Value n = math::RoundEvenOp::create(
      rewriter, loc,
      arith::MulFOp::create(rewriter, loc, finite,
                            constant(1.44269504088896f)));
  Value r = math::FmaOp::create(rewriter, loc, n, constant(-0.693359375f),
                                clamped);
  r = math::FmaOp::create(rewriter, loc, n, constant(2.12194440e-4f), r);
  const float coefficients[] = {0.008312475f, 0.041890144f, 0.16667116f,
                                0.49999231f, 1.0f, 1.0f};
  Value p = constant(coefficients[0]);
  for (float c : ArrayRef<float>(coefficients).drop_front())
    p = math::FmaOp::create(rewriter, loc, p, r, constant(c));
  // 2^n: n shifted into the exponent field, plus 1.0's bits (127 << 23).
  Value bits = arith::FPToSIOp::create(rewriter, loc, i32, n);
  bits = arith::ShLIOp::create(rewriter, loc, bits, integer(23));
  bits = arith::AddIOp::create(rewriter, loc, bits, integer(0x3F800000));
  Value scale = arith::BitcastOp::create(rewriter, loc, f32, bits);
  Value value = arith::MulFOp::create(rewriter, loc, p, scale);
  Value zero = constant(0.0f);
  rewriter.replaceOpWithNewOp<arith::SelectOp>(exp, below, zero, value);
  LLVM_DEBUG(llvm::dbgs() << "softmax's exp expanded for arguments <= 0 at "
                          << generic.getLoc() << "\n");
}

LogicalResult decomposeAggregatedOps(Operation *root) {
  SmallVector<linalg::AggregatedOpInterface> ops;
  root->walk([&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
  IRRewriter rewriter(root->getContext());
  for (linalg::AggregatedOpInterface op : ops) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
    if (failed(results))
      return op->emitOpError("could not be decomposed into linalg ops");
    LLVM_DEBUG(llvm::dbgs() << "decomposed " << op->getName() << "\n");
    if (isa<linalg::SoftmaxOp>(op.getOperation()) && results->size() == 1) {
      multiplyByReciprocal(rewriter, results->front());
      expandSoftmaxExp(rewriter, results->front());
    }
    rewriter.replaceOp(op, *results);
  }
  return success();
}

void convertTensorOpsToLinalg(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (kernelReason(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (Operation *op : ops) {
    const char *reason = kernelReason(op);
    std::string name = op->getName().getStringRef().str();
    LogicalResult converted =
        llvm::TypeSwitch<Operation *, LogicalResult>(op)
            .Case([&](tensor::PadOp pad) { return convertPad(rewriter, pad); })
            .Case([&](tensor::ExtractSliceOp slice) {
              return convertExtractSlice(rewriter, slice);
            })
            .Case([&](tensor::InsertSliceOp insert) {
              return convertInsertSlice(rewriter, insert);
            })
            .Default([](Operation *) { return failure(); });
    LLVM_DEBUG(llvm::dbgs() << (succeeded(converted) ? "kernel for "
                                                     : "kept on the host: ")
                            << name << " (" << reason << ")\n");
    (void)converted;
  }
}

} // namespace fleet::flow
