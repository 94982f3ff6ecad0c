//===- LocalDevice.h - what both local drivers share --------------*- C++ -*-===//
//
// A LocalDevice keeps the pending ops of each queue index in a list. Queues
// are not in order (IREE's HAL rule): every op is armed at submission and
// enqueues timepoints on the semaphores of its wait fence that are not reached
// yet. When the last one fires (or any fails) the op is *ready* and the driver
// decides where it runs (schedule()): local-sync on the current thread,
// local-task on a worker. After running, the op signals or fails its signal
// fence and leaves the list. Ops ordered by nothing but their submission may
// run in any order, or at the same time on local-task's workers, allocas and
// deallocas included: the compiler bounds memory through wait fences (an
// alloca waits for what its region waits for; docs/design.md §4).
//
// A failed wait cancels the op's other timepoints, so the failure propagates
// at once even if other waits would never be signalled.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_DRIVERS_LOCAL_LOCALDEVICE_H
#define FLEET_RUNTIME_SRC_DRIVERS_LOCAL_LOCALDEVICE_H

#include "drivers/local/WorkerPool.h"
#include "hal/QueueOp.h"

#include "fleet/runtime/hal/Trace.h"

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace fleet::runtime::hal::local {

class LocalDevice;
struct PendingOp;

/// The worker item that runs a ready op on local-task.
struct OpWorkItem : WorkItem {
  PendingOp *op = nullptr;
};

/// A queue op owned by a local queue.
struct PendingOp {
  /// Runs `queueOp` in place (the caller keeps it alive until run returns).
  explicit PendingOp(QueueOp &queueOp) : op(&queueOp) {}
  /// Takes `queueOp` over (a queued op outlives its submission call).
  struct Owning {};
  PendingOp(Owning, QueueOp &&queueOp)
      : owned(std::move(queueOp)), onHeap(true) {
    op = &*owned;
  }

  QueueOp *op;
  std::optional<QueueOp> owned;
  bool onHeap = false;
  /// Neighbours in the queue's list of pending ops (heap ops only).
  PendingOp *prev = nullptr;
  PendingOp *next = nullptr;
  /// Link in the local-sync ready list.
  PendingOp *readyNext = nullptr;
  /// local-task: the worker item that runs this op.
  OpWorkItem workItem;

  /// Unfired timepoints + 1 while arming.
  std::atomic<uint32_t> pendingWaits{0};
  std::atomic<bool> waitFailed{false};
  /// Written once by whoever sets waitFailed; read after pendingWaits hits 0.
  Status waitFailure;
  /// Orders arming against cancellation from a failing timepoint.
  std::mutex armMutex;
  bool remainingCancelled = false; // guarded by armMutex
  std::vector<Timepoint> timepoints;

  LocalDevice &device() const;
};

class LocalDevice : public Device {
public:
  /// Runs a ready op to completion: execute, signal or fail, leave the queue,
  /// arm the next op. May delete `op` (and, through it, the device).
  void run(PendingOp *op);

protected:
  LocalDevice(std::string driverName, DeviceOptions options);
  /// For drivers that reuse the local queues with other capabilities
  /// (Vulkan: the host-side bridge, docs/runtime.md "Vulkan").
  LocalDevice(std::string driverName, DeviceOptions options,
              DeviceCapabilities capabilities);

  void submit(QueueOp &op) override;
  void blockedWaits(std::vector<FenceEntry> &out) override;

  /// The op's waits are met: run it somewhere.
  virtual void schedule(PendingOp *op) = 0;
  /// local-sync may run a ready op inline on the submitting thread.
  virtual bool runsInline() const = 0;
  /// Runs workgroups [0, total) of one dispatch; returns the first kernel
  /// error code (0 = success) and where it happened.
  virtual int32_t runWorkgroups(fleet_kernel_fn_t function,
                                const fleet_kernel_state_t &state,
                                uint64_t &failedWorkgroup) = 0;

  struct ExecutionInfo {
    /// Names the trace slice of a one-dispatch execute (tracing only).
    const std::string *exportName = nullptr;
    uint64_t bytes = 0;
    uint64_t crossDeviceBytes = 0;
    bool crossDevice = false;
    Tracer *tracer = nullptr;
    uint32_t track = 0;
  };

  /// Executes a ready op whose waits succeeded; its status goes to the
  /// signal fence. Local devices touch host memory here; the Vulkan driver
  /// records, submits and waits for a command buffer.
  virtual Status execute(QueueOp &op, ExecutionInfo &info);
  /// The export an execute op runs when it is one dispatch (its trace slice
  /// is named after it), else null.
  static const std::string *singleDispatchName(const QueueOp &op);
  Status copyBytes(const char *operation, Buffer &source, uint64_t sourceOffset,
                   Buffer &target, uint64_t targetOffset, uint64_t length,
                   ExecutionInfo &info);

private:
  struct LocalQueue {
    std::mutex mutex;
    /// Submitted ops that have not completed, in no particular order.
    PendingOp *head = nullptr; // guarded by mutex
  };

  void arm(PendingOp *op);
  static void timepointFired(Timepoint &timepoint, const Status &status);
  static void recordWaitFailure(PendingOp *op, const Status &status);
  static void cancelRemainingLocked(PendingOp *op);
  void complete(PendingOp *op);

  Status executeCommandBuffer(const QueueOp &op, const CommandBuffer &commands,
                              ExecutionInfo &info);

  std::unique_ptr<LocalQueue[]> queues_;
};

inline LocalDevice &PendingOp::device() const {
  return static_cast<LocalDevice &>(*op->device);
}

} // namespace fleet::runtime::hal::local

#endif // FLEET_RUNTIME_SRC_DRIVERS_LOCAL_LOCALDEVICE_H
