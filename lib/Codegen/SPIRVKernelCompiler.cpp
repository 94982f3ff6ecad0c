//===- SPIRVKernelCompiler.cpp - dispatch module to a SPIR-V module -------===//
//
// compileSPIRVKernelModule: copy the dispatch module into a private context
// and, per export:
// - type each `!stream.binding` argument as a 1-D `memref<?xT>` (T: the
//   element type of its subspans) and replace every primitive argument by a
//   load from one trailing push-constant `memref<Wxi32>` (KernelABI.h word
//   packing); each `stream.binding.subspan` becomes a placeholder
//   (`unrealized_conversion_cast` tagged kSubspanAttr) of the shaped view;
// - workgroup queries become gpu.block_id / gpu.grid_dim;
// then bufferize (as the CPU path), lower linalg to loops, fold subviews
// into loads and stores, linearize every access to a subspan into its 1-D
// binding (SPIR-V cannot lower dynamic-stride memrefs), turn temporaries
// into workgroup (shared) memory variables, move each function into a
// `gpu.func` kernel of one `gpu.module` and convert it with the upstream
// GPU/math-to-SPIR-V passes. The invocations of a workgroup share its tile
// (SPIRVKernelDistribution.cpp; LocalSize options.invocations x 1 x 1).
//
//===----------------------------------------------------------------------===//

#include "fleet/Codegen/SPIRVKernelCompiler.h"

#include "KernelCompilerInternal.h"
#include "SPIRVKernelInternal.h"
#include "fleet/Codegen/KernelCompiler.h"
#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRVPass.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRVPass.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace fleet;

namespace fleet::codegen {

namespace {

/// Marks the placeholder of a `stream.binding.subspan`: an
/// unrealized_conversion_cast (binding memref<?xT>, byte offset, dynamic
/// dims...) -> the subspan's shaped memref.
constexpr llvm::StringLiteral kSubspanAttr = "fleet.spirv.subspan";
constexpr llvm::StringLiteral kErrorPrefix = "vulkan-spirv: ";


llvm::Error makeError(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 kErrorPrefix + what);
}

/// KernelABI.h: index/i64 (and f64) take two 32-bit words, the rest one.
unsigned getWordCount(Type type) {
  return type.isIndex() || type.getIntOrFloatBitWidth() > 32 ? 2 : 1;
}

/// Why `type` (or its element type) cannot be used in a kernel yet, or "".
std::string getUnsupportedTypeReason(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isIndex() || isa<stream::BindingType>(type))
    return "";
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.getWidth() > 32)
      return "64-bit integers (i64) are not supported yet";
    return "";
  }
  if (auto flt = dyn_cast<FloatType>(type)) {
    if (flt.isF32())
      return "";
    if (flt.getWidth() == 64)
      return "64-bit floats (f64) are not supported yet";
    return "16-bit and narrower floats are not supported yet";
  }
  if (isa<ComplexType>(type))
    return "complex numbers are not supported";
  return "";
}

