//===- FormDispatches.cpp - outline compute ops into executables ----------===//
//
// Invariant established: no compute op remains in host functions. Every
// linalg op (after elementwise ops became linalg.generics and elementwise
// producer-consumer chains were fused) is the root of exactly one
// `flow.dispatch`, or a member of one root's group (a row group, or the
// product an elementwise epilogue reads), of a `stream.executable` with
// one export whose function follows the dispatch function contract of
// docs/pipeline.md; identical executables are shared. Anything left that
// neither the host nor a dispatch can run is a diagnostic naming the op.
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/Flow/Transforms/Passes.h"

#include "DispatchNames.h"
#include "TensorOpsToLinalg.h"

#include "fleet/Dialect/Flow/IR/FlowDialect.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "flow-form-dispatches"

namespace fleet::flow {
#define GEN_PASS_DEF_FORMDISPATCHESPASS
#include "fleet/Dialect/Flow/Transforms/Passes.h.inc"
} // namespace fleet::flow

using namespace mlir;
using namespace fleet;

namespace {

/// Constants up to this many bytes are cloned into a dispatch instead of
/// becoming a binding of a host constant.
constexpr int64_t kMaxClonedConstantBytes = 256;

bool isSmallConstant(Operation *op) {
  auto constant = dyn_cast_or_null<arith::ConstantOp>(op);
  if (!constant)
    return false;
  auto shaped = dyn_cast<ShapedType>(constant.getType());
  if (!shaped)
    return true;
  if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
    if (dense.isSplat())
      return true;
  return shaped.hasStaticShape() &&
         shaped.getNumElements() *
                 std::max<int64_t>(1, shaped.getElementTypeBitWidth() / 8) <=
             kMaxClonedConstantBytes;
}

/// The chain that initializes a root's init operand and is cheap to recompute
/// inside the dispatch: tensor.empty, or linalg.fill of a constant into one.
/// Returns the ops in definition order, or empty if `value` is a real input.
SmallVector<Operation *> getClonableInitChain(Value value) {
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<tensor::EmptyOp>(op))
    return {op};
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(op)) {
    Operation *scalar = fill.getInputs().front().getDefiningOp();
    Operation *init = fill.getOutputs().front().getDefiningOp();
    if (isSmallConstant(scalar) && isa_and_nonnull<tensor::EmptyOp>(init))
      return {scalar, init, fill};
  }
  return {};
}

/// A fill whose every use is the init of another linalg op is folded into
/// those ops' dispatches instead of being its own dispatch.
bool isFoldedIntoConsumers(linalg::FillOp fill) {
  if (getClonableInitChain(fill.getResult(0)).empty())
    return false;
  for (OpOperand &use : fill.getResult(0).getUses()) {
    auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (!consumer || !consumer.isDpsInit(&use))
      return false;
  }
  return !fill.getResult(0).use_empty();
}

/// Text of an executable (export grid + inner module) for deduplication;
/// the caller blanks the function name first.
std::string getExecutableKey(stream::ExecutableOp executable) {
  std::string key;
  llvm::raw_string_ostream os(key);
  OpPrintingFlags flags;
  flags.printGenericOpForm().useLocalScope();
  for (Operation &op : executable.getBody().front()) {
    if (auto exportOp = dyn_cast<stream::ExecutableExportOp>(op)) {
      for (Block &block : exportOp.getWorkgroupCount())
        for (Operation &nested : block)
          nested.print(os, flags);
    } else if (isa<ModuleOp>(op)) {
      op.print(os, flags);
    }
  }
  return key;
}

/// getExecutableKey with the inner functions renamed to a fixed name, so
/// executables differing only in their names get the same key.
std::string getRenamedExecutableKey(stream::ExecutableOp executable) {
  SmallVector<std::pair<func::FuncOp, StringAttr>> renamed;
  for (Operation &op : executable.getBody().front())
    if (auto inner = dyn_cast<ModuleOp>(op))
      for (auto func : inner.getOps<func::FuncOp>()) {
        renamed.push_back({func, func.getSymNameAttr()});
        func.setSymName("__key__");
      }
  std::string key = getExecutableKey(executable);
  for (auto [func, name] : renamed)
    func.setSymNameAttr(name);
  return key;
}

