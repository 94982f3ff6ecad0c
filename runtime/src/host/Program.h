//===- Program.h - the compact form of host functions ------------*- C++ -*-===//
//
// Each util.func / util.initializer arrives in the artifact as op records
// (the compiler lowered it: lib/Artifact/HostLowering.h); the loader turns
// them into a FunctionCode: an array of Instr records executed in order. An Instr is a
// handler function pointer plus the indices of its operand and result slots
// in the frame's two register files (64-bit scalars, object references),
// immediates, an optional pointer to per-op data (a global's storage, an
// executable table, a callee) and an optional jump target. Structured
// control flow (scf.for/if/while) and cf branches become jumps and parallel
// moves at compile time, so running a function is a loop over handler calls
// with no lookups, hashing or string work (the P2 budget: docs/runtime.md).
//
// The record kinds and their slot layouts are those of OpTable.def; the
// loader (ModuleLoader.cpp) verified every record against them, so handlers
// index registers without bounds checks. Nothing here uses MLIR or LLVM.
//
// Ownership: a FunctionCode owns its records, slot table and op data; its
// Module owns it. Frames live on the per-call FrameArena.
// Thread safety: FunctionCode is immutable after loading; a Frame and its
// ExecState belong to one invoking thread.
// Failure behaviour: a handler that fails stores the status in the
// ExecState and returns null; the run loop adds the op and location.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_SRC_HOST_PROGRAM_H
#define FLEET_RUNTIME_SRC_HOST_PROGRAM_H

#include "fleet/runtime/host/ArtifactFormat.h"
#include "fleet/runtime/host/Context.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fleet::runtime::host {

struct Frame;
struct Instr;

/// Runs one op; returns the next record to run, or null to stop (the frame
/// returned, or the ExecState holds a failure).
using Handler = const Instr *(*)(Frame &frame, const Instr *instr);

/// Slot indices name the scalar register file; with kRefSlot set they name
/// the reference file. Handlers whose operand kinds are fixed by the op use
/// plain indices; moves and calls, which carry any value, use tagged ones.
constexpr uint32_t kRefSlot = 0x80000000u;
inline bool isRefSlot(uint32_t slot) { return (slot & kRefSlot) != 0; }
inline uint32_t slotIndex(uint32_t slot) { return slot & ~kRefSlot; }

struct Instr {
  Handler handler = nullptr;
  /// Operand slots followed by result slots (the op's own order).
  const uint32_t *slots = nullptr;
  /// Per-op data owned by the module (a global's storage, a callee, ...).
  const void *data = nullptr;
  int64_t imm = 0;
  int64_t imm2 = 0;
  /// Jump target of branches and loops.
  const Instr *target = nullptr;
  /// Index into FunctionCode::sites (the op and its location).
  uint32_t site = 0;
  uint32_t slotCount = 0;
};

struct Site {
  /// "hal.device.queue.execute"
  std::string op;
  /// "abs.mlir:12:3" (or "unknown location")
  std::string location;
};

struct FunctionCode {
  /// The IR symbol and the name used in messages ("module_a.abs").
  std::string name;
  std::string displayName;
  std::vector<Instr> code;
  std::vector<uint32_t> slotTable;
  /// Initial scalar registers: constants sit at their slots, the rest is 0.
  std::vector<uint64_t> scalarTemplate;
  uint32_t refCount = 0;
  /// Tagged slots receiving the arguments.
  std::vector<uint32_t> argumentSlots;
  std::vector<ValueType> argumentTypes;
  std::vector<ValueType> resultTypes;
  std::vector<Site> sites;
  /// An external declaration: calls go to `import` (resolved at load).
  bool isDeclaration = false;
  const FunctionCode *import = nullptr;
};

/// Word storage for frames, allocated and freed last-in first-out.
class FrameArena {
public:
  FrameArena() = default;
  FrameArena(const FrameArena &) = delete;
  FrameArena &operator=(const FrameArena &) = delete;

  struct Mark {
    size_t chunk;
    size_t used;
  };
  Mark mark() const { return Mark{current_, used_}; }
  void release(Mark mark) {
    current_ = mark.chunk;
    used_ = mark.used;
  }
  /// `words` 8-byte words, uninitialized.
  uint64_t *allocate(size_t words);

private:
  static constexpr size_t kChunkWords = 8192;
  struct Chunk {
    std::unique_ptr<uint64_t[]> words;
    size_t size;
  };
  std::vector<Chunk> chunks_;
  size_t current_ = 0;
  size_t used_ = 0;
};

/// State of one Context::invoke: the first failure, the frame arena and the
/// call depth.
struct ExecState {
  Context *context = nullptr;
  hal::Status status;
  /// Full status of the last failed hal.fence.await/query, so a following
  /// util.status.check_ok can say why (the IR only carries the i32 code).
  hal::Status lastWaitFailure;
  FrameArena arena;
  uint32_t depth = 0;
};