/// Fails with a clear message on a type the Vulkan kernels do not support.
LogicalResult checkTypes(func::FuncOp func, std::string &reason) {
  auto check = [&](Type type) {
    if (reason.empty())
      reason = getUnsupportedTypeReason(type);
    return reason.empty();
  };
  for (Type type : func.getArgumentTypes())
    if (!check(type))
      return failure();
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    for (Type type : op->getResultTypes())
      if (!check(type))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!check(arg.getType()))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Rewrites the signature and the stream ops of `func` (see the file
/// comment). Returns the number of push-constant words.
FailureOr<unsigned> prepareFunction(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  if (func.isExternal())
    return func.emitOpError("is a dispatch function without a body");
  if (func.getNumResults() != 0)
    return func.emitOpError("is a dispatch function with results");
  Block &entry = func.getBody().front();
  Location loc = func.getLoc();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  Type i32 = builder.getI32Type();

  // Words of the primitive arguments, and the element types of bindings.
  unsigned words = 0;
  SmallVector<std::pair<BlockArgument, unsigned>> scalars;
  SmallVector<BlockArgument> bindings;
  for (BlockArgument arg : entry.getArguments()) {
    Type type = arg.getType();
    if (isa<stream::BindingType>(type)) {
      bindings.push_back(arg);
      continue;
    }
    if (!type.isIndex() && !type.isIntOrFloat())
      return func.emitOpError("argument ")
             << arg.getArgNumber() << " has type " << type
             << "; dispatch arguments are !stream.binding or primitives";
    scalars.push_back({arg, words});
    words += getWordCount(type);
  }

  // Bindings: memref<?xT>, subspans become placeholders.
  for (BlockArgument arg : bindings) {
    Type element;
    SmallVector<stream::BindingSubspanOp> subspans;
    for (Operation *user : arg.getUsers()) {
      auto subspan = dyn_cast<stream::BindingSubspanOp>(user);
      if (!subspan)
        return user->emitOpError(
            "uses a binding other than through stream.binding.subspan");
      auto type = dyn_cast<MemRefType>(subspan.getType());
      if (!type || !type.getLayout().isIdentity())
        return subspan.emitOpError("views a binding as ")
               << subspan.getType()
               << "; the Vulkan kernel compiler supports memrefs with the "
                  "identity layout";
      if (element && element != type.getElementType())
        return subspan.emitOpError("views binding ")
               << arg.getArgNumber() << " with element types " << element
               << " and " << type.getElementType()
               << "; one element type per binding is supported";
      element = type.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8)
        return subspan.emitOpError("views a binding with element type ")
               << element << "; not supported";
      subspans.push_back(subspan);
    }
    if (!element)
      element = i32;
    arg.setType(MemRefType::get({ShapedType::kDynamic}, element));
    for (stream::BindingSubspanOp subspan : subspans) {
      OpBuilder at(subspan);
      SmallVector<Value> operands = {arg, subspan.getByteOffset()};
      llvm::append_range(operands, subspan.getDynamicDims());
      auto placeholder = UnrealizedConversionCastOp::create(
          at, subspan.getLoc(), subspan.getType(), operands);
      placeholder->setAttr(kSubspanAttr, at.getUnitAttr());
      subspan.replaceAllUsesWith(placeholder.getResult(0));
      subspan.erase();
    }
  }

  // Primitive arguments: loads of the push-constant words.
  if (words) {
    auto pushType = MemRefType::get(
        {static_cast<int64_t>(words)}, i32, MemRefLayoutAttrInterface(),
        spirv::StorageClassAttr::get(context,
                                     spirv::StorageClass::PushConstant));
    BlockArgument push = entry.addArgument(pushType, loc);
    auto loadWord = [&](unsigned word) -> Value {
      Value index = arith::ConstantIndexOp::create(builder, loc, word);
      return memref::LoadOp::create(builder, loc, push, index);
    };
    for (auto [arg, word] : scalars) {
      Type type = arg.getType();
      Value low = loadWord(word);
      Value value;
      if (type.isIndex()) {
        // 32-bit index: the low word (values past 2^31 are not supported).
        value = arith::IndexCastOp::create(builder, loc, type, low);
      } else if (type.isInteger(1)) {
        Value zero = arith::ConstantIntOp::create(builder, loc, i32, 0);
        value = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                      low, zero);
      } else if (type.isInteger(32)) {
        value = low;
      } else if (type.isF32()) {
        value = arith::BitcastOp::create(builder, loc, type, low);
      } else if (isa<IntegerType>(type) && type.getIntOrFloatBitWidth() < 32) {
        value = arith::TruncIOp::create(builder, loc, type, low);
      } else {
        return func.emitOpError("argument ")
               << arg.getArgNumber() << " of type " << type
               << " is not supported as a push constant";
      }
      arg.replaceAllUsesWith(value);
    }
  }
  // Drop the primitive arguments (from the back, indices stay valid).
  llvm::BitVector erase(entry.getNumArguments());
  for (auto &scalar : scalars)
    erase.set(scalar.first.getArgNumber());
  entry.eraseArguments(erase);
  func.setFunctionType(
      FunctionType::get(context, entry.getArgumentTypes(), {}));

  // Workgroup queries.
  SmallVector<Operation *> toErase;
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    std::optional<uint64_t> dimension;
    if (auto id = dyn_cast<stream::DispatchWorkgroupIDOp>(op))
      dimension = id.getDimension().getZExtValue();
    else if (auto count = dyn_cast<stream::DispatchWorkgroupCountOp>(op))
      dimension = count.getDimension().getZExtValue();
    else if (auto size = dyn_cast<stream::DispatchWorkgroupSizeOp>(op))
      dimension = size.getDimension().getZExtValue();
    else
      return WalkResult::advance();
    if (*dimension > 2)
      return op->emitOpError("dimension ") << *dimension
                                           << " is not 0, 1 or 2";
    OpBuilder at(op);
    auto dim = static_cast<gpu::Dimension>(*dimension);
    Value value;
    if (isa<stream::DispatchWorkgroupIDOp>(op))
      value = gpu::BlockIdOp::create(at, op->getLoc(), dim);
    else if (isa<stream::DispatchWorkgroupCountOp>(op))
      value = gpu::GridDimOp::create(at, op->getLoc(), dim);
    else // One invocation per workgroup.
      value = arith::ConstantIndexOp::create(at, op->getLoc(), 1);
    op->getResult(0).replaceAllUsesWith(value);
    toErase.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Operation *op : toErase)
    op->erase();
  WalkResult leftover = func.walk([&](Operation *op) -> WalkResult {
    if (isa<stream::StreamDialect>(op->getDialect()))
      return op->emitOpError("is not supported in a Vulkan kernel");
    return WalkResult::advance();
  });
  if (leftover.wasInterrupted())
    return failure();
  return words;
}

