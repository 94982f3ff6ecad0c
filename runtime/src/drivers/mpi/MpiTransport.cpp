//===- MpiTransport.cpp - messages between ranks for remote devices -------===//

#include "drivers/mpi/MpiTransport.h"

#include <mpi.h>

#include <algorithm>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <functional>

namespace fleet::runtime::mpi {

namespace {

/// Messages this large keep the progress thread spinning while they move
/// (waitQuietly). Smaller ones do not: a progress thread spinning through
/// every activation's rendezvous took the cores of the transformer's device
/// workers (bench row MP1 0.65 -> 0.57).
constexpr uint64_t kBulkBytes = 4ull << 20;

/// Completes `request`, a message of `bytes` bytes, without holding a core
/// for long when the peer is not there: OpenMPI's blocking calls busy-poll
/// for as long as they wait, which on a loaded host steals the core from
/// the device workers. `spinning` runs between tests while it spins, for
/// messages of kBulkBytes or more; `between`, when given, between any two
/// tests.
void waitQuietly(MPI_Request &request, uint64_t bytes,
                 const std::function<void()> &spinning,
                 const std::function<void()> &between = {}) {
  // Shared memory moves a message fragment by fragment, and only while both
  // sides call into MPI: test back to back for 5 ms plus the time the bytes
  // take at 0.5 GB/s (sleeping between tests while the bytes flowed
  // throttled a 64 MiB transfer from 13 to ~95 ms, a fragment or two per
  // wake-up; yielding the core between tests let a device worker keep it
  // for its whole slice and made bench row MP1 0.55-0.60 instead of
  // 0.64-0.66). Past that budget the peer is elsewhere (a rendezvous the
  // other side has not reached yet): sleep between tests.
  auto start = std::chrono::steady_clock::now();
  auto spinUntil = start + std::chrono::milliseconds(5) +
                   std::chrono::microseconds(bytes / 500);
  std::chrono::microseconds pause(5);
  int done = 0;
  while (true) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done)
      return;
    if (between)
      between();
    if (std::chrono::steady_clock::now() < spinUntil) {
      if (bytes >= kBulkBytes)
        spinning();
      continue;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(200));
  }
}

/// Sets up a transport thread: its name (`name`, seen in top and /proc),
/// 1 us timer slack, a 100 us scheduler slice, and with FLEET_MPI_NICE=N
/// nice N. A device worker sharing its core with a polling thread ran its
/// kernels ~1.6x slower, and nice 19 gave that back, but delayed the
/// messages the other rank waits for more than it saved
/// (docs/distributed.md "Measured"), so the default leaves the priority
/// alone.
void configureThread(const char *name) {
  prctl(PR_SET_NAME, name, 0, 0, 0);
  // Short sleeps between polls are what a message waits for: Linux's
  // default 50 us timer slack would stretch each.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  // A short scheduler slice, FLEET_MPI_SLICE_US (default 100 us; 0 leaves
  // the kernel's): on EEVDF (Linux 6.12+; sched_attr.sched_runtime of a
  // SCHED_OTHER thread, no privilege needed; older kernels ignore it) a
  // woken thread with a shorter slice preempts a device worker that holds
  // the core, where it otherwise waited up to ~3.7 ms for the worker's
  // slice to end. Bench row MP1: 0.72-0.76 -> 0.84-0.87.
  static const long sliceUs = [] {
    const char *env = std::getenv("FLEET_MPI_SLICE_US");
    return env ? std::max(0L, std::atol(env)) : 100L;
  }();
  struct { // The kernel's struct sched_attr (linux/sched/types.h).
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
    uint32_t sched_util_min, sched_util_max;
  } attr;
  std::memset(&attr, 0, sizeof(attr));
  // Only the slice changes: the policy and nice the thread inherited (a
  // user's `nice` or `chrt`) stay; a real-time or idle thread keeps its
  // policy and gets no slice.
  if (sliceUs &&
      syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) == 0 &&
      (attr.sched_policy == SCHED_OTHER || attr.sched_policy == SCHED_BATCH)) {
    attr.size = sizeof(attr);
    attr.sched_flags = 0;
    attr.sched_runtime = uint64_t(sliceUs) * 1000; // ns
    (void)syscall(SYS_sched_setattr, 0, &attr, 0);
  }
  const char *env = std::getenv("FLEET_MPI_NICE");
  if (!env)
    return;
  (void)setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)),
                    std::atoi(env));
}

/// How long the progress thread spins after this rank last sent or
/// received a message (FLEET_MPI_SPIN_US, default 2000 us; 0: never).
std::chrono::microseconds spinWindow() {
  static const std::chrono::microseconds window([] {
    const char *env = std::getenv("FLEET_MPI_SPIN_US");
    return env ? std::max(0L, std::atol(env)) : 2000L;
  }());
  return window;
}

