//===- DataTiling.cpp - matmuls on packed operands (mmt4d) ----------------===//
//
// Invariants established: no (batch_)matmul in a host function reads B
// transposed (a linalg.transpose makes it row-major first); no
// linalg.transpose of a compile-time constant is left (it folds into a
// constant, `@<global>__transposed`); every static
// f32 `linalg.matmul` in a host
// function that meets the data-tiling rule (Passes.td, docs/kernels.md
// "Data tiling") is a `linalg.mmt4d` on A packed as [M1, K, M0, 1] and B
// packed as [N1, K, N0, 1], its result unpacked; a constant B is packed at
// compile time (a new constant or immutable global), so no call packs it.
// Runtime packs and unpacks are left lowered to pad/expand_shape/transpose
// and transpose/collapse_shape/extract_slice (upstream linalg::lowerPack and
// lowerUnPack), which form-dispatches outlines like any other op.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Flow/Transforms/Passes.h"

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "flow-data-tiling"

namespace fleet::flow {
#define GEN_PASS_DEF_DATATILINGPASS
#include "fleet/Dialect/Flow/Transforms/Passes.h.inc"
} // namespace fleet::flow

using namespace mlir;
using namespace fleet;

namespace {


/// Runtime (non-constant) B is packed only when it exceeds this many bytes:
/// below, the unpacked kernel keeps B in L2 and packing would not pay.
constexpr int64_t kMinRuntimePackedBytes = 1 << 20;
constexpr int64_t kMinRuntimePackedM = 64, kMinRuntimePackedN = 64;

/// A compile-time constant operand: its f32 values (row-major, viewed in
/// place where the attribute stores them so; `storage` holds a splat's
/// expansion) and the immutable global holding them, if any.
struct ConstantValues {
  ArrayRef<float> data;
  std::vector<float> storage;
  util::GlobalOp global;
};

/// The values of `value` when it is a compile-time constant: an
/// arith.constant or the load of an immutable util.global with an initial
/// value (dense or dense_resource), seen through reshapes (they keep the
/// row-major order).
std::optional<ConstantValues> getConstantValues(Value value,
                                                SymbolTable &symbols) {
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  ConstantValues result;
  Attribute attr;
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    attr = constant.getValue();
  } else if (auto load = value.getDefiningOp<util::GlobalLoadOp>()) {
    auto global = symbols.lookup<util::GlobalOp>(load.getGlobal());
    if (!global || global.getIsMutable() || !global.getInitialValue())
      return std::nullopt;
    attr = *global.getInitialValue();
    result.global = global;
  } else {
    return std::nullopt;
  }
  auto type = dyn_cast<ShapedType>(cast<TypedAttr>(attr).getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape())
    return std::nullopt;
  int64_t count = type.getNumElements();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat()) {
      result.storage.assign(count, dense.getSplatValue<float>());
      result.data = result.storage;
    } else {
      ArrayRef<char> raw = dense.getRawData();
      result.data = ArrayRef<float>(
          reinterpret_cast<const float *>(raw.data()), count);
    }
    return result;
  }
  if (auto resource = dyn_cast<DenseF32ResourceElementsAttr>(attr))
    if (std::optional<ArrayRef<float>> data = resource.tryGetAsArrayRef())
      if (int64_t(data->size()) == count) {
        result.data = *data;
        return result;
      }
  return std::nullopt;
}

