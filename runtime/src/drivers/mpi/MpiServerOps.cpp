//===- MpiServerOps.cpp - a device server's queue ops and copies ----------===//
//
// The Op messages a device server runs (MpiServer.h): the queue op on its
// device with mirrors as fences, the copies with a side in another rank's
// memory (Write, Read, PeerSend/PeerRecv), and the Done that reports each.
//
//===----------------------------------------------------------------------===//

#include "drivers/mpi/MpiServer.h"

#include <cstring>

namespace fleet::runtime::mpi {

/// OK when `length` bytes at `offset` of `buffer` exist now (a copy with a
/// side in another process checks this when its bytes move).
Status checkRange(const Buffer *buffer, uint64_t offset, uint64_t length,
                  std::string_view role) {
  if (buffer && buffer->hasStorage() && offset <= buffer->byteSize() &&
      length <= buffer->byteSize() - offset)
    return Status();
  return hal::makeStatus(
      StatusCode::OutOfRange, "hal.device.queue.copy: ", length,
      " bytes at offset ", offset, " are not in the ", role, " ",
      buffer ? buffer->describe() : std::string("buffer"));
}

hal::BindingRef Server::decodeBinding(Reader &reader, Status &status,
                                      std::vector<Ref<Buffer>> &keep) {
  uint64_t id = reader.get<uint64_t>();
  hal::BindingRef ref;
  ref.slot = reader.get<uint32_t>();
  ref.offset = reader.get<uint64_t>();
  ref.length = reader.get<uint64_t>();
  if (id != kSlotBuffer) {
    Ref<Buffer> held = buffer(id, status);
    ref.buffer = held.get();
    if (held)
      keep.push_back(std::move(held));
  }
  return ref;
}

hal::StatusOr<Ref<hal::CommandBuffer>>
Server::decodeCommandBuffer(hal::Device &device, Reader &reader,
                            uint64_t affinity) {
  auto mode = hal::CommandBufferMode(reader.get<uint32_t>());
  uint32_t capacity = reader.get<uint32_t>();
  auto [commandBytes, commandLength] = reader.getBytes();
  std::vector<hal::RecordedCommand> commands(commandLength /
                                             sizeof(hal::RecordedCommand));
  if (commandLength)
    std::memcpy(commands.data(), commandBytes, commandLength);
  Status status;
  std::vector<Ref<Buffer>> keep;
  std::vector<hal::BindingRef> bindings(reader.get<uint32_t>());
  for (hal::BindingRef &ref : bindings)
    ref = decodeBinding(reader, status, keep);
  auto [constantBytes, constantLength] = reader.getBytes();
  std::vector<uint32_t> constants(constantLength / sizeof(uint32_t));
  if (constantLength)
    std::memcpy(constants.data(), constantBytes, constantLength);
  auto [updateBytes, updateLength] = reader.getBytes();
  std::vector<Ref<hal::Executable>> executables(reader.get<uint32_t>());
  for (Ref<hal::Executable> &executable : executables) {
    uint64_t id = reader.get<uint64_t>();
    std::lock_guard<std::mutex> lock(mutex_);
    executable = executables_[id];
    if (!executable && status.ok())
      status = hal::makeStatus(StatusCode::NotFound, "executable ", id,
                               " was not loaded on rank ", transport_.rank());
  }
  if (reader.failed)
    return Status(StatusCode::Internal, "malformed Op message");
  FLEET_RETURN_IF_ERROR(status);
  FLEET_ASSIGN_OR_RETURN(
      Ref<hal::CommandBuffer> buffer,
      hal::CommandBuffer::create(device, mode, hal::CommandCategory::Any,
                                 hal::QueueAffinity(affinity ? affinity : 1),
                                 capacity));
  for (const hal::RecordedCommand &command : commands) {
    hal::Span<const hal::BindingRef> operands(
        bindings.data() + command.firstBinding, command.bindingCount);
    hal::Executable *executable =
        command.kind == hal::CommandKind::Dispatch &&
                command.executable < executables.size()
            ? executables[command.executable].get()
            : nullptr;
    FLEET_RETURN_IF_ERROR(buffer->recordCommand(
        command, operands, constants.data(), updateBytes, executable));
  }
  FLEET_RETURN_IF_ERROR(buffer->finalize());
  return buffer;
}

void Server::reportWhenDone(uint64_t opId, Ref<Semaphore> done,
                            std::function<void(const Status &)> then) {
  struct Report {
    hal::Timepoint timepoint;
    Server *server;
    uint64_t opId;
    Ref<Semaphore> done;
    std::function<void(const Status &)> then;
  };
  auto *report = new Report{{}, this, opId, done, std::move(then)};
  // Polled fast until the op is reported.
  transport_.addPendingWork(1);
  report->timepoint.value = 1;
  report->timepoint.userData = report;
  report->timepoint.callback = [](hal::Timepoint &timepoint,
                                  const Status &status) {
    auto *report = static_cast<Report *>(timepoint.userData);
    report->server->transport_.addPendingWork(-1);
    if (report->then)
      report->then(status);
    else
      report->server->sendDone(report->opId, status,
                           report->done->lastSignalerSlice());
    delete report;
  };
  Status reached;
  if (!done->enqueueTimepoint(report->timepoint, reached))
    report->timepoint.callback(report->timepoint, reached);
}

void Server::runOp(int source, Reader &reader) {
  uint32_t deviceId = reader.get<uint32_t>();
  uint64_t opId = reader.get<uint64_t>();
  auto kind = reader.get<RemoteOpKind>();
  uint64_t affinity = uint64_t(1) << reader.get<uint64_t>();
  Ref<hal::Fence> wait = readFence(reader, nullptr);
  std::vector<std::pair<uint64_t, uint64_t>> signals;
  Ref<hal::Fence> signal = readFence(reader, &signals);
  Ref<Semaphore> done = Semaphore::create(0);
  signal->insert(*done, 1);
  Ref<hal::Device> device;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    device = devices_[deviceId];
  }
  Status status;
  if (!device)
    status = hal::makeStatus(StatusCode::NotFound, "device ", deviceId,
                             " was not created on rank ", transport_.rank());
  auto queueAffinity = hal::QueueAffinity(affinity);
  switch (kind) {
  case RemoteOpKind::Execute: {
    uint32_t count = reader.get<uint32_t>();
    std::vector<Ref<hal::CommandBuffer>> commandBuffers;
    for (uint32_t i = 0; i < count && status.ok(); ++i) {
      auto decoded = decodeCommandBuffer(*device, reader, affinity);
      if (decoded.ok())
        commandBuffers.push_back(*decoded);
      else
        status = decoded.status();
    }
    std::vector<Ref<Buffer>> keep;
    std::vector<hal::BindingRef> table;
    if (status.ok()) {
      table.resize(reader.get<uint32_t>());
      for (hal::BindingRef &ref : table)
        ref = decodeBinding(reader, status, keep);
    }
    if (status.ok()) {
      std::vector<hal::CommandBuffer *> raw;
      for (auto &commandBuffer : commandBuffers)
        raw.push_back(commandBuffer.get());
      status = device->queueExecute(queueAffinity, wait.get(), signal.get(),
                                    raw, table);
    }
    break;
  }
  case RemoteOpKind::Copy: {
    Ref<Buffer> from = buffer(reader.get<uint64_t>(), status);
    uint64_t fromOffset = reader.get<uint64_t>();
    Ref<Buffer> to = buffer(reader.get<uint64_t>(), status);
    uint64_t toOffset = reader.get<uint64_t>();
    uint64_t length = reader.get<uint64_t>();
    if (status.ok())
      status = device->queueCopy(queueAffinity, wait.get(), signal.get(),
                                 *from, fromOffset, *to, toOffset, length);
    break;
  }
  case RemoteOpKind::Fill: {
    Ref<Buffer> to = buffer(reader.get<uint64_t>(), status);
    uint64_t offset = reader.get<uint64_t>();
    uint64_t length = reader.get<uint64_t>();
    uint32_t pattern = reader.get<uint32_t>();
    uint8_t patternLength = reader.get<uint8_t>();
    if (status.ok())
      status = device->queueFill(queueAffinity, wait.get(), signal.get(), *to,
                                 offset, length, pattern, patternLength);
    break;
  }
  case RemoteOpKind::Update: {
    Ref<Buffer> to = buffer(reader.get<uint64_t>(), status);
    uint64_t offset = reader.get<uint64_t>();
    auto [bytes, length] = reader.getBytes();
    if (status.ok())
      status = device->queueUpdate(queueAffinity, wait.get(), signal.get(),
                                   bytes, *to, offset, length);
    break;
  }
  case RemoteOpKind::Barrier:
    if (status.ok())
      status = device->queueBarrier(queueAffinity, wait.get(), signal.get());
    break;
  case RemoteOpKind::Write: {
    Ref<Buffer> to = buffer(reader.get<uint64_t>(), status);
    uint64_t offset = reader.get<uint64_t>();
    uint64_t length = reader.get<uint64_t>();
    int tag = reader.get<int32_t>();
    uint64_t slice = reader.get<uint64_t>();
    // The bytes follow on `tag` whatever happens: take them.
    uint8_t *target = nullptr;
    std::vector<uint8_t> scratch;
    if (status.ok())
      status = checkRange(to.get(), offset, length, "target");
    if (status.ok()) {
      target = to->storage() + offset;
    } else {
      scratch.resize(length);
      target = scratch.data();
    }
    transport_.receiveData(source, target, length, tag);
    if (status.ok()) {
      // What waits on the copy draws its arrow from what the copy waited
      // for in rank 0.
      signal->setLastSignalerSlice(slice);
      status = signal->signal();
    } else {
      signal->fail(status);
    }
    sendDone(opId, status);
    return;
  }
  case RemoteOpKind::PeerSend: {
    Ref<Buffer> from = buffer(reader.get<uint64_t>(), status);
    uint64_t offset = reader.get<uint64_t>();
    uint64_t length = reader.get<uint64_t>();
    int peer = reader.get<int32_t>();
    int tag = reader.get<int32_t>();
    // Once the wait fence is reached, the bytes (or the failure) go to the
    // peer, which reports the copy to rank 0.
    auto sendBytes = [this, from, offset, length, peer,
                      tag](const Status &reached) {
      Status status = reached;
      if (status.ok())
        status = checkRange(from.get(), offset, length, "source");
      Writer writer;
      writer.put(MessageKind::PeerData).put(int32_t(tag))
          .put(int32_t(status.code()));
      writer.putString(status.message()).put(length);
      if (!status.ok()) {
        transport_.send(peer, std::move(writer.bytes));
        return;
      }
      transport_.sendWithData(peer, std::move(writer.bytes),
                              from->storage() + offset, length, tag,
                              [from] {});
    };
    if (status.ok())
      status = device->queueBarrier(queueAffinity, wait.get(), signal.get());
    if (status.ok())
      reportWhenDone(opId, done, sendBytes);
    else
      sendBytes(status);
    return;
  }
  case RemoteOpKind::PeerRecv: {
    PeerReceive receive;
    receive.opId = opId;
    receive.buffer = buffer(reader.get<uint64_t>(), status);
    receive.offset = reader.get<uint64_t>();
    receive.length = reader.get<uint64_t>();
    (void)reader.get<int32_t>(); // The sending rank.
    int tag = reader.get<int32_t>();
    receive.signal = signal;
    auto early = earlyData_.find(tag);
    if (early != earlyData_.end()) {
      EarlyData data = std::move(early->second);
      earlyData_.erase(early);
      if (!status.ok())
        data.status = status;
      finishPeerReceive(receive, data.status, data.bytes.data(),
                        data.bytes.size());
      return;
    }
    if (!status.ok()) {
      // The bytes still come: a placeholder drains them (no second Done).
      signal->fail(status);
      sendDone(opId, status);
      receive.buffer = Ref<Buffer>();
      receive.drainOnly = true;
    }
    peerReceives_[tag] = std::move(receive);
    return;
  }
  case RemoteOpKind::Read: {
    Ref<Buffer> from = buffer(reader.get<uint64_t>(), status);
    uint64_t offset = reader.get<uint64_t>();
    uint64_t length = reader.get<uint64_t>();
    int tag = reader.get<int32_t>();
    auto sendBytes = [this, opId, from, offset, length, tag,
                      done](const Status &reached) {
      Status status = reached;
      if (status.ok())
        status = checkRange(from.get(), offset, length, "source");
      Writer writer;
      writer.put(MessageKind::ReadData).put(opId).put(int32_t(status.code()));
      writer.putString(status.message()).put(length).put(int32_t(tag));
      writer.put(done->lastSignalerSlice());
      if (!status.ok()) {
        transport_.send(0, std::move(writer.bytes));
        return;
      }
      // `from` stays alive until the last chunk is sent.
      transport_.sendWithData(0, std::move(writer.bytes),
                              from->storage() + offset, length, tag,
                              [from] {});
    };
    if (status.ok())
      status = device->queueBarrier(queueAffinity, wait.get(), signal.get());
    if (status.ok()) {
      reportWhenDone(opId, done, sendBytes);
      return;
    }
    sendBytes(status);
    return;
  }
  }
  if (reader.failed && status.ok())
    status = Status(StatusCode::Internal, "malformed Op message");
  if (!status.ok()) {
    // A rejected submission failed the signal fence (done included) already
    // when the device saw it; otherwise fail it here.
    if (!done->isFailed())
      signal->fail(status);
    sendDone(opId, status);
    return;
  }
  reportWhenDone(opId, done);
}