/// The export of `executable` as a dispatch entry point.
SymbolRefAttr getEntryPointOf(stream::ExecutableOp executable) {
  auto exportOp =
      *executable.getBody().front().getOps<stream::ExecutableExportOp>().begin();
  return SymbolRefAttr::get(
      executable.getSymNameAttr(),
      {FlatSymbolRefAttr::get(exportOp.getSymNameAttr())});
}

class DispatchOutliner {
public:
  DispatchOutliner(ModuleOp module) : module(module), symbolTable(module) {}

  /// Outlines `root` into a new executable and replaces it with a dispatch;
  /// the ops of `group` (producers of `root`, used only by it and each
  /// other: a row group or an epilogue's product) are cloned into the
  /// dispatch with it.
  LogicalResult outline(linalg::LinalgOp root, StringRef baseName,
                        ArrayRef<Operation *> group = {});

private:
  ModuleOp module;
  SymbolTable symbolTable;
  /// Key → the first executable outlined with it. Duplicates are erased as
  /// soon as they are made, so the module never holds one executable per
  /// dispatch (10k dispatches of two kernels keep two executables alive).
  llvm::StringMap<stream::ExecutableOp> outlined;
};

LogicalResult DispatchOutliner::outline(linalg::LinalgOp root,
                                        StringRef baseName,
                                        ArrayRef<Operation *> group) {
  Operation *rootOp = root.getOperation();
  MLIRContext *context = rootOp->getContext();
  Location loc = rootOp->getLoc();

  // Classify every value the root reads: cloned producers, tensor bindings,
  // push constants.
  SetVector<Operation *> cloned;
  SetVector<Value> tensorInputs;
  SetVector<Value> scalarInputs;
  auto classify = [&](Value value, bool isInit) -> LogicalResult {
    // Values of the group are computed inside the dispatch.
    if (llvm::is_contained(group, value.getDefiningOp()))
      return success();
    if (isInit) {
      SmallVector<Operation *> chain = getClonableInitChain(value);
      if (!chain.empty()) {
        cloned.insert(chain.begin(), chain.end());
        return success();
      }
    }
    Operation *producer = value.getDefiningOp();
    if (isSmallConstant(producer)) {
      cloned.insert(producer);
      return success();
    }
    if (auto tensorType = dyn_cast<RankedTensorType>(value.getType())) {
      if (!tensorType.hasStaticShape())
        return rootOp->emitOpError()
               << "has a dynamically shaped operand " << tensorType
               << "; Fleet supports static shapes only";
      tensorInputs.insert(value);
      return success();
    }
    if (value.getType().isIntOrIndexOrFloat()) {
      scalarInputs.insert(value);
      return success();
    }
    return rootOp->emitOpError()
           << "reads a value of type " << value.getType()
           << " that a dispatch cannot take (expected a tensor or a scalar)";
  };
  SmallVector<Operation *> members(group.begin(), group.end());
  members.push_back(rootOp);
  for (Operation *member : members) {
    auto dps = cast<DestinationStyleOpInterface>(member);
    for (OpOperand &operand : member->getOpOperands())
      if (failed(classify(operand.get(), dps.isDpsInit(&operand))))
        return failure();
    if (member != rootOp)
      cloned.insert(member);
  }
  // Values captured by the members' regions from the enclosing function.
  SetVector<Value> captured;
  for (Operation *member : members)
    for (Region &region : member->getRegions())
      region.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (!member->isAncestor(operand.getParentRegion()->getParentOp()))
            captured.insert(operand);
      });
  for (Value value : captured)
    if (failed(classify(value, /*isInit=*/false)))
      return failure();

  for (Type type : rootOp->getResultTypes())
    if (!cast<RankedTensorType>(type).hasStaticShape())
      return rootOp->emitOpError()
             << "has a dynamically shaped result " << type
             << "; Fleet supports static shapes only";

  // The dispatch function: bindings for inputs then results, then scalars.
  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module.getBody());
  std::string executableName = baseName.str();
  // A dispatch holding a contraction is named after it (the product, not
  // its epilogue): `..._matmul_MxNxK_f32`.
  linalg::LinalgOp named = root;
  for (Operation *member : group)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(member);
        linalgOp && linalg::isaContractionOpInterface(linalgOp))
      named = linalgOp;
  std::string exportName =
      executableName + "_" + flow::describeDispatchRoot(named);
  auto bindingType = stream::BindingType::get(context);
  SmallVector<Type> argTypes(tensorInputs.size() + rootOp->getNumResults(),
                             bindingType);
  for (Value scalar : scalarInputs)
    argTypes.push_back(scalar.getType());

  auto executable = stream::ExecutableOp::create(
      moduleBuilder, loc, moduleBuilder.getStringAttr("private"),
      executableName);
  executable.getBody().emplaceBlock();
  symbolTable.insert(executable);
  executableName = executable.getSymName().str();
  exportName = executableName + "_" + flow::describeDispatchRoot(named);

  OpBuilder exeBuilder = OpBuilder::atBlockBegin(&executable.getBody().front());
  auto exportOp = stream::ExecutableExportOp::create(
      exeBuilder, loc, StringAttr{}, exportName, exportName);
  {
    // workgroups() -> (index, index, index): 1x1x1 until kernel codegen picks
    // tile sizes (codegen-configure-workgroups).
    Block *block = exeBuilder.createBlock(&exportOp.getWorkgroupCount());
    OpBuilder b = OpBuilder::atBlockBegin(block);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    stream::ReturnOp::create(b, loc, ValueRange{one, one, one});
  }
  exeBuilder.setInsertionPointAfter(exportOp);
  auto innerModule = ModuleOp::create(exeBuilder, loc);
  OpBuilder funcBuilder = OpBuilder::atBlockBegin(innerModule.getBody());
  auto funcType = FunctionType::get(context, argTypes, {});
  auto func = func::FuncOp::create(funcBuilder, loc, exportName, funcType);
  Block *entry = func.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);

  IRMapping mapping;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto subspan = [&](unsigned argIndex, RankedTensorType type) -> Value {
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    return stream::BindingSubspanOp::create(b, loc, memrefType,
                                            entry->getArgument(argIndex), zero,
                                            ValueRange{});
  };
  for (auto [i, value] : llvm::enumerate(tensorInputs)) {
    auto type = cast<RankedTensorType>(value.getType());
    Value memref = subspan(i, type);
    auto toTensor = bufferization::ToTensorOp::create(b, loc, type, memref,
                                                      /*restrict=*/true,
                                                      /*writable=*/false);
    mapping.map(value, toTensor.getResult());
  }
  unsigned scalarBase = tensorInputs.size() + rootOp->getNumResults();
  for (auto [i, value] : llvm::enumerate(scalarInputs))
    mapping.map(value, entry->getArgument(scalarBase + i));
  // Clone producers in their original order so operands are defined first.
  SmallVector<Operation *> ordered(cloned.begin(), cloned.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->getBlock() == b->getBlock() ? a->isBeforeInBlock(b) : a < b;
  });
  // Result views come first too, so every later rewrite of the body (e.g.
  // workgroup tiling, which takes subviews of them) finds them defined.
  SmallVector<Value> resultViews;
  for (auto [i, type] : llvm::enumerate(rootOp->getResultTypes()))
    resultViews.push_back(
        subspan(tensorInputs.size() + i, cast<RankedTensorType>(type)));
  for (Operation *op : ordered)
    b.clone(*op, mapping);
  Operation *newRoot = b.clone(*rootOp, mapping);
  for (auto [result, memref] : llvm::zip(newRoot->getResults(), resultViews)) {
    auto store = bufferization::MaterializeInDestinationOp::create(
        b, loc, TypeRange{}, result, memref);
    store.setRestrict(true);
    store.setWritable(true);
  }
  func::ReturnOp::create(b, loc);

  // Replace the root with the dispatch.
  OpBuilder hostBuilder(rootOp);
  SmallVector<Value> dispatchOperands(tensorInputs.begin(), tensorInputs.end());
  dispatchOperands.append(scalarInputs.begin(), scalarInputs.end());
  auto entryPoint = SymbolRefAttr::get(
      context, executableName,
      {FlatSymbolRefAttr::get(context, exportName)});
  auto dispatch = flow::DispatchOp::create(hostBuilder, loc,
                                           rootOp->getResultTypes(), entryPoint,
                                           ValueRange{}, dispatchOperands);
  rootOp->replaceAllUsesWith(dispatch.getResults());
  rootOp->erase();
  // Producers that were only feeding the root are now dead.
  for (Operation *op : llvm::reverse(ordered))
    if (op->use_empty())
      op->erase();
  // An identical executable made earlier serves this dispatch too.
  auto [it, inserted] =
      outlined.try_emplace(getRenamedExecutableKey(executable), executable);
  if (!inserted) {
    LLVM_DEBUG(llvm::dbgs() << "dedup: " << executable.getSymName() << " -> "
                            << it->second.getSymName() << "\n");
    dispatch.setEntryPointAttr(getEntryPointOf(it->second));
    symbolTable.erase(executable);
  }
  return success();
}

