//===- Transfer.h - host <-> device copies for tools -------------*- C++ -*-===//
//
// Moving bytes between host memory and any buffer, the way a tool must when
// the buffer is not mappable (device-local results, discrete devices): through
// queue ops on a device that can reach the buffer, never by peeking at its
// storage. Each call submits one queue op on `device` (a staging copy or an
// update), waits for it and returns, so everything the caller ordered before
// must already be complete (wait on its fences first).
//
// Ownership: nothing is retained after the call; the staging buffer is
// allocated per call on `device`.
// Thread safety: like the queue ops they submit.
// Failure behaviour: the queue op's error (access, usage, range) or its
// failure, or DeadlineExceeded from the bounded wait.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_TRANSFER_H
#define FLEET_RUNTIME_HAL_TRANSFER_H

#include "fleet/runtime/hal/Device.h"

namespace fleet::runtime::hal {

/// Copies `length` bytes at `offset` of `source` to `target` (host memory),
/// staging through a host-visible buffer of `device`. `source` needs
/// TransferSource usage.
Status transferToHost(Device &device, Buffer &source, uint64_t offset,
                      void *target, uint64_t length, Timeout timeout);

/// Writes `length` host bytes into `target` at `offset` with a queue update
/// on `device`. `target` needs TransferTarget usage.
Status transferFromHost(Device &device, const void *source, Buffer &target,
                        uint64_t offset, uint64_t length, Timeout timeout);

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_TRANSFER_H
