//===- ConvertConv2DToImg2Col.cpp - convolutions as im2col + matmul -------===//
//
// Invariant established: no static f32 `linalg.conv_2d_nhwc_hwcf` or
// `linalg.conv_2d_nchw_fchw` with batch 1 remains in a host function. An
// NHWC one becomes
//   col[OH, OW, KH, KW, C] = input[0, oh*SH + kh*DH, ow*SW + kw*DW, c]
// (a `linalg.generic` copy whose input map does the window arithmetic, so
// the innermost loop reads C contiguous channels), collapsed to
// [OH*OW, KH*KW*C] (a view), times the filter collapsed to [KH*KW*C, F] (a
// view of HWCF) as a `linalg.matmul` into the output collapsed to
// [OH*OW, F] (docs/kernels.md "Convolutions"). The matmul then takes the
// matmul path: register tiles, and data tiling (a constant filter is
// packed at compile time). A 1x1 convolution with stride 1 needs no
// im2col: the input itself is the [H*W, C] matrix. An NCHW one (ONNX's
// layout) with F a multiple of 32 is computed transposed,
// out^T[OH*OW, F] = col[OH*OW, C*KH*KW] x filter^T[C*KH*KW, F] with
// col[oh, ow, c, kh, kw] = input[0, c, oh*SH + kh*DH, ow*SW + kw*DW], and
// transposed back to [F, OH*OW]: the window copy is A, which data tiling
// packs by the copy itself in tiles of output columns (no padding of OH*OW
// to the matmul's column tile), and the filter is a constant B. Other NCHW
// ones (and a 1x1 stride-1 one, whose input already is the [C, H*W]
// matrix) are the filter [F, C*KH*KW] times col[C*KH*KW, OH*OW]
// (createColumns and convert), so no layout change is needed around them.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Flow/Transforms/Passes.h"

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "preprocessing-convert-conv2d-to-img2col"

namespace fleet::flow {
#define GEN_PASS_DEF_CONVERTCONV2DTOIMG2COLPASS
#include "fleet/Dialect/Flow/Transforms/Passes.h.inc"
} // namespace fleet::flow

using namespace mlir;
using namespace fleet;

namespace {

/// The `index`-th element of a strides/dilations attribute (1 if absent).
int64_t getAttrElement(DenseIntElementsAttr attr, unsigned index) {
  if (!attr)
    return 1;
  return attr.getValues<int64_t>()[index];
}

/// Static f32 operands and batch 1.
bool isConvertible(linalg::LinalgOp conv) {
  if (!conv.hasPureTensorSemantics())
    return false;
  return llvm::all_of(conv->getOperandTypes(), [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() &&
           tensor.getElementType().isF32() && tensor.getDimSize(0) >= 1;
  }) && cast<RankedTensorType>(conv->getOperand(0).getType()).getDimSize(0) ==
            1;
}

/// The matmul's init in [rows, columns] form: a fill of an empty tensor is
/// refilled in matrix form (so the matmul keeps a clonable init), anything
/// else is collapsed with `reassociation`.
Value getMatrixInit(RewriterBase &rewriter, Location loc, Value init,
                    RankedTensorType matrixType,
                    ArrayRef<ReassociationIndices> reassociation) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, matrixType.getShape(),
                                          matrixType.getElementType());
    return linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
        .getResult(0);
  }
  return tensor::CollapseShapeOp::create(rewriter, loc, matrixType, init,
                                         reassociation);
}

/// The im2col copy: a generic over `colShape` whose input map (`inputMap`)
/// does the window arithmetic.
Value createIm2Col(RewriterBase &rewriter, Location loc, Value input,
                   ArrayRef<int64_t> colShape, AffineMap inputMap) {
  Type f32 = rewriter.getF32Type();
  auto colType = RankedTensorType::get(colShape, f32);
  Value empty = tensor::EmptyOp::create(rewriter, loc, colShape, f32);
  AffineMap outputMap =
      AffineMap::getMultiDimIdentityMap(colShape.size(), rewriter.getContext());
  auto im2col = linalg::GenericOp::create(
      rewriter, loc, TypeRange{colType}, ValueRange{input}, ValueRange{empty},
      ArrayRef<AffineMap>{inputMap, outputMap},
      SmallVector<utils::IteratorType>(colShape.size(),
                                       utils::IteratorType::parallel),
      [](OpBuilder &b, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(b, nestedLoc, args[0]);
      });
  return im2col.getResult(0);
}

