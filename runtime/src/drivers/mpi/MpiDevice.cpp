//===- MpiDevice.cpp - rank 0's proxy of a device in another rank ---------===//

#include "drivers/mpi/MpiDevice.h"

#include "drivers/mpi/MpiClient.h"
#include "drivers/mpi/MpiProtocol.h"
#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/hal/Executable.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace fleet::runtime::mpi {
namespace {

/// Rank 0's record of a buffer's storage: in the server (an id), or in this
/// process (host-visible memory of the device: staging).
struct Memory {
  uint64_t id = 0;
  bool local = false;
  int rank = 0;
};

/// Never dereferenced: a remote buffer's storage address in rank 0 (a
/// non-canonical x86-64 address, so a stray access faults at once).
uint8_t *remoteSentinel(uint64_t id) {
  return reinterpret_cast<uint8_t *>(uintptr_t(0x7ff0ull << 48) |
                                     (id & 0xffffffffffffull));
}

struct WriteRow;

class MpiDevice final : public hal::Device {
public:
  MpiDevice(Client &client, int rank, uint32_t id, hal::DeviceOptions options,
            hal::DeviceCapabilities capabilities, const char *format)
      : Device("mpi", std::move(options), std::move(capabilities)),
        client_(client), rank_(rank), id_(id), format_(format) {}

  int rank() const { return rank_; }
  const char *executableFormat() const override { return format_; }
  bool loadsOwnExecutables() const override { return true; }
  bool providesMemory() const override { return true; }
  hal::StatusOr<hal::DeviceMemory>
  allocateMemory(uint64_t byteSize, bool zeroed,
                 hal::MemoryType type) override;
  void freeMemory(hal::DeviceMemory memory) override;
  hal::StatusOr<Ref<hal::Executable>>
  loadExecutable(const hal::ExecutableSource &source) override;

protected:
  void submit(QueueOp &op) override;

private:
  /// The server's id of `buffer`, or 0 when it is not this device's
  /// remote memory.
  uint64_t remoteId(const Buffer &buffer) const;
  Status encodeExecute(Writer &writer, const QueueOp &op);
  /// True when a copy command of `op` has a side in rank 0's memory.
  bool copiesToOrFromHost(const QueueOp &op) const;
  /// Runs such an op as a chain: the commands between those copies as
  /// executes on the server, each copy as a queue copy (Write/Read).
  void splitExecute(QueueOp &op);
  /// A copy between this device's memory and another mpi device's: the
  /// two servers move the bytes directly (PeerSend/PeerRecv).
  void submitPeerCopy(QueueOp &op);
  /// Alloca and dealloca, decided in rank 0 (no server op).
  void submitAllocation(QueueOp &op);
  /// `buffer` belongs to another remote device.
  bool otherRemote(const Buffer &buffer) const;
  /// A copy from rank 0's memory into this device's server memory (sent by
  /// rank 0 with its bytes: RemoteOpKind::Write).
  bool isWrite(const Buffer &source, const Buffer &target) const;

public:
  uint32_t id() const { return id_; }
  /// `buffer`'s id on its server when it is remote memory of `device`.
  static uint64_t remoteIdOn(const MpiDevice &device, const Buffer &buffer) {
    return device.remoteId(buffer);
  }

private:
  void finishHere(uint64_t opId, Status status) {
    client_.complete(opId, std::move(status));
  }
  /// What a Write needs once its wait fence is reached, held by value: the
  /// op itself may be gone by then (a lost server fails it).
  struct WriteArgs {
    uint32_t queueIndex;
    Ref<hal::Fence> wait;
    Ref<hal::Fence> signal;
    Ref<Buffer> source, target;
    uint64_t sourceOffset, targetOffset, length;
  };
  void sendWrite(uint64_t opId, const WriteArgs &args);

  /// Set by splitExecute while it submits a copy of a row of copies from
  /// rank 0's memory (that copy's index in the row).
  static thread_local std::shared_ptr<WriteRow> writeRow_;
  static thread_local uint32_t writeRowIndex_;