/// Whether this thread holds Transport::handling_ (a handler that sends
/// does not wait for answers itself).
thread_local bool handlingHere = false;

/// How long a thread whose copy completed waits for its answer
/// (Transport::awaitAnswer).
constexpr std::chrono::microseconds kAnswerPatience(10);

} // namespace

hal::StatusOr<Transport *> Transport::get() {
  static Transport *transport = nullptr;
  static hal::Status failure;
  static std::once_flag once;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = 0;
    if (!initialized)
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    else
      MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      failure = hal::makeStatus(
          hal::StatusCode::Unavailable,
          "MPI gives thread level ", provided,
          ", not MPI_THREAD_MULTIPLE, which the mpi driver needs");
      return;
    }
    auto *created = new Transport();
    MPI_Comm_rank(MPI_COMM_WORLD, &created->rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &created->size_);
    // Data tags wrap below the implementation's MPI_TAG_UB (MPI promises
    // only 32767).
    int *tagUpperBound = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagUpperBound, &found);
    if (found && tagUpperBound)
      created->dataTagCount_ = std::min<uint32_t>(
          kDataTagCount, uint32_t(*tagUpperBound - kFirstDataTag + 1));
    created->sender_ = std::thread([created] { created->senderLoop(); });
    transport = created;
  });
  if (!transport)
    return failure;
  return transport;
}

void Transport::start(Handler handler, Classifier classifier, Idle idle) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (progress_.joinable())
    return;
  handler_ = std::move(handler);
  classifier_ = std::move(classifier);
  idle_ = std::move(idle);
  progress_ = std::thread([this] { progressLoop(); });
}

void Transport::send(int destination, std::vector<uint8_t> message) {
  sendWithData(destination, std::move(message), nullptr, 0, 0, {});
}

void Transport::sendWithData(int destination, std::vector<uint8_t> message,
                             const uint8_t *data, uint64_t length,
                             int dataTag, std::function<void()> sent,
                             const Answer &answer) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (finalized_)
    return;
  Outgoing next{destination, std::move(message), data, length, dataTag,
                std::move(sent)};
  noteActivity(); // The answer may come soon: the progress thread spins.
  auto toSender = [&] { // (under the lock)
    queue_.push_back(std::move(next));
    wake_.notify_all();
  };
  if (unposted_) {
    // After a message not posted yet: the sender thread posts it.
    ++unposted_;
    return toSender();
  }
  // The calling thread posts it (under the lock: messages leave in the
  // order given), so no wake-up of the sender thread delays it, and
  // completes it itself when MPI does within a budget; past the budget (a
  // receiver not there yet, a rank that stopped reading) the sender thread
  // completes it: the calling thread never blocks on the receiver.
  // - A small message: MPI buffers it, so it completes at once (budget 100
  //   us). No wake-up saves ~6 us of each Done's way back, milliseconds
  //   where a device worker holds the core.
  // - Larger, sent by rendezvous: the receiver matches it at once; the
  //   budget is the time it takes at 4 GB/s (half what shared memory
  //   moves here) plus 20 us (1 MiB: 282 us, 128 KiB: 53 us). A woken
  //   sender thread driving the bytes preempted a host thread on its way to
  //   wait, which then ended its submission after them: 0.150-0.154 ->
  //   0.143-0.148 ms per call of bench row MP3-1MiB. A fixed 300 us budget
  //   kept device A's worker spinning for activations that device B's busy
  //   server was not receiving yet (MP1 0.85 -> 0.81, means of five runs).
  // - kBulkBytes or more: the sender thread completes it (and posts its
  //   further chunks), while the progress thread spins.
  uint64_t bytes = next.message.size() + length;
  bool rendezvous = bytes > kEagerBytes;
  post(next);
  if (length >= kBulkBytes)
    return toSender();
  ++directPosts_;
  lock.unlock();
  auto budget = std::chrono::microseconds(
      rendezvous ? 20 + int64_t(bytes / 4000) : 100);
  int done = 0;
  auto until = std::chrono::steady_clock::now() + budget;
  do
    MPI_Testall(2, next.requests, &done, MPI_STATUSES_IGNORE);
  while (!done && std::chrono::steady_clock::now() < until);
  lock.lock();
  --directPosts_;
  stopped_.notify_all(); // shutdown() waits for direct posts,
  if (finalized_)
    wake_.notify_all(); // and so does the sender thread before it exits
                        // (not woken otherwise: each wake-up costs a
                        // context switch on a busy core).
  if (!done)
    return toSender();
  lock.unlock();
  if (next.sent)
    next.sent();
  if (rendezvous && answer)
    awaitAnswer(answer);
}