/// The sizes of a batch-1 2-d convolution; `nchw` picks the layout of its
/// operands (NCHW/FCHW/NFHW, else NHWC/HWCF/NHWF).
struct ConvSizes {
  int64_t c, f, kh, kw, oh, ow, sh, sw, dh, dw;
};
ConvSizes getSizes(linalg::LinalgOp conv, DenseIntElementsAttr strides,
                   DenseIntElementsAttr dilations, bool nchw) {
  auto input = cast<RankedTensorType>(conv.getDpsInputs()[0].getType());
  auto filter = cast<RankedTensorType>(conv.getDpsInputs()[1].getType());
  auto output = cast<RankedTensorType>(conv.getDpsInits()[0].getType());
  ConvSizes sizes;
  sizes.c = input.getDimSize(nchw ? 1 : 3);
  sizes.f = filter.getDimSize(nchw ? 0 : 3);
  sizes.kh = filter.getDimSize(nchw ? 2 : 0);
  sizes.kw = filter.getDimSize(nchw ? 3 : 1);
  sizes.oh = output.getDimSize(nchw ? 2 : 1);
  sizes.ow = output.getDimSize(nchw ? 3 : 2);
  sizes.sh = getAttrElement(strides, 0);
  sizes.sw = getAttrElement(strides, 1);
  sizes.dh = getAttrElement(dilations, 0);
  sizes.dw = getAttrElement(dilations, 1);
  return sizes;
}

/// Replaces `conv` by lhs x rhs into `matrixInit`, the product (transposed
/// back to [N, M] when `transposeBack`) viewed as the convolution's result
/// with `outputReassociation`.
void replaceWithMatmul(RewriterBase &rewriter, linalg::LinalgOp conv, Value lhs,
                       Value rhs, Value matrixInit,
                       ArrayRef<ReassociationIndices> outputReassociation,
                       bool transposeBack = false) {
  Location loc = conv.getLoc();
  auto matrixType = cast<RankedTensorType>(matrixInit.getType());
  SmallVector<Operation *> placed;
  auto matmul = linalg::MatmulOp::create(rewriter, loc, TypeRange{matrixType},
                                         ValueRange{lhs, rhs},
                                         ValueRange{matrixInit});
  placed.push_back(matmul);
  Value product = matmul.getResult(0);
  if (transposeBack) {
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, {matrixType.getDimSize(1), matrixType.getDimSize(0)},
        matrixType.getElementType());
    auto back = linalg::TransposeOp::create(rewriter, loc, product, empty,
                                            ArrayRef<int64_t>{1, 0});
    placed.push_back(back);
    product = back.getResult()[0];
  }
  if (Attribute affinity = conv->getAttr("stream.affinity"))
    for (Operation *op : placed)
      op->setAttr("stream.affinity", affinity);
  Value result = tensor::ExpandShapeOp::create(rewriter, loc,
                                               conv.getDpsInits()[0].getType(),
                                               product, outputReassociation);
  rewriter.replaceOp(conv, result);
}

/// The NCHW init [1, F, OH, OW] as the transposed product's [OH*OW, F]: a
/// fill refilled, a broadcast of a per-channel bias broadcast the other
/// way, anything else transposed.
Value getTransposedInit(RewriterBase &rewriter, Location loc, Value init,
                        RankedTensorType matrixType) {
  int64_t positions = matrixType.getDimSize(0), f = matrixType.getDimSize(1);
  Type type = matrixType.getElementType();
  auto broadcast = init.getDefiningOp<linalg::BroadcastOp>();
  if (broadcast && broadcast.getDimensions() == ArrayRef<int64_t>{0, 2, 3}) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, {positions, f}, type);
    return linalg::BroadcastOp::create(rewriter, loc, broadcast.getInput(),
                                       empty, ArrayRef<int64_t>{0})
        .getResult()[0];
  }
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return getMatrixInit(rewriter, loc, init, matrixType, {});
  Value collapsed = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, positions}, type), init,
      ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
  Value empty = tensor::EmptyOp::create(rewriter, loc, {positions, f}, type);
  return linalg::TransposeOp::create(rewriter, loc, collapsed, empty,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

/// True when `input` of a 1x1 stride-1 convolution is already its window
/// matrix.
bool isOwnWindowMatrix(Value input, const ConvSizes &s, bool nchw) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t h = nchw ? 2 : 1, w = nchw ? 3 : 2;
  return s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 &&
         inputType.getDimSize(h) == s.oh && inputType.getDimSize(w) == s.ow;
}

