//===- LocalDevice.cpp - queues and op execution of the local drivers ------===//

#include "drivers/local/LocalDevice.h"

#include <algorithm>
#include <cstring>

namespace fleet::runtime::hal::local {

LocalDevice::LocalDevice(std::string driverName, DeviceOptions options)
    : LocalDevice(std::move(driverName), options,
                  DeviceCapabilities{"local", options.discrete, true}) {}

LocalDevice::LocalDevice(std::string driverName, DeviceOptions options,
                         DeviceCapabilities capabilities)
    : Device(std::move(driverName), options, std::move(capabilities)) {
  queues_ = std::make_unique<LocalQueue[]>(queueCount());
}

//===----------------------------------------------------------------------===//
// Submission and arming
//===----------------------------------------------------------------------===//

void LocalDevice::submit(QueueOp &op) {
  LocalQueue &queue = queues_[op.queueIndex];
  if (runsInline() && (!op.wait || op.wait->reachedOrFailed())) {
    // Hot path of local-sync: a reached wait fence. The op runs right here
    // without a heap copy; ops submitted before it that still wait do not
    // hold it back (queues are not in order).
    PendingOp local(op);
    if (op.wait)
      for (const FenceEntry &entry : op.wait->entries())
        if (entry.semaphore->isFailed()) {
          recordWaitFailure(&local, entry.semaphore->failureStatus());
          break;
        }
    run(&local);
    return;
  }
  PendingOp *pending = new PendingOp(PendingOp::Owning(), std::move(op));
  {
    std::lock_guard<std::mutex> lock(queue.mutex);
    pending->next = queue.head;
    if (queue.head)
      queue.head->prev = pending;
    queue.head = pending;
  }
  arm(pending);
}

void LocalDevice::blockedWaits(std::vector<FenceEntry> &out) {
  for (uint32_t i = 0; i < queueCount(); ++i) {
    std::lock_guard<std::mutex> lock(queues_[i].mutex);
    for (PendingOp *op = queues_[i].head; op; op = op->next)
      if (op->op->wait)
        for (const FenceEntry &entry : op->op->wait->entries())
          if (!entry.semaphore->reachedOrFailed(entry.value))
            out.push_back(entry);
  }
}

void LocalDevice::recordWaitFailure(PendingOp *op, const Status &status) {
  bool expected = false;
  if (op->waitFailed.compare_exchange_strong(expected, true,
                                             std::memory_order_acq_rel))
    op->waitFailure = status;
}

void LocalDevice::cancelRemainingLocked(PendingOp *op) {
  if (op->remainingCancelled)
    return;
  op->remainingCancelled = true;
  // Each timepoint withdrawn here will never fire: count it down for it.
  // The caller still holds its own count, so this never reaches zero.
  for (Timepoint &timepoint : op->timepoints)
    if (timepoint.semaphore && timepoint.semaphore->cancelTimepoint(timepoint))
      op->pendingWaits.fetch_sub(1, std::memory_order_acq_rel);
}

void LocalDevice::timepointFired(Timepoint &timepoint, const Status &status) {
  PendingOp *op = static_cast<PendingOp *>(timepoint.userData);
  if (!status.ok()) {
    recordWaitFailure(op, status);
    // A failed wait decides the op: stop waiting for the others.
    std::lock_guard<std::mutex> lock(op->armMutex);
    cancelRemainingLocked(op);
  }
  if (op->pendingWaits.fetch_sub(1, std::memory_order_acq_rel) == 1)
    op->device().schedule(op);
}

void LocalDevice::arm(PendingOp *op) {
  if (!op->op->wait) {
    schedule(op);
    return;
  }
  Span<const FenceEntry> entries = op->op->wait->entries();
  {
    std::lock_guard<std::mutex> lock(op->armMutex);
    // One count for the arming itself, so no callback can declare the op
    // ready before every timepoint is enqueued.
    op->pendingWaits.store(1, std::memory_order_relaxed);
    for (const FenceEntry &entry : entries) {
      if (entry.semaphore->reachedOrFailed(entry.value)) {
        if (entry.semaphore->isFailed())
          recordWaitFailure(op, entry.semaphore->failureStatus());
        continue;
      }
      if (op->waitFailed.load(std::memory_order_acquire))
        break;
      // Enqueued timepoints must not move: reserve once for all entries.
      if (op->timepoints.empty())
        op->timepoints.reserve(entries.size());
      op->timepoints.emplace_back();
      Timepoint &timepoint = op->timepoints.back();
      timepoint.value = entry.value;
      timepoint.callback = timepointFired;
      timepoint.userData = op;
      op->pendingWaits.fetch_add(1, std::memory_order_acq_rel);
      Status immediate;
      if (!entry.semaphore->enqueueTimepoint(timepoint, immediate)) {
        op->pendingWaits.fetch_sub(1, std::memory_order_acq_rel);
        if (!immediate.ok())
          recordWaitFailure(op, immediate);
      }
    }
    if (op->waitFailed.load(std::memory_order_acquire))
      cancelRemainingLocked(op);
  }
  if (op->pendingWaits.fetch_sub(1, std::memory_order_acq_rel) == 1)
    schedule(op);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

void LocalDevice::run(PendingOp *pending) {
  QueueOp &op = *pending->op;
  ExecutionInfo info;
  info.tracer = Tracer::active();
  bool timing = info.tracer || timingEnabled();
  uint64_t start = timing ? monotonicNanoseconds() : 0;
  if (info.tracer)
    info.track = info.tracer->queueTrack(*this, op.queueIndex);

  Status status;
  if (pending->waitFailed.load(std::memory_order_acquire)) {
    status = Status(pending->waitFailure.code(),
                    concat(queueOpName(op.kind), " on device '", name(),
                           "' did not run: its wait fence failed: ",
                           pending->waitFailure.message()));
  } else if (op.sequence == options().failAfter) {
    status = makeStatus(StatusCode::Aborted, queueOpName(op.kind),
                        " on device '", name(),
                        "' failed: injected failure (fail_after=",
                        options().failAfter, ")");
  } else {
    status = execute(op, info);
  }

  uint64_t end = timing ? monotonicNanoseconds() : 0;
  noteExecuted(!status.ok(), end - start);

  uint64_t sliceId = 0;
  if (info.tracer) {
    sliceId = info.tracer->newSliceId();
    // Arrows from the ops (of other devices, or the host) whose signals this
    // op waited for.
    if (op.wait)
      for (const FenceEntry &entry : op.wait->entries())
        if (entry.semaphore->owner() != this)
          if (uint64_t from = entry.semaphore->lastSignalerSlice())
            info.tracer->addFlow(from, sliceId);
    TraceSlice slice;
    slice.id = sliceId;
    slice.track = info.track;
    slice.name = info.exportName ? *info.exportName
                                 : std::string(queueOpShortName(op.kind));
    slice.startNanoseconds = start;
    slice.endNanoseconds = end;
    slice.bytes = info.bytes;
    slice.crossDeviceBytes = info.crossDeviceBytes;
    slice.crossDevice = info.crossDevice;
    slice.failed = !status.ok();
    info.tracer->addSlice(std::move(slice));
  }

  if (op.signal) {
    if (status.ok()) {
      for (const FenceEntry &entry : op.signal->entries()) {
        if (sliceId)
          entry.semaphore->setLastSignalerSlice(sliceId);
        Status signalled = entry.semaphore->signal(entry.value);
        // A semaphore failed by someone else stays failed; a bad value is a
        // program error that waiters must learn about.
        if (!signalled.ok() && !entry.semaphore->isFailed())
          entry.semaphore->fail(signalled.withContext(
              concat(queueOpName(op.kind), " on device '", name(), "'")));
      }
    } else {
      op.signal->fail(status);
    }
  }
  complete(pending);
}

void LocalDevice::complete(PendingOp *op) {
  if (op->onHeap) {
    LocalQueue &queue = queues_[op->op->queueIndex];
    std::lock_guard<std::mutex> lock(queue.mutex);
    if (op->prev)
      op->prev->next = op->next;
    else
      queue.head = op->next;
    if (op->next)
      op->next->prev = op->prev;
  }
  if (!op->onHeap) {
    noteRetired();
    return;
  }
  // The op's resources go before waitIdle callers wake, so a host that
  // waited for the device and then drops it normally holds the last
  // reference: the device is destroyed on the host's thread. This thread
  // still holds it while it wakes them; if the host drops it meanwhile, the
  // teardown runs here, and the hold tells a host about to exit to wait
  // for it (Device::waitForThreadHolds; a Vulkan device's teardown racing
  // with exit() crashed).
  beginThreadHold();
  {
    Ref<Device> self(this);
    delete op;
    noteRetired();
  }
  endThreadHold();
}

//===----------------------------------------------------------------------===//
// Executing
//===----------------------------------------------------------------------===//

namespace {

Status missingStorage(const char *operation, const Device &device,
                      const char *role, const Buffer &buffer) {
  return makeStatus(StatusCode::FailedPrecondition, operation, " on device '",
                    device.name(), "': ", role, " ", buffer.describe(),
                    " has no storage (its queue_alloca has not run, or its "
                    "queue_dealloca has)");
}

void fillPattern(uint8_t *target, uint64_t length, uint32_t pattern,
                 uint8_t patternLength) {
  uint8_t bytes[4];
  std::memcpy(bytes, &pattern, sizeof(bytes));
  // A pattern of equal bytes (a zero fill of f32, i32, ...) is a memset.
  if (std::all_of(bytes, bytes + patternLength,
                  [&](uint8_t byte) { return byte == bytes[0]; })) {
    std::memset(target, bytes[0], length);
    return;
  }
  // Else the pattern once, then the filled prefix doubled (each copy starts
  // at a multiple of the pattern, so the phase is kept): log2(length)
  // memcpy calls instead of one per element (a 1.8 MB f32 fill took 0.6 ms).
  uint64_t filled = std::min<uint64_t>(length, patternLength);
  std::memcpy(target, bytes, filled);
  while (filled < length) {
    uint64_t chunk = std::min(filled, length - filled);
    std::memcpy(target + filled, target, chunk);
    filled += chunk;
  }
}

} // namespace

Status LocalDevice::copyBytes(const char *operation, Buffer &source,
                              uint64_t sourceOffset, Buffer &target,
                              uint64_t targetOffset, uint64_t length,
                              ExecutionInfo &info) {
  uint8_t *from = source.storage();
  if (!from)
    return missingStorage(operation, *this, "source", source);
  uint8_t *to = target.storage();
  if (!to)
    return missingStorage(operation, *this, "target", target);
  std::memmove(to + targetOffset, from + sourceOffset, length);
  info.bytes += length;
  if (&source.device() != &target.device()) {
    info.crossDevice = true;
    info.crossDeviceBytes += length;
    noteBytesCrossDevice(length);
  }
  return Status();
}

const std::string *LocalDevice::singleDispatchName(const QueueOp &op) {
  if (!op.extraCommandBuffers.empty() || !op.commandBuffer ||
      op.commandBuffer->commands().size() != 1 ||
      op.commandBuffer->dispatchCount() != 1)
    return nullptr;
  const RecordedCommand &command = op.commandBuffer->commands()[0];
  return &op.commandBuffer->executable(command.executable)
              .exportName(command.ordinal);
}

Status LocalDevice::execute(QueueOp &op, ExecutionInfo &info) {
  const char *operation = queueOpName(op.kind);
  switch (op.kind) {
  case QueueOpKind::Alloca:
    return op.target->device()
        .allocator()
        .commit(*op.target, /*zeroed=*/false)
        .withContext(
        concat(operation, " on device '", name(), "'"));
  case QueueOpKind::Dealloca:
    if (!op.target->hasStorage())
      return missingStorage(operation, *this, "buffer", *op.target);
    op.target->device().allocator().decommit(*op.target);
    return Status();
  case QueueOpKind::Copy:
    return copyBytes(operation, *op.source, op.sourceOffset, *op.target,
                     op.targetOffset, op.length, info);
  case QueueOpKind::Fill: {
    uint8_t *to = op.target->storage();
    if (!to)
      return missingStorage(operation, *this, "target", *op.target);
    fillPattern(to + op.targetOffset, op.length, op.pattern, op.patternLength);
    info.bytes = op.length;
    return Status();
  }
  case QueueOpKind::Update: {
    uint8_t *to = op.target->storage();
    if (!to)
      return missingStorage(operation, *this, "target", *op.target);
    std::memcpy(to + op.targetOffset, op.updateBytes.data(), op.length);
    info.bytes = op.length;
    return Status();
  }
  case QueueOpKind::Barrier:
    return Status();
  case QueueOpKind::Execute: {
    if (info.tracer)
      info.exportName = singleDispatchName(op);
    Status status;
    op.forEachCommandBuffer([&](const CommandBuffer &commands) {
      if (status.ok())
        status = executeCommandBuffer(op, commands, info);
    });
    return status;
  }
  }
  return Status(StatusCode::Internal, "unknown queue op");
}

Status LocalDevice::executeCommandBuffer(const QueueOp &op,
                                         const CommandBuffer &commands,
                                         ExecutionInfo &info) {
  constexpr size_t kInlineBindings = 32;
  void *inlinePointers[kInlineBindings];
  uint64_t inlineLengths[kInlineBindings];
  std::vector<void *> heapPointers;
  std::vector<uint64_t> heapLengths;
  bool childSlices = info.tracer && commands.commands().size() > 1;

  for (const RecordedCommand &command : commands.commands()) {
    uint64_t commandStart = childSlices ? monotonicNanoseconds() : 0;
    void **pointers = inlinePointers;
    uint64_t *lengths = inlineLengths;
    if (command.bindingCount > kInlineBindings) {
      heapPointers.resize(command.bindingCount);
      heapLengths.resize(command.bindingCount);
      pointers = heapPointers.data();
      lengths = heapLengths.data();
    }
    // Resolve operands: direct buffers or binding-table slots, whose storage
    // must exist now (an alloca ordered before us has run).
    Buffer *buffers[2] = {nullptr, nullptr};
    uint64_t offsets[2] = {0, 0};
    for (uint32_t b = 0; b < command.bindingCount; ++b) {
      BindingRef resolved =
          op.resolve(commands.bindings()[command.firstBinding + b]);
      Buffer *buffer = resolved.buffer;
      uint64_t offset = resolved.offset;
      uint64_t length = resolved.length;
      uint8_t *base = buffer->storage();
      if (!base) {
        std::string role = "binding " + std::to_string(b);
        return missingStorage(queueOpName(op.kind), *this, role.c_str(),
                              *buffer);
      }
      pointers[b] = base + offset;
      lengths[b] = length;
      if (b < 2) {
        buffers[b] = buffer;
        offsets[b] = offset;
      }
    }

    const char *childName = "barrier";
    switch (command.kind) {
    case CommandKind::Dispatch: {
      Executable &executable = commands.executable(command.executable);
      fleet_kernel_state_t state;
      state.binding_ptrs = pointers;
      state.binding_lengths = lengths;
      state.constants = commands.constants().data() + command.firstConstant;
      state.binding_count = command.bindingCount;
      state.constant_count = command.constantCount;
      std::memcpy(state.workgroup_count, command.workgroups,
                  sizeof(state.workgroup_count));
      noteDispatches(1);
      uint64_t failedWorkgroup = 0;
      int32_t result = 0;
      if (uint64_t limit = options().maxWorkgroups) {
        uint64_t total = 1;
        bool over = false;
        for (uint32_t count : command.workgroups)
          over |= __builtin_mul_overflow(total, uint64_t(count), &total);
        if (over || total > limit)
          return makeStatus(StatusCode::ResourceExhausted,
                            "hal.command_buffer.dispatch of '",
                            executable.exportName(command.ordinal),
                            "' (executable '", executable.name(),
                            "') on device '", name(), "': workgroups (",
                            command.workgroups[0], ", ", command.workgroups[1],
                            ", ", command.workgroups[2],
                            ") exceed max_workgroups=", limit);
      }
      if (uint64_t(command.workgroups[0]) * command.workgroups[1] *
              command.workgroups[2] !=
          0)
        result = runWorkgroups(executable.function(command.ordinal), state,
                               failedWorkgroup);
      // This thread's streaming stores before the op's completion is
      // published (KernelABI.h).
      fleet_kernel_store_fence();
      if (result != 0) {
        uint64_t x = failedWorkgroup % command.workgroups[0];
        uint64_t y = failedWorkgroup / command.workgroups[0] %
                     command.workgroups[1];
        uint64_t z = failedWorkgroup / command.workgroups[0] /
                     command.workgroups[1];
        return makeStatus(StatusCode::Internal, "hal.command_buffer.dispatch "
                          "of '", executable.exportName(command.ordinal),
                          "' (executable '", executable.name(),
                          "') on device '", name(), "' failed: kernel returned ",
                          result, " at workgroup (", x, ", ", y, ", ", z, ")");
      }
      childName = nullptr;
      break;
    }
    case CommandKind::Copy:
      FLEET_RETURN_IF_ERROR(copyBytes("hal.command_buffer.copy_buffer",
                                      *buffers[0], offsets[0], *buffers[1],
                                      offsets[1], command.length, info));
      childName = "copy";
      break;
    case CommandKind::Fill:
      fillPattern(static_cast<uint8_t *>(pointers[0]), command.length,
                  command.pattern, command.patternLength);
      info.bytes += command.length;
      childName = "fill";
      break;
    case CommandKind::Update:
      std::memcpy(pointers[0], commands.updateBytes().data() + command.firstByte,
                  command.byteCount);
      info.bytes += command.byteCount;
      childName = "update";
      break;
    case CommandKind::Barrier:
      // Commands already run one after another on local devices.
      break;
    }
    if (childSlices) {
      TraceSlice slice;
      slice.id = info.tracer->newSliceId();
      slice.track = info.track;
      slice.name = childName ? std::string(childName)
                             : commands.executable(command.executable)
                                   .exportName(command.ordinal);
      slice.startNanoseconds = commandStart;
      slice.endNanoseconds = monotonicNanoseconds();
      info.tracer->addSlice(std::move(slice));
    }
  }
  return Status();
}

} // namespace fleet::runtime::hal::local