/// Prepares the tensor form for in-place bufferization: a slice of a whole
/// fill (the matmul accumulator left by workgroup tiling) becomes a fill of
/// the slice, and the subviews the tiles are stored into move up to their
/// operands, so empty-tensor elimination can compute tiles in place
/// (no temporaries of the whole result or of dynamic tile size).
/// A small non-splat constant tensor that dispatch formation cloned into a
/// kernel (FormDispatches.cpp, up to 256 bytes) would bufferize to a
/// memref.global, which has no SPIR-V conversion: it becomes a private
/// array (Function storage) that the kernel fills on entry, one store per
/// element.
void materializeConstantTensors(ModuleOp module) {
  SmallVector<arith::ConstantOp> constants;
  module.walk([&](arith::ConstantOp constant) {
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (type && dense && !dense.isSplat() && type.hasStaticShape() &&
        constant->getParentOfType<func::FuncOp>())
      constants.push_back(constant);
  });
  for (arith::ConstantOp constant : constants) {
    auto type = cast<RankedTensorType>(constant.getType());
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    auto func = constant->getParentOfType<func::FuncOp>();
    OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
    Location loc = constant.getLoc();
    Value array = memref::AllocaOp::create(
        builder, loc, MemRefType::get(type.getShape(), type.getElementType()));
    SmallVector<int64_t> strides = computeStrides(type.getShape());
    for (auto [i, value] : llvm::enumerate(dense.getValues<Attribute>())) {
      SmallVector<Value> indices;
      for (int64_t position : delinearize(int64_t(i), strides))
        indices.push_back(arith::ConstantIndexOp::create(builder, loc, position));
      Value element = arith::ConstantOp::create(builder, loc,
                                                cast<TypedAttr>(value));
      memref::StoreOp::create(builder, loc, element, array, indices);
    }
    Value tensor = bufferization::ToTensorOp::create(
        builder, loc, type, array, /*restrict=*/true, /*writable=*/false);
    constant.replaceAllUsesWith(tensor);
    constant.erase();
  }
}

LogicalResult prepareForBufferization(ModuleOp module) {
  materializeConstantTensors(module);
  RewritePatternSet patterns(module.getContext());
  linalg::populateSwapExtractSliceWithFillPatterns(patterns);
  tensor::populateFoldTensorEmptyPatterns(patterns);
  if (failed(applyPatternsGreedily(module, std::move(patterns))))
    return module.emitError("slice folding did not converge");
  module.walk([](bufferization::MaterializeInDestinationOp store) {
    auto subview = store.getDest().getDefiningOp<memref::SubViewOp>();
    if (!subview)
      return;
    Block *block = subview->getBlock();
    Operation *last = nullptr;
    for (Value operand : subview->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != block) {
        if (def && !def->getBlock()->findAncestorOpInBlock(*subview))
          return;
        continue;
      }
      if (!last || last->isBeforeInBlock(def))
        last = def;
    }
    if (!last)
      subview->moveBefore(block, block->begin());
    else
      subview->moveAfter(last);
  });
  return success();
}

LogicalResult bufferize(ModuleOp module) {
  if (failed(prepareForBufferization(module)))
    return failure();
  return detail::bufferizeKernelModule(module);
}

LogicalResult lowerToLoops(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(memref::createFoldMemRefAliasOpsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(module)))
    return module.emitError("lowering to loops failed");
  return success();
}

