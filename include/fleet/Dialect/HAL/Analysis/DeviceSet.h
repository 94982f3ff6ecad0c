//===- DeviceSet.h - the devices a module declares --------------*- C++ -*-===//
//
// The `!hal.device` globals of a module in declaration order, with their
// targets, and the device identity rule of design.md §3: two globals are the
// same device only when their targets have the same backend and the same
// ordinal (a missing ordinal means 0). Declaration order is the canonical
// order of devices (e.g. inside #hal.device.optimal).
//
// Built once per module (cheap: one walk over top-level ops); read-only after
// construction, so it may be shared by threads.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_HAL_ANALYSIS_DEVICESET_H
#define FLEET_DIALECT_HAL_ANALYSIS_DEVICESET_H

#include "fleet/Dialect/HAL/IR/HALDialect.h"
#include "fleet/Dialect/Util/IR/UtilOps.h"
#include "llvm/ADT/StringMap.h"

namespace fleet::hal {

struct DeviceInfo {
  util::GlobalOp global;
  /// Null when the global's initial value is not a #hal.device.target
  /// (ordinal/fallback/select initializers are resolved at run time).
  DeviceTargetAttr target;
  /// Position in declaration order.
  unsigned index = 0;

  /// Symbol name of the global.
  llvm::StringRef name;

  llvm::StringRef getName() const { return name; }
};

class DeviceSet {
public:
  explicit DeviceSet(mlir::ModuleOp module);

  llvm::ArrayRef<DeviceInfo> getDevices() const { return devices; }
  bool empty() const { return devices.empty(); }

  /// The device global named `name`, or nullptr.
  const DeviceInfo *lookup(llvm::StringRef name) const;

  /// Same device per design.md §3 (backend and ordinal). Unknown names or
  /// devices without a static target are only the same as themselves.
  bool isSameDevice(llvm::StringRef a, llvm::StringRef b) const;

  /// Declaration-order index of `name`, or UINT_MAX when undeclared.
  unsigned getIndex(llvm::StringRef name) const;

private:
  llvm::SmallVector<DeviceInfo> devices;
  llvm::StringMap<unsigned> byName;
};

} // namespace fleet::hal

#endif // FLEET_DIALECT_HAL_ANALYSIS_DEVICESET_H