  Client &client_;
  int rank_;
  uint32_t id_;
  const char *format_;
  std::mutex mutex_;
  std::unordered_map<const hal::Executable *, uint64_t> executables_;
};

thread_local std::shared_ptr<WriteRow> MpiDevice::writeRow_;
thread_local uint32_t MpiDevice::writeRowIndex_ = 0;

//===----------------------------------------------------------------------===//
// MpiDevice
//===----------------------------------------------------------------------===//

hal::StatusOr<hal::DeviceMemory>
MpiDevice::allocateMemory(uint64_t byteSize, bool zeroed,
                          hal::MemoryType type) {
  auto memory = std::make_unique<Memory>();
  memory->rank = rank_;
  if (hal::anyBitSet(type, hal::MemoryType::HostVisible)) {
    // Staging: rank 0's memory, which this device reads and writes by
    // messages in copies.
    void *bytes = zeroed ? std::calloc(1, byteSize ? byteSize : 1)
                         : std::malloc(byteSize ? byteSize : 1);
    if (!bytes)
      return hal::makeStatus(StatusCode::ResourceExhausted, "device '",
                             name(), "' is out of host memory allocating ",
                             byteSize, " bytes");
    memory->local = true;
    uint8_t *pointer = static_cast<uint8_t *>(bytes);
    return hal::DeviceMemory{pointer, memory.release()};
  }
  // The server allocates when the message arrives, before any op that
  // names the buffer (messages to a rank keep their order).
  memory->id = client_.nextId();
  Writer writer;
  writer.put(MessageKind::Allocate).put(id_).put(memory->id).put(byteSize)
      .put(uint32_t(type)).put(uint32_t(hal::BufferUsage::DispatchStorage |
                                        hal::BufferUsage::Transfer))
      .put(uint8_t(zeroed));
  client_.transport().send(rank_, std::move(writer.bytes));
  uint8_t *pointer = remoteSentinel(memory->id);
  return hal::DeviceMemory{pointer, memory.release()};
}

void MpiDevice::freeMemory(hal::DeviceMemory handle) {
  std::unique_ptr<Memory> memory(static_cast<Memory *>(handle.handle));
  if (memory->local) {
    std::free(handle.hostPointer);
    return;
  }
  Writer writer;
  writer.put(MessageKind::Free).put(memory->id);
  client_.transport().send(rank_, std::move(writer.bytes));
}

uint64_t MpiDevice::remoteId(const Buffer &buffer) const {
  if (&buffer.device() != this)
    return 0;
  auto *memory = static_cast<const Memory *>(buffer.driverHandle());
  return memory && !memory->local ? memory->id : 0;
}

hal::StatusOr<Ref<hal::Executable>>
MpiDevice::loadExecutable(const hal::ExecutableSource &source) {
  uint64_t id = client_.nextId();
  Writer writer;
  writer.put(MessageKind::LoadExecutable).put(id_).put(id);
  writer.putString(source.name).putString(source.format);
  const hal::KernelLibraryInfo &library = source.library;
  writer.putString(library.name).putString(library.targetCpu);
  writer.put(uint32_t(library.cpuFeatures.size()));
  for (const std::string &feature : library.cpuFeatures)
    writer.putString(feature);
  writer.put(library.abiVersion).put(library.checksum);
  writer.putBytes(source.bytes.data(), source.bytes.size());
  writer.put(uint32_t(source.exportNames.size()));
  std::vector<hal::ExecutableExport> exports;
  for (size_t i = 0; i < source.exportNames.size(); ++i) {
    writer.putString(source.exportNames[i]).putString(source.symbols[i]);
    const auto &layout = source.layouts[i];
    writer.put(uint8_t(layout.has_value()))
        .put(layout ? layout->bindingCount : 0u)
        .put(layout ? layout->constantCount : 0u);
    hal::ExecutableExport entry;
    entry.name = source.exportNames[i];
    entry.layout = layout;
    entry.driverEntry = this; // Runs in the server; nothing here to call.
    exports.push_back(std::move(entry));
  }
  FLEET_RETURN_IF_ERROR(client_.request(
      rank_, std::move(writer.bytes), id,
      hal::concat("loading executable '", source.name, "'")));
  FLEET_ASSIGN_OR_RETURN(Ref<hal::Executable> executable,
                         hal::Executable::create(source.name,
                                                 std::move(exports)));
  executable->setDevice(this);
  std::lock_guard<std::mutex> lock(mutex_);
  executables_[executable.get()] = id;
  return executable;
}

Status MpiDevice::encodeExecute(Writer &writer, const QueueOp &op) {
  std::vector<const hal::CommandBuffer *> buffers;
  op.forEachCommandBuffer(
      [&](const hal::CommandBuffer &buffer) { buffers.push_back(&buffer); });
  auto putBinding = [&](const hal::BindingRef &ref) -> Status {
    uint64_t id = kSlotBuffer;
    if (ref.buffer) {
      id = remoteId(*ref.buffer);
      if (!id)
        return hal::makeStatus(
            StatusCode::PermissionDenied,
            "hal.device.queue.execute on device '", name(), "': ",
            ref.buffer->describe(),
            " is not this remote device's memory (a remote device's "
            "commands touch only its own buffers)");
    }
    writer.put(id).put(ref.slot).put(ref.offset).put(ref.length);
    return Status();
  };
  writer.put(uint32_t(buffers.size()));
  for (const hal::CommandBuffer *buffer : buffers) {
    writer.put(uint32_t(buffer->mode())).put(buffer->bindingCapacity());
    auto commands = buffer->commands();
    writer.putBytes(commands.data(),
                    commands.size() * sizeof(hal::RecordedCommand));
    auto bindings = buffer->bindings();
    writer.put(uint32_t(bindings.size()));
    for (const hal::BindingRef &ref : bindings)
      FLEET_RETURN_IF_ERROR(putBinding(ref));
    auto constants = buffer->constants();
    writer.putBytes(constants.data(), constants.size() * sizeof(uint32_t));
    writer.putBytes(buffer->updateBytes().data(),
                    buffer->updateBytes().size());
    // The executables, by the index the commands use.
    uint32_t executableCount = 0;
    for (const hal::RecordedCommand &command : commands)
      if (command.kind == hal::CommandKind::Dispatch)
        executableCount = std::max(executableCount, command.executable + 1);
    writer.put(executableCount);
    for (uint32_t i = 0; i < executableCount; ++i) {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = executables_.find(&buffer->executable(i));
      if (it == executables_.end())
        return hal::makeStatus(StatusCode::InvalidArgument,
                               "hal.device.queue.execute on device '", name(),
                               "': executable '", buffer->executable(i).name(),
                               "' was not loaded by it");
      writer.put(it->second);
    }
  }
  writer.put(uint32_t(op.bindingTable.size()));
  for (const hal::BindingRef &ref : op.bindingTable)
    FLEET_RETURN_IF_ERROR(putBinding(ref));
  return Status();
}

void MpiDevice::sendWrite(uint64_t opId, const WriteArgs &args) {
  Writer writer;
  writer.put(MessageKind::Op).put(id_).put(opId).put(RemoteOpKind::Write)
      .put(uint64_t(args.queueIndex));
  client_.putFence(writer, nullptr, rank_);
  client_.putFence(writer, args.signal.get(), rank_, /*signals=*/true);
  int tag = client_.transport().nextDataTag();
  writer.put(remoteId(*args.target)).put(args.targetOffset).put(args.length)
      .put(int32_t(tag)).put(args.wait ? args.wait->lastSignalerSlice() : 0);
  // The source stays alive until its last chunk is sent. A server's Done,
  // this op's or another's, may be handled by this thread once the bytes
  // left (Transport::awaitAnswer): it holds the core, where the progress
  // thread would wait for it. Accepting only this op's Done gave MP1
  // 0.80-0.81 instead of 0.80-0.84 (three alternating pairs of runs).
  Ref<Buffer> source = args.source;
  auto isDone = [](const std::vector<uint8_t> &message) {
    return !message.empty() && MessageKind(message[0]) == MessageKind::Done;
  };
  client_.transport().sendWithData(rank_, std::move(writer.bytes),
                                   source->storage() + args.sourceOffset,
                                   args.length, tag, [source] {}, isDone);
}

/// The copies from rank 0's memory in one row of a split execute wait on
/// the same fence but must leave in row order (the server applies them in
/// the order it receives them): each runs its send once every earlier one
/// of the row has.
struct WriteRow {
  void arrive(uint32_t index, std::function<void()> send) {
    std::unique_lock<std::mutex> lock(mutex);
    ready[index] = std::move(send);
    // One thread runs the actions, outside the lock, in row order; others
    // leave theirs to it.
    if (draining)
      return;
    draining = true;
    for (auto it = ready.find(next); it != ready.end(); it = ready.find(next)) {
      std::function<void()> action = std::move(it->second);
      ready.erase(it);
      ++next;
      lock.unlock();
      action();
      lock.lock();
    }
    draining = false;
  }
  std::mutex mutex;
  uint32_t next = 0;
  bool draining = false;
  std::map<uint32_t, std::function<void()>> ready;
};

/// Runs `ready` once every entry of `fence` is reached, or with the first
/// failure.
struct FenceWaiter {
  std::vector<hal::Timepoint> timepoints;
  std::atomic<size_t> remaining{0};
  std::atomic<bool> fired{false};
  std::function<void(Status)> ready;
  Ref<hal::Fence> fence;

