//===- DeviceTopologyModel.h - HAL's answers to stream::DeviceTopology -*- C++ -*-===//
//
// Attaches HAL's DeviceTopologyDialectInterface (fleet/Dialect/Stream/IR/
// DeviceTopology.h) to the hal dialect: device identity from the module's
// !hal.device globals (DeviceSet), direct access from `stream.topology`
// links, and #hal.device.optimal in declaration order for sets of devices
// (docs/design.md §3).
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_DIALECT_HAL_ANALYSIS_DEVICETOPOLOGYMODEL_H
#define FLEET_DIALECT_HAL_ANALYSIS_DEVICETOPOLOGYMODEL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace fleet::hal {

void registerDeviceTopologyModel(mlir::DialectRegistry &registry);

} // namespace fleet::hal

#endif // FLEET_DIALECT_HAL_ANALYSIS_DEVICETOPOLOGYMODEL_H
