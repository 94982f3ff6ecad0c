//===- Interpreter.cpp - running compiled host functions -----------------===//
//
// The run loop, calls, moves and control flow, and the util ops. See
// Program.h for the record format.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include <cstring>

namespace fleet::runtime::host {

using hal::makeStatus;
using hal::RefCounted;
using hal::Status;
using hal::StatusCode;

uint64_t *FrameArena::allocate(size_t words) {
  if (chunks_.empty() || used_ + words > chunks_[current_].size) {
    // Move to the next chunk that fits (chunks past `current_` are free).
    size_t next = chunks_.empty() ? 0 : current_ + 1;
    while (next < chunks_.size() && chunks_[next].size < words)
      ++next;
    if (next >= chunks_.size()) {
      size_t size = words > kChunkWords ? words : kChunkWords;
      chunks_.push_back(Chunk{std::make_unique<uint64_t[]>(size), size});
      next = chunks_.size() - 1;
    }
    current_ = next;
    used_ = 0;
  }
  uint64_t *result = chunks_[current_].words.get() + used_;
  used_ += words;
  return result;
}

void addSiteToStatus(ExecState &state, const FunctionCode &function,
                     const Instr &instr, const char *prefix) {
  const Site &site = function.sites[instr.site];
  state.status = Status(state.status.code(),
                        hal::concat(state.status.message(), "\n    ", prefix,
                                    " ", site.op, " (", site.location,
                                    ") in @", function.displayName));
}

bool callFunction(ExecState &state, const FunctionCode &callee, Frame *caller,
                  const uint32_t *argumentSlots, const uint32_t *resultSlots,
                  hal::Span<const Value> arguments,
                  std::vector<Value> *results) {
  const FunctionCode *function = &callee;
  if (function->isDeclaration)
    function = function->import; // resolved at load (ModuleLoader)
  if (state.depth >= kMaxCallDepth) {
    state.status = makeStatus(StatusCode::ResourceExhausted,
                              "host program call depth exceeds ",
                              kMaxCallDepth, " when calling @",
                              function->displayName);
    return false;
  }
  FrameArena::Mark mark = state.arena.mark();
  size_t scalarCount = function->scalarTemplate.size();
  uint64_t *words = state.arena.allocate(scalarCount + function->refCount);
  Frame frame;
  frame.scalars = words;
  frame.refs = reinterpret_cast<RefCounted **>(words + scalarCount);
  frame.state = &state;
  frame.function = function;
  if (scalarCount)
    std::memcpy(frame.scalars, function->scalarTemplate.data(),
                scalarCount * sizeof(uint64_t));
  if (function->refCount)
    std::memset(frame.refs, 0, function->refCount * sizeof(RefCounted *));

  size_t argumentCount = function->argumentSlots.size();
  for (size_t i = 0; i < argumentCount; ++i) {
    uint32_t target = function->argumentSlots[i];
    if (caller) {
      uint32_t source = argumentSlots[i];
      if (isRefSlot(target))
        copyRef(frame.refs[slotIndex(target)],
                caller->refs[slotIndex(source)]);
      else
        frame.scalars[target] = caller->scalars[slotIndex(source)];
    } else if (isRefSlot(target)) {
      copyRef(frame.refs[slotIndex(target)], arguments[i].object());
    } else {
      frame.scalars[target] = arguments[i].bits();
    }
  }

  ++state.depth;
  const Instr *ip = function->code.data();
  while (ip)
    ip = ip->handler(frame, ip);
  --state.depth;

  bool ok = state.status.ok();
  if (ok) {
    const Instr *ret = frame.returned;
    for (uint32_t i = 0; i < ret->slotCount; ++i) {
      uint32_t source = ret->slots[i];
      if (caller) {
        uint32_t target = resultSlots[i];
        if (isRefSlot(target))
          copyRef(caller->refs[slotIndex(target)],
                  frame.refs[slotIndex(source)]);
        else
          caller->scalars[target] = frame.scalars[slotIndex(source)];
      } else if (isRefSlot(source)) {
        results->push_back(Value::reference(
            function->resultTypes[i],
            hal::Ref<RefCounted>(frame.refs[slotIndex(source)])));
      } else {
        results->push_back(Value::fromBits(function->resultTypes[i],
                                           frame.scalars[source]));
      }
    }
  } else if (frame.failedAt) {
    addSiteToStatus(state, *function, *frame.failedAt,
                    frame.failedAt->handler == &handlers::call ? "called from"
                                                               : "at");
  }
  for (uint32_t i = 0; i < function->refCount; ++i)
    if (frame.refs[i])
      frame.refs[i]->release();
  state.arena.release(mark);
  return ok;
}

namespace handlers {

const Instr *move(Frame &frame, const Instr *instr) {
  const uint32_t *slots = instr->slots;
  for (int64_t i = 0; i < instr->imm; ++i) {
    uint32_t source = slots[2 * i], target = slots[2 * i + 1];
    if (isRefSlot(target))
      copyRef(frame.refs[slotIndex(target)], frame.refs[slotIndex(source)]);
    else
      frame.scalars[target] = frame.scalars[slotIndex(source)];
  }
  return instr + 1;
}

const Instr *jump(Frame &, const Instr *instr) { return instr->target; }

const Instr *branchIfFalse(Frame &frame, const Instr *instr) {
  return (frame.scalars[instr->slots[0]] & 1) ? instr + 1 : instr->target;
}

/// imm = mask of the induction variable's width; imm2 = sign-extension shift
/// | (unsigned comparison << 8).
static inline bool forLess(uint64_t lhs, uint64_t rhs, int64_t mode) {
  if (mode & 0x100)
    return lhs < rhs;
  int64_t shift = mode & 0xFF;
  return signExtend(lhs, shift) < signExtend(rhs, shift);
}

/// [iv, ub]: enters the body when iv < ub, else jumps to the exit.
const Instr *forEnter(Frame &frame, const Instr *instr) {
  const uint32_t *slots = instr->slots;
  return forLess(frame.scalars[slots[0]], frame.scalars[slots[1]], instr->imm2)
             ? instr + 1
             : instr->target;
}

/// [iv, step, ub]: steps and jumps back to the body while iv < ub.
const Instr *forNext(Frame &frame, const Instr *instr) {
  const uint32_t *slots = instr->slots;
  uint64_t iv = (frame.scalars[slots[0]] + frame.scalars[slots[1]]) &
                uint64_t(instr->imm);
  frame.scalars[slots[0]] = iv;
  return forLess(iv, frame.scalars[slots[2]], instr->imm2) ? instr->target
                                                           : instr + 1;
}

const Instr *returnOp(Frame &frame, const Instr *instr) {
  frame.returned = instr;
  return nullptr;
}

const Instr *unreachable(Frame &frame, const Instr *instr) {
  return failOp(frame, instr,
                makeStatus(StatusCode::Internal, "control reached the end of @",
                           frame.function->displayName,
                           " without a util.return"));
}

/// Tagged slots: arguments, then results; imm = argument count; data = the
/// callee's FunctionCode.
const Instr *call(Frame &frame, const Instr *instr) {
  const auto *callee = static_cast<const FunctionCode *>(instr->data);
  if (!callFunction(*frame.state, *callee, &frame, instr->slots,
                    instr->slots + instr->imm, {}, nullptr)) {
    frame.failedAt = instr;
    return nullptr;
  }
  return instr + 1;
}

const Instr *selectScalar(Frame &frame, const Instr *instr) {
  const uint32_t *slots = instr->slots;
  frame.scalars[slots[3]] = (frame.scalars[slots[0]] & 1)
                                ? frame.scalars[slots[1]]
                                : frame.scalars[slots[2]];
  return instr + 1;
}

const Instr *selectRef(Frame &frame, const Instr *instr) {
  const uint32_t *slots = instr->slots;
  copyRef(frame.refs[slots[3]], (frame.scalars[slots[0]] & 1)
                                    ? frame.refs[slots[1]]
                                    : frame.refs[slots[2]]);
  return instr + 1;
}

// ---- util ------------------------------------------------------------------

const Instr *globalLoadScalar(Frame &frame, const Instr *instr) {
  frame.scalars[instr->slots[0]] = *static_cast<const uint64_t *>(instr->data);
  return instr + 1;
}

const Instr *globalLoadRef(Frame &frame, const Instr *instr) {
  copyRef(frame.refs[instr->slots[0]],
          *static_cast<RefCounted *const *>(instr->data));
  return instr + 1;
}

const Instr *globalStoreScalar(Frame &frame, const Instr *instr) {
  *static_cast<uint64_t *>(const_cast<void *>(instr->data)) =
      frame.scalars[instr->slots[0]];
  return instr + 1;
}

const Instr *globalStoreRef(Frame &frame, const Instr *instr) {
  copyRef(*static_cast<RefCounted **>(const_cast<void *>(instr->data)),
          frame.refs[instr->slots[0]]);
  return instr + 1;
}

// A `!util.ptr` register holds the address of the global's storage. The
// address is checked against the module's globals (data: GlobalTable), so a
// pointer from elsewhere fails the op instead of touching memory.
static uint64_t *scalarGlobal(const Instr *instr, uint64_t address) {
  const auto *table = static_cast<const GlobalTable *>(instr->data);
  auto *pointer = reinterpret_cast<uint64_t *>(address);
  if (!table || !table->scalarCount || pointer < table->scalars ||
      pointer >= table->scalars + table->scalarCount)
    return nullptr;
  return pointer;
}
static RefCounted **refGlobal(const Instr *instr, uint64_t address) {
  const auto *table = static_cast<const GlobalTable *>(instr->data);
  auto *pointer = reinterpret_cast<RefCounted **>(address);
  if (!table || !table->refCount || pointer < table->refs ||
      pointer >= table->refs + table->refCount ||
      table->refTypes[pointer - table->refs] != ValueType(instr->imm))
    return nullptr;
  return pointer;
}
static const Instr *badPointer(Frame &frame, const Instr *instr) {
  return failOp(frame, instr,
                makeStatus(StatusCode::InvalidArgument,
                           "!util.ptr does not address a global of this "
                           "module of the accessed type"));
}

const Instr *indirectLoadScalar(Frame &frame, const Instr *instr) {
  uint64_t *storage = scalarGlobal(instr, frame.scalars[instr->slots[0]]);
  if (!storage)
    return badPointer(frame, instr);
  frame.scalars[instr->slots[1]] = *storage;
  return instr + 1;
}

const Instr *indirectLoadRef(Frame &frame, const Instr *instr) {
  RefCounted **storage = refGlobal(instr, frame.scalars[instr->slots[0]]);
  if (!storage)
    return badPointer(frame, instr);
  copyRef(frame.refs[instr->slots[1]], *storage);
  return instr + 1;
}

const Instr *indirectStoreScalar(Frame &frame, const Instr *instr) {
  uint64_t *storage = scalarGlobal(instr, frame.scalars[instr->slots[1]]);
  if (!storage)
    return badPointer(frame, instr);
  *storage = frame.scalars[instr->slots[0]];
  return instr + 1;
}

const Instr *indirectStoreRef(Frame &frame, const Instr *instr) {
  RefCounted **storage = refGlobal(instr, frame.scalars[instr->slots[1]]);
  if (!storage)
    return badPointer(frame, instr);
  copyRef(*storage, frame.refs[instr->slots[0]]);
  return instr + 1;
}

const Instr *constantRef(Frame &frame, const Instr *instr) {
  copyRef(frame.refs[instr->slots[0]],
          const_cast<RefCounted *>(static_cast<const RefCounted *>(instr->data)));
  return instr + 1;
}

const Instr *statusCheckOk(Frame &frame, const Instr *instr) {
  auto code = int32_t(uint32_t(frame.scalars[instr->slots[0]]));
  if (code == 0)
    return instr + 1;
  const auto *message = static_cast<const std::string *>(instr->data);
  Status &cause = frame.state->lastWaitFailure;
  std::string text = message->empty() ? std::string("util.status.check_ok")
                                      : *message;
  if (!cause.ok() && int32_t(cause.code()) == code)
    text += ": " + cause.message();
  else
    text += hal::concat(": status ", hal::statusCodeName(StatusCode(code)));
  return failOp(frame, instr, Status(StatusCode(code), std::move(text)));
}

} // namespace handlers

} // namespace fleet::runtime::host
