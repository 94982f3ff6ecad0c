//===- HalfFloat.h - IEEE half and bfloat16 <-> float -------------*- C++ -*-===//
//
// Conversions between the 16-bit float formats a buffer or a host scalar may
// hold and `float`. IEEE binary16 (f16: 1 sign, 5 exponent, 10 mantissa
// bits) and bfloat16 (bf16: the upper half of an IEEE binary32). float ->
// 16 bits rounds to nearest, ties to even; NaN stays NaN; values beyond the
// f16 range become infinities.
//
// Thread safety: pure functions. Errors: none.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_HALFFLOAT_H
#define FLEET_RUNTIME_HAL_HALFFLOAT_H

#include <cstdint>

namespace fleet::runtime::hal {

/// f32 -> f16 bits, round to nearest even.
uint16_t floatToHalf(float value);
/// f16 bits -> f32 (exact).
float halfToFloat(uint16_t half);
/// f32 -> bf16 bits, round to nearest even (NaN stays a quiet NaN).
uint16_t floatToBFloat(float value);
/// bf16 bits -> f32 (exact).
float bfloatToFloat(uint16_t value);

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_HALFFLOAT_H
