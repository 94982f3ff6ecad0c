//===- MpiClient.h - rank 0's end of the mpi driver's messages -*- C++ -*-===//
//
// The Client is rank 0's side of the transport (docs/distributed.md): the
// requests waiting for a server's reply, the queue ops sent to servers and
// waiting for their Done, the semaphores named to servers and the values
// forwarded to their mirrors, the watchdog that declares a silent server
// lost, and the collection of the servers' traces. One per process, created
// with the first mpi device; the MpiDevices (MpiDevice.cpp) send through it.
//
// Thread safety: every method may be called from any thread (one lock);
// the transport's progress thread runs handle(), a semaphore's signalling
// thread runs the forwards.
// Failure behaviour: a server that stays silent for timeoutSeconds() while
// ops are pending fails every pending op (declareDead) and the job ends
// through MPI_Abort at shutdown.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_DRIVERS_MPI_MPICLIENT_H
#define FLEET_RUNTIME_DRIVERS_MPI_MPICLIENT_H

#include "drivers/mpi/MpiTransport.h"
#include "fleet/runtime/hal/Semaphore.h"
#include "fleet/runtime/hal/Trace.h"
#include "hal/QueueOp.h"

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>

namespace fleet::runtime::mpi {

using hal::Buffer;
using hal::FenceEntry;
using hal::QueueOp;
using hal::QueueOpKind;
using hal::Ref;
using hal::Semaphore;
using hal::Status;
using hal::StatusCode;

/// Reads a status field (i32 code, str message).
Status statusFrom(Reader &reader);

/// Rank 0's side of the transport: requests waiting for replies, ops
/// waiting for Done, semaphores forwarded to servers.
class Client {
public:
  static hal::StatusOr<Client *> get();

  Transport &transport() { return *transport_; }
  uint64_t nextId() { return nextId_.fetch_add(1); }

  /// Sends `message` and waits for the reply with `id` (Created, Loaded).
  Status request(int rank, std::vector<uint8_t> message, uint64_t id,
                 std::string_view what);
  /// The same for replies with data (TraceStarted, TraceData): the reply's
  /// bytes after its kind and id.
  hal::StatusOr<std::vector<uint8_t>> requestData(int rank,
                                                  std::vector<uint8_t> message,
                                                  uint64_t id,
                                                  std::string_view what);
  Status startTracing();
  Status collectTraces(hal::Tracer &tracer);

private:
  /// Sends `message` to `rank` and waits at most timeoutSeconds() for the
  /// reply that `handle` files under `id` in `replies`; none when the
  /// server stayed silent.
  /// Hands `value` to whoever awaits reply `id` in `replies` (if anyone).
  template <typename T>
  void fulfil(std::map<uint64_t, std::promise<T>> &replies, uint64_t id,
              T value) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = replies.find(id);
    if (it == replies.end())
      return;
    it->second.set_value(std::move(value));
    replies.erase(it);
  }
  template <typename T>
  std::optional<T> awaitReply(std::map<uint64_t, std::promise<T>> &replies,
                              int rank, std::vector<uint8_t> message,
                              uint64_t id);

public:

  /// How many semaphores are named to servers now (each has a mirror on
  /// one or more of them).
  size_t namedSemaphores() {
    std::lock_guard<std::mutex> lock(mutex_);
    return semaphores_.size();
  }

  /// Files `op`, sent to server `rank`, until its Done (or a failure).
  void addOp(uint64_t id, std::unique_ptr<QueueOp> op, int rank);
  /// Makes server `rank`'s mirror of `semaphore` reach `value` once rank
  /// 0's semaphore does (or fail with it).
  void forward(Semaphore &semaphore, uint64_t value, int rank);
  /// Writes `fence` for a message to `rank`: each semaphore by its name.
  /// `signals`: the op sent to `rank` signals the fence (the server then
  /// relays the values to other servers that wait on them).
  void putFence(Writer &writer, const hal::Fence *fence, int rank,
                bool signals = false);

