//===- MpiClient.cpp - rank 0's end of the mpi driver's messages ----------===//

#include "drivers/mpi/MpiClient.h"

#include "drivers/mpi/MpiDevice.h"
#include "drivers/mpi/MpiProtocol.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace fleet::runtime::mpi {

namespace {
/// Set once rank 0 created its client (shutdownMpi does nothing before).
std::atomic<Client *> theClient{nullptr};
} // namespace

Client *currentClient() { return theClient.load(); }

Status statusFrom(Reader &reader) {
  auto code = StatusCode(reader.get<int32_t>());
  std::string message = reader.getString();
  return code == StatusCode::Ok ? Status() : Status(code, std::move(message));
}

hal::StatusOr<Client *> Client::get() {
  static Client *client = nullptr;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (client)
    return client;
  FLEET_ASSIGN_OR_RETURN(Transport * transport, Transport::get());
  if (transport->rank() != 0)
    return hal::makeStatus(StatusCode::FailedPrecondition,
                           "mpi devices are created by rank 0; rank ",
                           transport->rank(),
                           " runs a device server (fleet-run --serve)");
  client = new Client();
  client->transport_ = transport;
  auto now = std::chrono::steady_clock::now();
  client->lastHeard_.assign(size_t(transport->size()), now);
  client->lastPing_.assign(size_t(transport->size()), now);
  client->watchdog_ = std::thread([] { client->watch(); });
  transport->start(
      [](int source, std::vector<uint8_t> &message) {
        client->handle(source, message);
      },
      {}, [] { client->idle(); });
  // Servers wait for rank 0's Shutdown; a host program that exits without
  // calling shutdownMpi() still sends it.
  std::atexit([] { shutdownMpi(); });
  theClient = client;
  return client;
}

template <typename T>
std::optional<T>
Client::awaitReply(std::map<uint64_t, std::promise<T>> &replies, int rank,
                   std::vector<uint8_t> message, uint64_t id) {
  std::future<T> reply;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    reply = replies[id].get_future();
  }
  transport_->send(rank, std::move(message));
  // A server that does not answer is reported, not waited for forever.
  if (reply.wait_for(std::chrono::seconds(timeoutSeconds())) !=
      std::future_status::ready) {
    serverLost_ = true;
    return std::nullopt;
  }
  return reply.get();
}

static Status silentServer(int rank, std::string_view what) {
  return hal::makeStatus(StatusCode::DeadlineExceeded, "device mpi://", rank,
                         " did not answer within ", Client::timeoutSeconds(),
                         " s (", what, ")");
}

Status Client::request(int rank, std::vector<uint8_t> message, uint64_t id,
                       std::string_view what) {
  std::optional<Status> reply =
      awaitReply(replies_, rank, std::move(message), id);
  return reply ? *reply : silentServer(rank, what);
}

hal::StatusOr<std::vector<uint8_t>>
Client::requestData(int rank, std::vector<uint8_t> message, uint64_t id,
                    std::string_view what) {
  std::optional<std::vector<uint8_t>> reply =
      awaitReply(dataReplies_, rank, std::move(message), id);
  if (!reply)
    return silentServer(rank, what);
  return std::move(*reply);
}

Status Client::startTracing() {
  size_t size = size_t(transport_->size());
  clockOffset_.assign(size, 0);
  clockSkew_.assign(size, 0);
  hostOf_.assign(size, Transport::hostName());
  for (int rank = 1; rank < int(size); ++rank) {
    uint64_t id = nextId();
    Writer writer;
    writer.put(MessageKind::TraceStart).put(id);
    uint64_t sent = hal::monotonicNanoseconds();
    FLEET_ASSIGN_OR_RETURN(std::vector<uint8_t> reply,
                           requestData(rank, std::move(writer.bytes), id,
                                       "starting its trace"));
    uint64_t received = hal::monotonicNanoseconds();
    Reader reader(reply);
    uint64_t serverNow = reader.get<uint64_t>();
    hostOf_[size_t(rank)] = reader.getString();
    // The same host shares CLOCK_MONOTONIC; another host's offset is
    // estimated from this round trip (Cristian's method).
    if (hostOf_[size_t(rank)] != hostOf_[0]) {
      clockOffset_[size_t(rank)] =
          int64_t(serverNow) - int64_t(sent + (received - sent) / 2);
      clockSkew_[size_t(rank)] = (received - sent) / 2;
    }
  }
  return Status();
}