void Transport::awaitAnswer(const Answer &answer) {
  // The answer then reaches the thread that waits for it without two
  // switches on a shared core (this thread on its way to wait, the progress
  // thread): 0.143-0.149 -> 0.139-0.142 ms per call of bench row
  // MP3-1MiB.
  if (handlingHere || stopping_)
    return;
  std::unique_lock<std::mutex> turn(handling_, std::try_to_lock);
  // shutdown() sets stopping_ and then takes handling_ before MPI ends.
  if (!turn.owns_lock() || stopping_)
    return;
  handlingHere = true;
  auto until = std::chrono::steady_clock::now() + kAnswerPatience;
  do {
    if (drain() || !backlog_.empty()) {
      if (handleNext(answer))
        noteActivity();
      break;
    }
  } while (std::chrono::steady_clock::now() < until);
  handlingHere = false;
}

void Transport::postQueued() {
  if (!unposted_)
    return;
  for (Outgoing &queued : queue_)
    if (!queued.isPosted)
      post(queued);
  unposted_ = 0;
}

void Transport::post(Outgoing &next) {
  MPI_Isend(next.message.data(), int(next.message.size()), MPI_BYTE,
            next.destination, kControlTag, MPI_COMM_WORLD, &next.requests[0]);
  next.posted = 0;
  next.requests[1] = MPI_REQUEST_NULL;
  if (next.length) {
    next.posted = std::min(kChunkBytes, next.length);
    MPI_Isend(next.data, int(next.posted), MPI_BYTE, next.destination,
              next.dataTag, MPI_COMM_WORLD, &next.requests[1]);
  }
  next.isPosted = true;
}

std::string Transport::hostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0)
    return "?";
  return name;
}

int Transport::nextDataTag() {
  std::lock_guard<std::mutex> lock(mutex_);
  return kFirstDataTag + int(nextTag_++ % dataTagCount_);
}

void Transport::receiveData(int source, uint8_t *target, uint64_t length,
                            int dataTag) {
  auto keepSpinning = [this] { noteActivity(); };
  for (uint64_t done = 0; done < length;) {
    int count = int(std::min(kChunkBytes, length - done));
    MPI_Request request;
    MPI_Irecv(target + done, count, MPI_BYTE, source, dataTag,
              MPI_COMM_WORLD, &request);
    waitQuietly(request, uint64_t(count), keepSpinning);
    done += uint64_t(count);
  }
}

void Transport::senderLoop() {
  configureThread("fleet-mpi-send");
  // While bytes flow this rank's progress thread spins too (spinWindow):
  // one waking from sleeps every 50 us slowed a 64 MiB transfer from 9.5
  // to 11.3 ms.
  auto keepSpinning = [this] { noteActivity(); };
  // While it waits for one message, what was given meanwhile is posted: it
  // does not wait behind a large transfer (or a rank that stopped reading).
  auto postGiven = [this] {
    if (!unposted_.load(std::memory_order_relaxed))
      return;
    std::lock_guard<std::mutex> lock(mutex_);
    postQueued();
  };
  while (true) {
    Outgoing next;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Once finalized, it exits when nothing is queued and no direct post
      // may still hand it a message.
      wake_.wait(lock, [&] {
        return !queue_.empty() || (finalized_ && !directPosts_);
      });
      if (queue_.empty())
        return;
      // Post what waits to be posted, in order, then complete the oldest.
      postQueued();
      next = std::move(queue_.front());
      queue_.pop_front();
      sending_ = true;
    }
    waitQuietly(next.requests[0], next.message.size(), keepSpinning,
                postGiven);
    for (uint64_t done = 0; done < next.length;) {
      uint64_t count = next.posted - done;
      waitQuietly(next.requests[1], count, keepSpinning, postGiven);
      done = next.posted;
      if (done == next.length)
        break;
      next.posted = done + std::min(kChunkBytes, next.length - done);
      MPI_Isend(next.data + done, int(next.posted - done), MPI_BYTE,
                next.destination, next.dataTag, MPI_COMM_WORLD,
                &next.requests[1]);
    }
    noteActivity(); // The answer may come soon: the progress thread spins.
    if (next.sent)
      next.sent();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sending_ = false;
      if (queue_.empty())
        stopped_.notify_all(); // shutdown() waits until all is sent.
    }
  }
}