/// Unrolls innermost loops by kUnrollFactor. Besides the speed, this keeps
/// serial tiles under Mesa llvmpipe's (lavapipe's) loop limiter, which ends
/// a shader invocation's loops silently after 65535 back-edges in total.
constexpr uint64_t kUnrollFactor = 8;

LogicalResult unrollInnermostLoops(func::FuncOp func) {
  SmallVector<scf::ForOp> innermost;
  func.walk([&](scf::ForOp loop) {
    bool hasInnerLoop = false;
    loop.getBody()->walk([&](scf::ForOp) { hasInnerLoop = true; });
    if (!hasInnerLoop)
      innermost.push_back(loop);
  });
  for (scf::ForOp loop : innermost) {
    std::optional<int64_t> trips = loop.getStaticTripCount()
                                       ? std::optional<int64_t>(
                                             loop.getStaticTripCount()
                                                 ->getSExtValue())
                                       : std::nullopt;
    if (trips && *trips <= 1)
      continue;
    if (failed(loopUnrollByFactor(loop, kUnrollFactor)))
      return loop.emitOpError("could not be unrolled");
  }
  return success();
}

/// Math and arith ops the SPIR-V conversions do not handle, expanded.
LogicalResult expandMathAndArith(ModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  populateMathAlgebraicSimplificationPatterns(patterns);
  math::populateExpansionPatterns(patterns, {"fpowi"});
  populatePolynomialApproximateErfPattern(patterns);
  arith::populateCeilFloorDivExpandOpsPatterns(patterns);
  if (failed(applyPatternsGreedily(module, std::move(patterns))))
    return module.emitError("math expansion did not converge");
  return success();
}

/// Replaces the accesses to one subspan placeholder by accesses to the 1-D
/// binding at linearized indices.
LogicalResult linearizeSubspan(UnrealizedConversionCastOp placeholder) {
  Location loc = placeholder.getLoc();
  auto type = cast<MemRefType>(placeholder.getResult(0).getType());
  Value binding = placeholder.getOperand(0);
  Value byteOffset = placeholder.getOperand(1);
  ValueRange dynamicDims = placeholder.getOperands().drop_front(2);
  OpBuilder builder(placeholder);
  builder.setInsertionPointAfter(placeholder);
  // Sizes of the view.
  SmallVector<Value> sizes;
  unsigned dynamicIndex = 0;
  for (int64_t size : type.getShape())
    sizes.push_back(ShapedType::isDynamic(size)
                        ? dynamicDims[dynamicIndex++]
                        : arith::ConstantIndexOp::create(builder, loc, size)
                              .getResult());
  // Row-major strides and the element offset.
  int64_t rank = type.getRank();
  SmallVector<Value> strides(rank);
  Value stride = arith::ConstantIndexOp::create(builder, loc, 1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride = arith::MulIOp::create(builder, loc, stride, sizes[d]);
  }
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  Value offset = byteOffset;
  if (elementBytes != 1)
    offset = arith::DivUIOp::create(
        builder, loc, byteOffset,
        arith::ConstantIndexOp::create(builder, loc, elementBytes));

  auto linearize = [&](OpBuilder &at, ValueRange indices) -> Value {
    Value linear = offset;
    for (auto [index, stride] : llvm::zip(indices, strides)) {
      Value term = arith::MulIOp::create(at, loc, index, stride);
      linear = arith::AddIOp::create(at, loc, linear, term);
    }
    return linear;
  };
  for (Operation *user :
       llvm::make_early_inc_range(placeholder.getResult(0).getUsers())) {
    OpBuilder at(user);
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      Value linear = linearize(at, load.getIndices());
      Value value = memref::LoadOp::create(at, load.getLoc(), binding, linear);
      load.replaceAllUsesWith(value);
      load.erase();
    } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
      Value linear = linearize(at, store.getIndices());
      memref::StoreOp::create(at, store.getLoc(), store.getValueToStore(),
                              binding, linear);
      store.erase();
    } else if (auto dim = dyn_cast<memref::DimOp>(user)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!index)
        return dim.emitOpError("of a binding at a dynamic dimension");
      dim.replaceAllUsesWith(sizes[*index]);
      dim.erase();
    } else {
      return user->emitOpError("accesses a binding in a way the Vulkan "
                               "kernel compiler does not support yet");
    }
  }
  placeholder.erase();
  return success();
}

