//===- MpiTransport.h - messages between ranks for remote devices -*- C++ -*-===//
//
// The process-wide MPI link of the mpi driver (docs/distributed.md): MPI is
// initialized once with MPI_THREAD_MULTIPLE; messages leave in the order
// given: the thread that gives a message posts it unless one given before
// still waits to be posted (then a sender thread posts it), and completes
// it when MPI does within a budget (a small one at once: MPI buffers it;
// one below kBulkBytes in about the time its bytes take), else the sender
// thread completes it, posting further chunks (non-blocking sends it
// waits for, so a large transfer never blocks the thread that gave it;
// waits test, then sleep, rather than spin for as long as they wait, as
// OpenMPI's blocking calls do), and a progress
// thread receives
// control messages and hands them to the installed handler, in arrival
// order except that an Urgent message may pass Deferrable ones
// (Order, below). The progress thread probes with MPI_Iprobe: back to back,
// yielding the core between probes, within FLEET_MPI_SPIN_US (default 2 ms)
// of the last message this rank sent or received; after that it sleeps
// between probes (at most 50 us while work is pending, backing off to 1 ms,
// and 5 ms after 100 ms without messages), so a waiting rank uses a small
// fraction of a core (OpenMPI's blocking receive spins).
// docs/distributed.md "Timelines across ranks".
//
// Message framing: a control message is one MPI message on kControlTag whose
// bytes are a MessageKind and its fields (Writer/Reader). Bulk bytes travel
// as chunks of at most kChunkBytes on a data tag the message names, posted
// right after it (the first chunk with it, the next ones by the sender
// thread as each completes), so the receiver's progress
// thread receives them in place (MPI_Recv into the buffer) after reading the
// control message.
//
// Thread safety: send() and sendWithData() may be called from any thread.
// The handler runs on the progress thread only.
// Failure behaviour: MPI errors abort the job (MPI's default handler), as
// mpirun then ends every rank. A rank that stops answering is the mpi
// driver's business (MpiDevice.cpp's watchdog), not the transport's.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_DRIVERS_MPI_MPITRANSPORT_H
#define FLEET_RUNTIME_DRIVERS_MPI_MPITRANSPORT_H

#include "fleet/runtime/hal/Status.h"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fleet::runtime::mpi {

constexpr int kControlTag = 1;
/// Data tags are kFirstDataTag + (n mod kDataTagCount).
constexpr int kFirstDataTag = 64;
constexpr int kDataTagCount = 1 << 20;
/// Bulk bytes move in chunks of at most this many bytes (below MPI's int
/// count limit, and large enough to reach the link's bandwidth).
constexpr uint64_t kChunkBytes = 16ull << 20;
/// Messages (control and bytes) at most this large are sent eagerly:
/// OpenMPI's shared-memory eager limit, below which MPI buffers a message
/// and the send completes at once, whether or not the receiver reads it.
constexpr uint64_t kEagerBytes = 4096;

/// Appends fields to a control message.
class Writer {
public:
  template <typename T> Writer &put(const T &value) {
    static_assert(std::is_trivially_copyable_v<T>);
    size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &value, sizeof(T));
    return *this;
  }
  Writer &putBytes(const void *data, uint64_t length) {
    put(length);
    size_t at = bytes.size();
    bytes.resize(at + length);
    if (length)
      std::memcpy(bytes.data() + at, data, length);
    return *this;
  }
  Writer &putString(std::string_view text) {
    return putBytes(text.data(), text.size());
  }
  std::vector<uint8_t> bytes;
};

/// Reads the fields of a control message; a short message sets `failed`
/// and yields zeros (the peer is the same build, so that is a bug, reported
/// by the caller).
class Reader {
public:
  explicit Reader(const std::vector<uint8_t> &bytes) : bytes_(bytes) {}
  template <typename T> T get() {
    T value{};
    if (at_ + sizeof(T) > bytes_.size()) {
      failed = true;
      return value;
    }
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  /// Bytes of a putBytes field, pointing into the message.
  std::pair<const uint8_t *, uint64_t> getBytes() {
    uint64_t length = get<uint64_t>();
    if (failed || at_ + length > bytes_.size()) {
      failed = true;
      return {nullptr, 0};
    }
    const uint8_t *data = bytes_.data() + at_;
    at_ += length;
    return {data, length};
  }
  std::string getString() {
    auto [data, length] = getBytes();
    return std::string(reinterpret_cast<const char *>(data), length);
  }
  bool failed = false;

private:
  const std::vector<uint8_t> &bytes_;
  size_t at_ = 0;
};

/// How a received control message may be reordered before it is handled
/// (Transport::start): the progress thread takes every message MPI has
/// ready and handles the first Urgent one that only Deferrable ones
/// precede, else the oldest.
enum class Order {
  /// Handled in arrival order; nothing passes it.
  Fifo,
  /// May be passed by an Urgent message (a device server's queue ops).
  Deferrable,
  /// May pass Deferrable messages (a server's Write bytes, semaphore
  /// values: what the device waits for).
  Urgent,
};

class Transport {
public:
  using Handler = std::function<void(int source, std::vector<uint8_t> &)>;
  using Classifier = std::function<Order(const std::vector<uint8_t> &)>;
  /// Runs on the progress thread when no message waits to be handled and
  /// the rank was quiet for 200 us, or at least every 1 ms: housekeeping
  /// kept off the paths that messages take. Cheap when there is nothing to
  /// do.
  using Idle = std::function<void()>;
  /// Whether `message` is the answer to a message just sent, which the
  /// thread that sent it may handle itself (sendWithData).
  using Answer = std::function<bool(const std::vector<uint8_t> &)>;