void Transport::progressLoop() {
  configureThread("fleet-mpi-poll");
  // Spin while messages flow (spinWindow), else poll, then sleep: at most
  // 50 us while work is pending (pendingWork) or a message came in the last
  // 20 ms; else doubling to 1 ms, and 5 ms once nothing came for 100 ms (an
  // idle rank then costs ~1.5% of a core; the first message after a long
  // pause waits up to 5 ms).
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  microseconds pause(10);
  auto lastMessage = std::chrono::steady_clock::now();
  // Housekeeping (idle_) once this rank was quiet for 200 us, or every 1 ms
  // while messages keep flowing: not at once, when the thread that waits
  // for what the last message brought may need this core (~1.5 us of each
  // call of bench row MP3-1MiB).
  auto lastIdle = lastMessage;
  auto housekeep = [&](std::chrono::steady_clock::time_point now,
                       bool quiet) {
    if (idle_ && (quiet || now - lastIdle >= milliseconds(1))) {
      lastIdle = now;
      idle_();
    }
  };
  while (!stopping_) {
    std::unique_lock<std::mutex> turn(handling_, std::try_to_lock);
    if (!turn.owns_lock()) { // Another thread handles its answer.
      sched_yield();
      continue;
    }
    if (!drain() && backlog_.empty()) {
      turn.unlock();
      auto now = std::chrono::steady_clock::now();
      housekeep(now, now - lastActivity() >= microseconds(200));
      // While messages flow, the next one usually follows within
      // microseconds (an answer, the next op): spin, yielding the core to
      // any runnable thread (a device worker) between probes. A sleep here
      // lasts ~90 us on a loaded host and each wake-up preempts a worker.
      if (now - lastActivity() < spinWindow()) {
        sched_yield();
        continue;
      }
      std::this_thread::sleep_for(pause);
      auto quiet = std::chrono::steady_clock::now() - lastMessage;
      static const microseconds busyCap([] {
        const char *env = std::getenv("FLEET_MPI_POLL_US");
        int us = env ? std::atoi(env) : 0;
        return us > 0 ? us : 50;
      }());
      microseconds cap = pendingWork_.load() > 0 || quiet < milliseconds(20)
                             ? busyCap
                         : quiet < milliseconds(100) ? microseconds(1000)
                                                     : microseconds(5000);
      pause = std::min(pause * 2, cap);
      continue;
    }
    pause = microseconds(10);
    lastMessage = std::chrono::steady_clock::now();
    noteActivity();
    handlingHere = true;
    handleNext({});
    handlingHere = false;
    turn.unlock();
    housekeep(std::chrono::steady_clock::now(), false);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  progressDone_ = true;
  stopped_.notify_all();
}

bool Transport::handleNext(const Answer &accept) {
  if (backlog_.empty())
    return false;
  // The first Urgent message that only Deferrable ones precede, else the
  // oldest; the oldest also once kMaxPasses messages passed it, so a
  // steady stream of Urgent ones cannot hold a queue op back for ever.
  constexpr uint32_t kMaxPasses = 64;
  auto next = backlog_.begin();
  if (passedOldest_ < kMaxPasses)
    for (auto it = backlog_.begin(); it != backlog_.end(); ++it) {
      if (it->order == Order::Urgent) {
        next = it;
        break;
      }
      if (it->order != Order::Deferrable)
        break;
    }
  if (accept && !accept(next->message))
    return false;
  passedOldest_ = next == backlog_.begin() ? 0 : passedOldest_ + 1;
  Received received = std::move(*next);
  backlog_.erase(next);
  handler_(received.source, received.message);
  return true;
}

bool Transport::drain() {
  bool any = false;
  while (true) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kControlTag, MPI_COMM_WORLD, &flag, &status);
    if (!flag)
      return any;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    Received received{status.MPI_SOURCE,
                      std::vector<uint8_t>(static_cast<size_t>(count)),
                      Order::Fifo};
    MPI_Recv(received.message.data(), count, MPI_BYTE, status.MPI_SOURCE,
             kControlTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (classifier_)
      received.order = classifier_(received.message);
    backlog_.push_back(std::move(received));
    any = true;
  }
}

void Transport::requestStop() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopping_ = true;
}

void Transport::waitStopped() {
  std::unique_lock<std::mutex> lock(mutex_);
  stopped_.wait(lock, [&] { return progressDone_ || !progress_.joinable(); });
}

void Transport::shutdown() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (finalized_)
      return;
    // What is queued goes out first (a Shutdown message among it).
    stopped_.wait(lock, [&] {
      return queue_.empty() && !sending_ && !directPosts_;
    });
    stopping_ = true;
  }
  if (progress_.joinable() && progress_.get_id() != std::this_thread::get_id())
    progress_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finalized_ = true;
    wake_.notify_all();
  }
  if (sender_.joinable())
    sender_.join();
  if (!handlingHere) {
    // A thread still handling its answer (awaitAnswer) leaves MPI first;
    // later ones see stopping_.
    std::lock_guard<std::mutex> turn(handling_);
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

} // namespace fleet::runtime::mpi