void Server::finishPeerReceive(PeerReceive &receive, Status status,
                               const uint8_t *scratch, uint64_t length) {
  if (status.ok() && length != receive.length)
    status = hal::makeStatus(StatusCode::Internal, "peer copy sent ", length,
                             " bytes, ", receive.length, " expected");
  if (status.ok())
    status = receive.fits();
  if (status.ok() && scratch)
    std::memcpy(receive.buffer->storage() + receive.offset, scratch, length);
  if (status.ok())
    status = receive.signal->signal();
  else
    receive.signal->fail(status);
  sendDone(receive.opId, status);
}

void Server::peerData(int source, Reader &reader) {
  int tag = reader.get<int32_t>();
  auto code = StatusCode(reader.get<int32_t>());
  std::string message = reader.getString();
  uint64_t length = reader.get<uint64_t>();
  Status status =
      code == StatusCode::Ok ? Status() : Status(code, std::move(message));
  auto it = peerReceives_.find(tag);
  if (it == peerReceives_.end()) {
    EarlyData &early = earlyData_[tag];
    early.status = status;
    if (status.ok()) {
      early.bytes.resize(length);
      transport_.receiveData(source, early.bytes.data(), length, tag);
    }
    return;
  }
  PeerReceive receive = std::move(it->second);
  peerReceives_.erase(it);
  if (receive.drainOnly) {
    std::vector<uint8_t> scratch(status.ok() ? length : 0);
    if (status.ok())
      transport_.receiveData(source, scratch.data(), length, tag);
    return;
  }
  if (status.ok() && receive.fits().ok() && length == receive.length) {
    transport_.receiveData(source, receive.buffer->storage() + receive.offset,
                           length, tag);
    finishPeerReceive(receive, status, nullptr, length);
    return;
  }
  std::vector<uint8_t> scratch(status.ok() ? length : 0);
  if (status.ok())
    transport_.receiveData(source, scratch.data(), length, tag);
  finishPeerReceive(receive, status, scratch.data(), length);
}

} // namespace fleet::runtime::mpi
