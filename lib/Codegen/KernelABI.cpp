//===- KernelABI.cpp - dispatch functions to the KernelABI.h entry point --===//
//
// Two halves of the kernel ABI lowering (docs/kernels.md):
// - before bufferization, the dispatch function's `!stream.binding`
//   arguments become `memref<?xi8>` (a binding's bytes) viewed by
//   `memref.view` at the subspan's byte offset, and workgroup queries become
//   trailing `index` arguments, so upstream passes lower the body unchanged;
// - after lowering to the LLVM dialect, an entry point with the KernelABI.h
//   signature unpacks `fleet_kernel_state_t` (binding pointers and lengths,
//   push-constant words, grid size) and calls that function.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace fleet;

namespace fleet::codegen::detail {

namespace {
/// Index of the first of the six workgroup arguments (id x,y,z, count x,y,z).
unsigned getWorkgroupArgBase(func::FuncOp func) {
  return func.getNumArguments() - 6;
}

/// KernelABI.h: index/i64 (and f64) take two 32-bit words, the rest one.
unsigned getWordCount(Type type) {
  return type.isIndex() || type.getIntOrFloatBitWidth() > 32 ? 2 : 1;
}
} // namespace

FailureOr<DispatchSignature> prepareDispatchFunction(func::FuncOp func,
                                                     StringRef symbol) {
  MLIRContext *context = func.getContext();
  if (func.isExternal())
    return func.emitOpError("is a dispatch function without a body");
  if (func.getNumResults() != 0)
    return func.emitOpError("is a dispatch function with results; "
                            "dispatch functions return nothing");
  DispatchSignature signature;
  signature.symbol = symbol.str();
  signature.implName = (symbol + "__impl").str();
  Type bytesType = MemRefType::get({ShapedType::kDynamic},
                                   IntegerType::get(context, 8));
  Block &entry = func.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    Type type = arg.getType();
    signature.argumentTypes.push_back(type);
    if (isa<stream::BindingType>(type)) {
      arg.setType(bytesType);
      continue;
    }
    if (!type.isIndex() && !type.isIntOrFloat())
      return func.emitOpError("argument ")
             << arg.getArgNumber() << " has type " << type
             << "; dispatch arguments are !stream.binding or primitives";
    if (!type.isIndex() && type.getIntOrFloatBitWidth() > 64)
      return func.emitOpError("argument ")
             << arg.getArgNumber() << " of type " << type
             << " does not fit two push-constant words";
  }
  Type indexType = IndexType::get(context);
  for (int i = 0; i < 6; ++i)
    entry.addArgument(indexType, func.getLoc());
  func.setFunctionType(
      FunctionType::get(context, entry.getArgumentTypes(), {}));
  unsigned workgroupBase = getWorkgroupArgBase(func);

  // Views of the bindings and workgroup queries.
  SmallVector<Operation *> toErase;
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    OpBuilder builder(op);
    if (auto subspan = dyn_cast<stream::BindingSubspanOp>(op)) {
      auto viewType = dyn_cast<MemRefType>(subspan.getType());
      if (!viewType || !viewType.getLayout().isIdentity())
        return subspan.emitOpError("views a binding as ")
               << subspan.getType()
               << "; the kernel compiler supports memrefs with the identity "
                  "layout";
      // The argument is already retyped: read the operand untyped.
      Value binding = subspan->getOperand(0);
      if (!isa<BlockArgument>(binding))
        return subspan.emitOpError("binding is not a function argument");
      Value view = memref::ViewOp::create(
          builder, subspan.getLoc(), viewType, binding,
          subspan.getByteOffset(), subspan.getDynamicDims());
      subspan.replaceAllUsesWith(view);
      toErase.push_back(subspan);
      return WalkResult::advance();
    }
    unsigned offset;
    uint64_t dimension;
    if (auto id = dyn_cast<stream::DispatchWorkgroupIDOp>(op)) {
      offset = 0;
      dimension = id.getDimension().getZExtValue();
    } else if (auto count = dyn_cast<stream::DispatchWorkgroupCountOp>(op)) {
      offset = 3;
      dimension = count.getDimension().getZExtValue();
    } else if (auto size = dyn_cast<stream::DispatchWorkgroupSizeOp>(op)) {
      // A CPU workgroup is one invocation.
      Value one = arith::ConstantIndexOp::create(builder, op->getLoc(), 1);
      size.replaceAllUsesWith(one);
      toErase.push_back(size);
      return WalkResult::advance();
    } else {
      return WalkResult::advance();
    }
    if (dimension > 2)
      return op->emitOpError("dimension ") << dimension << " is not 0, 1 or 2";
    op->getResult(0).replaceAllUsesWith(
        entry.getArgument(workgroupBase + offset + dimension));
    toErase.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Operation *op : toErase)
    op->erase();
  for (auto [i, type] : llvm::enumerate(signature.argumentTypes))
    if (isa<stream::BindingType>(type))
      for (Operation *user : entry.getArgument(i).getUsers())
        if (!isa<memref::ViewOp>(user))
          return user->emitOpError(
              "uses a binding other than through stream.binding.subspan");
  func.setSymName(signature.implName);
  func.setPrivate();
  return signature;
}