/// Merges executables whose bodies are identical and redirects dispatches.
void deduplicateExecutables(ModuleOp module) {
  llvm::StringMap<stream::ExecutableOp> byKey;
  DenseMap<Attribute, SymbolRefAttr> replacements;
  for (auto executable :
       llvm::make_early_inc_range(module.getOps<stream::ExecutableOp>())) {
    std::string key = getRenamedExecutableKey(executable);
    auto [it, inserted] = byKey.try_emplace(key, executable);
    if (inserted)
      continue;
    stream::ExecutableOp original = it->second;
    auto originalExport =
        *original.getBody().front().getOps<stream::ExecutableExportOp>().begin();
    auto duplicateExport = *executable.getBody()
                                .front()
                                .getOps<stream::ExecutableExportOp>()
                                .begin();
    MLIRContext *context = module.getContext();
    replacements[SymbolRefAttr::get(
        context, executable.getSymName(),
        {FlatSymbolRefAttr::get(context, duplicateExport.getSymName())})] =
        SymbolRefAttr::get(
            context, original.getSymName(),
            {FlatSymbolRefAttr::get(context, originalExport.getSymName())});
    LLVM_DEBUG(llvm::dbgs() << "dedup: " << executable.getSymName() << " -> "
                            << original.getSymName() << "\n");
    executable.erase();
  }
  if (replacements.empty())
    return;
  module.walk([&](flow::DispatchOp dispatch) {
    auto it = replacements.find(dispatch.getEntryPoint());
    if (it != replacements.end())
      dispatch.setEntryPointAttr(it->second);
  });
}