  /// The process's transport, MPI initialized on first use. Error when MPI
  /// cannot give MPI_THREAD_MULTIPLE.
  static hal::StatusOr<Transport *> get();

  int rank() const { return rank_; }
  int size() const { return size_; }

  /// Installs the handler and starts the progress thread (once); without
  /// a classifier every message is Fifo.
  void start(Handler handler, Classifier classifier = {}, Idle idle = {});

  /// Sends a control message to `destination` (never blocks on the
  /// receiver).
  void send(int destination, std::vector<uint8_t> message);
  /// Sends a control message followed by `length` bytes at `data` as
  /// chunks on `dataTag`; `data` must stay valid until `sent` runs (after
  /// the last chunk: on the sender thread, or on the calling thread when a
  /// small message completes at once, so `sent` must not expect either).
  /// Messages leave in the order of the calls that give them. With
  /// `answer`, when the calling thread completed the send itself (a copy
  /// below 4 MiB sent by rendezvous, within about the time its bytes take)
  /// and the next message handled would be one `answer` accepts, arriving
  /// within 10 us, the calling thread handles it (awaitAnswer).
  void sendWithData(int destination, std::vector<uint8_t> message,
                    const uint8_t *data, uint64_t length, int dataTag,
                    std::function<void()> sent = {},
                    const Answer &answer = {});
  /// Receives `length` bytes sent by sendWithData into `target` (blocking;
  /// called by the handler right after the control message).
  void receiveData(int source, uint8_t *target, uint64_t length, int dataTag);
  /// This host's name (gethostname; "?" when it cannot be read).
  static std::string hostName();
  /// A fresh data tag (rank 0 hands them out).
  int nextDataTag();
  /// Ops this rank waits for (rank 0) or runs (a server): while there are
  /// any, the progress thread polls at least every 50 us.
  void addPendingWork(int delta) { pendingWork_ += delta; }

  /// Sends what is queued, stops both threads and finalizes MPI. Idempotent.
  void shutdown();
  /// True once shutdown began or a handler asked to stop.
  bool stopping() const { return stopping_; }
  /// Makes the progress thread return (a device server's Shutdown).
  void requestStop();
  /// Blocks until the progress thread has stopped (a device server's main).
  void waitStopped();

private:
  Transport() = default;
  void senderLoop();
  void progressLoop();
  void noteActivity() {
    lastActivityNs_.store(
        std::chrono::steady_clock::now().time_since_epoch().count(),
        std::memory_order_relaxed);
  }
  std::chrono::steady_clock::time_point lastActivity() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(
            lastActivityNs_.load(std::memory_order_relaxed)));
  }

  /// A message given to send or sendWithData: posted by the thread that
  /// gave it when nothing given before waits to be posted, else by the
  /// sender thread; completed by the thread that posted it within its
  /// budget (below kBulkBytes), else by the sender thread (which posts the
  /// rest of its chunks).
  struct Outgoing {
    int destination;
    std::vector<uint8_t> message;
    const uint8_t *data = nullptr;
    uint64_t length = 0;
    int dataTag = 0;
    std::function<void()> sent;
    /// [0]: the control message's send, [1]: the chunk in flight's (one
    /// MPI_Testall tests both); and the bytes posted so far.
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    uint64_t posted = 0;
    bool isPosted = false;
  };
  /// Posts `next`'s control message and first chunk (under mutex_).
  void post(Outgoing &next);
  /// Posts every message in queue_ not posted yet, in order (under mutex_).
  void postQueued();

  /// Receives every control message MPI has ready into backlog_, without
  /// blocking; true when any came.
  bool drain();
  struct Received {
    int source;
    std::vector<uint8_t> message;
    Order order;
  };

  int rank_ = 0;
  int size_ = 1;
  Handler handler_;
  Classifier classifier_;
  Idle idle_;
  /// Held by the thread that drains and handles messages: the progress
  /// thread, or one in awaitAnswer.
  std::mutex handling_;
  /// Handles the message the progress thread would handle next, unless
  /// `accept` refuses it; false when none is ready or it was refused.
  /// Holding handling_.
  bool handleNext(const Answer &accept);
  /// A thread whose copy completed waits up to kAnswerPatience for the
  /// next message and handles it itself when `answer` accepts it (a
  /// server's Done for the copy comes ~1 us after its bytes). Nothing
  /// happens when another thread handles messages or shutdown began.
  void awaitAnswer(const Answer &answer);
  /// Received, not yet handled (by the thread holding handling_).
  std::deque<Received> backlog_;
  /// How many messages passed the oldest one in backlog_.
  uint32_t passedOldest_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable stopped_;
  std::deque<Outgoing> queue_;
  /// Whether the sender thread is completing a message it took off queue_.
  bool sending_ = false;
  /// Messages in queue_ not posted yet: while there are any, later ones
  /// queue behind them. Written under mutex_; the sender thread reads it
  /// without the lock between its tests.
  std::atomic<int> unposted_{0};
  /// Small messages being completed by the threads that posted them.
  int directPosts_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> pendingWork_{0};
  /// When this rank last sent or received a message (steady clock ns).
  std::atomic<int64_t> lastActivityNs_{0};
  bool progressDone_ = false;
  bool finalized_ = false;
  std::thread sender_;
  std::thread progress_;
  uint32_t nextTag_ = 0;
  uint32_t dataTagCount_ = kDataTagCount;
};

} // namespace fleet::runtime::mpi

#endif // FLEET_RUNTIME_DRIVERS_MPI_MPITRANSPORT_H