/// NCHW's window matrix by output position, [OH*OW, C*KH*KW], with
///   col[oh, ow, c, kh, kw] = input[0, c, oh*sh + kh*dh, ow*sw + kw*dw]
/// (rows are output positions, as NHWC's; columns in the filter's order).
Value createPositionColumns(RewriterBase &rewriter, Location loc, Value input,
                            const ConvSizes &s) {
  MLIRContext *context = rewriter.getContext();
  AffineExpr d0, d1, d2, d3, d4;
  bindDims(context, d0, d1, d2, d3, d4);
  AffineMap inputMap = AffineMap::get(
      5, 0,
      {getAffineConstantExpr(0, context), d2, d0 * s.sh + d3 * s.dh,
       d1 * s.sw + d4 * s.dw},
      context);
  Value col = createIm2Col(rewriter, loc, input,
                           {s.oh, s.ow, s.c, s.kh, s.kw}, inputMap);
  return tensor::CollapseShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({s.oh * s.ow, s.c * s.kh * s.kw},
                            rewriter.getF32Type()),
      col, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3, 4}});
}

/// The window matrix of `input`: NHWC [OH*OW, KH*KW*C] with
///   col[oh, ow, kh, kw, c] = input[0, oh*sh + kh*dh, ow*sw + kw*dw, c],
/// NCHW [C*KH*KW, OH*OW] with
///   col[c, kh, kw, oh, ow] = input[0, c, oh*sh + kh*dh, ow*sw + kw*dw]
/// (a window copy viewed as a matrix), or a view of the input itself for a
/// 1x1 stride-1 convolution whose input is the output's size.
Value createColumns(RewriterBase &rewriter, Location loc, Value input,
                    const ConvSizes &s, bool nchw) {
  Type f32 = rewriter.getF32Type();
  if (isOwnWindowMatrix(input, s, nchw)) {
    // [1, H, W, C] is already [H*W, C]; [1, C, H, W] is [C, H*W].
    return tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(nchw ? ArrayRef<int64_t>{s.c, s.oh * s.ow}
                                   : ArrayRef<int64_t>{s.oh * s.ow, s.c},
                              f32),
        input,
        nchw ? ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}}
             : ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  }
  MLIRContext *context = rewriter.getContext();
  AffineExpr d0, d1, d2, d3, d4;
  bindDims(context, d0, d1, d2, d3, d4);
  AffineExpr zero = getAffineConstantExpr(0, context);
  AffineMap inputMap =
      nchw ? AffineMap::get(5, 0,
                            {zero, d0, d3 * s.sh + d1 * s.dh,
                             d4 * s.sw + d2 * s.dw},
                            context)
           : AffineMap::get(5, 0,
                            {zero, d0 * s.sh + d2 * s.dh,
                             d1 * s.sw + d3 * s.dw, d4},
                            context);
  SmallVector<int64_t> colShape =
      nchw ? SmallVector<int64_t>{s.c, s.kh, s.kw, s.oh, s.ow}
           : SmallVector<int64_t>{s.oh, s.ow, s.kh, s.kw, s.c};
  Value col = createIm2Col(rewriter, loc, input, colShape, inputMap);
  int64_t window = s.c * s.kh * s.kw, positions = s.oh * s.ow;
  return tensor::CollapseShapeOp::create(
      rewriter, loc,
      RankedTensorType::get(nchw ? ArrayRef<int64_t>{window, positions}
                                 : ArrayRef<int64_t>{positions, window},
                            f32),
      col,
      nchw ? ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4}}
           : ArrayRef<ReassociationIndices>{{0, 1}, {2, 3, 4}});
}

