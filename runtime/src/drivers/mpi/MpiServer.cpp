//===- MpiServer.cpp - a rank that runs devices for rank 0 ----------------===//
//
// `fleet-run --serve` (docs/distributed.md): creates the devices rank 0
// asks for, loads the executables it sends, and runs the queue ops it
// forwards on them, with mirrors of rank 0's semaphores as their fences.
// Each op also signals a private completion semaphore whose timepoint
// reports the op (Done, or ReadData with the bytes) to rank 0.
//
//===----------------------------------------------------------------------===//

#include "drivers/mpi/MpiDevice.h"

#include "drivers/mpi/MpiProtocol.h"
#include "drivers/mpi/MpiTransport.h"
#include "fleet/runtime/hal/Driver.h"
#include "fleet/runtime/hal/ExecutableLoader.h"
#include "fleet/runtime/hal/Trace.h"

#include <cstdio>
#include <map>
#include <memory>
#include <unordered_map>

namespace fleet::runtime::mpi {
namespace {

using hal::Buffer;
using hal::Ref;
using hal::Semaphore;
using hal::Status;
using hal::StatusCode;

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

class Server {
public:
  explicit Server(Transport &transport) : transport_(transport) {}
  void handle(int source, std::vector<uint8_t> &message);
  /// What a device waits for (a Write's bytes, semaphore values, Relay)
  /// passes queue ops that arrived before it: rank 0 submits a whole call's
  /// ops at once, and their handling (21 us each on average for the
  /// transformer sample on a 2-core host) would otherwise hold up
  /// the bytes the first of them needs. Sound because rank 0 sends a Write
  /// only once its wait fence is reached, so every op it depends on was
  /// handled, and the other queue ops wait for it on their mirrors.
  /// Allocations, frees and the rest keep their order.
  static Order order(const std::vector<uint8_t> &message);
  /// Waits for every device to finish what it was sent.
  void drain();

private:
  Semaphore &mirror(uint64_t name);
  Ref<hal::Fence> readFence(Reader &reader,
                            std::vector<std::pair<uint64_t, uint64_t>> *names);
  Ref<Buffer> buffer(uint64_t id, Status &status);
  void reply(MessageKind kind, uint64_t id, const Status &status);
  /// Reports op `opId` to rank 0 (Done); `slice` is the trace slice of the
  /// device op that ran it (0 untraced), the start of an arrow to what
  /// waits for it in rank 0.
  void sendDone(uint64_t opId, const Status &status, uint64_t slice = 0);
  /// Relay: tells `rank` the mirror `name`'s value once it reaches `value`.
  void relay(uint64_t name, uint64_t value, int rank);
  /// A pending Relay; dropped when it fires or its mirror is forgotten.
  struct Relay {
    hal::Timepoint timepoint;
    Server *server;
    Ref<Semaphore> mirror;
    uint64_t name;
    int rank;
  };
  /// The mirror `name` if it exists (a value from another server for a
  /// dropped or not yet named mirror is not kept: rank 0 forwards it too).
  Semaphore *existingMirror(uint64_t name);
  void createDevice(Reader &reader);
  void loadExecutable(Reader &reader);
  void runOp(int source, Reader &reader);
  hal::StatusOr<Ref<hal::CommandBuffer>> decodeCommandBuffer(
      hal::Device &device, Reader &reader, uint64_t affinity);
  hal::BindingRef decodeBinding(Reader &reader, Status &status,
                                std::vector<Ref<Buffer>> &keep);
  /// Sends Done for `opId` once `done` reaches 1 (or fails).
  void reportWhenDone(uint64_t opId, Ref<Semaphore> done,
                      std::function<void(const Status &)> then = {});

  /// A PeerRecv's target, waiting for its bytes (by tag).
  struct PeerReceive {
    /// Failed already: the bytes are taken and dropped.
    bool drainOnly = false;
    /// The target's storage is checked when the bytes come: its alloca may
    /// still wait on the fence the sender waits on.
    Status fits() const {
      return checkRange(buffer.get(), offset, length, "target");
    }
    uint64_t opId;
    Ref<Buffer> buffer;
    uint64_t offset, length;
    Ref<hal::Fence> signal;
  };
  /// Bytes (or a failure) that came before their PeerRecv.
  struct EarlyData {
    Status status;
    std::vector<uint8_t> bytes;
  };
  void finishPeerReceive(PeerReceive &receive, Status status,
                         const uint8_t *scratch, uint64_t length);
  void peerData(int source, Reader &reader);

