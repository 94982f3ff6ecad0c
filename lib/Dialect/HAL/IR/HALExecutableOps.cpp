//===- HALExecutableOps.cpp - executables ---------------------------------===//
//
// Verifiers and symbol checks of the ops in HALExecutableOps.td
// (docs/ir-reference.md, "Executables").
//
//===----------------------------------------------------------------------===//

#include "fleet/Dialect/HAL/IR/HALOps.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace fleet;
using namespace fleet::hal;

//===----------------------------------------------------------------------===//
// hal.executable.variant
//===----------------------------------------------------------------------===//

ModuleOp ExecutableVariantOp::getInnerModule() {
  auto modules = getBlock().getOps<ModuleOp>();
  return modules.empty() ? ModuleOp() : *modules.begin();
}

LogicalResult ExecutableVariantOp::verify() {
  // docs/ir-reference.md: a variant may contain at most one condition.
  auto conditions = getBlock().getOps<ExecutableConditionOp>();
  size_t count = std::distance(conditions.begin(), conditions.end());
  if (count > 1)
    return emitOpError("has ")
           << count << " hal.executable.condition ops; at most one is allowed";
  return success();
}

//===----------------------------------------------------------------------===//
// Regions with a device-and-workload signature
//===----------------------------------------------------------------------===//

/// Checks `(%dev: !hal.device, %w: index, ...)` (only the device when
/// `allowWorkload` is false) and that every hal.return in `region` returns
/// exactly `results`.
static LogicalResult verifyDeviceRegion(Operation *op, Region &region,
                                        StringRef what, bool allowWorkload,
                                        TypeRange results) {
  if (region.empty())
    return success();
  Block &entry = region.front();
  if (entry.getNumArguments() == 0 ||
      !isa<DeviceType>(entry.getArgument(0).getType()))
    return op->emitOpError()
           << what << " must take a !hal.device as its first argument";
  if (!allowWorkload && entry.getNumArguments() != 1)
    return op->emitOpError()
           << what << " takes only the !hal.device argument, got "
           << entry.getNumArguments() << " arguments";
  for (BlockArgument arg : entry.getArguments().drop_front()) {
    if (!arg.getType().isIndex())
      return op->emitOpError()
             << what << " workload argument #" << arg.getArgNumber()
             << " must be index, got " << arg.getType();
  }
  for (Block &block : region) {
    auto ret = block.empty() ? ReturnOp() : dyn_cast<ReturnOp>(block.back());
    if (!ret)
      return op->emitOpError() << what << " must end in hal.return";
    if (TypeRange(ret.getOperands().getTypes()) != results) {
      std::string expected, actual;
      llvm::raw_string_ostream expectedOs(expected), actualOs(actual);
      llvm::interleaveComma(results, expectedOs);
      llvm::interleaveComma(ret.getOperands().getTypes(), actualOs);
      return op->emitOpError()
             << what << " must return (" << expected
             << ") through hal.return, got (" << actual << ")";
    }
  }
  return success();
}

LogicalResult ExecutableConditionOp::verifyRegions() {
  Type i1 = IntegerType::get(getContext(), 1);
  return verifyDeviceRegion(*this, getBody(), "condition",
                            /*allowWorkload=*/false, {i1});
}

//===----------------------------------------------------------------------===//
// hal.executable.export
//===----------------------------------------------------------------------===//

LogicalResult ExecutableExportOp::verifyRegions() {
  // docs/ir-reference.md: `condition` requires `fallback` and vice versa.
  bool hasCondition = !getCondition().empty();
  if (hasCondition && !getConditionFallbackAttr())
    return emitOpError("has a condition but no fallback export");
  if (!hasCondition && getConditionFallbackAttr())
    return emitOpError("has a fallback export but no condition");

  Type i1 = IntegerType::get(getContext(), 1);
  Type index = IndexType::get(getContext());
  if (failed(verifyDeviceRegion(*this, getCondition(), "condition region",
                                /*allowWorkload=*/true, {i1})) ||
      failed(verifyDeviceRegion(*this, getWorkgroupCount(),
                                "workgroup count region",
                                /*allowWorkload=*/true, {index, index, index})))
    return failure();
  return success();
}

LogicalResult
ExecutableExportOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FlatSymbolRefAttr fallbackRef = getConditionFallbackAttr();
  if (!fallbackRef)
    return success();
  // The fallback is an export of the same variant with the same layout, so
  // a dispatch can switch to it without rebinding (docs/ir-reference.md).
  auto fallback = symbolTable.lookupNearestSymbolFrom<ExecutableExportOp>(
      getOperation(), fallbackRef);
  if (!fallback)
    return emitOpError("fallback ")
           << fallbackRef << " is not an export of the enclosing variant";
  if (fallback == *this)
    return emitOpError("fallback ") << fallbackRef << " names this export";
  if (fallback.getLayout() != getLayout())
    return emitOpError("fallback ")
           << fallbackRef << " has layout " << fallback.getLayout()
           << ", which differs from this export's layout " << getLayout();
  return success();
}

//===----------------------------------------------------------------------===//
// hal.executable.lookup
//===----------------------------------------------------------------------===//

LogicalResult
ExecutableLookupOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<ExecutableOp>(getOperation(),
                                                          getExecutableAttr()))
    return emitOpError("executable ")
           << getExecutableAttr() << " does not name a hal.executable";
  return success();
}

//===----------------------------------------------------------------------===//
// hal.executable.calculate_workgroups
//===----------------------------------------------------------------------===//

ExecutableExportOp ExecutableCalculateWorkgroupsOp::lookupExport(
    SymbolTableCollection &symbols) {
  SymbolRefAttr ref = getEntryPointAttr();
  if (ref.getNestedReferences().size() != 2)
    return {};
  auto executable = symbols.lookupNearestSymbolFrom<ExecutableOp>(
      getOperation(), FlatSymbolRefAttr::get(ref.getRootReference()));
  if (!executable)
    return {};
  auto variant = symbols.lookupSymbolIn<ExecutableVariantOp>(
      executable, ref.getNestedReferences()[0].getAttr());
  if (!variant)
    return {};
  return symbols.lookupSymbolIn<ExecutableExportOp>(
      variant, ref.getNestedReferences()[1].getAttr());
}

LogicalResult ExecutableCalculateWorkgroupsOp::verifySymbolUses(
    SymbolTableCollection &symbolTable) {
  ExecutableExportOp exportOp = lookupExport(symbolTable);
  if (!exportOp)
    return emitOpError("target ")
           << getEntryPointAttr()
           << " does not name an export @executable::@variant::@export";
  Region &count = exportOp.getWorkgroupCount();
  if (!count.empty() &&
      count.front().getNumArguments() != getWorkload().size() + 1)
    return emitOpError("passes ")
           << getWorkload().size() << " workload values but the count "
           << "region of " << getEntryPointAttr() << " takes "
           << (count.front().getNumArguments() - 1);
  return success();
}

//===----------------------------------------------------------------------===//
// Result names (IREE's, docs/ir-reference.md "Result names")
//===----------------------------------------------------------------------===//

void ExecutableLookupOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "exe");
}

void ExecutableCalculateWorkgroupsOp::getAsmResultNames(
    OpAsmSetValueNameFn setNameFn) {
  setNameFn(getWorkgroupX(), "workgroup_x");
  setNameFn(getWorkgroupY(), "workgroup_y");
  setNameFn(getWorkgroupZ(), "workgroup_z");
}
