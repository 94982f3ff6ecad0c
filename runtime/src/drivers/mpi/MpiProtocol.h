//===- MpiProtocol.h - control messages of the mpi driver --------*- C++ -*-===//
//
// What rank 0 (the host program, MpiDevice) and a device server (another
// rank, MpiServer) say to each other (docs/distributed.md
// "What crosses the network"). Each
// control message starts with its MessageKind; fields follow in the order
// listed, written with Writer and read with Reader (MpiTransport.h).
//
//   rank 0 -> server
//     CreateDevice   u32 device, str uri
//     LoadExecutable u32 device, u64 executable, str name, str format,
//                    library (str
//                    name, str cpu, u32 n + n str features, i64 abi, u64
//                    checksum), bytes object, u32 exports + per export (str
//                    name, str symbol, u8 has layout, u32 bindings, u32
//                    constants)
//     Allocate       u32 device, u64 buffer, u64 size, u32 type, u32 usage,
//                    u8 zeroed (0: a queue alloca's undefined contents)
//     Free           u64 buffer
//     Op             u32 device, u64 op, u8 RemoteOpKind, u64 queue index,
//                    waits, signals (u32 n + n x (u64 semaphore, u64 value)),
//                    then the kind's fields (MpiDevice.cpp encodeOp)
//     Signal         u64 semaphore, u64 value, u64 slice (the trace slice
//                    that signalled it, 0 untraced); also server -> server
//                    (Relay)
//     FailSemaphore  u64 semaphore, i32 code, str message
//     Shutdown
//   server -> rank 0
//     PeerData       i32 tag, i32 code, str message, u64 length (and, when
//                    code is 0, the bytes as chunks on tag), to the rank
//                    that receives a PeerSend's bytes
//     Created        u64 device, i32 code, str message
//     Loaded         u64 executable, i32 code, str message
//     Done           u64 op, i32 code, str message, u64 slice (the trace
//                    slice of the device op that ran it, 0 untraced)
//     ReadData       u64 op, i32 code, str message, u64 length, i32 tag,
//                    u64 slice (and, when code is 0, the bytes as chunks on
//                    tag)
//
// Trace slice ids are unique across the ranks (a server's start at its rank
// << 48), so Signal and Done carry the slice that signalled a semaphore and
// the trace draws arrows between ranks (docs/distributed.md "Trace").
//
// Semaphores are named by a fresh id that rank 0 gives a semaphore when
// it first names it to a server and never reuses; a server keeps one mirror
// semaphore per name.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_DRIVERS_MPI_MPIPROTOCOL_H
#define FLEET_RUNTIME_DRIVERS_MPI_MPIPROTOCOL_H

#include "drivers/mpi/MpiTransport.h"

#include <cstdint>
#include <vector>

namespace fleet::runtime::mpi {

enum class MessageKind : uint8_t {
  CreateDevice,
  Created,
  LoadExecutable,
  Loaded,
  Allocate,
  Free,
  Op,
  Done,
  ReadData,
  Signal,
  FailSemaphore,
  Shutdown,
  PeerData,
  /// rank 0 -> server: u64 sequence; the server answers Pong with it from
  /// its progress thread (a stopped or hung server does not).
  Ping,
  Pong,
  /// rank 0 -> server: u32 n + n x u64 semaphore; their mirrors go (names
  /// are never reused: a later message about one is stale).
  Forget,
  /// rank 0 -> server: u64 request. The server records a trace and
  /// answers TraceStarted: u64 request, u64 its monotonic clock (ns), str
  /// its host name.
  TraceStart,
  TraceStarted,
  /// rank 0 -> server: u64 request. The server stops recording and answers
  /// TraceData: u64 request, u32 n + n str track names, u32 m + m slices
  /// (u64 id, str name, u32 track, u64 start ns, u64 end ns, u64 bytes, u8
  /// failed), u32 k + k arrows (u64 from, u64 to). A server's slice ids
  /// start at its rank << 48; an arrow's `from` may be rank 0's slice.
  TraceCollect,
  TraceData,
  /// rank 0 -> server: u64 semaphore, u64 value, i32 rank. This server's
  /// ops signal the semaphore; once its mirror reaches `value` (or fails),
  /// it sends Signal (or FailSemaphore) to `rank` itself, so a wait between
  /// two servers does not go through rank 0.
  Relay,
};

/// Queue ops as the server runs them. Write and Read are copies with one
/// side in rank 0's memory: rank 0 sends the bytes once the op's wait fence
/// is reached (Write: u64 buffer, u64 offset, u64 length, i32 tag, u64
/// slice of what the wait fence waited for), or the server sends them once
/// it is (Read). Allocas and deallocas are no server ops: rank 0 sends
/// Allocate when it submits one and Free once a dealloca's wait fence is
/// reached.
enum class RemoteOpKind : uint8_t {
  Execute,
  Copy,
  Fill,
  Update,
  Barrier,
  Write,
  Read,
  /// A copy between two servers' memories: the source's server sends the
  /// bytes once its wait fence is reached (PeerSend, u64 buffer, u64 offset,
  /// u64 length, i32 peer rank, i32 tag), the target's server receives them
  /// and signals (PeerRecv, same fields with the source rank).
  PeerSend,
  PeerRecv,
};

/// A buffer operand of an Execute: a remote buffer or a binding-table slot.
constexpr uint64_t kSlotBuffer = 0;

/// A semaphore's state for the mirrors named `name`: FailSemaphore with
/// `failure` when it is not OK, else Signal to `value` with the slice that
/// signalled it.
inline std::vector<uint8_t> semaphoreMessage(uint64_t name,
                                             const hal::Status &failure,
                                             uint64_t value, uint64_t slice) {
  Writer writer;
  if (!failure.ok()) {
    writer.put(MessageKind::FailSemaphore).put(name)
        .put(int32_t(failure.code()));
    writer.putString(failure.message());
  } else {
    writer.put(MessageKind::Signal).put(name).put(value).put(slice);
  }
  return std::move(writer.bytes);
}

} // namespace fleet::runtime::mpi

#endif // FLEET_RUNTIME_DRIVERS_MPI_MPIPROTOCOL_H