  Transport &transport_;
  std::unordered_map<int, PeerReceive> peerReceives_;
  std::unordered_map<int, EarlyData> earlyData_;
  std::mutex mutex_;
  std::unordered_map<uint32_t, Ref<hal::Device>> devices_;
  std::unordered_map<uint64_t, Ref<Buffer>> buffers_;
  std::unordered_map<uint64_t, Status> failedBuffers_;
  std::unordered_map<uint64_t, Ref<hal::Executable>> executables_;
  std::unordered_map<uint64_t, Ref<Semaphore>> mirrors_;
  std::unordered_multimap<uint64_t, Relay *> relays_;
  std::unique_ptr<hal::ExecutableLoader> loader_;
  /// Set between TraceStart and TraceCollect.
  std::unique_ptr<hal::Tracer> tracer_;
};

Order Server::order(const std::vector<uint8_t> &message) {
  Reader reader(message);
  switch (reader.get<MessageKind>()) {
  case MessageKind::Op: {
    (void)reader.get<uint32_t>(); // device
    (void)reader.get<uint64_t>(); // op
    return reader.get<RemoteOpKind>() == RemoteOpKind::Write
               ? Order::Urgent
               : Order::Deferrable;
  }
  case MessageKind::Signal:
  case MessageKind::FailSemaphore:
  case MessageKind::Relay:
  case MessageKind::Ping:
    return Order::Urgent;
  default:
    return Order::Fifo;
  }
}

void Server::reply(MessageKind kind, uint64_t id, const Status &status) {
  Writer writer;
  writer.put(kind).put(id);
  writer.put(int32_t(status.code())).putString(status.message());
  transport_.send(0, std::move(writer.bytes));
}

void Server::sendDone(uint64_t opId, const Status &status, uint64_t slice) {
  Writer writer;
  writer.put(MessageKind::Done).put(opId);
  writer.put(int32_t(status.code())).putString(status.message());
  writer.put(slice);
  transport_.send(0, std::move(writer.bytes));
}

void Server::relay(uint64_t name, uint64_t value, int rank) {
  auto *relay = new Relay{{}, this, Ref<Semaphore>(&mirror(name)), name, rank};
  relay->timepoint.value = value;
  relay->timepoint.userData = relay;
  relay->timepoint.callback = [](hal::Timepoint &timepoint,
                                 const Status &status) {
    std::unique_ptr<Relay> relay(static_cast<Relay *>(timepoint.userData));
    Server &server = *relay->server;
    {
      std::lock_guard<std::mutex> lock(server.mutex_);
      auto [begin, end] = server.relays_.equal_range(relay->name);
      for (auto it = begin; it != end; ++it)
        if (it->second == relay.get()) {
          server.relays_.erase(it);
          break;
        }
    }
    Writer writer;
    if (!status.ok()) {
      writer.put(MessageKind::FailSemaphore).put(relay->name)
          .put(int32_t(status.code()));
      writer.putString(status.message());
    } else {
      hal::StatusOr<uint64_t> now = relay->mirror->query();
      writer.put(MessageKind::Signal).put(relay->name)
          .put(now.ok() ? *now : timepoint.value)
          .put(relay->mirror->lastSignalerSlice());
    }
    server.transport_.send(relay->rank, std::move(writer.bytes));
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    relays_.emplace(name, relay);
  }
  Status reached;
  if (!relay->mirror->enqueueTimepoint(relay->timepoint, reached))
    relay->timepoint.callback(relay->timepoint, reached);
}

Semaphore *Server::existingMirror(uint64_t name) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = mirrors_.find(name);
  return it == mirrors_.end() ? nullptr : it->second.get();
}

Semaphore &Server::mirror(uint64_t name) {
  std::lock_guard<std::mutex> lock(mutex_);
  Ref<Semaphore> &semaphore = mirrors_[name];
  if (!semaphore)
    semaphore = Semaphore::create(0);
  return *semaphore;
}

Ref<hal::Fence>
Server::readFence(Reader &reader,
                  std::vector<std::pair<uint64_t, uint64_t>> *names) {
  uint32_t count = reader.get<uint32_t>();
  Ref<hal::Fence> fence = hal::Fence::create();
  for (uint32_t i = 0; i < count && !reader.failed; ++i) {
    uint64_t name = reader.get<uint64_t>();
    uint64_t value = reader.get<uint64_t>();
    fence->insert(mirror(name), value);
    if (names)
      names->emplace_back(name, value);
  }
  return fence;
}

Ref<Buffer> Server::buffer(uint64_t id, Status &status) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = buffers_.find(id);
  if (it != buffers_.end())
    return it->second;
  if (status.ok()) {
    auto failed = failedBuffers_.find(id);
    status = failed != failedBuffers_.end()
                 ? failed->second
                 : hal::makeStatus(StatusCode::NotFound, "remote buffer ",
                                   id, " does not exist on rank ",
                                   transport_.rank());
  }
  return Ref<Buffer>();
}