Status Client::collectTraces(hal::Tracer &tracer) {
  for (int rank = 1; rank < transport_->size(); ++rank) {
    uint64_t id = nextId();
    Writer writer;
    writer.put(MessageKind::TraceCollect).put(id);
    FLEET_ASSIGN_OR_RETURN(std::vector<uint8_t> reply,
                           requestData(rank, std::move(writer.bytes), id,
                                       "sending its trace"));
    Reader reader(reply);
    hal::RemoteTrace remote;
    remote.pid = rank + 1;
    int64_t offset = size_t(rank) < clockOffset_.size()
                         ? clockOffset_[size_t(rank)]
                         : 0;
    std::string host =
        size_t(rank) < hostOf_.size() ? hostOf_[size_t(rank)] : "?";
    remote.processName =
        offset || (size_t(rank) < clockSkew_.size() && clockSkew_[rank])
            ? hal::concat("rank ", rank, " (", host, "; clock offset ",
                          offset / 1000, " us, +-",
                          clockSkew_[size_t(rank)] / 1000, " us)")
            : hal::concat("rank ", rank, " (", host, ", same clock)");
    uint32_t tracks = reader.get<uint32_t>();
    for (uint32_t i = 0; i < tracks && !reader.failed; ++i)
      remote.tracks.push_back(reader.getString());
    uint32_t slices = reader.get<uint32_t>();
    for (uint32_t i = 0; i < slices && !reader.failed; ++i) {
      hal::TraceSlice slice;
      slice.id = reader.get<uint64_t>();
      slice.name = reader.getString();
      slice.track = reader.get<uint32_t>();
      slice.startNanoseconds = uint64_t(int64_t(reader.get<uint64_t>()) - offset);
      slice.endNanoseconds = uint64_t(int64_t(reader.get<uint64_t>()) - offset);
      slice.bytes = reader.get<uint64_t>();
      slice.failed = reader.get<uint8_t>() != 0;
      remote.slices.push_back(std::move(slice));
    }
    uint32_t flows = reader.get<uint32_t>();
    for (uint32_t i = 0; i < flows && !reader.failed; ++i) {
      uint64_t from = reader.get<uint64_t>();
      remote.flows.emplace_back(from, reader.get<uint64_t>());
    }
    if (reader.failed)
      return Status(StatusCode::Internal,
                    hal::concat("rank ", rank, " sent a malformed trace"));
    tracer.addRemote(std::move(remote));
  }
  return Status();
}

int Client::timeoutSeconds() {
  const char *env = std::getenv("FLEET_MPI_TIMEOUT_S");
  int seconds = env ? std::atoi(env) : 0;
  return seconds > 0 ? seconds : 30;
}

void Client::watch() {
  using Clock = std::chrono::steady_clock;
  const auto limit = std::chrono::seconds(timeoutSeconds());
  while (!stopWatch_) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int silent = -1;
    std::vector<int> ping;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto now = Clock::now();
      for (size_t rank = 1; rank < lastHeard_.size(); ++rank) {
        if (ops_.empty()) {
          // Idle servers owe no answer; the clock starts with work.
          lastHeard_[rank] = now;
          continue;
        }
        if (now - lastHeard_[rank] > limit) {
          silent = int(rank);
          break;
        }
        if (now - lastHeard_[rank] > limit / 4 &&
            now - lastPing_[rank] > limit / 4) {
          lastPing_[rank] = now;
          ping.push_back(int(rank));
        }
      }
    }
    for (int rank : ping) {
      Writer writer;
      writer.put(MessageKind::Ping).put(uint64_t(0));
      transport_->send(rank, std::move(writer.bytes));
    }
    if (silent > 0)
      declareDead(silent, timeoutSeconds());
  }
}