/// The values of a pack of `source` (row-major, of shape `sourceShape`)
/// into `destShape`: destination dim d (of the outer ones) is source dim
/// `outerPerm[d]`, tiled by `tiles` along `innerDimsPos`, padded with
/// zeros, element by element from linalg.pack's definition, written into a
/// new blob (no other copy: weights can be hundreds of MiB). With no tiles
/// it is a transpose (linalg.transpose's permutation).
AsmResourceBlob packValues(ArrayRef<int64_t> sourceShape,
                           ArrayRef<int64_t> destShape,
                           ArrayRef<int64_t> outerPerm,
                           ArrayRef<int64_t> innerDimsPos,
                           ArrayRef<int64_t> tiles, ArrayRef<float> source) {
  int64_t rank = sourceShape.size();
  SmallVector<int64_t> sourceStrides = computeStrides(sourceShape);
  int64_t count = computeProduct(destShape);
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      count * sizeof(float), alignof(float), /*dataIsMutable=*/true);
  MutableArrayRef<float> result(
      reinterpret_cast<float *>(blob.getMutableData().data()), count);
  SmallVector<int64_t> index(destShape.size(), 0);
  SmallVector<int64_t> sourceIndex(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    // index = the destination's multi-index of `linear` (row-major).
    int64_t rest = linear;
    for (int64_t d = destShape.size() - 1; d >= 0; --d) {
      index[d] = rest % destShape[d];
      rest /= destShape[d];
    }
    // Outer position d of the destination is source dim outerPerm[d].
    for (int64_t d = 0; d < rank; ++d)
      sourceIndex[outerPerm[d]] = index[d];
    for (auto [i, dim] : llvm::enumerate(innerDimsPos))
      sourceIndex[dim] = sourceIndex[dim] * tiles[i] + index[rank + i];
    bool inBounds = true;
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      inBounds &= sourceIndex[d] < sourceShape[d];
      offset += sourceIndex[d] * sourceStrides[d];
    }
    result[linear] = inBounds ? source[offset] : 0.0f;
  }
  return blob;
}

/// `blob` of `type` as a value before `at`: an arith.constant (its resource
/// named `suffix` without leading `_`) when `global` is null, else the load
/// of a new immutable global `@<global><suffix>` after `global`.
Value materializeConstant(RewriterBase &rewriter, Operation *at,
                          RankedTensorType type, AsmResourceBlob blob,
                          util::GlobalOp global, StringRef suffix,
                          SymbolTable &symbols) {
  std::string name = global ? (global.getSymName() + suffix).str()
                            : suffix.ltrim('_').str();
  Attribute attr = DenseF32ResourceElementsAttr::get(type, name,
                                                     std::move(blob));
  rewriter.setInsertionPoint(at);
  if (!global)
    return arith::ConstantOp::create(rewriter, at->getLoc(), type,
                                     cast<TypedAttr>(attr));
  OpBuilder moduleBuilder(global);
  moduleBuilder.setInsertionPointAfter(global);
  auto folded = util::GlobalOp::create(
      moduleBuilder, global.getLoc(), moduleBuilder.getStringAttr("private"),
      name, type, /*is_mutable=*/false, attr);
  symbols.insert(folded);
  LLVM_DEBUG(llvm::dbgs() << "@" << global.getSymName() << " folded into @"
                          << folded.getSymName() << " at compile time\n");
  return util::GlobalLoadOp::create(rewriter, at->getLoc(), folded);
}

/// Folds `pack` of a constant into a new constant: an arith.constant for an
/// arith.constant source, an immutable global `@<global>__packed` for a
/// global load (its source global returned in `global`). Returns the packed
/// value, or null when not constant.
Value foldConstantPack(RewriterBase &rewriter, linalg::PackOp pack,
                       SymbolTable &symbols, util::GlobalOp &global) {
  std::optional<ConstantValues> values =
      getConstantValues(pack.getSource(), symbols);
  if (!values)
    return {};
  global = values->global;
  int64_t rank = pack.getSourceType().getRank();
  SmallVector<int64_t> outerPerm(pack.getOuterDimsPerm());
  if (outerPerm.empty())
    outerPerm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  AsmResourceBlob blob = packValues(
      pack.getSourceType().getShape(), pack.getDestType().getShape(),
      outerPerm, pack.getInnerDimsPos(), pack.getStaticTiles(), values->data);
  return materializeConstant(rewriter, pack, pack.getDestType(),
                             std::move(blob), global, "__packed", symbols);
}

/// Erases `global` (private, no longer read) and frees its dense_resource
/// blob unless another global's value is the same resource: a packed weight
/// does not also keep its unpacked bytes in the compiler's memory.
void eraseUnpackedGlobal(util::GlobalOp global, SymbolTable &symbols,
                         ModuleOp module) {
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(
      global.getInitialValue().value_or(Attribute()));
  symbols.erase(global);
  if (!resource)
    return;
  bool shared = false;
  for (auto other : module.getOps<util::GlobalOp>())
    if (auto value = dyn_cast_or_null<DenseResourceElementsAttr>(
            other.getInitialValue().value_or(Attribute())))
      shared |= value.getRawHandle() == resource.getRawHandle();
  if (!shared)
    if (auto *entry = resource.getRawHandle().getResource())
      entry->setBlob(AsmResourceBlob());
}

