//===- MpiServer.h - a rank that runs devices for rank 0 --------*- C++ -*-===//
//
// `fleet-run --serve` (docs/distributed.md): the Server creates the devices
// rank 0 asks for, loads the executables it sends, and runs the queue ops it
// forwards on them, with mirrors of rank 0's semaphores as their fences.
// Each op also signals a private completion semaphore whose timepoint
// reports the op (Done, or ReadData with the bytes) to rank 0. Messages are
// handled on the transport's progress thread (MpiServer.cpp); the queue ops
// and the copies between ranks are in MpiServerOps.cpp.
//
// Thread safety: handle() runs on the progress thread only; device threads
// reach the server through completion callbacks, which take its lock.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_DRIVERS_MPI_MPISERVER_H
#define FLEET_RUNTIME_DRIVERS_MPI_MPISERVER_H

#include "drivers/mpi/MpiProtocol.h"
#include "drivers/mpi/MpiTransport.h"
#include "fleet/runtime/hal/CommandBuffer.h"
#include "fleet/runtime/hal/Device.h"
#include "fleet/runtime/hal/ExecutableLoader.h"
#include "fleet/runtime/hal/Semaphore.h"
#include "fleet/runtime/hal/Trace.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fleet::runtime::mpi {

using hal::Buffer;
using hal::Ref;
using hal::Semaphore;
using hal::Status;
using hal::StatusCode;

/// OK when `length` bytes at `offset` of `buffer` exist now (a copy with a
/// side in another process checks this when its bytes move).
Status checkRange(const hal::Buffer *buffer, uint64_t offset, uint64_t length,
                  std::string_view role);

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

} // namespace fleet::runtime::mpi

#endif // FLEET_RUNTIME_DRIVERS_MPI_MPISERVER_H