LogicalResult buildEntryPoint(ModuleOp module,
                              const DispatchSignature &signature) {
  MLIRContext *context = module.getContext();
  auto impl = module.lookupSymbol<LLVM::LLVMFuncOp>(signature.implName);
  if (!impl)
    return module.emitError("lowered kernel function '")
           << signature.implName << "' is missing";
  // Inlined into the entry point; not an exported symbol of the object.
  impl.setLinkage(LLVM::Linkage::Internal);

  Location loc = impl.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto i32 = IntegerType::get(context, 32);
  auto i64 = IntegerType::get(context, 64);
  // fleet_kernel_state_t (KernelABI.h), field by field.
  auto stateType = LLVM::LLVMStructType::getLiteral(
      context, {ptrType, ptrType, ptrType, i32, i32,
                LLVM::LLVMArrayType::get(i32, 3)});
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto entryType = LLVM::LLVMFunctionType::get(i32, {ptrType, i32, i32, i32});
  auto entry = LLVM::LLVMFuncOp::create(builder, loc, signature.symbol,
                                        entryType);
  Block *block = entry.addEntryBlock(builder);
  builder.setInsertionPointToStart(block);
  Value state = block->getArgument(0);
  auto loadField = [&](Type type, ArrayRef<LLVM::GEPArg> indices) -> Value {
    Value address = LLVM::GEPOp::create(builder, loc, ptrType, stateType,
                                        state, indices);
    return LLVM::LoadOp::create(builder, loc, type, address);
  };
  auto constantI64 = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, i64,
                                    builder.getI64IntegerAttr(value));
  };
  Value bindingPtrs = loadField(ptrType, {0, 0});
  Value bindingLengths = loadField(ptrType, {0, 1});
  Value constants = loadField(ptrType, {0, 2});

  SmallVector<Value> args;
  unsigned binding = 0, word = 0;
  for (Type type : signature.argumentTypes) {
    if (isa<stream::BindingType>(type)) {
      // memref<?xi8> descriptor: allocated, aligned, offset, size, stride.
      Value pointerAddress = LLVM::GEPOp::create(
          builder, loc, ptrType, ptrType, bindingPtrs,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(binding)});
      Value pointer = LLVM::LoadOp::create(builder, loc, ptrType, pointerAddress);
      Value lengthAddress = LLVM::GEPOp::create(
          builder, loc, ptrType, i64, bindingLengths,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(binding)});
      Value length = LLVM::LoadOp::create(builder, loc, i64, lengthAddress);
      args.append({pointer, pointer, constantI64(0), length, constantI64(1)});
      ++binding;
      continue;
    }
    Type llvmType = type.isIndex() ? Type(i64) : type;
    Value address = LLVM::GEPOp::create(
        builder, loc, ptrType, i32, constants,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(word)});
    Value value;
    if (type.isInteger(1)) {
      Value wordValue = LLVM::LoadOp::create(builder, loc, i32, address, 4);
      Value zero = LLVM::ConstantOp::create(builder, loc, i32,
                                            builder.getI32IntegerAttr(0));
      value = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne,
                                   wordValue, zero);
    } else {
      // Little-endian words: the low word (and low bytes) come first.
      value = LLVM::LoadOp::create(builder, loc, llvmType, address, 4);
    }
    args.push_back(value);
    word += getWordCount(type);
  }
  for (unsigned i = 1; i <= 3; ++i)
    args.push_back(LLVM::ZExtOp::create(builder, loc, i64, block->getArgument(i)));
  for (int32_t i = 0; i < 3; ++i) {
    Value count = loadField(i32, {0, 5, i});
    args.push_back(LLVM::ZExtOp::create(builder, loc, i64, count));
  }
  if (args.size() != impl.getNumArguments())
    return impl.emitOpError("has ")
           << impl.getNumArguments() << " arguments after lowering; the "
           << "entry point expected " << args.size();
  LLVM::CallOp::create(builder, loc, impl, args);
  Value zero =
      LLVM::ConstantOp::create(builder, loc, i32, builder.getI32IntegerAttr(0));
  LLVM::ReturnOp::create(builder, loc, zero);
  return success();
}

} // namespace fleet::codegen::detail