  void shutdown();
  /// Ends op `opId` as a server's Done would (signals or fails its fence);
  /// `slice` is the server's trace slice of it (0: none).
  void complete(uint64_t opId, Status status, uint64_t slice = 0);
  /// Seconds a server may stay silent while work is pending
  /// (FLEET_MPI_TIMEOUT_S, default 30).
  static int timeoutSeconds();

private:
  void handle(int source, std::vector<uint8_t> &message);
  /// Pings the servers while ops are pending; fails every pending op when
  /// one does not answer within timeoutSeconds() (docs/distributed.md
  /// "Faults").
  void watch();
  void declareDead(int rank, int seconds);

  struct Forward {
    hal::Timepoint timepoint;
    Client *client;
    Ref<Semaphore> semaphore;
    int rank;
  };
  static void forwardReached(hal::Timepoint &timepoint, const Status &status);
  void sendState(Semaphore &semaphore, int rank, const Status &failure);

  Transport *transport_ = nullptr;
  std::atomic<uint64_t> nextId_{1};
  std::mutex mutex_;
  std::map<uint64_t, std::promise<Status>> replies_;
  std::map<uint64_t, std::promise<std::vector<uint8_t>>> dataReplies_;
  /// Per rank: server clock minus rank 0's (0 on the same host), and the
  /// uncertainty of that estimate (half the round trip), in ns.
  std::vector<int64_t> clockOffset_;
  std::vector<uint64_t> clockSkew_;
  std::vector<std::string> hostOf_;
  struct Pending {
    std::unique_ptr<QueueOp> op;
    int rank;
  };
  std::unordered_map<uint64_t, Pending> ops_;
  /// Highest value sent per (semaphore, rank) while it is named.
  std::map<std::pair<Semaphore *, int>, uint64_t> forwarded_;
  /// Every semaphore named to a server: its name (a fresh id, never
  /// reused, so a late message about an old name cannot reach a new
  /// semaphore's mirror), the ranks that have a mirror, and the server whose
  /// sent ops signal it (highest value), which relays its value to the other
  /// servers directly. Held, and dropped with a Forget to those ranks once
  /// no op is pending and nothing else holds it (sweepSemaphores).
  struct Named {
    Ref<Semaphore> semaphore;
    uint64_t name = 0;
    std::vector<int> ranks;
    int signalRank = 0;
    uint64_t signalValue = 0;
  };
  std::unordered_map<Semaphore *, Named> semaphores_;
  Named &nameLocked(Semaphore &semaphore, int rank);
  /// Drops the semaphores only the client holds, collecting their names
  /// per rank (for Forget messages).
  void sweepSemaphoresLocked(std::vector<Ref<Semaphore>> &dropped,
                             std::map<int, std::vector<uint64_t>> &forgets);
  /// Set when an op completes: the progress thread sweeps once it is idle
  /// (idle()), so neither a host thread completing an op of its own (an
  /// alloca) on its way to the next one nor the handler of a Done before
  /// its waiters run spends time on it (two Forgets sent on the host
  /// thread delayed each call of bench row MP3 by ~3 us).
  std::atomic<bool> sweepWanted_{false};
  void idle();
  bool shutDown_ = false;
  /// When each rank was last heard from (any message).
  std::vector<std::chrono::steady_clock::time_point> lastHeard_;
  std::vector<std::chrono::steady_clock::time_point> lastPing_;
  /// A server stopped answering: the job ends with MPI_Abort at shutdown,
  /// since MPI_Finalize would wait for it.
  std::atomic<bool> serverLost_{false};
  std::thread watchdog_;
  std::atomic<bool> stopWatch_{false};
};

/// The client once rank 0 created it (null before).
Client *currentClient();

} // namespace fleet::runtime::mpi

#endif // FLEET_RUNTIME_DRIVERS_MPI_MPICLIENT_H