void Client::declareDead(int rank, int seconds) {
  serverLost_ = true;
  std::vector<uint64_t> ids;
  std::string named;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto &[id, pending] : ops_) {
      ids.push_back(id);
      if (named.empty() || pending.rank == rank)
        named = hal::concat(hal::queueOpName(pending.op->kind),
                            " on device '", pending.op->device->name(), "'");
    }
    lastHeard_[size_t(rank)] = std::chrono::steady_clock::now();
  }
  Status status = hal::makeStatus(StatusCode::DeadlineExceeded,
                                  "device mpi://", rank,
                                  " did not answer within ", seconds,
                                  " s (op ", named, ")");
  for (uint64_t id : ids)
    complete(id, status);
}

void Client::addOp(uint64_t id, std::unique_ptr<QueueOp> op, int rank) {
  transport_->addPendingWork(1);
  std::lock_guard<std::mutex> lock(mutex_);
  ops_[id] = Pending{std::move(op), rank};
}

Client::Named &Client::nameLocked(Semaphore &semaphore, int rank) {
  Named &named = semaphores_[&semaphore];
  if (!named.semaphore) {
    named.semaphore = Ref<Semaphore>(&semaphore);
    named.name = nextId();
  }
  if (std::find(named.ranks.begin(), named.ranks.end(), rank) ==
      named.ranks.end())
    named.ranks.push_back(rank);
  return named;
}

void Client::putFence(Writer &writer, const hal::Fence *fence, int rank,
                      bool signals) {
  uint32_t count = fence ? uint32_t(fence->entries().size()) : 0;
  writer.put(count);
  std::lock_guard<std::mutex> lock(mutex_);
  for (uint32_t i = 0; i < count; ++i) {
    const FenceEntry &entry = fence->entries()[i];
    Named &named = nameLocked(*entry.semaphore, rank);
    if (signals) {
      // The value is the highest that this rank's ops signal (another
      // rank's signals start over).
      named.signalValue = named.signalRank == rank
                              ? std::max(named.signalValue, entry.value)
                              : entry.value;
      named.signalRank = rank;
    }
    writer.put(named.name);
    writer.put(entry.value);
  }
}

void Client::sweepSemaphoresLocked(
    std::vector<Ref<Semaphore>> &dropped,
    std::map<int, std::vector<uint64_t>> &forgets) {
  for (auto it = semaphores_.begin(); it != semaphores_.end();) {
    if (it->second.semaphore->refCount() != 1) {
      ++it;
      continue;
    }
    for (int rank : it->second.ranks) {
      forgets[rank].push_back(it->second.name);
      forwarded_.erase({it->first, rank});
    }
    // Released by the caller after unlocking: a semaphore may hold the
    // last reference to its device, whose teardown must not run under the
    // client's lock.
    dropped.push_back(std::move(it->second.semaphore));
    it = semaphores_.erase(it);
  }
}

void Client::idle() {
  if (!sweepWanted_.exchange(false, std::memory_order_relaxed))
    return;
  std::vector<Ref<Semaphore>> dropped;
  std::map<int, std::vector<uint64_t>> forgets;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ops_.empty() && !shutDown_)
      sweepSemaphoresLocked(dropped, forgets);
  }
  dropped.clear();
  // Each Forget stays below MPI's eager limit: one that follows a Shutdown
  // (shutdown() may run meanwhile) is buffered, never waited for.
  constexpr size_t kNamesPerForget =
      (kEagerBytes - sizeof(MessageKind) - sizeof(uint32_t)) / sizeof(uint64_t);
  for (auto &[rank, names] : forgets)
    for (size_t first = 0; first < names.size(); first += kNamesPerForget) {
      size_t count = std::min(kNamesPerForget, names.size() - first);
      Writer writer;
      writer.put(MessageKind::Forget).put(uint32_t(count));
      for (size_t i = first; i < first + count; ++i)
        writer.put(names[i]);
      transport_->send(rank, std::move(writer.bytes));
    }
}