/// Temporaries: static allocations become workgroup (shared) memory
/// variables, allocated at the function entry, shared by the workgroup's
/// invocations (barriers order their loop nests). Not private (Function)
/// arrays:
/// lavapipe compiles each dynamically indexed access of a private array
/// into code over all its elements, and a 27x37 row-group temporary made
/// the shader compile for minutes.
constexpr int64_t kMaxWorkgroupMemoryBytes = 16 << 10;

LogicalResult privatizeAllocations(func::FuncOp func) {
  SmallVector<Operation *> allocations;
  func.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp>(op))
      allocations.push_back(op);
  });
  Block &entry = func.getBody().front();
  auto privateSpace = spirv::StorageClassAttr::get(
      func.getContext(), spirv::StorageClass::Workgroup);
  int64_t bytes = 0;
  for (Operation *allocation : allocations) {
    auto type = cast<MemRefType>(allocation->getResult(0).getType());
    if (!type.hasStaticShape())
      return allocation->emitOpError(
                 "allocates a dynamically sized temporary ")
             << type << "; the Vulkan kernel compiler supports static ones";
    if (!type.getLayout().isIdentity())
      return allocation->emitOpError("allocates a non-identity layout");
    for (Operation *user :
         llvm::make_early_inc_range(allocation->getResult(0).getUsers())) {
      if (isa<memref::DeallocOp>(user)) {
        user->erase();
        continue;
      }
      if (!isa<memref::LoadOp, memref::StoreOp>(user))
        return user->emitOpError("uses a temporary buffer in a way the "
                                 "Vulkan kernel compiler does not support");
    }
    OpBuilder builder = OpBuilder::atBlockBegin(&entry);
    auto privateType =
        MemRefType::get(type.getShape(), type.getElementType(),
                        MemRefLayoutAttrInterface(), privateSpace);
    bytes += type.getNumElements() *
             std::max<int64_t>(4, type.getElementTypeBitWidth() / 8);
    if (bytes > kMaxWorkgroupMemoryBytes)
      return allocation->emitOpError("needs more than ")
             << kMaxWorkgroupMemoryBytes
             << " bytes of temporaries in one workgroup (the Vulkan kernel "
                "compiler keeps them in workgroup memory)";
    Value alloca =
        memref::AllocOp::create(builder, allocation->getLoc(), privateType);
    allocation->getResult(0).replaceAllUsesWith(alloca);
    allocation->erase();
  }
  return success();
}

/// Moves `func` into `gpuModule` as a kernel with the SPIR-V ABI attributes.
void moveToKernel(func::FuncOp func, gpu::GPUModuleOp gpuModule,
                  unsigned bindingCount, unsigned pushWords,
                  ArrayRef<int32_t> workgroupSize) {
  MLIRContext *context = func.getContext();
  OpBuilder builder = OpBuilder::atBlockEnd(gpuModule.getBody());
  auto kernel = gpu::GPUFuncOp::create(builder, func.getLoc(),
                                       func.getSymName(),
                                       func.getFunctionType());
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  builder.getUnitAttr());
  kernel->setAttr(spirv::getEntryPointABIAttrName(),
                  spirv::getEntryPointABIAttr(context, workgroupSize));
  for (unsigned i = 0; i < bindingCount; ++i)
    kernel.setArgAttr(i, spirv::getInterfaceVarABIAttrName(),
                      spirv::getInterfaceVarABIAttr(0, i, std::nullopt,
                                                    context));
  if (pushWords)
    kernel.setArgAttr(bindingCount, spirv::getInterfaceVarABIAttrName(),
                      spirv::getInterfaceVarABIAttr(0, bindingCount,
                                                    std::nullopt, context));
  kernel.getBody().front().erase();
  kernel.getBody().takeBody(func.getBody());
  kernel.walk([](func::ReturnOp ret) {
    OpBuilder at(ret);
    gpu::ReturnOp::create(at, ret.getLoc());
    ret.erase();
  });
  func.erase();
}

spirv::TargetEnvAttr getVulkanTargetEnv(MLIRContext *context) {
  auto triple = spirv::VerCapExtAttr::get(
      spirv::Version::V_1_3, {spirv::Capability::Shader},
      {spirv::Extension::SPV_KHR_storage_buffer_storage_class}, context);
  return spirv::TargetEnvAttr::get(triple,
                                   spirv::getDefaultResourceLimits(context),
                                   spirv::ClientAPI::Vulkan);
}

} // namespace

