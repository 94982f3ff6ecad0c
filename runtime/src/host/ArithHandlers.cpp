//===- ArithHandlers.cpp - arith ops on host scalars ---------------------===//
//
// Integers are stored zero-extended from their width (Value.h). Binary
// integer records are [a, b, result] with imm = the width's mask and
// imm2 = the sign-extension shift (64 - width); casts are [a, result] with
// imm = the result's mask and imm2 = the operand's shift. Floats are f32 or
// f64 bit patterns. Where MLIR leaves a result undefined the executor
// follows the rule kernels follow (docs/kernels.md "Integer division"):
// x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0 (never a
// trap); oversized shifts give 0 (or the sign), and out-of-range
// float-to-integer conversions saturate.
//
//===----------------------------------------------------------------------===//

#include "HALHandlers.h"

#include "fleet/runtime/hal/HalfFloat.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace fleet::runtime::host {

using hal::makeStatus;
using hal::StatusCode;

namespace arith {

template <typename T> T loadFloat(uint64_t bits) {
  T value;
  if constexpr (sizeof(T) == 4) {
    uint32_t narrow = uint32_t(bits);
    std::memcpy(&value, &narrow, sizeof(value));
  } else {
    std::memcpy(&value, &bits, sizeof(value));
  }
  return value;
}

template <typename T> uint64_t storeFloat(T value) {
  if constexpr (sizeof(T) == 4) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  } else {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  }
}

// ---- integers --------------------------------------------------------------

#define FLEET_INT_BINARY(NAME, EXPR)                                           \
  const Instr *NAME(Frame &frame, const Instr *instr) {                        \
    const uint32_t *s = instr->slots;                                          \
    uint64_t a = frame.scalars[s[0]], b = frame.scalars[s[1]];                 \
    int64_t shift = instr->imm2;                                               \
    (void)shift;                                                               \
    frame.scalars[s[2]] = uint64_t(EXPR) & uint64_t(instr->imm);               \
    return instr + 1;                                                          \
  }

#define SA signExtend(a, shift)
#define SB signExtend(b, shift)
FLEET_INT_BINARY(addI, a + b)
FLEET_INT_BINARY(subI, a - b)
FLEET_INT_BINARY(mulI, a *b)
FLEET_INT_BINARY(andI, a &b)
FLEET_INT_BINARY(orI, a | b)
FLEET_INT_BINARY(xorI, a ^ b)
FLEET_INT_BINARY(maxSI, SA > SB ? a : b)
FLEET_INT_BINARY(minSI, SA < SB ? a : b)
FLEET_INT_BINARY(maxUI, a > b ? a : b)
FLEET_INT_BINARY(minUI, a < b ? a : b)
// Shifts by the width or more are poison in MLIR; give 0 / the sign.
FLEET_INT_BINARY(shlI, b >= uint64_t(64 - shift) ? 0 : a << b)
FLEET_INT_BINARY(shrUI, b >= uint64_t(64 - shift) ? 0 : a >> b)
FLEET_INT_BINARY(shrSI, b >= uint64_t(64 - shift) ? (SA < 0 ? -1 : 0)
                                                  : SA >> b)
#undef FLEET_INT_BINARY

/// Signed division whose quotient does not fit (INT_MIN / -1 at 64 bits;
/// narrower widths are computed in 64 bits and wrap like two's complement).
bool overflows(int64_t a, int64_t b) {
  return a == std::numeric_limits<int64_t>::min() && b == -1;
}

// Division by zero gives 0; INT_MIN / -1 divides by 1 instead (a / 1 = a,
// a % 1 = 0), the result two's-complement wrapping gives.
#define FLEET_INT_DIVISION(NAME, SIGNED, EXPR)                                 \
  const Instr *NAME(Frame &frame, const Instr *instr) {                        \
    const uint32_t *s = instr->slots;                                          \
    uint64_t a = frame.scalars[s[0]], b = frame.scalars[s[1]];                 \
    int64_t shift = instr->imm2;                                               \
    if (b == 0) {                                                              \
      frame.scalars[s[2]] = 0;                                                 \
      return instr + 1;                                                        \
    }                                                                          \
    if (SIGNED && overflows(SA, SB))                                           \
      b = 1;                                                                   \
    frame.scalars[s[2]] = uint64_t(EXPR) & uint64_t(instr->imm);               \
    return instr + 1;                                                          \
  }

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t ceilDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