void Client::sendState(Semaphore &semaphore, int rank, const Status &failure) {
  uint64_t name = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = semaphores_.find(&semaphore);
    if (it == semaphores_.end())
      return; // Forgotten: no mirror waits for it any more.
    name = it->second.name;
  }
  if (!failure.ok() || semaphore.isFailed()) {
    Status status = failure.ok() ? semaphore.failureStatus() : failure;
    transport_->send(rank, semaphoreMessage(name, status, 0, 0));
    return;
  }
  hal::StatusOr<uint64_t> value = semaphore.query();
  if (!value.ok())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t &sent = forwarded_[{&semaphore, rank}];
    if (*value <= sent)
      return;
    sent = *value;
  }
  transport_->send(rank, semaphoreMessage(name, Status(), *value,
                                          semaphore.lastSignalerSlice()));
}

void Client::forwardReached(hal::Timepoint &timepoint, const Status &status) {
  std::unique_ptr<Forward> forward(static_cast<Forward *>(timepoint.userData));
  forward->client->sendState(*forward->semaphore, forward->rank, status);
}

void Client::forward(Semaphore &semaphore, uint64_t value, int rank) {
  int relayRank = 0;
  uint64_t name = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Named &named = nameLocked(semaphore, rank);
    auto it = forwarded_.find({&semaphore, rank});
    if (it != forwarded_.end() && it->second >= value)
      return;
    // Another server's ops signal it that far: that server tells `rank`
    // directly (Relay), without waiting for its Done to reach rank 0; rank
    // 0's own forward below still follows (a mirror only rises).
    if (named.signalRank > 0 && named.signalRank != rank &&
        named.signalValue >= value) {
      relayRank = named.signalRank;
      name = named.name;
    }
  }
  if (relayRank) {
    Writer writer;
    writer.put(MessageKind::Relay).put(name).put(value).put(int32_t(rank));
    transport_->send(relayRank, std::move(writer.bytes));
  }
  auto forward = std::make_unique<Forward>();
  forward->client = this;
  forward->semaphore = Ref<Semaphore>(&semaphore);
  forward->rank = rank;
  forward->timepoint.value = value;
  forward->timepoint.callback = &Client::forwardReached;
  forward->timepoint.userData = forward.get();
  Status reached;
  if (semaphore.enqueueTimepoint(forward->timepoint, reached)) {
    (void)forward.release(); // forwardReached owns it now.
    return;
  }
  sendState(semaphore, rank, reached);
}

void Client::complete(uint64_t opId, Status status, uint64_t slice) {
  std::unique_ptr<QueueOp> op;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = ops_.find(opId);
    if (it == ops_.end())
      return;
    op = std::move(it->second.op);
    ops_.erase(it);
  }
  transport_->addPendingWork(-1);
  // The op's signal fence outlives it here: it holds the semaphores until
  // their waiters ran (signals.fire() below).
  Ref<hal::Fence> signal = op->signal;
  hal::Device &device = *op->device;
  device.noteExecuted(!status.ok(), 0);
  // The server's device ran the dispatches; its statistics stay there, so
  // rank 0 counts those of the command buffers it sent (a split execute's
  // steps carry only their own commands). Busy time is not known here.
  if (status.ok() && op->kind == hal::QueueOpKind::Execute) {
    uint64_t dispatches = 0;
    op->forEachCommandBuffer([&](const hal::CommandBuffer &buffer) {
      dispatches += buffer.dispatchCount();
    });
    device.noteDispatches(dispatches);
  }
  // An op without a slice of its own (one rank 0 completes) passes on the
  // slice of what it waited for, so the trace's arrow goes through it.
  if (!slice)
    slice = (op->wait ? op->wait->lastSignalerSlice() : 0);
  // The op lets go of its buffers and retires once its fences hold their
  // values, and before what waits on them runs: a host thread that wakes on
  // a value and then waits for idle (on this thread's core) does not block
  // again (~10 us of a 1 MiB transfer's call). A value a waiter forwards
  // to a server may then follow a Shutdown; the server stops reading there
  // (nothing of its waits on it: what did kept the device busy).
  hal::DeferredSignals signals;
  if (op->signal) {
    if (status.ok()) {
      for (const FenceEntry &entry : op->signal->entries()) {
        hal::StatusOr<uint64_t> now = entry.semaphore->query();
        if (now.ok() && *now >= entry.value)
          continue;
        // What waits on it in rank 0 draws its arrow from the server's op.
        if (slice)
          entry.semaphore->setLastSignalerSlice(slice);
        Status signalled = signals.add(*entry.semaphore, entry.value);
        if (!signalled.ok() && !entry.semaphore->isFailed())
          entry.semaphore->fail(signalled);
      }
    } else {
      op->signal->fail(status);
    }
  }
  Ref<hal::Device> keep = op->device;
  op.reset();
  keep->noteRetired();
  signals.fire(); // `signal` holds the semaphores.
  // What only the client still holds is swept on the progress thread once
  // it is idle (idle()), not on the way of this op's waiters.
  sweepWanted_.store(true, std::memory_order_relaxed);
}

