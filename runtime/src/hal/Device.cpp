//===- Device.cpp - validation and bookkeeping of queue operations ---------===//
//
// Everything here is driver-independent: the queue methods check their
// operands (usage bits, ranges, access from this device), build a QueueOp on
// the stack and pass it to the driver. A rejected op fails its signal fence
// before returning the error, so devices waiting on that fence see the failure
// instead of waiting forever (docs/design.md §4).
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/hal/Device.h"

#include "fleet/runtime/hal/DeviceGroup.h"
#include "hal/QueueOp.h"

#include <algorithm>
#include <cstring>

namespace fleet::runtime::hal {

const char *queueOpName(QueueOpKind kind) {
  switch (kind) {
  case QueueOpKind::Alloca:
    return "hal.device.queue.alloca";
  case QueueOpKind::Dealloca:
    return "hal.device.queue.dealloca";
  case QueueOpKind::Execute:
    return "hal.device.queue.execute";
  case QueueOpKind::Copy:
    return "hal.device.queue.copy";
  case QueueOpKind::Fill:
    return "hal.device.queue.fill";
  case QueueOpKind::Update:
    return "hal.device.queue.update";
  case QueueOpKind::Barrier:
    return "hal.device.queue.barrier";
  }
  return "hal.device.queue.?";
}

const char *queueOpShortName(QueueOpKind kind) {
  switch (kind) {
  case QueueOpKind::Alloca:
    return "alloca";
  case QueueOpKind::Dealloca:
    return "dealloca";
  case QueueOpKind::Execute:
    return "execute";
  case QueueOpKind::Copy:
    return "copy";
  case QueueOpKind::Fill:
    return "fill";
  case QueueOpKind::Update:
    return "update";
  case QueueOpKind::Barrier:
    return "barrier";
  }
  return "?";
}

namespace {
std::atomic<uint64_t> deviceCounter{0};
/// Driver threads holding a device past an op (Device::beginThreadHold),
/// and hosts waiting for none (the same seq_cst Dekker as noteRetired and
/// waitIdle: an ending hold or a new waiter sees the other).
std::atomic<uint64_t> threadHolds{0};
std::atomic<uint64_t> holdWaiters{0};
std::mutex holdMutex;
std::condition_variable holdsGone;

/// Waits on `condition` until `reached` holds or `timeout` passes; true when
/// it holds.
template <typename Predicate>
bool waitFor(std::condition_variable &condition,
             std::unique_lock<std::mutex> &lock, Timeout timeout,
             Predicate reached) {
  if (!timeout.isInfinite())
    return condition.wait_until(lock, timeout.deadline(), reached);
  condition.wait(lock, reached);
  return true;
}
} // namespace

void Device::beginThreadHold() {
  threadHolds.fetch_add(1, std::memory_order_seq_cst);
}

void Device::endThreadHold() {
  if (threadHolds.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      holdWaiters.load(std::memory_order_seq_cst) != 0) {
    { std::lock_guard<std::mutex> lock(holdMutex); }
    holdsGone.notify_all();
  }
}

bool Device::waitForThreadHolds(Timeout timeout) {
  holdWaiters.fetch_add(1, std::memory_order_seq_cst);
  bool none;
  {
    std::unique_lock<std::mutex> lock(holdMutex);
    none = waitFor(holdsGone, lock, timeout, [] {
      return threadHolds.load(std::memory_order_seq_cst) == 0;
    });
  }
  holdWaiters.fetch_sub(1, std::memory_order_seq_cst);
  return none;
}

Device::Device(std::string driverName, DeviceOptions options,
               DeviceCapabilities capabilities)
    : driverName_(std::move(driverName)), options_(std::move(options)),
      capabilities_(std::move(capabilities)), allocator_(*this) {
  name_ = options_.name;
  if (name_.empty())
    name_ = driverName_ + ":" +
            std::to_string(deviceCounter.fetch_add(1, std::memory_order_relaxed));
  if (options_.queueCount == 0)
    options_.queueCount = 1;
}

Device::~Device() = default;

Ref<Semaphore> Device::createSemaphore(uint64_t initialValue) {
  return Semaphore::create(initialValue, this);
}

Ref<Fence> Device::createFence() {
  Ref<Semaphore> semaphore = createSemaphore(0);
  return Fence::createAt(*semaphore, 1);
}

namespace {
/// Glob match with `*` (any run) and `?` (any one character).
bool matchesPattern(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}
} // namespace

QueryAnswer Device::query(std::string_view category,
                          std::string_view key) const {
  if (category == "hal.device.id")
    return QueryAnswer{true, matchesPattern(key, driverName_) ? 1 : 0};
  if (category == "hal.executable.format")
    return QueryAnswer{true, matchesPattern(key, executableFormat())};
  if (category == "hal.device") {
    if (key == "discrete")
      return QueryAnswer{true, capabilities_.discrete ? 1 : 0};
    if (key == "queue_count")
      return QueryAnswer{true, int64_t(options_.queueCount)};
    if (key == "worker_count")
      return QueryAnswer{true, int64_t(options_.workerCount)};
  }
  return QueryAnswer{};
}

StatusOr<uint32_t> Device::selectQueue(QueueAffinity affinity) const {
  if (affinity == 0)
    return makeStatus(StatusCode::InvalidArgument, "device '", name_,
                      "': queue affinity 0 selects no queue");
  // The lowest requested queue, folded onto the queues this device has (the
  // IR may name queues a smaller device lacks).
  uint32_t bit = uint32_t(__builtin_ctzll(affinity));
  return bit % options_.queueCount;
}

bool Device::loadsOwnExecutables() const {
  return std::strcmp(executableFormat(), kLocalExecutableFormat) != 0;
}

Status Device::prepareBufferUse(std::string_view operation,
                                std::string_view role, Buffer &buffer) {
  Device &owner = buffer.device();
  if (&owner == this)
    return Status();
  // A remote device moves bytes to and from this process's memory itself
  // (its driver checks that only copies do).
  if (capabilities_.remote && owner.capabilities().hostAddressable &&
      !owner.capabilities().remote)
    return Status();
  if (!group_ || owner.group() != group_)
    return makeStatus(StatusCode::FailedPrecondition, operation, ": ", role,
                      " ", buffer.describe(), " is used on device '", name_,
                      "', but devices '", owner.name(), "' and '", name_,
                      "' are not in one device group (no topology)");
  Link link = group_->link(*this, owner);
  if (link.directAccess())
    return Status();
  if (!link.exportImport)
    return makeStatus(StatusCode::PermissionDenied, operation, ": device '",
                      name_, "' cannot reach ", role, " ", buffer.describe(),
                      ": no unified_memory, transparent_access or "
                      "export_import link from '",
                      name_, "' to '", owner.name(), "'");
  if (!anyBitSet(buffer.allowedUsage(), BufferUsage::SharingExport))
    return makeStatus(
        StatusCode::PermissionDenied, operation, ": device '", name_,
        "' has no direct access to ", role, " ", buffer.describe(),
        " and cannot import it: the buffer lacks SharingExport usage "
        "(the runtime never stages through host memory silently)");
  // Import on first use; local devices share the address space, so the import
  // is zero-copy and only needs recording.
  uint64_t bit = uint64_t(1) << groupIndex_;
  uint64_t before = buffer.importedBy_.fetch_or(bit, std::memory_order_acq_rel);
  if (!(before & bit))
    imports_.fetch_add(1, std::memory_order_relaxed);
  return Status();
}

Status Device::beginOp(QueueOp &op, QueueAffinity affinity, Fence *wait,
                       Fence *signal) {
  FLEET_ASSIGN_OR_RETURN(op.queueIndex, selectQueue(affinity));
  if (wait && signal && wait == signal && !wait->empty())
    return Status(StatusCode::InvalidArgument,
                  "the wait and signal fences are the same fence (the op "
                  "would wait for itself)");
  op.device = Ref<Device>(this);
  if (wait && !wait->empty())
    op.wait = Ref<Fence>(wait);
  if (signal && !signal->empty())
    op.signal = Ref<Fence>(signal);
  return Status();
}

Status Device::rejectOp(std::string_view operation, Fence *signal,
                        Status status) {
  // Messages from prepareBufferUse/resolveRange already start with the op.
  if (status.message().compare(0, operation.size(), operation) != 0)
    status = status.withContext(concat(operation, " on device '", name_, "'"));
  else
    status = Status(status.code(),
                    concat(operation, " on device '", name_, "'",
                           status.message().substr(operation.size())));
  if (signal)
    signal->fail(status);
  return status;
}

Status Device::finishSubmit(QueueOp &op) {
  op.sequence = submitted_.fetch_add(1, std::memory_order_seq_cst) + 1;
  submit(op);
  return Status();
}

StatusOr<Ref<Buffer>> Device::queueAlloca(QueueAffinity affinity, Fence *wait,
                                          Fence *signal, uint64_t pool,
                                          MemoryType type, BufferUsage usage,
                                          uint64_t byteSize) {
  const char *name = queueOpName(QueueOpKind::Alloca);
  (void)pool; // Local devices have a single memory pool.
  QueueOp op;
  op.kind = QueueOpKind::Alloca;
  Status status = beginOp(op, affinity, wait, signal);
  if (status.ok())
    status = allocator_.checkCompatibility(name, type, usage);
  if (!status.ok())
    return rejectOp(name, signal, status);
  FLEET_ASSIGN_OR_RETURN(op.target,
                         allocator_.createUncommitted(type, usage, byteSize));
  Ref<Buffer> buffer = op.target;
  FLEET_RETURN_IF_ERROR(finishSubmit(op));
  return buffer;
}

Status Device::queueDealloca(QueueAffinity affinity, Fence *wait,
                             Fence *signal, Buffer &buffer) {
  const char *name = queueOpName(QueueOpKind::Dealloca);
  QueueOp op;
  op.kind = QueueOpKind::Dealloca;
  Status status = beginOp(op, affinity, wait, signal);
  if (status.ok())
    status = prepareBufferUse(name, "buffer", buffer);
  if (!status.ok())
    return rejectOp(name, signal, status);
  op.target = Ref<Buffer>(&buffer);
  return finishSubmit(op);
}

Status Device::queueExecute(QueueAffinity affinity, Fence *wait, Fence *signal,
                            Span<CommandBuffer *const> commandBuffers,
                            Span<const BindingRef> bindingTable) {
  const char *name = queueOpName(QueueOpKind::Execute);
  QueueOp op;
  op.kind = QueueOpKind::Execute;
  auto fail = [&](Status status) { return rejectOp(name, signal, status); };
  Status status = beginOp(op, affinity, wait, signal);
  if (!status.ok())
    return fail(status);

  // The binding table: every entry a buffer, in range, reachable from here.
  if (!bindingTable.empty()) {
    op.bindingTable.assign(bindingTable.begin(), bindingTable.end());
    op.bindingTableBuffers.reserve(bindingTable.size());
    for (size_t slot = 0; slot < bindingTable.size(); ++slot) {
      BindingRef &entry = op.bindingTable[slot];
      std::string role = "binding table slot " + std::to_string(slot);
      if (!entry.buffer)
        return fail(makeStatus(StatusCode::InvalidArgument, name, ": ", role,
                               " has no buffer"));
      auto length = entry.buffer->resolveRange(name, role, entry.offset,
                                                entry.length);
      if (!length.ok())
        return fail(length.status());
      entry.length = *length;
      status = prepareBufferUse(name, role, *entry.buffer);
      if (!status.ok())
        return fail(status);
      op.bindingTableBuffers.push_back(Ref<Buffer>(entry.buffer));
    }
  }

  for (size_t i = 0; i < commandBuffers.size(); ++i) {
    CommandBuffer *commandBuffer = commandBuffers[i];
    if (!commandBuffer)
      return fail(makeStatus(StatusCode::InvalidArgument, name,
                             ": command buffer ", i, " is null"));
    if (&commandBuffer->device() != this)
      return fail(makeStatus(StatusCode::InvalidArgument, name,
                             ": command buffer ", i,
                             " was recorded for device '",
                             commandBuffer->device().name(), "'"));
    if (!commandBuffer->isFinalized())
      return fail(makeStatus(StatusCode::FailedPrecondition, name,
                             ": command buffer ", i, " is not finalized"));
    if (commandBuffer->slotsUsed() > bindingTable.size())
      return fail(makeStatus(StatusCode::OutOfRange, name, ": command buffer ",
                             i, " uses binding-table slot ",
                             commandBuffer->slotsUsed() - 1,
                             " but the binding table has ",
                             bindingTable.size(), " entries"));
    for (const Ref<Buffer> &buffer : commandBuffer->directBuffers()) {
      if (&buffer->device() == this)
        continue;
      status = prepareBufferUse(name, "command buffer operand", *buffer);
      if (!status.ok())
        return fail(status);
    }
    // Slot operands: the usage the command needs and the range it touches.
    if (commandBuffer->slotsUsed()) {
      for (const RecordedCommand &command : commandBuffer->commands()) {
        for (uint32_t b = 0; b < command.bindingCount; ++b) {
          const BindingRef &ref =
              commandBuffer->bindings()[command.firstBinding + b];
          if (ref.buffer)
            continue;
          const BindingRef &entry = op.bindingTable[ref.slot];
          BufferUsage needed =
              command.kind == CommandKind::Dispatch ? BufferUsage::DispatchStorage
              : (command.kind == CommandKind::Copy && b == 0)
                  ? BufferUsage::TransferSource
                  : BufferUsage::TransferTarget;
          if (!anyBitSet(entry.buffer->allowedUsage(), needed))
            return fail(entry.buffer->requireUsage(
                name, "binding table slot " + std::to_string(ref.slot),
                needed));
          uint64_t length = ref.length == kWholeBuffer
                                ? (ref.offset <= entry.length
                                       ? entry.length - ref.offset
                                       : 0)
                                : ref.length;
          if (ref.offset > entry.length || length > entry.length - ref.offset)
            return fail(makeStatus(StatusCode::OutOfRange, name,
                                   ": command range [", ref.offset, ", ",
                                   ref.offset + length,
                                   ") exceeds binding table slot ", ref.slot,
                                   " of ", entry.length, " bytes"));
        }
      }
    }
    if (i == 0)
      op.commandBuffer = Ref<CommandBuffer>(commandBuffer);
    else
      op.extraCommandBuffers.push_back(Ref<CommandBuffer>(commandBuffer));
  }
  return finishSubmit(op);
}

Status Device::queueCopy(QueueAffinity affinity, Fence *wait, Fence *signal,
                         Buffer &source, uint64_t sourceOffset, Buffer &target,
                         uint64_t targetOffset, uint64_t length) {
  // Only a remote device reaches its memory: a copy between it and this
  // process runs there, on the same fences (docs/distributed.md).
  if (!capabilities_.remote) {
    for (Buffer *side : {&source, &target})
      if (side->device().capabilities().remote)
        return side->device().queueCopy(kQueueAffinityAny, wait, signal,
                                        source, sourceOffset, target,
                                        targetOffset, length);
  }
  const char *name = queueOpName(QueueOpKind::Copy);
  QueueOp op;
  op.kind = QueueOpKind::Copy;
  auto fail = [&](Status status) { return rejectOp(name, signal, status); };
  Status status = beginOp(op, affinity, wait, signal);
  if (!status.ok())
    return fail(status);
  if (Status denied = source.requireUsage(name, "source",
                                          BufferUsage::TransferSource);
      !denied.ok())
    return fail(denied);
  if (Status denied = target.requireUsage(name, "target",
                                          BufferUsage::TransferTarget);
      !denied.ok())
    return fail(denied);
  auto sourceLength = source.resolveRange(name, "source", sourceOffset, length);
  if (!sourceLength.ok())
    return fail(sourceLength.status());
  auto targetLength = target.resolveRange(name, "target", targetOffset, length);
  if (!targetLength.ok())
    return fail(targetLength.status());
  if (length == kWholeBuffer)
    length = std::min(*sourceLength, *targetLength);
  status = prepareBufferUse(name, "source", source);
  if (status.ok())
    status = prepareBufferUse(name, "target", target);
  if (!status.ok())
    return fail(status);
  op.source = Ref<Buffer>(&source);
  op.target = Ref<Buffer>(&target);
  op.sourceOffset = sourceOffset;
  op.targetOffset = targetOffset;
  op.length = length;
  return finishSubmit(op);
}

Status Device::queueFill(QueueAffinity affinity, Fence *wait, Fence *signal,
                         Buffer &target, uint64_t targetOffset, uint64_t length,
                         uint32_t pattern, uint8_t patternLength) {
  const char *name = queueOpName(QueueOpKind::Fill);
  QueueOp op;
  op.kind = QueueOpKind::Fill;
  auto fail = [&](Status status) { return rejectOp(name, signal, status); };
  Status status = beginOp(op, affinity, wait, signal);
  if (!status.ok())
    return fail(status);
  if (patternLength != 1 && patternLength != 2 && patternLength != 4)
    return fail(makeStatus(StatusCode::InvalidArgument, name,
                           ": pattern length ", int(patternLength),
                           " is not 1, 2 or 4 bytes"));
  if (Status denied = target.requireUsage(name, "target",
                                          BufferUsage::TransferTarget);
      !denied.ok())
    return fail(denied);
  auto resolved = target.resolveRange(name, "target", targetOffset, length);
  if (!resolved.ok())
    return fail(resolved.status());
  length = *resolved;
  if (targetOffset % patternLength || length % patternLength)
    return fail(makeStatus(StatusCode::InvalidArgument, name,
                           ": offset ", targetOffset, " and length ", length,
                           " must be multiples of the pattern length ",
                           int(patternLength)));
  status = prepareBufferUse(name, "target", target);
  if (!status.ok())
    return fail(status);
  op.target = Ref<Buffer>(&target);
  op.targetOffset = targetOffset;
  op.length = length;
  op.pattern = pattern;
  op.patternLength = patternLength;
  return finishSubmit(op);
}

Status Device::queueUpdate(QueueAffinity affinity, Fence *wait, Fence *signal,
                           const void *source, Buffer &target,
                           uint64_t targetOffset, uint64_t length) {
  const char *name = queueOpName(QueueOpKind::Update);
  QueueOp op;
  op.kind = QueueOpKind::Update;
  auto fail = [&](Status status) { return rejectOp(name, signal, status); };
  Status status = beginOp(op, affinity, wait, signal);
  if (!status.ok())
    return fail(status);
  if (Status denied = target.requireUsage(name, "target",
                                          BufferUsage::TransferTarget);
      !denied.ok())
    return fail(denied);
  if (length == kWholeBuffer)
    return fail(makeStatus(StatusCode::InvalidArgument, name,
                           ": the length of host data must be given"));
  auto resolved = target.resolveRange(name, "target", targetOffset, length);
  if (!resolved.ok())
    return fail(resolved.status());
  if (length && !source)
    return fail(makeStatus(StatusCode::InvalidArgument, name,
                           ": null host source for ", length, " bytes"));
  status = prepareBufferUse(name, "target", target);
  if (!status.ok())
    return fail(status);
  op.target = Ref<Buffer>(&target);
  op.targetOffset = targetOffset;
  op.length = length;
  // Captured now: the host may reuse its memory once submission returns.
  const uint8_t *bytes = static_cast<const uint8_t *>(source);
  op.updateBytes.assign(bytes, bytes + length);
  return finishSubmit(op);
}

Status Device::queueBarrier(QueueAffinity affinity, Fence *wait,
                            Fence *signal) {
  const char *name = queueOpName(QueueOpKind::Barrier);
  QueueOp op;
  op.kind = QueueOpKind::Barrier;
  Status status = beginOp(op, affinity, wait, signal);
  if (!status.ok())
    return rejectOp(name, signal, status);
  return finishSubmit(op);
}

Status Device::queueFlush(QueueAffinity affinity) {
  auto queue = selectQueue(affinity);
  if (!queue.ok())
    return queue.status().withContext("hal.device.queue.flush");
  return Status();
}

void Device::noteExecuted(bool failed, uint64_t busyNanoseconds) {
  executed_.fetch_add(1, std::memory_order_relaxed);
  if (failed)
    failed_.fetch_add(1, std::memory_order_relaxed);
  if (busyNanoseconds)
    busyNanoseconds_.fetch_add(busyNanoseconds, std::memory_order_relaxed);
}

void Device::noteRetired() {
  retired_.fetch_add(1, std::memory_order_seq_cst);
  // Dekker with waitIdle: both sides use seq_cst so one of them sees the
  // other; taking the lock orders the notify after the waiter's predicate
  // check. The notify follows the unlock: a waiter woken under the lock
  // would block on it at once, and a waiter sharing this thread's core
  // then needs a second wake-up (the device outlives both).
  if (idleWaiters_.load(std::memory_order_seq_cst) != 0) {
    { std::lock_guard<std::mutex> lock(idleMutex_); }
    idleCondition_.notify_all();
  }
}

Status Device::waitIdle(Timeout timeout) {
  uint64_t target = submitted_.load(std::memory_order_seq_cst);
  if (retired_.load(std::memory_order_seq_cst) >= target)
    return Status();
  idleWaiters_.fetch_add(1, std::memory_order_seq_cst);
  bool idle;
  {
    std::unique_lock<std::mutex> lock(idleMutex_);
    idle = waitFor(idleCondition_, lock, timeout, [&] {
      return retired_.load(std::memory_order_seq_cst) >= target;
    });
  }
  idleWaiters_.fetch_sub(1, std::memory_order_seq_cst);
  if (!idle)
    return makeStatus(StatusCode::DeadlineExceeded, "device '", name_,
                      "': wait for idle timed out with ",
                      target - retired_.load(std::memory_order_relaxed),
                      " queue ops pending");
  return Status();
}

DeviceStatistics Device::statistics() const {
  DeviceStatistics statistics;
  statistics.queueOpsSubmitted = submitted_.load(std::memory_order_relaxed);
  statistics.queueOpsExecuted = executed_.load(std::memory_order_relaxed);
  statistics.queueOpsFailed = failed_.load(std::memory_order_relaxed);
  statistics.dispatches = dispatches_.load(std::memory_order_relaxed);
  statistics.busyNanoseconds = busyNanoseconds_.load(std::memory_order_relaxed);
  statistics.bytesCrossDevice =
      bytesCrossDevice_.load(std::memory_order_relaxed);
  statistics.imports = imports_.load(std::memory_order_relaxed);
  return statistics;
}

Status Device::abandonPending(Status reason, Timeout timeout) {
  if (reason.ok())
    reason = makeStatus(StatusCode::Aborted, "device '", name_,
                        "': queued work abandoned");
  while (true) {
    // A short wait lets ops already running or scheduled finish first.
    Status idle = waitIdle(Timeout::milliseconds(1));
    if (idle.ok())
      return idle;
    std::vector<FenceEntry> blocked;
    blockedWaits(blocked);
    for (const FenceEntry &entry : blocked)
      if (!entry.semaphore->reachedOrFailed(entry.value))
        entry.semaphore->fail(reason);
    if (timeout.expired())
      return waitIdle(Timeout::immediate());
  }
}

} // namespace fleet::runtime::hal
