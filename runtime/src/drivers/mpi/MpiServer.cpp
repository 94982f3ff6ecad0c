//===- MpiServer.cpp - a rank that runs devices for rank 0 ----------------===//
//
// `fleet-run --serve` (MpiServer.h): the messages a device server handles
// and its main loop; queue ops and copies are in MpiServerOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "drivers/mpi/MpiServer.h"

#include "drivers/mpi/MpiDevice.h"
#include "fleet/runtime/hal/Driver.h"

#include <cstdio>

namespace fleet::runtime::mpi {

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
    hal::StatusOr<uint64_t> now = relay->mirror->query();
    server.transport_.send(
        relay->rank,
        semaphoreMessage(relay->name, status,
                         now.ok() ? *now : timepoint.value,
                         relay->mirror->lastSignalerSlice()));
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
    bool zeroed = reader.get<uint8_t>() != 0 || reader.failed;
    std::lock_guard<std::mutex> lock(mutex_);
    Ref<hal::Device> device = devices_[deviceId];
    // A queue alloca's contents are undefined: its (reused) block is not
    // zeroed, which took ~1 ms per 64 MiB buffer.
    hal::StatusOr<Ref<Buffer>> buffer =
        device ? device->allocator().allocate(type, usage, size, zeroed)
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
    uint32_t count = reader.get<uint32_t>();
    std::lock_guard<std::mutex> lock(mutex_);
    for (uint32_t i = 0; i < count && !reader.failed; ++i) {
      uint64_t name = reader.get<uint64_t>();
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
    // The other ranks may be servers waiting for this rank's Shutdown:
    // MPI_Finalize would wait for them. End the job (mpirun stops them).
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
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
