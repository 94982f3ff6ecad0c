//===- LocalDriver.h - factories of the local drivers -------------*- C++ -*-===//
#ifndef FLEET_RUNTIME_SRC_DRIVERS_LOCAL_LOCALDRIVER_H
#define FLEET_RUNTIME_SRC_DRIVERS_LOCAL_LOCALDRIVER_H

#include "fleet/runtime/hal/Device.h"

namespace fleet::runtime::hal::local {

/// Queue ops run on the thread that submits them, or on the thread that
/// reaches their wait fence; no threads of its own.
Ref<Device> createLocalSyncDevice(const DeviceOptions &options);
/// `options.workerCount` worker threads; submission never blocks.
Ref<Device> createLocalTaskDevice(const DeviceOptions &options);

} // namespace fleet::runtime::hal::local

#endif // FLEET_RUNTIME_SRC_DRIVERS_LOCAL_LOCALDRIVER_H
