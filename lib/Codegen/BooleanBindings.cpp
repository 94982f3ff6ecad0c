//===- BooleanBindings.cpp - i1 tensors are bytes in a binding ------------===//
//
// Invariant established: after storeBooleansAsBytes, no binding of a
// dispatch function is viewed with an i1 element type. An i1 tensor in a
// buffer is one byte per element, 0 or 1 (numpy's bool; docs/kernels.md
// "Booleans in buffers"), but LLVM stores a `vector<Nxi1>` bit-packed, so a
// vectorized kernel reading or writing `memref<...xi1>` would use another
// layout than the host. Each i1 view becomes an i8 view; reads convert with
// `x != 0`, writes with `zext`, both as elementwise linalg.generic ops that
// tiling fuses into the kernel's loops. Inside a kernel, i1 values keep
// whatever layout the lowering picks.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "fleet/Dialect/Stream/IR/StreamOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "codegen-boolean-bindings"

using namespace mlir;

namespace fleet::codegen::detail {

namespace {

/// `input` converted elementwise to `element`: i8 -> i1 by `x != 0`,
/// i1 -> i8 by zero extension.
Value convertElements(OpBuilder &builder, Location loc, Value input,
                      Type element) {
  auto type = cast<RankedTensorType>(input.getType());
  auto resultType = type.clone(element);
  Value init = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, input), element);
  SmallVector<AffineMap> maps(2,
                              builder.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  bool toBool = element.isInteger(1);
  auto generic = linalg::GenericOp::create(
      builder, loc, resultType, input, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value value;
        if (toBool) {
          Value zero = arith::ConstantOp::create(
              nested, nestedLoc, nested.getIntegerAttr(args[0].getType(), 0));
          value = arith::CmpIOp::create(nested, nestedLoc,
                                        arith::CmpIPredicate::ne, args[0],
                                        zero);
        } else {
          value = arith::ExtUIOp::create(nested, nestedLoc, element, args[0]);
        }
        linalg::YieldOp::create(nested, nestedLoc, value);
      });
  return generic.getResult(0);
}

/// `memref` now holds bytes where its users expect i1: retypes views of it
/// and converts at tensor reads and writes.
LogicalResult retypeUsers(Value memref, Type byteType) {
  for (OpOperand &use : llvm::make_early_inc_range(memref.getUses())) {
    Operation *user = use.getOwner();
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      Value result = subview.getResult();
      result.setType(cast<MemRefType>(result.getType()).clone(byteType));
      if (failed(retypeUsers(result, byteType)))
        return failure();
      continue;
    }
    if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(user)) {
      Value result = toTensor.getResult();
      auto boolType = cast<RankedTensorType>(result.getType());
      result.setType(boolType.clone(byteType));
      // The readers of the i1 tensor, before the conversion adds its own.
      SmallVector<OpOperand *> readers = llvm::map_to_vector(
          result.getUses(), [](OpOperand &reader) { return &reader; });
      OpBuilder builder(toTensor->getContext());
      builder.setInsertionPointAfter(toTensor);
      Value bools = convertElements(builder, toTensor.getLoc(), result,
                                    boolType.getElementType());
      for (OpOperand *reader : readers)
        reader->set(bools);
      continue;
    }
    if (auto store = dyn_cast<bufferization::MaterializeInDestinationOp>(user)) {
      if (use.getOperandNumber() != 1)
        return store.emitOpError("writes a boolean binding as its source");
      OpBuilder builder(store);
      Value bytes =
          convertElements(builder, store.getLoc(), store.getSource(), byteType);
      store->setOperand(0, bytes);
      continue;
    }
    return user->emitOpError("uses a boolean (i1) binding view; the kernel "
                             "compiler supports subviews, "
                             "bufferization.to_tensor and "
                             "materialize_in_destination of it");
  }
  return success();
}

} // namespace

LogicalResult storeBooleansAsBytes(func::FuncOp func) {
  Type byteType = IntegerType::get(func.getContext(), 8);
  SmallVector<stream::BindingSubspanOp> subspans;
  func.walk([&](stream::BindingSubspanOp subspan) {
    auto type = dyn_cast<MemRefType>(subspan.getType());
    if (type && type.getElementType().isInteger(1))
      subspans.push_back(subspan);
  });
  for (stream::BindingSubspanOp subspan : subspans) {
    LLVM_DEBUG(llvm::dbgs() << "i1 binding view as bytes at "
                            << subspan.getLoc() << "\n");
    Value result = subspan.getResult();
    result.setType(cast<MemRefType>(result.getType()).clone(byteType));
    if (failed(retypeUsers(result, byteType)))
      return failure();
  }
  return success();
}

} // namespace fleet::codegen::detail