  static void arm(Ref<hal::Fence> fence, std::function<void(Status)> ready) {
    auto *waiter = new FenceWaiter();
    waiter->fence = fence;
    waiter->ready = std::move(ready);
    size_t count = fence ? fence->entries().size() : 0;
    waiter->timepoints.resize(count);
    waiter->remaining = count + 1;
    for (size_t i = 0; i < count; ++i) {
      const FenceEntry &entry = fence->entries()[i];
      hal::Timepoint &timepoint = waiter->timepoints[i];
      timepoint.value = entry.value;
      timepoint.userData = waiter;
      timepoint.callback = [](hal::Timepoint &tp, const Status &status) {
        static_cast<FenceWaiter *>(tp.userData)->arrive(status);
      };
      Status reached;
      if (!entry.semaphore->enqueueTimepoint(timepoint, reached))
        waiter->arrive(reached);
    }
    waiter->arrive(Status());
  }

  void arrive(const Status &status) {
    if (!status.ok() && !fired.exchange(true))
      ready(status);
    if (remaining.fetch_sub(1) == 1) {
      if (!fired.exchange(true))
        ready(Status());
      delete this;
    }
  }
};

bool MpiDevice::copiesToOrFromHost(const QueueOp &op) const {
  bool found = false;
  op.forEachCommandBuffer([&](const hal::CommandBuffer &buffer) {
    for (const hal::RecordedCommand &command : buffer.commands()) {
      if (command.kind != hal::CommandKind::Copy)
        continue;
      for (uint32_t i = 0; i < 2; ++i) {
        hal::BindingRef ref =
            op.resolve(buffer.bindings()[command.firstBinding + i]);
        if (ref.buffer && !remoteId(*ref.buffer))
          found = true;
      }
    }
  });
  return found;
}

void MpiDevice::splitExecute(QueueOp &op) {
  hal::QueueAffinity affinity = hal::QueueAffinity(1) << op.queueIndex;
  Ref<Semaphore> chain = Semaphore::create(0, this);
  uint64_t step = 0;
  Ref<hal::Fence> wait = op.wait;
  Ref<hal::CommandBuffer> pending;
  Status status;
  // Copies from rank 0's memory in a row wait together on what precedes
  // the row: their bytes leave at once, and the server applies them in the
  // order sent (a later one may overwrite an earlier one's target). Only
  // what follows the row waits for the last of them.
  Ref<hal::Fence> rowWait;
  std::shared_ptr<WriteRow> row; // Set while a row of Writes is open.
  uint32_t rowIndex = 0;
  // Submits what is recorded in `pending` (or the copy `run`), chained.
  auto issue = [&](const std::function<Status(hal::Fence *, hal::Fence *)>
                       &run,
                   bool write = false) {
    if (write && row) {
      ++rowIndex;
    } else {
      rowWait = wait;
      row = write ? std::make_shared<WriteRow>() : nullptr;
      rowIndex = 0;
    }
    Ref<hal::Fence> signal = hal::Fence::createAt(*chain, ++step);
    // Only this submission reads the row (submit() of the copy).
    writeRow_ = row;
    writeRowIndex_ = rowIndex;
    Status submitted = run(write ? rowWait.get() : wait.get(), signal.get());
    // Rejected before submit() took its place: the row must not wait for it.
    if (writeRow_)
      writeRow_->arrive(rowIndex, [] {});
    writeRow_ = nullptr;
    if (!submitted.ok() && status.ok())
      status = submitted;
    wait = signal;
  };
  auto flush = [&] {
    if (!pending)
      return;
    Ref<hal::CommandBuffer> buffer = pending;
    pending = Ref<hal::CommandBuffer>();
    if (Status finalized = buffer->finalize(); !finalized.ok()) {
      status = finalized;
      return;
    }
    issue([&](hal::Fence *w, hal::Fence *s) {
      hal::CommandBuffer *raw = buffer.get();
      return queueExecute(affinity, w, s,
                          hal::Span<hal::CommandBuffer *const>(&raw, 1));
    });
  };
  op.forEachCommandBuffer([&](const hal::CommandBuffer &buffer) {
    for (const hal::RecordedCommand &command : buffer.commands()) {
      if (!status.ok())
        return;
      std::vector<hal::BindingRef> operands;
      for (uint32_t i = 0; i < command.bindingCount; ++i)
        operands.push_back(
            op.resolve(buffer.bindings()[command.firstBinding + i]));
      bool hostCopy = command.kind == hal::CommandKind::Copy &&
                      (!remoteId(*operands[0].buffer) ||
                       !remoteId(*operands[1].buffer));
      if (hostCopy) {
        flush();
        bool write = isWrite(*operands[0].buffer, *operands[1].buffer);
        issue(
            [&](hal::Fence *w, hal::Fence *s) {
              return queueCopy(affinity, w, s, *operands[0].buffer,
                               operands[0].offset, *operands[1].buffer,
                               operands[1].offset, command.length);
            },
            write);
        continue;
      }
      if (!pending) {
        auto created = hal::CommandBuffer::create(
            *this, hal::CommandBufferMode::OneShot, hal::CommandCategory::Any,
            affinity);
        if (!created.ok()) {
          status = created.status();
          return;
        }
        pending = *created;
      }
      status = pending->recordCommand(
          command, operands, buffer.constants().data(),
          buffer.updateBytes().data(),
          command.kind == hal::CommandKind::Dispatch
              ? &buffer.executable(command.executable)
              : nullptr);
    }
  });
  if (status.ok())
    flush();
  // The original op ends when the chain does: its signal fence follows the
  // last step (or the first failure).
  Ref<hal::Fence> last = wait;
  Ref<hal::Fence> signal = op.signal;
  if (!status.ok()) {
    // Steps already issued fail with the chain; the op fails at once.
    Status failed = status.withContext(hal::concat(
        "hal.device.queue.execute on device '", name(), "'"));
    chain->fail(failed);
    if (signal)
      signal->fail(failed);
  } else if (signal) {
    // The op retires once its fence holds its value, before what waits on
    // it runs (as Client::complete retires an op): the device is idle only
    // then.
    Ref<hal::Device> self(this);
    FenceWaiter::arm(last, [signal, last, self](Status reached) {
      auto retire = [&] {
        self->noteExecuted(!reached.ok(), 0);
        self->noteRetired();
      };
      if (!reached.ok()) {
        signal->fail(reached);
        return retire();
      }
      // The trace's arrows go through the chain to its last step's cause.
      if (last)
        signal->setLastSignalerSlice(last->lastSignalerSlice());
      (void)signal->signal(retire);
    });
    return;
  }
  noteExecuted(!status.ok(), 0);
  noteRetired();
}

void MpiDevice::submitPeerCopy(QueueOp &op) {
  auto &source = static_cast<MpiDevice &>(op.source->device());
  auto &target = static_cast<MpiDevice &>(op.target->device());
  uint64_t opId = client_.nextId();
  int tag = client_.transport().nextDataTag();
  auto describe = [&](MpiDevice &device, uint64_t sendOpId,
                      RemoteOpKind kind, const hal::Fence *wait,
                      const hal::Fence *signal, const Buffer &buffer,
                      uint64_t offset, int peer) {
    Writer writer;
    writer.put(MessageKind::Op).put(device.id()).put(sendOpId).put(kind)
        .put(uint64_t(op.queueIndex));
    client_.putFence(writer, wait, device.rank());
    client_.putFence(writer, signal, device.rank(), /*signals=*/true);
    writer.put(remoteIdOn(device, buffer)).put(offset).put(op.length)
        .put(int32_t(peer)).put(int32_t(tag));
    return std::move(writer.bytes);
  };
  std::vector<uint8_t> send =
      describe(source, client_.nextId(), RemoteOpKind::PeerSend,
               op.wait.get(), nullptr, *op.source, op.sourceOffset,
               target.rank());
  std::vector<uint8_t> receive =
      describe(target, opId, RemoteOpKind::PeerRecv, nullptr,
               op.signal.get(), *op.target, op.targetOffset, source.rank());
  Ref<hal::Fence> wait = op.wait;
  noteBytesCrossDevice(op.length);
  client_.addOp(opId, std::make_unique<QueueOp>(std::move(op)),
                target.rank());
  // The receiving side first, so the bytes usually find it waiting.
  client_.transport().send(target.rank(), std::move(receive));
  if (wait)
    for (const FenceEntry &entry : wait->entries())
      client_.forward(*entry.semaphore, entry.value, source.rank());
  client_.transport().send(source.rank(), std::move(send));
}

void MpiDevice::submitAllocation(QueueOp &op) {
  // The buffer is made now (an Allocate message to the server, or rank 0's
  // memory for staging), not when the wait fence is reached: then what
  // waits on the alloca needs no round trip to the server, and the server
  // handles one op less. A dealloca frees the buffer once the uses its
  // wait fence covers are done (a Free message).
  uint64_t opId = client_.nextId();
  Status status;
  bool free = op.kind == QueueOpKind::Dealloca;
  if (!free)
    status = allocator().commit(*op.target, /*zeroed=*/false);
  Ref<hal::Fence> wait = op.wait;
  Ref<Buffer> target = op.target;
  Ref<MpiDevice> self(this);
  client_.addOp(opId, std::make_unique<QueueOp>(std::move(op)), rank_);
  if (!status.ok())
    return finishHere(opId, std::move(status));
  FenceWaiter::arm(wait, [self, opId, target, free](Status reached) {
    if (reached.ok() && free)
      target->device().allocator().decommit(*target);
    self->finishHere(opId, reached);
  });
}

bool MpiDevice::otherRemote(const Buffer &buffer) const {
  return buffer.device().capabilities().remote && &buffer.device() != this;
}

bool MpiDevice::isWrite(const Buffer &source, const Buffer &target) const {
  return !otherRemote(source) && !otherRemote(target) && !remoteId(source) &&
         remoteId(target);
}

void MpiDevice::submit(QueueOp &op) {
  // A copy of a row of Writes (splitExecute) reads its place in the row
  // here; nothing else may see it.
  std::shared_ptr<WriteRow> row = std::move(writeRow_);
  writeRow_ = nullptr;
  uint32_t rowIndex = writeRowIndex_;
  if (row && !(op.kind == QueueOpKind::Copy &&
               isWrite(*op.source, *op.target))) {
    // Not a Write after all: it must not hold up the row's later Writes.
    row->arrive(rowIndex, [] {});
    row = nullptr;
  }
  if (op.kind == QueueOpKind::Execute && copiesToOrFromHost(op))
    return splitExecute(op);
  if (op.kind == QueueOpKind::Copy &&
      (otherRemote(*op.source) || otherRemote(*op.target))) {
    // Both sides must be servers' memory (staging lives in rank 0).
    auto serverMemory = [&](const Buffer &buffer) {
      return buffer.device().capabilities().remote &&
             remoteIdOn(static_cast<const MpiDevice &>(buffer.device()),
                        buffer) != 0;
    };
    if (serverMemory(*op.source) && serverMemory(*op.target))
      return submitPeerCopy(op);
    uint64_t opId = client_.nextId();
    client_.addOp(opId, std::make_unique<QueueOp>(std::move(op)), rank_);
    return finishHere(opId,
                      hal::makeStatus(StatusCode::PermissionDenied,
                                      "hal.device.queue.copy on device '",
                                      name(), "': a copy between two remote "
                                      "devices must be between their "
                                      "servers' memories"));
  }
  uint64_t opId = client_.nextId();
  RemoteOpKind kind = RemoteOpKind::Barrier;
  switch (op.kind) {
  case QueueOpKind::Alloca:
  case QueueOpKind::Dealloca:
    return submitAllocation(op);
  case QueueOpKind::Execute: kind = RemoteOpKind::Execute; break;
  case QueueOpKind::Fill: kind = RemoteOpKind::Fill; break;
  case QueueOpKind::Update: kind = RemoteOpKind::Update; break;
  case QueueOpKind::Barrier: kind = RemoteOpKind::Barrier; break;
  case QueueOpKind::Copy: {
    bool remoteSource = remoteId(*op.source) != 0;
    bool remoteTarget = remoteId(*op.target) != 0;
    kind = remoteSource && remoteTarget ? RemoteOpKind::Copy
           : remoteTarget               ? RemoteOpKind::Write
           : remoteSource               ? RemoteOpKind::Read
                                        : RemoteOpKind::Copy;
    break;
  }
  }
  Status status;
  Writer writer;
  writer.put(MessageKind::Op).put(id_).put(opId).put(kind)
      .put(uint64_t(op.queueIndex));
  // Read: rank 0 signals the fence once the bytes arrived.
  client_.putFence(writer, op.wait.get(), rank_);
  client_.putFence(writer,
                   kind == RemoteOpKind::Read ? nullptr : op.signal.get(),
                   rank_, /*signals=*/true);
  auto needRemote = [&](const Buffer &buffer, const char *role) {
    if (remoteId(buffer))
      return Status();
    return hal::makeStatus(StatusCode::PermissionDenied,
                           hal::queueOpName(op.kind), " on device '", name(),
                           "': ", role, " ", buffer.describe(),
                           " is not this remote device's memory");
  };
  switch (kind) {
  case RemoteOpKind::Execute:
    status = encodeExecute(writer, op);
    break;
  case RemoteOpKind::Copy:
    status = needRemote(*op.source, "source");
    if (status.ok())
      status = needRemote(*op.target, "target");
    writer.put(remoteId(*op.source)).put(op.sourceOffset)
        .put(remoteId(*op.target)).put(op.targetOffset).put(op.length);
    break;
  case RemoteOpKind::Fill:
    status = needRemote(*op.target, "target");
    writer.put(remoteId(*op.target)).put(op.targetOffset).put(op.length)
        .put(op.pattern).put(op.patternLength);
    break;
  case RemoteOpKind::Update:
    status = needRemote(*op.target, "target");
    writer.put(remoteId(*op.target)).put(op.targetOffset);
    writer.putBytes(op.updateBytes.data(), op.updateBytes.size());
    break;
  case RemoteOpKind::Barrier:
    break;
  case RemoteOpKind::Write:
    break; // Sent once the wait fence is reached (below).
  case RemoteOpKind::Read:
    writer.put(remoteId(*op.source)).put(op.sourceOffset).put(op.length)
        .put(int32_t(client_.transport().nextDataTag()));
    break;
  case RemoteOpKind::PeerSend:
  case RemoteOpKind::PeerRecv:
    break; // submitPeerCopy.
  }
  // Bytes between ranks (the statistics' "bytes between devices").
  if (kind == RemoteOpKind::Write || kind == RemoteOpKind::Read)
    noteBytesCrossDevice(op.length);
  // What runs later is copied out of the op first: once added, a lost
  // server may fail and free it on another thread.
  Ref<hal::Fence> wait = op.wait;
  Ref<MpiDevice> self(this);
  WriteArgs args{op.queueIndex,   op.wait,         op.signal,
                 op.source,       op.target,       op.sourceOffset,
                 op.targetOffset, op.length};
  client_.addOp(opId, std::make_unique<QueueOp>(std::move(op)), rank_);
  if (!status.ok())
    return finishHere(opId, std::move(status));
  if (kind == RemoteOpKind::Write) {
    uint32_t index = rowIndex;
    FenceWaiter::arm(wait, [self, opId, args, row, index](Status reached) {
      auto run = [self, opId, args, reached] {
        if (!reached.ok())
          self->finishHere(
              opId, Status(reached.code(),
                           hal::concat("hal.device.queue.copy on device '",
                                       self->name(),
                                       "' did not run: its wait fence "
                                       "failed: ",
                                       reached.message())));
        else
          self->sendWrite(opId, args);
      };
      if (row)
        row->arrive(index, std::move(run));
      else
        run();
    });
    return;
  }
  if (wait)
    for (const FenceEntry &entry : wait->entries())
      client_.forward(*entry.semaphore, entry.value, rank_);
  client_.transport().send(rank_, std::move(writer.bytes));
}

} // namespace