void Server::createDevice(Reader &reader) {
  uint32_t id = reader.get<uint32_t>();
  std::string uri = reader.getString();
  hal::StatusOr<Ref<hal::Device>> device = hal::createDevice(uri);
  if (device.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    devices_[id] = *device;
  }
  reply(MessageKind::Created, id,
        device.ok() ? Status() : device.status());
}

void Server::loadExecutable(Reader &reader) {
  uint32_t deviceId = reader.get<uint32_t>();
  uint64_t id = reader.get<uint64_t>();
  hal::ExecutableSource source;
  source.name = reader.getString();
  source.format = reader.getString();
  hal::KernelLibraryInfo &info = source.library;
  info.name = reader.getString();
  info.targetCpu = reader.getString();
  uint32_t features = reader.get<uint32_t>();
  for (uint32_t i = 0; i < features && !reader.failed; ++i)
    info.cpuFeatures.push_back(reader.getString());
  info.abiVersion = reader.get<int64_t>();
  info.checksum = reader.get<uint64_t>();
  auto [bytes, length] = reader.getBytes();
  source.bytes = hal::Span<const uint8_t>(bytes, length);
  uint32_t exports = reader.get<uint32_t>();
  for (uint32_t i = 0; i < exports && !reader.failed; ++i) {
    source.exportNames.push_back(reader.getString());
    source.symbols.push_back(reader.getString());
    bool hasLayout = reader.get<uint8_t>();
    hal::ExportLayout layout{reader.get<uint32_t>(), reader.get<uint32_t>()};
    source.layouts.push_back(hasLayout ? std::optional(layout)
                                       : std::nullopt);
  }
  Ref<hal::Device> device;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    device = devices_[deviceId];
  }
  auto load = [&]() -> hal::StatusOr<Ref<hal::Executable>> {
    if (reader.failed || !device)
      return hal::makeStatus(StatusCode::Internal,
                             "malformed LoadExecutable message");
    if (device->loadsOwnExecutables())
      return device->loadExecutable(source);
    if (!loader_) {
      FLEET_ASSIGN_OR_RETURN(loader_, hal::ExecutableLoader::create());
    }
    FLEET_ASSIGN_OR_RETURN(std::shared_ptr<hal::KernelLibrary> library,
                           loader_->loadLibrary(info, source.bytes));
    return loader_->createExecutable(source.name, library, source.exportNames,
                                     source.symbols, source.layouts);
  };
  hal::StatusOr<Ref<hal::Executable>> executable = load();
  if (executable.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    executables_[id] = *executable;
  }
  reply(MessageKind::Loaded, id,
        executable.ok() ? Status() : executable.status());
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
      if (slice)
        for (const hal::FenceEntry &entry : signal->entries())
          entry.semaphore->setLastSignalerSlice(slice);
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

