//===- UtilDialect.cpp - util dialect registration ------------------------===//

#include "fleet/Dialect/Util/IR/UtilDialect.h"

#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "fleet/Dialect/Util/IR/UtilTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fleet::util;

#include "fleet/Dialect/Util/IR/UtilDialect.cpp.inc"

#include "fleet/Dialect/Util/IR/UtilInterfaces.cpp.inc"
#include "fleet/Dialect/Util/IR/UtilTypeInterfaces.cpp.inc"
#include "fleet/Dialect/Util/IR/UtilAttrInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fleet/Dialect/Util/IR/UtilTypes.cpp.inc"

namespace {
/// util.func bodies may be inlined into their callers (ABI wrappers call the
/// wrapped function once; inlining folds the call away).
struct UtilInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *call, Operation *callable,
                       bool wouldBeCloned) const final {
    return true;
  }
  bool isLegalToInline(Region *dest, Region *src, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
  bool isLegalToInline(Operation *op, Region *dest, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
  void handleTerminator(Operation *op, ValueRange valuesToReplace) const final {
    auto ret = dyn_cast<ReturnOp>(op);
    if (!ret)
      return;
    for (auto [from, to] : llvm::zip(valuesToReplace, ret.getOperands()))
      from.replaceAllUsesWith(to);
  }
  /// A callee's `stream.affinity` still places its body once inlined: each
  /// inlined op without an affinity of its own gets the callee's (ops
  /// nested in them inherit it), so a function pinned to B runs on B from
  /// any caller (docs/guide.md "Place tensors").
  void processInlinedCallBlocks(
      Operation *call,
      iterator_range<Region::iterator> inlinedBlocks) const final {
    auto callOp = dyn_cast<CallOpInterface>(call);
    Operation *callee = callOp ? callOp.resolveCallable() : nullptr;
    Attribute affinity = callee ? callee->getAttr("stream.affinity") : nullptr;
    if (!affinity)
      return;
    for (Block &block : inlinedBlocks)
      for (Operation &op : block)
        if (!op.hasTrait<OpTrait::IsTerminator>() &&
            !op.hasAttr("stream.affinity"))
          op.setAttr("stream.affinity", affinity);
  }
};
} // namespace

void UtilDialect::initialize() {
  addInterfaces<UtilInlinerInterface>();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "fleet/Dialect/Util/IR/UtilOps.cpp.inc"
      >();
}

void UtilDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fleet/Dialect/Util/IR/UtilTypes.cpp.inc"
      >();
}

namespace fleet::util {

bool isGlobalTypeCompatible(Type a, Type b) {
  if (a == b)
    return true;
  auto sa = dyn_cast<ShapedType>(a);
  auto sb = dyn_cast<ShapedType>(b);
  if (!sa || !sb)
    return false;
  if (isa<TensorType>(a) != isa<TensorType>(b) ||
      isa<VectorType>(a) != isa<VectorType>(b))
    return false;
  return succeeded(verifyCompatibleShape(sa, sb));
}

namespace detail {
std::optional<unsigned> getTiedResultOperandIndex(Operation *op,
                                                  unsigned resultIndex) {
  auto tied = op->getAttrOfType<ArrayAttr>("tied_operands");
  int64_t index = fleet::getTiedIndex(tied, resultIndex);
  if (index < 0)
    return std::nullopt;
  auto tiedOp = cast<TiedOpInterface>(op);
  auto [start, length] = tiedOp.getTiedOperandsIndexAndLength();
  if (static_cast<unsigned>(index) >= length)
    return std::nullopt;
  return start + index;
}
} // namespace detail

} // namespace fleet::util
