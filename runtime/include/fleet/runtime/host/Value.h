//===- Value.h - values crossing the host-program boundary --------*- C++ -*-===//
//
// A host program (docs/pipeline.md §3) computes with two kinds of values:
// scalars (i1..i64, index, f16, bf16, f32, f64, and `!util.ptr` addresses) and
// references to runtime objects (`!hal.device`, `!hal.buffer`,
// `!hal.buffer_view`, `!hal.fence`, ...). ValueType names both; Value carries
// one of them into or out of Context::invoke.
//
// Ownership: a Value is a plain value; a reference Value holds one reference
// (Ref.h) to its object, so results outlive the call that made them.
// Thread safety: immutable after construction, like Ref copies.
// Failure behaviour: none; accessors of the wrong kind return 0 / null.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HOST_VALUE_H
#define FLEET_RUNTIME_HOST_VALUE_H

#include "fleet/runtime/hal/Buffer.h"
#include "fleet/runtime/hal/Fence.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace fleet::runtime::host {

/// The types a host program computes with. Integers are stored as their low
/// `bitWidth` bits, zero-extended; floats as their IEEE bits.
enum class ValueType : uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64,
  Index,
  F32,
  F64,
  /// f16 and bf16: held as their 16 bits and moved (arguments, results,
  /// globals, constants, select, bitcast, extf/truncf to and from f32/f64),
  /// not computed with: arithmetic on them belongs in a dispatch.
  F16,
  BF16,
  /// `!util.ptr<T>`: the address of a module global (host programs only).
  Pointer,
  // References (first: Device).
  Device,
  /// `!hal.allocator`: the device whose allocator it is.
  Allocator,
  Buffer,
  BufferView,
  Fence,
  CommandBuffer,
  Executable,
  /// `!util.buffer`: host bytes (HostBuffer).
  HostBuffer,
};

inline bool isReferenceType(ValueType type) {
  return uint8_t(type) >= uint8_t(ValueType::Device);
}
/// f32 or f64: the float types the executor computes with.
inline bool isFloatType(ValueType type) {
  return type == ValueType::F32 || type == ValueType::F64;
}
/// f16 or bf16: float types the executor only holds (see ValueType).
inline bool isHalfFloatType(ValueType type) {
  return type == ValueType::F16 || type == ValueType::BF16;
}
/// 1, 8, 16, 32 or 64 for scalars; 64 for pointers; 0 for references.
unsigned bitWidth(ValueType type);
/// The IR spelling: "i32", "index", "!hal.buffer_view", ...
const char *typeName(ValueType type);

/// Host bytes of a `!util.buffer` (`util.buffer.constant`, imports).
/// Ownership: create() returns the first reference; the bytes live as long as
/// the HostBuffer. Thread safety: immutable after creation. Failure
/// behaviour: none (allocation failure terminates, as everywhere).
class HostBuffer final : public hal::RefCounted {
public:
  /// Copies `size` bytes into storage aligned to `alignment` (a power of two;
  /// `util.buffer.constant {alignment = N}`), so devices may import it.
  static hal::Ref<HostBuffer> create(const void *data, size_t size,
                                     size_t alignment = 64);
  const uint8_t *data() const { return data_; }
  uint8_t *data() { return data_; }
  size_t size() const { return size_; }

private:
  HostBuffer() = default;
  ~HostBuffer() override;
  uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

class Value {
public:
  Value() = default;

  static Value integer(ValueType type, int64_t value);
  static Value i32(int32_t value) { return integer(ValueType::I32, value); }
  static Value i64(int64_t value) { return integer(ValueType::I64, value); }
  static Value index(int64_t value) { return integer(ValueType::Index, value); }
  static Value f32(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return fromBits(ValueType::F32, bits);
  }
  static Value f64(double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return fromBits(ValueType::F64, bits);
  }
  /// A scalar from its stored bits (see ValueType).
  static Value fromBits(ValueType type, uint64_t bits) {
    Value value;
    value.type_ = type;
    value.bits_ = bits;
    return value;
  }
  /// A reference; `object` must be of the C++ class `type` names.
  static Value reference(ValueType type, hal::Ref<hal::RefCounted> object) {
    Value value;
    value.type_ = type;
    value.object_ = std::move(object);
    return value;
  }
  static Value bufferView(hal::Ref<hal::BufferView> view) {
    return reference(ValueType::BufferView, std::move(view));
  }
  static Value fence(hal::Ref<hal::Fence> fence) {
    return reference(ValueType::Fence, std::move(fence));
  }

  ValueType type() const { return type_; }
  bool isReference() const { return isReferenceType(type_); }
  /// Stored bits of a scalar.
  uint64_t bits() const { return bits_; }
  /// Integer value, sign-extended from the type's width.
  int64_t asSigned() const;
  double asFloat() const;
  hal::RefCounted *object() const { return object_.get(); }
  const hal::Ref<hal::RefCounted> &objectRef() const { return object_; }
  hal::BufferView *asBufferView() const {
    return type_ == ValueType::BufferView
               ? static_cast<hal::BufferView *>(object_.get())
               : nullptr;
  }
  hal::Fence *asFence() const {
    return type_ == ValueType::Fence ? static_cast<hal::Fence *>(object_.get())
                                     : nullptr;
  }

  /// "i32=5", "f32=0.5", "!hal.buffer_view", "null !hal.fence".
  std::string toString() const;

private:
  ValueType type_ = ValueType::I32;
  uint64_t bits_ = 0;
  hal::Ref<hal::RefCounted> object_;
};

} // namespace fleet::runtime::host

#endif // FLEET_RUNTIME_HOST_VALUE_H