llvm::Expected<SPIRVKernelObject>
compileSPIRVKernelModule(ModuleOp module, const SPIRVKernelOptions &options) {
  // A private copy: the caller's module and context stay untouched and
  // compilations may run concurrently.
  std::string bytecode;
  {
    llvm::raw_string_ostream os(bytecode);
    if (failed(writeBytecodeToFile(module, os)))
      return makeError("cannot serialize the kernel module");
  }
  DialectRegistry registry;
  registerKernelInputDialects(registry);
  registry.insert<gpu::GPUDialect, spirv::SPIRVDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  detail::DiagnosticCollector diagnostics(&context, kErrorPrefix.str());
  OwningOpRef<ModuleOp> copy = parseSourceString<ModuleOp>(
      bytecode, ParserConfig(&context, /*verifyAfterParse=*/false));
  if (!copy)
    return diagnostics.error("cannot read the kernel module");
  (*copy)->setAttrs(DictionaryAttr::get(&context));

  std::vector<std::string> exports = options.exports;
  if (exports.empty())
    for (auto func : copy->getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        exports.push_back(func.getSymName().str());
  if (exports.empty())
    return makeError("the kernel module defines no public function");

  SPIRVKernelObject object;
  SmallVector<unsigned> bindingCounts;
  for (const std::string &name : exports) {
    auto func = copy->lookupSymbol<func::FuncOp>(name);
    if (!func)
      return makeError("no function '" + name + "' in the kernel module");
    std::string reason;
    if (failed(checkTypes(func, reason)))
      return makeError("export '" + name + "': " + reason);
    // Sub-word stores to storage buffers do not lower without Int8/16-bit
    // storage (memref.store of i8 fails to legalize).
    std::string narrow;
    func.walk([&](stream::BindingSubspanOp subspan) {
      if (auto type = dyn_cast<ShapedType>(subspan.getType()))
        if (type.getElementType().isIntOrFloat() &&
            type.getElementType().getIntOrFloatBitWidth() < 32 &&
            narrow.empty()) {
          llvm::raw_string_ostream os(narrow);
          os << type;
        }
    });
    if (!narrow.empty())
      return makeError("export '" + name +
                       "': i1/i8 bindings are not supported yet (a binding "
                       "is viewed as " +
                       narrow + ")");
    unsigned bindingCount = llvm::count_if(
        func.getArgumentTypes(),
        [](Type type) { return isa<stream::BindingType>(type); });
    if (failed(detail::storeBooleansAsBytes(func)))
      return diagnostics.error("export '" + name +
                               "': unsupported boolean binding");
    FailureOr<unsigned> words = prepareFunction(func);
    if (failed(words))
      return diagnostics.error("export '" + name +
                               "': unsupported dispatch function");
    detail::makeIntegerDivisionTotal(func);
    bindingCounts.push_back(bindingCount);
    object.pushConstantWords.push_back(*words);
    object.workgroupSizes.push_back({options.invocations, 1, 1});
  }
  // Functions no export needs.
  for (auto func : llvm::make_early_inc_range(copy->getOps<func::FuncOp>()))
    if (!llvm::is_contained(exports, func.getSymName().str()) &&
        func.symbolKnownUseEmpty(*copy))
      func.erase();

  if (failed(bufferize(*copy)))
    return diagnostics.error("bufferization failed");
  detail::boundDynamicAllocations(*copy);
  if (failed(lowerToLoops(*copy)))
    return diagnostics.error("lowering to loops failed");
  for (const std::string &name : exports) {
    auto func = copy->lookupSymbol<func::FuncOp>(name);
    SmallVector<UnrealizedConversionCastOp> placeholders;
    func.walk([&](UnrealizedConversionCastOp cast) {
      if (cast->hasAttr(kSubspanAttr))
        placeholders.push_back(cast);
    });
    for (UnrealizedConversionCastOp placeholder : placeholders)
      if (failed(linearizeSubspan(placeholder)))
        return diagnostics.error("export '" + name +
                                 "': unsupported binding access");
    if (failed(privatizeAllocations(func)))
      return diagnostics.error("export '" + name +
                               "': unsupported temporary buffer");
    if (failed(detail::distributeToInvocations(func, options.invocations)))
      return diagnostics.error("export '" + name +
                               "': cannot distribute over invocations");
    if (options.maxLoopIterations > 0) {
      Operation *unbounded = nullptr;
      FailureOr<int64_t> iterations =
          detail::countLoopIterations(func, kUnrollFactor, unbounded);
      if (failed(iterations) || *iterations > options.maxLoopIterations) {
        if (getenv("FLEET_SPIRV_DUMP"))
          llvm::errs() << "// over the loop budget: "
                       << *func
                       << "\n";
        std::string count =
            failed(iterations) ? std::string("an unbounded number of")
                               : std::to_string(*iterations);
        return makeError(
            "export '" + name + "': one invocation would run " + count +
            " loop iterations, more than the target's max_loop_iterations = " +
            std::to_string(options.maxLoopIterations) +
            " (Mesa's lavapipe stops a shader's loops there without an "
            "error; set max_loop_iterations = 0 on the "
            "#hal.executable.target<\"vulkan-spirv\", ...> of a device "
            "without that limit; docs/kernels.md \"Vulkan kernels\")");
      }
    }
    if (failed(unrollInnermostLoops(func)))
      return diagnostics.error("export '" + name + "': unrolling failed");
  }
  if (failed(expandMathAndArith(*copy)))
    return diagnostics.error("math expansion failed");
  {
    PassManager pm(&context);
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(*copy)))
      return diagnostics.error("cleanup after linearization failed");
  }

  // One gpu.module with a kernel per export.
  spirv::TargetEnvAttr targetEnv = getVulkanTargetEnv(&context);
  (*copy)->setAttr(spirv::getTargetEnvAttrName(), targetEnv);
  OpBuilder builder = OpBuilder::atBlockEnd(copy->getBody());
  auto gpuModule =
      gpu::GPUModuleOp::create(builder, copy->getLoc(), "fleet_spirv");
  gpuModule->setAttr(spirv::getTargetEnvAttrName(), targetEnv);
  for (auto [name, bindingCount, words] :
       llvm::zip(exports, bindingCounts, object.pushConstantWords)) {
    auto func = copy->lookupSymbol<func::FuncOp>(name);
    moveToKernel(func, gpuModule, bindingCount, words,
                 {static_cast<int32_t>(options.invocations), 1, 1});
  }
  // FLEET_SPIRV_DUMP=1: the kernels before the conversion (debugging).
  if (getenv("FLEET_SPIRV_DUMP"))
    llvm::errs() << "// -----// before the conversion to SPIR-V\n"
                 << *copy << "\n";
  if (failed(verify(*copy)))
    return diagnostics.error("the kernel module is invalid before the "
                             "conversion to SPIR-V");
  {
    PassManager pm(&context);
    pm.addPass(createConvertMathToSPIRVPass());
    pm.addPass(createConvertGPUToSPIRVPass());
    OpPassManager &spv = pm.nest<spirv::ModuleOp>();
    spv.addPass(spirv::createSPIRVLowerABIAttributesPass());
    spv.addPass(spirv::createSPIRVUpdateVCEPass());
    spv.addPass(createCanonicalizerPass());
    if (failed(pm.run(*copy)))
      return diagnostics.error("conversion to SPIR-V failed");
  }
  spirv::ModuleOp spvModule;
  for (auto candidate : copy->getOps<spirv::ModuleOp>())
    spvModule = candidate;
  if (!spvModule)
    return diagnostics.error("the conversion produced no spirv.module");
  // The barriers between loop nests order storage-buffer accesses too
  // (gpu.barrier converts to workgroup-memory semantics only).
  spvModule.walk([](spirv::ControlBarrierOp barrier) {
    barrier.setMemorySemantics(spirv::MemorySemantics::AcquireRelease |
                               spirv::MemorySemantics::WorkgroupMemory |
                               spirv::MemorySemantics::UniformMemory);
  });
  // Push constants have no descriptor (VUID-StandaloneSpirv-PushConstant).
  spvModule.walk([](spirv::GlobalVariableOp global) {
    auto pointer = dyn_cast<spirv::PointerType>(global.getType());
    if (pointer &&
        pointer.getStorageClass() == spirv::StorageClass::PushConstant) {
      global.removeDescriptorSetAttr();
      global.removeBindingAttr();
    }
  });
  SmallVector<uint32_t, 0> binary;
  if (failed(spirv::serialize(spvModule, binary)))
    return diagnostics.error("SPIR-V serialization failed");
  object.words.assign(binary.begin(), binary.end());
  return object;
}

} // namespace fleet::codegen