/// After a fold replaced the only reader of `source`'s value: erases
/// `source` and the reshapes and load that fed it while nothing reads them
/// (`onErase` sees each first), and `global` once private and unread: a
/// folded weight is not also kept (nor uploaded) as it was, and is freed
/// now, so at most one weight is held twice at a time.
void eraseUnreadConstant(RewriterBase &rewriter, Operation *source,
                         util::GlobalOp global, SymbolTable &symbols,
                         ModuleOp module,
                         function_ref<void(Operation *)> onErase = {}) {
  while (source && isOpTriviallyDead(source)) {
    Operation *next = source->getNumOperands()
                          ? source->getOperand(0).getDefiningOp()
                          : nullptr;
    if (onErase)
      onErase(source);
    rewriter.eraseOp(source);
    source = next;
  }
  if (global && global.isPrivate() &&
      SymbolTable::symbolKnownUseEmpty(global, module))
    eraseUnpackedGlobal(global, symbols, module);
}

/// Folds a transpose of a constant (a weight read transposed, ONNX Gemm's
/// transB) into a new constant (`@<global>__transposed`), so the matmul
/// reading it sees a constant and packs it at compile time. `folded` maps a
/// global, the type it is read as and the permutation to the name of the
/// global already holding them transposed (the micro-batches' copies of a
/// matmul, flow-split-micro-batches, read the same weight): one copy per
/// weight, view and permutation.
void foldConstantTranspose(RewriterBase &rewriter, linalg::TransposeOp op,
                           SymbolTable &symbols, ModuleOp module,
                           llvm::StringMap<std::string> &folded) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return;
  std::optional<ConstantValues> values =
      getConstantValues(op.getInput(), symbols);
  if (!values)
    return;
  std::string key;
  if (values->global) {
    llvm::raw_string_ostream os(key);
    os << values->global.getSymName() << " " << op.getInput().getType();
    for (int64_t dim : op.getPermutation())
      os << " " << dim;
  }
  Operation *source = op.getInput().getDefiningOp();
  util::GlobalOp existing;
  if (auto it = folded.find(key); values->global && it != folded.end())
    existing = symbols.lookup<util::GlobalOp>(it->second);
  Value result;
  if (existing) {
    rewriter.setInsertionPoint(op);
    result = util::GlobalLoadOp::create(rewriter, op.getLoc(), existing);
  } else {
    AsmResourceBlob blob =
        packValues(op.getInput().getType().getShape(), type.getShape(),
                   op.getPermutation(), {}, {}, values->data);
    result = materializeConstant(rewriter, op, type, std::move(blob),
                                 values->global, "__transposed", symbols);
    if (auto load = result.getDefiningOp<util::GlobalLoadOp>())
      folded[key] = load.getGlobal().str();
  }
  rewriter.replaceOp(op, result);
  eraseUnreadConstant(rewriter, source, values->global, symbols, module);
}

/// A matmul's A that is a window copy (ConvertConv2DToImg2Col's im2col):
/// `collapse_shape` to [rows, columns] of a `linalg.generic` whose only
/// work is copying its one input through its input map into an
/// identity-mapped result. `rowDims` leading dims of the copy form A's rows.
struct WindowCopy {
  linalg::GenericOp copy;
  int64_t rowDims;
  /// The innermost of the row dims (OW for a convolution).
  int64_t width;
};
std::optional<WindowCopy> getWindowCopy(Value lhs) {
  auto collapse = lhs.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getReassociationIndices().size() != 2)
    return std::nullopt;
  auto copy = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!copy || !copy.hasPureTensorSemantics() || copy.getNumDpsInputs() != 1 ||
      copy.getNumDpsInits() != 1 ||
      copy.getNumLoops() != copy.getNumParallelLoops() ||
      !copy.getMatchingIndexingMap(copy.getDpsInitOperand(0)).isIdentity() ||
      !copy.getRegionOutputArgs()[0].use_empty())
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(copy.getBody()->getTerminator());
  if (&copy.getBody()->front() != yield.getOperation() ||
      yield.getValues() != ValueRange{copy.getBody()->getArgument(0)})
    return std::nullopt;
  int64_t rowDims = collapse.getReassociationIndices()[0].size();
  return WindowCopy{copy, rowDims,
                    collapse.getSrcType().getDimSize(rowDims - 1)};
}