/// True for ops a host function may keep after dispatch formation
/// (docs/pipeline.md, input phase).
bool isHostOp(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (!dialect)
    return false;
  StringRef ns = dialect->getNamespace();
  if (ns == "util" || ns == "flow" || ns == "hal" || ns == "scf" ||
      ns == "cf" || ns == "stream")
    return true;
  // Copies and views the stream phase makes of host-side tensor ops
  // (docs/pipeline.md "Host-side tensor ops"); the pad's body is its value.
  if (isa<arith::ConstantOp, tensor::EmptyOp, tensor::ExpandShapeOp,
          tensor::CollapseShapeOp, tensor::ExtractSliceOp,
          tensor::InsertSliceOp, tensor::ConcatOp, tensor::PadOp,
          tensor::ReshapeOp, tensor::YieldOp, tensor::ExtractOp,
          tensor::InsertOp>(op))
    return true;
  // Scalar arithmetic stays on the host.
  if (ns == "arith" || ns == "math")
    return llvm::none_of(op->getResultTypes(),
                         [](Type t) { return isa<ShapedType>(t); });
  return false;
}

/// An op's own `stream.affinity` (a compute op, linalg ops with their
/// bodies included; other region ops and host ops keep theirs as the
/// default for what they contain) places it: its tensor
/// operands are transferred there first, as `flow.tensor.transfer` does (a
/// no-op for a value already there), so it executes there, its results
/// live there and no fusion crosses the transfers (docs/guide.md "Place
/// tensors"). An init a dispatch recomputes (empty or filled with a
/// constant) is not moved: it is cloned into the dispatch.
void materializeOpAffinities(util::FuncOp func) {
  SmallVector<Operation *> placed;
  func.walk([&](Operation *op) {
    if (op != func.getOperation() && op->hasAttr("stream.affinity") &&
        (op->getNumRegions() == 0 || isa<linalg::LinalgOp>(op)) &&
        !isHostOp(op))
      placed.push_back(op);
  });
  for (Operation *op : placed) {
    Attribute affinity = op->getAttr("stream.affinity");
    OpBuilder builder(op);
    auto dps = dyn_cast<DestinationStyleOpInterface>(op);
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      if (dps && dps.isDpsInit(&operand) &&
          !getClonableInitChain(operand.get()).empty())
        continue;
      operand.set(flow::TensorTransferOp::create(
          builder, op->getLoc(), type, operand.get(), ValueRange{}, affinity));
    }
    op->removeAttr("stream.affinity");
    LLVM_DEBUG(llvm::dbgs() << "placed " << op->getName() << " on "
                            << affinity << "\n");
  }
}