void Server::handle(int source, std::vector<uint8_t> &message) {
  Reader reader(message);
  auto kind = reader.get<MessageKind>();
  switch (kind) {
  case MessageKind::CreateDevice:
    return createDevice(reader);
  case MessageKind::LoadExecutable:
    return loadExecutable(reader);
  case MessageKind::Allocate: {
    uint32_t deviceId = reader.get<uint32_t>();
    uint64_t id = reader.get<uint64_t>();
    uint64_t size = reader.get<uint64_t>();
    auto type = hal::MemoryType(reader.get<uint32_t>());
    auto usage = hal::BufferUsage(reader.get<uint32_t>());
    std::lock_guard<std::mutex> lock(mutex_);
    Ref<hal::Device> device = devices_[deviceId];
    hal::StatusOr<Ref<Buffer>> buffer =
        device ? device->allocator().allocate(type, usage, size)
               : hal::StatusOr<Ref<Buffer>>(
                     Status(StatusCode::NotFound, "no such device"));
    if (buffer.ok())
      buffers_[id] = *buffer;
    else
      failedBuffers_[id] = buffer.status();
    return;
  }
  case MessageKind::Free: {
    uint64_t id = reader.get<uint64_t>();
    std::lock_guard<std::mutex> lock(mutex_);
    buffers_.erase(id);
    failedBuffers_.erase(id);
    return;
  }
  case MessageKind::Op:
    return runOp(source, reader);
  case MessageKind::PeerData:
    return peerData(source, reader);
  case MessageKind::Signal: {
    uint64_t name = reader.get<uint64_t>();
    uint64_t value = reader.get<uint64_t>();
    uint64_t slice = reader.get<uint64_t>();
    // From another server (a Relay) only a live mirror learns it: a late
    // one must not bring a forgotten name back.
    Semaphore *semaphore = source == 0 ? &mirror(name) : existingMirror(name);
    if (!semaphore)
      return;
    hal::StatusOr<uint64_t> now = semaphore->query();
    if (now.ok() && *now < value) {
      // What waits on the mirror draws its arrow from the sender's slice.
      if (slice)
        semaphore->setLastSignalerSlice(slice);
      (void)semaphore->signal(value);
    }
    return;
  }
  case MessageKind::Relay: {
    uint64_t name = reader.get<uint64_t>();
    uint64_t value = reader.get<uint64_t>();
    return relay(name, value, reader.get<int32_t>());
  }
  case MessageKind::FailSemaphore: {
    uint64_t name = reader.get<uint64_t>();
    Semaphore *semaphore = source == 0 ? &mirror(name) : existingMirror(name);
    auto code = StatusCode(reader.get<int32_t>());
    if (semaphore)
      semaphore->fail(Status(code, reader.getString()));
    return;
  }
  case MessageKind::Shutdown:
    transport_.requestStop();
    return;
  case MessageKind::Forget: {
    uint64_t name = reader.get<uint64_t>();
    std::lock_guard<std::mutex> lock(mutex_);
    mirrors_.erase(name);
    // Relays still waiting on the mirror will not fire: drop them (one
    // whose callback already runs removes itself).
    auto [begin, end] = relays_.equal_range(name);
    for (auto it = begin; it != end;) {
      Relay *relay = it->second;
      if (relay->mirror->cancelTimepoint(relay->timepoint)) {
        it = relays_.erase(it);
        delete relay;
      } else {
        ++it;
      }
    }
    return;
  }
  case MessageKind::TraceStart: {
    uint64_t id = reader.get<uint64_t>();
    if (!tracer_) {
      tracer_ = std::make_unique<hal::Tracer>(
          (uint64_t(transport_.rank()) << 48) + 1);
      tracer_->install();
    }
    Writer writer;
    writer.put(MessageKind::TraceStarted).put(id)
        .put(hal::monotonicNanoseconds());
    writer.putString(Transport::hostName());
    transport_.send(0, std::move(writer.bytes));
    return;
  }
  case MessageKind::TraceCollect: {
    uint64_t id = reader.get<uint64_t>();
    Writer writer;
    writer.put(MessageKind::TraceData).put(id);
    std::vector<std::string> tracks;
    std::vector<hal::TraceSlice> slices;
    std::vector<std::pair<uint64_t, uint64_t>> flows;
    if (tracer_) {
      tracer_->uninstall();
      tracks = tracer_->trackNames();
      slices = tracer_->slices();
      flows = tracer_->flows();
      tracer_.reset();
    }
    writer.put(uint32_t(tracks.size()));
    for (const std::string &track : tracks)
      writer.putString(track);
    writer.put(uint32_t(slices.size()));
    for (const hal::TraceSlice &slice : slices) {
      writer.put(slice.id).putString(slice.name).put(slice.track)
          .put(slice.startNanoseconds).put(slice.endNanoseconds)
          .put(slice.bytes).put(uint8_t(slice.failed));
    }
    writer.put(uint32_t(flows.size()));
    for (const auto &[from, to] : flows)
      writer.put(from).put(to);
    transport_.send(0, std::move(writer.bytes));
    return;
  }
  case MessageKind::Ping: {
    Writer writer;
    writer.put(MessageKind::Pong).put(reader.get<uint64_t>());
    transport_.send(0, std::move(writer.bytes));
    return;
  }
  default:
    std::fprintf(stderr,
                 "fleet-run --serve (rank %d): unexpected message kind %d\n",
                 transport_.rank(), int(kind));
  }
}

void Server::drain() {
  std::vector<Ref<hal::Device>> devices;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto &[id, device] : devices_)
      devices.push_back(device);
  }
  for (Ref<hal::Device> &device : devices)
    (void)device->abandonPending(Status(StatusCode::Aborted,
                                        "rank 0 shut the device server down"),
                                 hal::Timeout::milliseconds(5000));
  std::lock_guard<std::mutex> lock(mutex_);
  buffers_.clear();
  executables_.clear();
  devices_.clear();
}

} // namespace

int runDeviceServer() {
  hal::StatusOr<Transport *> transport = Transport::get();
  if (!transport.ok()) {
    std::fprintf(stderr, "fleet-run --serve: %s\n",
                 transport.status().toString().c_str());
    return 1;
  }
  if ((*transport)->rank() == 0) {
    std::fprintf(stderr,
                 "fleet-run --serve: rank 0 runs the host program; start "
                 "the device servers as ranks 1.. of the same mpirun "
                 "(docs/distributed.md)\n");
    (*transport)->shutdown();
    return 1;
  }
  // Never freed: a device's late callbacks (after drain's 5 s) may still
  // reach it while the process ends.
  Server *server = new Server(**transport);
  (*transport)->start(
      [server](int source, std::vector<uint8_t> &message) {
        server->handle(source, message);
      },
      &Server::order);
  (*transport)->waitStopped();
  server->drain();
  (*transport)->shutdown();
  return 0;
}

} // namespace fleet::runtime::mpi