/// The rows of a packed tile for A = `window`: the largest divisor of its
/// width in [3/4 tileM, tileM], so that each tile's rows lie in one window
/// row and the copy can write A packed (packWindowCopy); 0 if none.
int64_t getWindowRowTile(const WindowCopy &window, int64_t tileM) {
  for (int64_t rows = tileM; 4 * rows >= 3 * tileM && rows > 1; --rows)
    if (window.width % rows == 0)
      return rows;
  return 0;
}

/// A = `window` packed as [M1, K, `tileM`, 1] by one copy: the window copy
/// over [rows..., W / tileM, columns..., tileM], its input map reading
/// row w = whi * tileM + wlo, viewed as [M1, K, tileM] and then with the
/// unit dimension (views). It replaces the im2col copy, A's padding and A's
/// pack (three dispatches) by one, with no padding since tileM divides W.
/// The copy's innermost loop is wlo, contiguous in A (and in the input at
/// stride 1), so it is vectorized along it; with the unit dimension as the
/// copy's own innermost loop it was a scalar copy.
/// `packedCopy` is set to the copy (for its placement).
Value packWindowCopy(RewriterBase &rewriter, Location loc, WindowCopy window,
                     int64_t tileM, Operation *&packedCopy) {
  MLIRContext *context = rewriter.getContext();
  linalg::GenericOp copy = window.copy;
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(copy.getResult(0).getType()).getShape();
  int64_t rank = shape.size(), w = window.rowDims - 1;
  // New loops: the copy's, w as its outer part, then wlo.
  SmallVector<int64_t> packedShape(shape);
  packedShape[w] /= tileM;
  packedShape.push_back(tileM);
  SmallVector<AffineExpr> oldDims;
  for (int64_t i = 0; i < rank; ++i)
    oldDims.push_back(getAffineDimExpr(i, context));
  oldDims[w] = oldDims[w] * tileM + getAffineDimExpr(rank, context);
  AffineMap inputMap =
      copy.getMatchingIndexingMap(copy.getDpsInputOperand(0))
          .compose(AffineMap::get(rank + 1, 0, oldDims, context));
  Type f32 = rewriter.getF32Type();
  Value empty = tensor::EmptyOp::create(rewriter, loc, packedShape, f32);
  auto packed = linalg::GenericOp::create(
      rewriter, loc, TypeRange{empty.getType()},
      ValueRange{copy.getDpsInputs()[0]}, ValueRange{empty},
      ArrayRef<AffineMap>{inputMap,
                          AffineMap::getMultiDimIdentityMap(rank + 1, context)},
      SmallVector<utils::IteratorType>(rank + 1,
                                       utils::IteratorType::parallel),
      [](OpBuilder &b, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(b, nestedLoc, args[0]);
      });
  ReassociationIndices rows = llvm::to_vector(llvm::seq<int64_t>(0, w + 1));
  ReassociationIndices columns =
      llvm::to_vector(llvm::seq<int64_t>(w + 1, rank));
  int64_t m = 1, k = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i <= w ? m : k) *= shape[i];
  packedCopy = packed;
  Value matrix = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({m / tileM, k, tileM}, f32),
      packed.getResult(0),
      ArrayRef<ReassociationIndices>{rows, columns, {rank}});
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({m / tileM, k, tileM, 1}, f32),
      matrix, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// A linalg.matmul with the default maps, static f32 operands.