/// A generic over the iteration space `ranges` whose loops are all parallel
/// but possibly the innermost, which may reduce: one op of a row-wise chain
/// (softmax, layernorm).
bool isRowOp(Operation *op, ArrayRef<int64_t> ranges) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic->getNumResults() != 1 || op->hasAttr("stream.affinity"))
    return false;
  if (generic.getStaticLoopRanges() != ranges)
    return false;
  SmallVector<utils::IteratorType> iterators =
      generic.getIteratorTypesArray();
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if (iterator != utils::IteratorType::parallel && i + 1 != iterators.size())
      return false;
  return llvm::all_of(generic.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation();
  });
}

/// The row group of `root`: producers that reduce rows (or are elementwise
/// over the same rows) and are read only by the group, so one dispatch can
/// compute a row's reductions and what reads them while the row is in
/// cache (docs/pipeline.md "Row groups"). Empty unless a reduction joins:
/// elementwise chains are fused by the elementwise fusion already.
SmallVector<Operation *> getRowGroup(linalg::LinalgOp root) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  if (ranges.size() < 2 || llvm::any_of(ranges, ShapedType::isDynamic) ||
      !isRowOp(root, ranges))
    return {};
  SetVector<Operation *> group;
  group.insert(root);
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation *member : SmallVector<Operation *>(group.begin(), group.end()))
      for (Value operand : member->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || group.contains(producer) ||
            producer->getBlock() != root->getBlock() ||
            !isRowOp(producer, ranges))
          continue;
        if (!llvm::all_of(producer->getUsers(), [&](Operation *user) {
              return group.contains(user);
            }))
          continue;
        group.insert(producer);
        changed = true;
      }
  }
  bool reduces = llvm::any_of(group, [&](Operation *op) {
    return op != root.getOperation() &&
           cast<linalg::LinalgOp>(op).getNumReductionLoops() > 0;
  });
  if (!reduces)
    return {};
  SmallVector<Operation *> producers;
  for (Operation *op : group)
    if (op != root.getOperation())
      producers.push_back(op);
  LLVM_DEBUG(llvm::dbgs() << "row group of " << producers.size() + 1
                          << " ops at " << root.getLoc() << "\n");
  return producers;
}

/// The epilogue group of `root`: when `root` is an elementwise generic
/// (every loop parallel) reading, through the identity map, the result of
/// a contraction (matmul, batch_matmul, a contraction generic) that nothing
/// else reads, that contraction, so one dispatch computes the product and
/// its epilogue (bias, activation, residual) while the product's tile is
/// in registers or cache (docs/pipeline.md "Epilogues"). Empty otherwise;
/// an epilogue reading two products keeps them apart.
SmallVector<Operation *> getEpilogueGroup(linalg::LinalgOp root) {
  auto generic = dyn_cast<linalg::GenericOp>(root.getOperation());
  if (!generic || generic.getNumReductionLoops() != 0 ||
      generic->getNumResults() != 1)
    return {};
  Operation *product = nullptr;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || !linalg::isaContractionOpInterface(producer) ||
        producer->getNumResults() != 1 ||
        producer->getBlock() != root->getBlock())
      continue;
    if (!generic.getMatchingIndexingMap(input).isIdentity() ||
        !llvm::all_of(producer->getUsers(),
                      [&](Operation *user) { return user == root; }))
      continue;
    if (product && product != producer.getOperation())
      return {};
    product = producer;
  }
  if (!product)
    return {};
  LLVM_DEBUG(llvm::dbgs() << "epilogue at " << root.getLoc() << " joins "
                          << product->getName() << " at " << product->getLoc()
                          << "\n");
  return {product};
}

