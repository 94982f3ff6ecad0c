//===- TotalIntegerDivision.cpp - integer division that never traps -------===//
//
// Invariant established: after makeIntegerDivisionTotal, no integer
// division or remainder in a dispatch function can trap. MLIR leaves
// x / 0 and INT_MIN / -1 undefined and x86's `idiv` raises SIGFPE on both;
// Fleet gives every integer division one total rule, the same in kernels and
// in the host-program executor (docs/kernels.md "Integer division"):
//   x / 0 = 0 and x % 0 = 0 (numpy's integer result),
//   INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0 (two's-complement wrap).
// Each division whose divisor is not a constant known to be safe divides by
// `select(b == 0 || (signed && a == INT_MIN && b == -1), 1, b)` and its result
// is `select(b == 0, 0, quotient)`. Works on scalars, vectors and tensors.
//
//===----------------------------------------------------------------------===//

#include "KernelCompilerInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "codegen-total-integer-division"

using namespace mlir;

namespace fleet::codegen::detail {

namespace {

bool isSignedDivision(Operation *op) {
  return isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp,
             arith::CeilDivSIOp>(op);
}

/// A constant of `type` (scalar, or splat of a vector/tensor type).
Value buildConstant(OpBuilder &builder, Location loc, Type type,
                    const APInt &value) {
  Type element = getElementTypeOrSelf(type);
  TypedAttr scalar = builder.getIntegerAttr(element, value);
  TypedAttr attr = scalar;
  if (auto shaped = dyn_cast<ShapedType>(type))
    attr = DenseElementsAttr::get(shaped, scalar);
  return arith::ConstantOp::create(builder, loc, attr);
}

void guard(Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Type type = rhs.getType();
  Type element = getElementTypeOrSelf(type);
  bool isSigned = isSignedDivision(op);
  APInt divisor;
  if (matchPattern(rhs, m_ConstantInt(&divisor)) && !divisor.isZero() &&
      (!isSigned || !divisor.isAllOnes()))
    return; // A constant that cannot trap (the common tiling case).
  unsigned width = element.isIndex() ? IndexType::kInternalStorageBitWidth
                                     : element.getIntOrFloatBitWidth();
  LLVM_DEBUG(llvm::dbgs() << "guarding " << op->getName() << " at "
                          << op->getLoc() << "\n");
  OpBuilder builder(op);
  Location loc = op->getLoc();
  Value zero = buildConstant(builder, loc, type, APInt::getZero(width));
  Value one = buildConstant(builder, loc, type, APInt(width, 1));
  Value isZero = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                       rhs, zero);
  Value unsafe = isZero;
  if (isSigned) {
    Value minusOne =
        buildConstant(builder, loc, type, APInt::getAllOnes(width));
    Value intMin =
        buildConstant(builder, loc, type, APInt::getSignedMinValue(width));
    Value lhsIsMin = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, lhs, intMin);
    Value rhsIsMinusOne = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, rhs, minusOne);
    Value overflow = arith::AndIOp::create(builder, loc, lhsIsMin,
                                           rhsIsMinusOne);
    unsafe = arith::OrIOp::create(builder, loc, isZero, overflow);
  }
  // a / 1 = a gives INT_MIN / -1 = INT_MIN, a % 1 = 0 gives INT_MIN % -1 = 0.
  Value safeDivisor = arith::SelectOp::create(builder, loc, unsafe, one, rhs);
  op->setOperand(1, safeDivisor);
  builder.setInsertionPointAfter(op);
  Value result = op->getResult(0);
  auto select = arith::SelectOp::create(builder, loc, isZero, zero, result);
  result.replaceAllUsesExcept(select.getResult(), select);
}

} // namespace

void makeIntegerDivisionTotal(func::FuncOp func) {
  SmallVector<Operation *> divisions;
  func.walk([&](Operation *op) {
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
            arith::FloorDivSIOp, arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
      divisions.push_back(op);
  });
  for (Operation *op : divisions)
    guard(op);
}

} // namespace fleet::codegen::detail