/// Calls nested deeper than this fail instead of exhausting the C stack.
constexpr uint32_t kMaxCallDepth = 256;

struct Frame {
  uint64_t *scalars = nullptr;
  hal::RefCounted **refs = nullptr;
  ExecState *state = nullptr;
  const FunctionCode *function = nullptr;
  /// The util.return that ended the frame.
  const Instr *returned = nullptr;
  /// The record that failed (for the error's location).
  const Instr *failedAt = nullptr;
};

// ---- helpers for handlers --------------------------------------------------

inline const Instr *failOp(Frame &frame, const Instr *instr,
                           hal::Status status) {
  frame.state->status = std::move(status);
  frame.failedAt = instr;
  return nullptr;
}

/// Stores an owned reference into a register, dropping the previous one.
inline void storeRef(hal::RefCounted *&slot, hal::RefCounted *owned) {
  hal::RefCounted *old = slot;
  slot = owned;
  if (old)
    old->release();
}
/// Stores a borrowed reference (retained here).
inline void copyRef(hal::RefCounted *&slot, hal::RefCounted *borrowed) {
  if (borrowed)
    borrowed->retain();
  storeRef(slot, borrowed);
}

/// The end of a handler that creates an object: stores it (owned) in ref
/// register `slot` and continues, or fails the op with `created`'s status.
template <typename T>
const Instr *storeCreated(Frame &frame, const Instr *instr,
                          hal::StatusOr<hal::Ref<T>> &&created,
                          uint32_t slot) {
  if (!created.ok())
    return failOp(frame, instr, created.status());
  storeRef(frame.refs[slot], created->detach());
  return instr + 1;
}

template <typename T> T *refAs(Frame &frame, uint32_t slot) {
  return static_cast<T *>(frame.refs[slot]);
}

/// Sign-extends the low `64 - shift` bits.
inline int64_t signExtend(uint64_t bits, int64_t shift) {
  return int64_t(bits << shift) >> shift;
}

// ---- running ---------------------------------------------------------------

/// Runs `function` with arguments taken from `arguments` (tagged slots of
/// `caller`, or Values when `caller` is null) and delivers its results to
/// `resultSlots` of `caller` (or appends them to `results`). Returns false
/// with state.status set on failure; the status then carries the stack.
bool callFunction(ExecState &state, const FunctionCode &function,
                  Frame *caller, const uint32_t *argumentSlots,
                  const uint32_t *resultSlots, hal::Span<const Value> arguments,
                  std::vector<Value> *results);

/// Appends " at <op> (<location>) in @<function>" to the state's status.
void addSiteToStatus(ExecState &state, const FunctionCode &function,
                     const Instr &instr, const char *prefix);

// ---- handlers (defined without MLIR; the lowering picks them) -------------

namespace handlers {
// Control flow and moves (Interpreter.cpp).
const Instr *move(Frame &, const Instr *);
const Instr *jump(Frame &, const Instr *);
const Instr *branchIfFalse(Frame &, const Instr *);
const Instr *forEnter(Frame &, const Instr *);
const Instr *forNext(Frame &, const Instr *);
const Instr *returnOp(Frame &, const Instr *);
/// Ends every function: control never reaches it in verified IR.
const Instr *unreachable(Frame &, const Instr *);
const Instr *call(Frame &, const Instr *);
const Instr *selectScalar(Frame &, const Instr *);
const Instr *selectRef(Frame &, const Instr *);
// util (Interpreter.cpp).
const Instr *globalLoadScalar(Frame &, const Instr *);
const Instr *globalLoadRef(Frame &, const Instr *);
const Instr *globalStoreScalar(Frame &, const Instr *);
const Instr *globalStoreRef(Frame &, const Instr *);
const Instr *indirectLoadScalar(Frame &, const Instr *);
const Instr *indirectLoadRef(Frame &, const Instr *);
const Instr *indirectStoreScalar(Frame &, const Instr *);
const Instr *indirectStoreRef(Frame &, const Instr *);
const Instr *constantRef(Frame &, const Instr *);
const Instr *statusCheckOk(Frame &, const Instr *);
} // namespace handlers

/// The handler of a record kind (ArithHandlers.cpp, from OpTable.def); null
/// for a kind the table does not have.
Handler handlerOf(OpKind kind);

/// What the indirect global handlers check a `!util.ptr` against: the
/// module's global storage (ModuleState.h). A record's imm holds the
/// reference type it expects.
struct GlobalTable {
  uint64_t *scalars = nullptr;
  size_t scalarCount = 0;
  hal::RefCounted **refs = nullptr;
  size_t refCount = 0;
  const ValueType *refTypes = nullptr;
};

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_SRC_HOST_PROGRAM_H