void Client::handle(int source, std::vector<uint8_t> &message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (size_t(source) < lastHeard_.size())
      lastHeard_[size_t(source)] = std::chrono::steady_clock::now();
  }
  Reader reader(message);
  auto kind = reader.get<MessageKind>();
  switch (kind) {
  case MessageKind::Pong:
    return;
  case MessageKind::Created:
  case MessageKind::Loaded: {
    uint64_t id = reader.get<uint64_t>();
    return fulfil(replies_, id, statusFrom(reader));
  }
  case MessageKind::TraceStarted:
  case MessageKind::TraceData: {
    uint64_t id = reader.get<uint64_t>();
    return fulfil(dataReplies_, id,
                  std::vector<uint8_t>(message.begin() + 1 + sizeof(uint64_t),
                                       message.end()));
  }
  case MessageKind::Done: {
    uint64_t opId = reader.get<uint64_t>();
    Status status = statusFrom(reader);
    complete(opId, std::move(status), reader.get<uint64_t>());
    return;
  }
  case MessageKind::ReadData: {
    uint64_t opId = reader.get<uint64_t>();
    Status status = statusFrom(reader);
    uint64_t length = reader.get<uint64_t>();
    int tag = reader.get<int32_t>();
    uint64_t slice = reader.get<uint64_t>();
    if (status.ok()) {
      // The buffer is held while the bytes come: a lost server's ops may be
      // failed (and freed) meanwhile.
      Ref<Buffer> held;
      uint8_t *target = nullptr;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = ops_.find(opId);
        if (it != ops_.end()) {
          held = it->second.op->target;
          target = held->storage() + it->second.op->targetOffset;
        }
      }
      std::vector<uint8_t> scratch;
      if (!target) {
        scratch.resize(length);
        target = scratch.data();
      }
      transport_->receiveData(source, target, length, tag);
      std::lock_guard<std::mutex> lock(mutex_);
      lastHeard_[size_t(source)] = std::chrono::steady_clock::now();
    }
    complete(opId, std::move(status), slice);
    return;
  }
  default:
    std::fprintf(stderr, "fleet mpi: rank 0 got an unexpected message "
                         "(kind %d) from rank %d\n",
                 int(kind), source);
  }
}

void Client::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shutDown_)
      return;
    shutDown_ = true;
  }
  // Ops still pending finish first (a server's late bytes need rank 0's
  // progress thread); the watchdog fails them if a server is lost.
  for (int waited = 0; waited < timeoutSeconds() * 1000 + 1000; ++waited) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (ops_.empty())
        break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!ops_.empty())
      serverLost_ = true;
  }
  stopWatch_ = true;
  if (watchdog_.joinable() &&
      watchdog_.get_id() != std::this_thread::get_id())
    watchdog_.join();
  if (serverLost_) {
    // MPI_Finalize would wait for the lost server: end the job instead
    // (mpirun then stops every rank).
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int rank = 1; rank < transport_->size(); ++rank) {
    Writer writer;
    writer.put(MessageKind::Shutdown);
    transport_->send(rank, std::move(writer.bytes));
  }
  transport_->shutdown();
}

hal::Status startRemoteTracing() {
  if (Client *client = theClient.load())
    return client->startTracing();
  return hal::Status();
}

hal::Status collectRemoteTraces(hal::Tracer &tracer) {
  if (Client *client = theClient.load())
    return client->collectTraces(tracer);
  return hal::Status();
}

void shutdownMpi() {
  if (Client *client = theClient.load())
    client->shutdown();
}

} // namespace fleet::runtime::mpi