FLEET_INT_DIVISION(divSI, true, SA / SB)
FLEET_INT_DIVISION(remSI, true, SA % SB)
FLEET_INT_DIVISION(divUI, false, a / b)
FLEET_INT_DIVISION(remUI, false, a % b)
FLEET_INT_DIVISION(floorDivSI, true, floorDiv(SA, SB))
FLEET_INT_DIVISION(ceilDivSI, true, ceilDiv(SA, SB))
FLEET_INT_DIVISION(ceilDivUI, false, a / b + (a % b != 0 ? 1 : 0))
#undef FLEET_INT_DIVISION

// arith::CmpIPredicate order: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge.
#define FLEET_CMPI(NAME, EXPR)                                                 \
  const Instr *NAME(Frame &frame, const Instr *instr) {                        \
    const uint32_t *s = instr->slots;                                          \
    uint64_t a = frame.scalars[s[0]], b = frame.scalars[s[1]];                 \
    int64_t shift = instr->imm2;                                               \
    (void)shift;                                                               \
    frame.scalars[s[2]] = (EXPR) ? 1 : 0;                                      \
    return instr + 1;                                                          \
  }
FLEET_CMPI(cmpEq, a == b)
FLEET_CMPI(cmpNe, a != b)
FLEET_CMPI(cmpSlt, SA < SB)
FLEET_CMPI(cmpSle, SA <= SB)
FLEET_CMPI(cmpSgt, SA > SB)
FLEET_CMPI(cmpSge, SA >= SB)
FLEET_CMPI(cmpUlt, a < b)
FLEET_CMPI(cmpUle, a <= b)
FLEET_CMPI(cmpUgt, a > b)
FLEET_CMPI(cmpUge, a >= b)
#undef FLEET_CMPI
#undef SA
#undef SB

// ---- floats ----------------------------------------------------------------

template <typename T, T (*F)(T, T)>
const Instr *floatBinary(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  T a = loadFloat<T>(frame.scalars[s[0]]), b = loadFloat<T>(frame.scalars[s[1]]);
  frame.scalars[s[2]] = storeFloat<T>(F(a, b));
  return instr + 1;
}