/// Replaces `conv` by a matmul of its window matrix and its filter viewed
/// as a matrix. NHWC: col[OH*OW, KH*KW*C] x filter[KH*KW*C, F] (HWCF).
/// NCHW: out[F, OH*OW] = filter[F, C*KH*KW] x col[C*KH*KW, OH*OW], so the
/// window copy's innermost loop reads the input's rows (contiguous at
/// stride 1) and the filter, a model's constant, is the matmul's A.
LogicalResult convert(RewriterBase &rewriter, linalg::LinalgOp conv,
                      DenseIntElementsAttr strides,
                      DenseIntElementsAttr dilations, bool nchw) {
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  ConvSizes sizes = getSizes(conv, strides, dilations, nchw);
  auto [c, f, kh, kw, oh, ow, sh, sw, dh, dw] = sizes;
  Type f32 = rewriter.getF32Type();
  rewriter.setInsertionPoint(conv);

  // NCHW by output position when F fills whole column tiles of the packed
  // B (32 with AVX-512, 16 with AVX2; ResNet's 64 to 512): the window
  // copy, A, is packed by the copy itself in tiles of output columns, so
  // OH*OW (49, 196) is not padded to B's column tile. A smaller F would
  // pad B instead, or leave a constant filter unpacked.
  bool byPosition =
      nchw && f % 32 == 0 && !isOwnWindowMatrix(input, sizes, nchw);
  int64_t window = c * kh * kw;
  Value init = conv.getDpsInits()[0];
  SmallVector<ReassociationIndices> nchwOutput = {{0, 1}, {2, 3}};
  // FCHW as [F, C*KH*KW]; HWCF as [KH*KW*C, F] (built after the window
  // matrix).
  auto collapseWeights = [&]() -> Value {
    return nchw ? tensor::CollapseShapeOp::create(
                      rewriter, loc, RankedTensorType::get({f, window}, f32),
                      filter, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}})
                : tensor::CollapseShapeOp::create(
                      rewriter, loc, RankedTensorType::get({window, f}, f32),
                      filter, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  };
  if (byPosition) {
    LLVM_DEBUG(llvm::dbgs() << "conv NCHW " << oh << "x" << ow << "x" << f
                            << " (" << kh << "x" << kw << "x" << c
                            << ", stride " << sh << "x" << sw
                            << ") -> (im2col x filter^T)^T\n");
    Value col = createPositionColumns(rewriter, loc, input, sizes);
    Value empty = tensor::EmptyOp::create(rewriter, loc, {window, f}, f32);
    Value weightsT =
        linalg::TransposeOp::create(rewriter, loc, collapseWeights(), empty,
                                    ArrayRef<int64_t>{1, 0})
            .getResult()[0];
    auto matrixType = RankedTensorType::get({oh * ow, f}, f32);
    replaceWithMatmul(rewriter, conv, col, weightsT,
                      getTransposedInit(rewriter, loc, init, matrixType),
                      nchwOutput, /*transposeBack=*/true);
    return success();
  }
  Value columns = createColumns(rewriter, loc, input, sizes, nchw);
  LLVM_DEBUG(llvm::dbgs() << "conv " << (nchw ? "NCHW " : "") << oh << "x"
                          << ow << "x" << f << " (" << kh << "x" << kw << "x"
                          << c << ", stride " << sh << "x" << sw << ") -> "
                          << (nchw ? "filter x im2col" : "im2col + matmul")
                          << "\n");
  SmallVector<ReassociationIndices> output =
      nchw ? nchwOutput : SmallVector<ReassociationIndices>{{0, 1, 2}, {3}};
  Value weights = collapseWeights();
  Value lhs = nchw ? weights : columns, rhs = nchw ? columns : weights;
  auto matrixType = RankedTensorType::get(
      {cast<RankedTensorType>(lhs.getType()).getDimSize(0),
       cast<RankedTensorType>(rhs.getType()).getDimSize(1)},
      f32);
  replaceWithMatmul(rewriter, conv, lhs, rhs,
                    getMatrixInit(rewriter, loc, init, matrixType, output),
                    output);
  return success();
}

struct ConvertConv2DToImg2ColPass
    : public fleet::flow::impl::ConvertConv2DToImg2ColPassBase<
          ConvertConv2DToImg2ColPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> convs;
    for (auto func : getOperation().getOps<util::FuncOp>())
      func.walk([&](linalg::LinalgOp conv) {
        if (isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNchwFchwOp>(
                conv.getOperation()) &&
            isConvertible(conv))
          convs.push_back(conv);
      });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp conv : convs) {
      LogicalResult converted =
          isa<linalg::Conv2DNhwcHwcfOp>(conv.getOperation())
              ? convert(rewriter, conv,
                        cast<linalg::Conv2DNhwcHwcfOp>(conv).getStrides(),
                        cast<linalg::Conv2DNhwcHwcfOp>(conv).getDilations(),
                        /*nchw=*/false)
              : convert(rewriter, conv,
                        cast<linalg::Conv2DNchwFchwOp>(conv).getStrides(),
                        cast<linalg::Conv2DNchwFchwOp>(conv).getDilations(),
                        /*nchw=*/true);
      if (failed(converted))
        return signalPassFailure();
    }
  }
};

} // namespace