/// Gives an op built in place of `from` the micro-batch marks of
/// flow-split-micro-batches, so flow-partition-pipeline still groups it with
/// the other micro-batches' copies of the same op (PartitionPipeline.cpp),
/// and, with `affinity`, the user's `stream.affinity` (compute ops only:
/// reshapes follow their operand).
struct Placement {
  explicit Placement(Operation *from) {
    for (StringRef name :
         {"stream.affinity", "fleet.template", "fleet.micro_batch"})
      if (Attribute attr = from->getAttr(name))
        attrs.emplace_back(StringAttr::get(from->getContext(), name), attr);
  }
  SmallVector<NamedAttribute, 3> attrs;
};
void copyPlacement(const Placement &placement, Operation *to,
                   bool affinity = true) {
  for (NamedAttribute attr : placement.attrs)
    if (affinity || attr.getName() != "stream.affinity")
      to->setAttr(attr.getName(), attr.getValue());
}
void copyPlacement(Operation *from, Operation *to) {
  copyPlacement(Placement(from), to);
}

/// The 1-D value `init` broadcasts to every row ([N] -> [M, N]), if it is
/// such a `linalg.broadcast`.
Value getRowBroadcastSource(Value init) {
  auto broadcast = init.getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast || broadcast.getDimensions() != ArrayRef<int64_t>{0} ||
      broadcast.getInput().getType().getRank() != 1)
    return nullptr;
  return broadcast.getInput();
}

/// The `linalg.transpose` of `matmul`'s result to [N, M], if it is the
/// result's only use.
linalg::TransposeOp getTransposeBack(linalg::MatmulOp matmul) {
  Value result = matmul.getResult(0);
  if (!result.hasOneUse())
    return nullptr;
  auto transpose = dyn_cast<linalg::TransposeOp>(*result.getUsers().begin());
  if (!transpose || transpose.getInput() != result ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0} ||
      !transpose.hasPureTensorSemantics())
    return nullptr;
  return transpose;
}

bool isPlainF32Matmul(linalg::MatmulOp matmul) {
  if (!matmul.hasPureTensorSemantics() || matmul.hasUserDefinedMaps())
    return false;
  return llvm::all_of(matmul->getOperandTypes(), [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() &&
           tensor.getElementType().isF32();
  });
}

/// For a (batch_)matmul whose maps read B transposed ((b,) n, k): B
/// transposed once by a linalg.transpose and the op rewritten with the
/// default maps, so its kernel reads rows of B (attention's Q K^T form; a
/// strided column per step is 2-3x slower).
void untransposeRhs(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned rank = op.getNumLoops();
  if ((rank != 3 && rank != 4) || maps.size() != 3)
    return;
  MLIRContext *context = op->getContext();
  // Loops (b,) m, n, k.
  SmallVector<AffineExpr> dims;
  for (unsigned i = 0; i < rank; ++i)
    dims.push_back(getAffineDimExpr(i, context));
  unsigned batch = rank - 3;
  AffineExpr m = dims[batch], n = dims[batch + 1], k = dims[batch + 2];
  auto withBatch = [&](ArrayRef<AffineExpr> rest) {
    SmallVector<AffineExpr> results(dims.begin(), dims.begin() + batch);
    results.append(rest.begin(), rest.end());
    return AffineMap::get(rank, 0, results, context);
  };
  if (maps[0] != withBatch({m, k}) || maps[1] != withBatch({n, k}) ||
      maps[2] != withBatch({m, n}))
    return;
  auto rhsType = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  if (!rhsType.hasStaticShape())
    return;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> permutation =
      llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  std::swap(permutation[batch], permutation[batch + 1]);
  SmallVector<int64_t> shape =
      applyPermutation(rhsType.getShape(), permutation);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, rhsType.getElementType());
  auto transpose = linalg::TransposeOp::create(
      rewriter, loc, op.getDpsInputs()[1], empty, permutation);
  Value lhs = op.getDpsInputs()[0], init = op.getDpsInits()[0];
  Value rhs = transpose.getResult()[0];
  Operation *plain =
      batch ? linalg::BatchMatmulOp::create(rewriter, loc,
                                            TypeRange{init.getType()},
                                            ValueRange{lhs, rhs},
                                            ValueRange{init})
                  .getOperation()
            : linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                       ValueRange{lhs, rhs}, ValueRange{init})
                  .getOperation();
  copyPlacement(op, plain);
  copyPlacement(op, transpose);
  LLVM_DEBUG(llvm::dbgs() << "B of " << op->getName()
                          << " transposed once (rows, not columns)\n");
  rewriter.replaceOp(op, plain->getResults());
}