struct FormDispatchesPass
    : public fleet::flow::impl::FormDispatchesPassBase<FormDispatchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();

    // 0. Ops placed by their own stream.affinity.
    for (auto func : module.getOps<util::FuncOp>())
      if (!func.isExternal())
        materializeOpAffinities(func);

    SmallVector<util::FuncOp> funcs;
    for (auto func : module.getOps<util::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);

    // 1. Aggregated ops (linalg.softmax) decomposed, elementwise ops to
    // linalg, the tensor ops that belong in a kernel to generics
    // (TensorOpsToLinalg.cpp), then fuse elementwise chains.
    RewritePatternSet toLinalg(context);
    linalg::populateElementwiseToLinalgConversionPatterns(toLinalg);
    FrozenRewritePatternSet frozenToLinalg(std::move(toLinalg));
    // Both pattern sets only shrink the IR (one op per rewrite converted or
    // fused away), so they converge; a long chain needs more sweeps than the
    // driver's default of 10, which is no error.
    GreedyRewriteConfig untilDone;
    untilDone.setMaxIterations(GreedyRewriteConfig::kNoLimit);
    for (auto func : funcs) {
      if (failed(flow::decomposeAggregatedOps(func)))
        return signalPassFailure();
      (void)applyPatternsGreedily(func, frozenToLinalg, untilDone);
      flow::refineStaticShapes(func);
      flow::lowerAsserts(func);
      flow::convertTensorOpsToLinalg(func);
    }
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          if (!producer || !producer->hasOneUse())
            return false;
          // A producer that gathers (a pad or strided slice, reading with
          // tensor.extract) stays its own kernel under a window copy
          // (im2col, reading `oh * s + kh`): fused, every element of the
          // copy, KH x KW times the producer's, would gather; apart, the
          // copy reads the producer's rows as vectors (docs/kernels.md
          // "Convolutions").
          auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
          bool gathers = false;
          producer->walk([&](tensor::ExtractOp) { gathers = true; });
          if (consumer && gathers &&
              !consumer.getMatchingIndexingMap(fused).isProjectedPermutation())
            return false;
          return true;
        });
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto func : funcs)
      (void)applyPatternsGreedily(func, frozen, untilDone);

    for (auto func : funcs)
      flow::clampGatherIndices(func);

    // 2. Outline every root.
    DispatchOutliner outliner(module);
    for (auto func : funcs) {
      SmallVector<linalg::LinalgOp> roots;
      func.walk([&](linalg::LinalgOp op) {
        if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
          if (isFoldedIntoConsumers(fill))
            return;
        roots.push_back(op);
      });
      // Row groups and epilogue groups, from the last root up: a root
      // absorbed into a later root's group is not outlined on its own.
      DenseMap<Operation *, SmallVector<Operation *>> groups;
      DenseSet<Operation *> absorbed;
      for (linalg::LinalgOp root : llvm::reverse(roots)) {
        if (absorbed.contains(root))
          continue;
        SmallVector<Operation *> group = getRowGroup(root);
        if (group.empty())
          group = getEpilogueGroup(root);
        absorbed.insert(group.begin(), group.end());
        groups[root] = std::move(group);
      }
      unsigned ordinal = 0;
      for (linalg::LinalgOp root : roots) {
        if (absorbed.contains(root))
          continue;
        std::string base =
            (func.getSymName() + "_dispatch_" + Twine(ordinal++)).str();
        if (failed(outliner.outline(root, base, groups.lookup(root))))
          return signalPassFailure();
      }
      // Fills folded into consumers are dead now.
      func.walk([&](linalg::FillOp fill) {
        if (fill->use_empty())
          fill->erase();
      });
    }

    // 3. Share identical executables.
    deduplicateExecutables(module);

    // 4. Everything left must be runnable by the host program.
    bool unsupported = false;
    for (auto func : funcs) {
      func.walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (op == func.getOperation() || isHostOp(op))
          return WalkResult::advance();
        op->emitError() << "'" << op->getName()
                        << "' is not supported: Fleet can neither run it in "
                           "the host program nor form a dispatch from it";
        unsupported = true;
        return WalkResult::skip();
      });
    }
    if (unsupported)
      return signalPassFailure();
  }
};

} // namespace