hal::StatusOr<Ref<hal::Device>>
createMpiDevice(int rank, const std::string &uri, hal::DeviceOptions options) {
  FLEET_ASSIGN_OR_RETURN(Client * client, Client::get());
  int size = client->transport().size();
  if (size == 1)
    return hal::makeStatus(StatusCode::InvalidArgument, "device URI 'mpi://",
                           rank, "/", uri,
                           "': there are no device server ranks (this "
                           "process is the only rank: start it under mpirun "
                           "with `fleet-run --serve` as ranks 1.., "
                           "docs/distributed.md)");
  if (rank <= 0 || rank >= size)
    return hal::makeStatus(StatusCode::InvalidArgument, "device URI 'mpi://",
                           rank, "/", uri, "': rank ", rank,
                           " is not a device server rank (1..", size - 1,
                           " under this mpirun, which has ", size, " ranks)");
  FLEET_ASSIGN_OR_RETURN(hal::DeviceSpec spec, hal::parseDeviceUri(uri));
  std::string backend = hal::backendOfDriver(spec.driver);
  // "mpi://1/local-task": the rank and the driver, not its parameters.
  if (options.name.empty())
    options.name = hal::concat("mpi://", rank, "/", spec.driver);
  options.queueCount = spec.options.queueCount;
  options.workerCount = spec.options.workerCount;
  uint32_t id = uint32_t(client->nextId());
  Writer writer;
  writer.put(MessageKind::CreateDevice).put(id);
  // The server names its device as rank 0 does, so its messages agree.
  writer.putString(uri.find("name=") == std::string::npos
                       ? uri + (uri.find('?') == std::string::npos ? "?" : "&") +
                             "name=" + options.name
                       : uri);
  FLEET_RETURN_IF_ERROR(client->request(rank, std::move(writer.bytes), id,
                                        "creating device " + uri));
  hal::DeviceCapabilities capabilities;
  capabilities.backend = backend;
  capabilities.discrete = true;
  capabilities.hostAddressable = false;
  capabilities.remote = true;
  const char *format = backend == "local" ? hal::kLocalExecutableFormat
                                          : hal::kSpirvExecutableFormat;
  auto device = Ref<MpiDevice>::adopt(new MpiDevice(
      *client, rank, id, std::move(options), capabilities, format));
  return Ref<hal::Device>(device.get());
}

} // namespace fleet::runtime::mpi