struct DataTilingPass
    : public fleet::flow::impl::DataTilingPassBase<DataTilingPass> {
  using DataTilingPassBase::DataTilingPassBase;

  /// Folded packs by (weight, packed type): the packed value and the
  /// weight's global (null for an inline constant).
  DenseMap<std::pair<Value, Type>, std::pair<Value, util::GlobalOp>>
      packedConstants;

  void runOnOperation() override {
    if (!enabled)
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> transposed;
    for (auto func : module.getOps<util::FuncOp>())
      func.walk([&](linalg::LinalgOp op) {
        if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) &&
            op.hasPureTensorSemantics())
          transposed.push_back(op);
      });
    for (linalg::LinalgOp op : transposed)
      untransposeRhs(rewriter, op);
    SmallVector<linalg::TransposeOp> transposes;
    for (auto func : module.getOps<util::FuncOp>())
      func.walk([&](linalg::TransposeOp op) {
        if (op.hasPureTensorSemantics())
          transposes.push_back(op);
      });
    llvm::StringMap<std::string> transposedGlobals;
    for (linalg::TransposeOp op : transposes)
      foldConstantTranspose(rewriter, op, symbols, module, transposedGlobals);
    SmallVector<linalg::MatmulOp> matmuls;
    for (auto func : module.getOps<util::FuncOp>())
      func.walk([&](linalg::MatmulOp matmul) {
        if (isPlainF32Matmul(matmul))
          matmuls.push_back(matmul);
      });
    for (linalg::MatmulOp matmul : matmuls)
      dataTile(rewriter, matmul, symbols);
  }

  void dataTile(RewriterBase &rewriter, linalg::MatmulOp matmul,
                SymbolTable &symbols) {
    // The packed tile, M0 x N0 (K0 = 1: one outer product per step).
    int64_t tileM = this->tileM;
    const int64_t tileN = this->tileN;
    Value lhs = matmul.getInputs()[0], rhs = matmul.getInputs()[1];
    Value init = matmul.getOutputs()[0];
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1),
            n = rhsType.getDimSize(1);
    bool constantRhs = getConstantValues(rhs, symbols).has_value();
    // A constant A (an NCHW convolution's filter, ConvertConv2DToImg2Col)
    // is packed at compile time too; B, packed per call, then costs K x N
    // copies against M x N x K multiply-adds.
    bool constantLhs =
        !constantRhs && getConstantValues(lhs, symbols).has_value();
    bool pays = constantRhs   ? n >= tileN
                : constantLhs ? m >= tileM && n >= tileN
                              : m >= kMinRuntimePackedM &&
                                    n >= kMinRuntimePackedN &&
                                    k * n * 4 > kMinRuntimePackedBytes;
    LLVM_DEBUG(llvm::dbgs() << "matmul " << m << "x" << n << "x" << k
                            << (constantRhs   ? " (constant B)"
                                : constantLhs ? " (constant A)"
                                              : "")
                            << ": " << (pays ? "data-tiled" : "left unpacked")
                            << "\n");
    if (!pays || k == 0 || m == 0)
      return;

    Location loc = matmul.getLoc();
    rewriter.setInsertionPoint(matmul);
    Type f32 = rewriter.getF32Type();
    Value zero = arith::ConstantOp::create(rewriter, loc, f32,
                                           rewriter.getF32FloatAttr(0.0f));
    auto pack = [&](Value source, ArrayRef<int64_t> innerDimsPos,
                    ArrayRef<int64_t> tiles,
                    ArrayRef<int64_t> outerPerm) -> linalg::PackOp {
      SmallVector<OpFoldResult> tileSizes =
          getAsIndexOpFoldResult(rewriter.getContext(), tiles);
      Value dest = linalg::PackOp::createDestinationTensor(
          rewriter, loc, source, tileSizes, innerDimsPos, outerPerm);
      return linalg::PackOp::create(rewriter, loc, source, dest, innerDimsPos,
                                    tileSizes, zero, outerPerm);
    };
    // A[M,K] -> [M1, K, M0, 1]; B[K,N] -> [N1, K, N0, 1]. A convolution's
    // window copy writes A packed itself, with M0 a divisor of the window
    // width near the register tile's rows (7 for 14 x 14 outputs).
    Placement placement(matmul);
    // A placed matmul: its packs, kernel and unpack run where it did
    // (`placement` was read before the matmul is replaced below).
    auto place = [&](Operation *op, bool affinity = true) {
      if (op)
        copyPlacement(placement, op, affinity);
    };
    std::optional<WindowCopy> window =
        constantLhs ? std::nullopt : getWindowCopy(lhs);
    int64_t windowRows = window ? getWindowRowTile(*window, tileM) : 0;
    Value packedLhs;
    linalg::PackOp lhsPack;
    if (windowRows) {
      tileM = windowRows;
      Operation *packedCopy;
      packedLhs = packWindowCopy(rewriter, loc, *window, tileM, packedCopy);
      place(packedCopy);
      LLVM_DEBUG(llvm::dbgs() << "A packed by its window copy, M0 = " << tileM
                              << "\n");
    } else {
      lhsPack = pack(lhs, {0, 1}, {tileM, 1}, {});
      packedLhs = lhsPack.getResult();
    }
    linalg::PackOp packedRhs = pack(rhs, {1, 0}, {tileN, 1}, {1, 0});
    // C: a fill of an empty tensor is refilled packed (form-dispatches
    // clones it into the kernel); any other init is packed. An empty tensor
    // moved to the matmul's device first (the second half of a
    // tensor-parallel matmul) holds nothing to move.
    Value packedInit;
    auto fill = init.getDefiningOp<linalg::FillOp>();
    SmallVector<int64_t> accShape = {
        llvm::divideCeilSigned(m, tileM), llvm::divideCeilSigned(n, tileN), tileM,
        tileN};
    auto accType = RankedTensorType::get(accShape, f32);
    Value fillInit = fill ? fill.getOutputs()[0] : Value();
    while (auto move = fillInit ? fillInit.getDefiningOp<flow::TensorTransferOp>()
                                : nullptr)
      fillInit = move.getOperand();
    if (fillInit && fillInit.getDefiningOp<tensor::EmptyOp>()) {
      Value empty = tensor::EmptyOp::create(rewriter, loc, accShape, f32);
      packedInit = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0],
                                          empty)
                       .getResult(0);
    } else if (Value bias = getRowBroadcastSource(init);
               bias && n % tileN == 0) {
      // A per-column bias (an NCHW convolution's, computed transposed) is
      // broadcast into the packed layout: bias[n1 * N0 + n0].
      auto tiled = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get({n / tileN, tileN}, f32), bias,
          ArrayRef<ReassociationIndices>{{0, 1}});
      Value empty = tensor::EmptyOp::create(rewriter, loc, accShape, f32);
      auto broadcast = linalg::BroadcastOp::create(
          rewriter, loc, tiled.getResult(), empty, ArrayRef<int64_t>{0, 2});
      place(tiled, /*affinity=*/false);
      place(broadcast);
      packedInit = broadcast.getResult()[0];
    } else {
      packedInit = pack(init, {0, 1}, {tileM, tileN}, {}).getResult();
    }
    auto mmt4d = linalg::Mmt4DOp::create(
        rewriter, loc, TypeRange{accType},
        ValueRange{packedLhs, packedRhs.getResult()}, ValueRange{packedInit});
    place(mmt4d);
    // A product only transposed back (an NCHW convolution computed
    // transposed) is unpacked straight into the transposed layout: one
    // transpose instead of the unpack's and the user's.
    linalg::UnPackOp unpack;
    linalg::TransposeOp back = getTransposeBack(matmul);
    if (back && m % tileM == 0 && n % tileN == 0) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(back);
      Value empty = tensor::EmptyOp::create(
          rewriter, loc,
          ArrayRef<int64_t>{n / tileN, tileN, m / tileM, tileM}, f32);
      auto transposed = linalg::TransposeOp::create(
          rewriter, loc, mmt4d.getResult(0), empty,
          ArrayRef<int64_t>{1, 3, 0, 2});
      place(transposed);
      auto collapse = rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          back, back.getResult()[0].getType(), transposed.getResult()[0],
          ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
      place(collapse, /*affinity=*/false);
      rewriter.eraseOp(matmul);
      LLVM_DEBUG(llvm::dbgs() << "unpacked transposed\n");
    } else {
      Value dest =
          tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{m, n}, f32);
      unpack = linalg::UnPackOp::create(
          rewriter, loc, mmt4d.getResult(0), dest, ArrayRef<int64_t>{0, 1},
          getAsIndexOpFoldResult(rewriter.getContext(), {tileM, tileN}),
          ArrayRef<int64_t>{});
      rewriter.replaceOp(matmul, unpack.getResult());
    }

    // Constant packs fold now; the others lower to upstream ops that
    // form-dispatches knows.
    SmallVector<linalg::PackOp> packs;
    if (lhsPack)
      packs.push_back(lhsPack);
    packs.push_back(packedRhs);
    if (auto initPack = packedInit.getDefiningOp<linalg::PackOp>())
      packs.push_back(initPack);
    for (linalg::PackOp packOp : packs) {
      // One packed copy per weight and tile: the micro-batches' copies of a
      // matmul (flow-split-micro-batches) read the same weight, later in
      // the same block, so the first fold dominates them.
      auto key = std::make_pair(packOp.getSource(),
                                Type(packOp.getDestType()));
      util::GlobalOp global;
      Value folded;
      if (auto it = packedConstants.find(key); it != packedConstants.end()) {
        folded = it->second.first;
        global = it->second.second;
        LLVM_DEBUG(llvm::dbgs() << "constant pack shared with an earlier "
                                   "matmul\n");
      } else {
        folded = foldConstantPack(rewriter, packOp, symbols, global);
        if (folded)
          packedConstants[key] = {folded, global};
      }
      if (folded) {
        Operation *source = packOp.getSource().getDefiningOp();
        rewriter.replaceOp(packOp, folded);
        eraseUnreadConstant(
            rewriter, source, global, symbols, getOperation(),
            [&](Operation *erased) {
              // Its results must not stay keys: a value created later may
              // reuse their storage.
              SmallVector<std::pair<Value, Type>> stale;
              for (auto &entry : packedConstants)
                if (entry.first.first.getDefiningOp() == erased)
                  stale.push_back(entry.first);
              for (auto &key : stale)
                packedConstants.erase(key);
            });
        continue;
      }
      rewriter.setInsertionPoint(packOp);
      FailureOr<linalg::LowerPackResult> lowered =
          linalg::lowerPack(rewriter, packOp);
      if (failed(lowered)) {
        packOp.emitOpError("could not be lowered");
        return signalPassFailure();
      }
      place(lowered->padOp, /*affinity=*/false);
      place(lowered->expandShapeOp, /*affinity=*/false);
      place(lowered->transposeOp);
    }
    if (!unpack)
      return;
    rewriter.setInsertionPoint(unpack);
    FailureOr<linalg::LowerUnPackOpResult> lowered =
        linalg::lowerUnPack(rewriter, unpack);
    if (failed(lowered)) {
      unpack.emitOpError("could not be lowered");
      return signalPassFailure();
    }
    place(lowered->transposeOp);
    place(lowered->collapseShapeOp, /*affinity=*/false);
    place(lowered->extractSliceOp, /*affinity=*/false);
    // lowerUnPack ends in a linalg.copy into the unpack's destination; ours
    // is a fresh tensor.empty, so the unpacked value itself is the result
    // (no copy dispatch).
    if (lowered->extractSliceOp)
      for (Operation *user :
           llvm::make_early_inc_range(lowered->extractSliceOp->getUsers()))
        if (auto copy = dyn_cast<linalg::CopyOp>(user))
          if (copy.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
            rewriter.replaceOp(copy, lowered->extractSliceOp.getResult());
  }
};

} // namespace