template <typename T> T addF(T a, T b) { return a + b; }
template <typename T> T subF(T a, T b) { return a - b; }
template <typename T> T mulF(T a, T b) { return a * b; }
template <typename T> T divF(T a, T b) { return a / b; }
template <typename T> T remF(T a, T b) { return std::fmod(a, b); }
// maximumf/minimumf propagate NaN and order -0 < +0; maxnumf/minnumf return
// the non-NaN operand (IEEE maxNum/minNum).
template <typename T> T maximumF(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename T> T minimumF(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename T> T maxNumF(T a, T b) { return std::fmax(a, b); }
template <typename T> T minNumF(T a, T b) { return std::fmin(a, b); }

template <typename T> const Instr *negF(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  frame.scalars[s[1]] = storeFloat<T>(-loadFloat<T>(frame.scalars[s[0]]));
  return instr + 1;
}

/// imm2 = arith::CmpFPredicate.
template <typename T> const Instr *cmpF(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  T a = loadFloat<T>(frame.scalars[s[0]]), b = loadFloat<T>(frame.scalars[s[1]]);
  bool unordered = std::isnan(a) || std::isnan(b);
  bool result = false;
  switch (instr->imm2) {
  case 0: result = false; break;                           // false
  case 1: result = !unordered && a == b; break;            // oeq
  case 2: result = !unordered && a > b; break;             // ogt
  case 3: result = !unordered && a >= b; break;            // oge
  case 4: result = !unordered && a < b; break;             // olt
  case 5: result = !unordered && a <= b; break;            // ole
  case 6: result = !unordered && a != b; break;            // one
  case 7: result = !unordered; break;                      // ord
  case 8: result = unordered || a == b; break;             // ueq
  case 9: result = unordered || a > b; break;              // ugt
  case 10: result = unordered || a >= b; break;            // uge
  case 11: result = unordered || a < b; break;             // ult
  case 12: result = unordered || a <= b; break;            // ule
  case 13: result = unordered || a != b; break;            // une
  case 14: result = unordered; break;                      // uno
  default: result = true; break;                           // true
  }
  frame.scalars[s[2]] = result ? 1 : 0;
  return instr + 1;
}

// ---- casts: [a, result]; imm = result mask, imm2 = operand shift -----------

const Instr *castSignExtend(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  frame.scalars[s[1]] =
      uint64_t(signExtend(frame.scalars[s[0]], instr->imm2)) &
      uint64_t(instr->imm);
  return instr + 1;
}

const Instr *castZeroExtend(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  frame.scalars[s[1]] = frame.scalars[s[0]] & uint64_t(instr->imm);
  return instr + 1;
}

template <typename T, bool Signed>
const Instr *intToFloat(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  uint64_t a = frame.scalars[s[0]];
  T value = Signed ? T(signExtend(a, instr->imm2)) : T(a);
  frame.scalars[s[1]] = storeFloat<T>(value);
  return instr + 1;
}

/// Saturates out-of-range values and maps NaN to 0 (MLIR leaves them
/// undefined; a C++ conversion would be undefined behaviour).
template <typename T, bool Signed>
const Instr *floatToInt(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  T value = loadFloat<T>(frame.scalars[s[0]]);
  uint64_t mask = uint64_t(instr->imm);
  uint64_t result;
  if (std::isnan(value)) {
    result = 0;
  } else if (Signed) {
    // The result width's range: [-(mask+1)/2, mask/2].
    double max = double(mask >> 1), min = -double(mask >> 1) - 1.0;
    double v = double(value);
    int64_t clamped = v >= max ? int64_t(mask >> 1)
                      : v <= min ? -int64_t(mask >> 1) - 1
                                 : int64_t(v);
    result = uint64_t(clamped);
  } else {
    double v = double(value);
    result = v <= 0 ? 0 : v >= double(mask) ? mask : uint64_t(v);
  }
  frame.scalars[s[1]] = result & mask;
  return instr + 1;
}

template <typename From, typename To>
const Instr *floatToFloat(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  frame.scalars[s[1]] =
      storeFloat<To>(To(loadFloat<From>(frame.scalars[s[0]])));
  return instr + 1;
}

/// f16/bf16 <-> f32/f64 (extf, truncf): the only arithmetic the executor
/// does on half floats (Value.h).
template <bool BFloat, typename To>
const Instr *halfToWide(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  uint16_t half = uint16_t(frame.scalars[s[0]]);
  float value = BFloat ? hal::bfloatToFloat(half) : hal::halfToFloat(half);
  frame.scalars[s[1]] = storeFloat<To>(To(value));
  return instr + 1;
}

template <bool BFloat, typename From>
const Instr *wideToHalf(Frame &frame, const Instr *instr) {
  const uint32_t *s = instr->slots;
  float value = float(loadFloat<From>(frame.scalars[s[0]]));
  frame.scalars[s[1]] =
      BFloat ? hal::floatToBFloat(value) : hal::floatToHalf(value);
  return instr + 1;
}

template <typename T> Handler floatHandler(const std::string &name) {
  static const std::map<std::string, Handler> table = {
      {"arith.addf", &floatBinary<T, addF<T>>},
      {"arith.subf", &floatBinary<T, subF<T>>},
      {"arith.mulf", &floatBinary<T, mulF<T>>},
      {"arith.divf", &floatBinary<T, divF<T>>},
      {"arith.remf", &floatBinary<T, remF<T>>},
      {"arith.maximumf", &floatBinary<T, maximumF<T>>},
      {"arith.minimumf", &floatBinary<T, minimumF<T>>},
      {"arith.maxnumf", &floatBinary<T, maxNumF<T>>},
      {"arith.minnumf", &floatBinary<T, minNumF<T>>},
      {"arith.negf", &negF<T>},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}

} // namespace arith

// The handler of every record kind, in OpTable.def order (the op table
// names them; ArtifactFormat.h numbers the kinds).
#define FLEET_FBIN(T, OP) (arith::floatBinary<T, arith::OP<T>>)
static const Handler kHandlerTable[] = {
#define FLEET_HOST_OP(Kind, Name, Layout, Data, Imm, Handler) &Handler,
#include "fleet/runtime/host/OpTable.def"
};
#undef FLEET_FBIN
static_assert(sizeof(kHandlerTable) / sizeof(kHandlerTable[0]) ==
              kOpKindCount);

Handler handlerOf(OpKind kind) {
  return uint32_t(kind) < kOpKindCount ? kHandlerTable[uint32_t(kind)]
                                       : nullptr;
}

} // namespace fleet::runtime::host
