//===- Types.h - HAL bit fields and codes shared with the IR -----*- C++ -*-===//
//
// The numeric values here are those of docs/ir-reference.md ("hal.memory_type
// bits", "hal.buffer_usage bits", `hal.element_type`, `hal.encoding_type`), so
// the host-program executor passes the IR's i32 constants straight through.
//
// Ownership: plain values. Thread safety: pure functions. Failure behaviour:
// parse functions return false on unknown names; formatting never fails.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_TYPES_H
#define FLEET_RUNTIME_HAL_TYPES_H

#include <cstdint>
#include <string>
#include <string_view>

namespace fleet::runtime::hal {

#define FLEET_HAL_BITMASK_OPERATORS(Type)                                      \
  constexpr Type operator|(Type a, Type b) {                                   \
    return Type(uint32_t(a) | uint32_t(b));                                    \
  }                                                                            \
  constexpr Type operator&(Type a, Type b) {                                   \
    return Type(uint32_t(a) & uint32_t(b));                                    \
  }                                                                            \
  constexpr Type operator~(Type a) { return Type(~uint32_t(a)); }              \
  constexpr Type &operator|=(Type &a, Type b) { return a = a | b; }            \
  constexpr Type &operator&=(Type &a, Type b) { return a = a & b; }

/// `hal.memory_type` (docs/ir-reference.md). HostLocal and DeviceLocal include
/// the visibility bits they imply.
enum class MemoryType : uint32_t {
  None = 0x0,
  Optimal = 0x1,
  HostVisible = 0x2,
  HostCoherent = 0x4,
  HostCached = 0x8,
  HostLocal = 0x46, // HostVisible | HostCoherent | 0x40
  DeviceVisible = 0x10,
  DeviceLocal = 0x30, // DeviceVisible | 0x20
};
FLEET_HAL_BITMASK_OPERATORS(MemoryType)

/// `hal.buffer_usage` (docs/ir-reference.md).
enum class BufferUsage : uint32_t {
  None = 0,
  TransferSource = 0x1,
  TransferTarget = 0x2,
  Transfer = 0x3,
  DispatchIndirectParameters = 0x100,
  DispatchUniformRead = 0x200,
  DispatchStorageRead = 0x400,
  DispatchStorageWrite = 0x800,
  DispatchStorage = 0xC00,
  DispatchImageRead = 0x1000,
  DispatchImageWrite = 0x2000,
  DispatchImage = 0x3000,
  SharingExport = 0x10000,
  SharingReplicate = 0x20000,
  SharingConcurrent = 0x40000,
  SharingImmutable = 0x80000,
  MappingScoped = 0x1000000,
  MappingPersistent = 0x2000000,
  MappingOptional = 0x4000000,
  MappingAccessRandom = 0x8000000,
  MappingAccessSequentialWrite = 0x10000000,
  Mapping = 0x9000000, // MappingScoped | MappingAccessRandom
};
FLEET_HAL_BITMASK_OPERATORS(BufferUsage)

#undef FLEET_HAL_BITMASK_OPERATORS

/// Every bit docs/ir-reference.md defines; others are rejected by allocators.
constexpr MemoryType kAllMemoryTypeBits = MemoryType(0x7F);
constexpr BufferUsage kAllBufferUsageBits = BufferUsage(0x1F0F3F03);
/// "Can be mapped" means scoped or persistent mapping (IREE's rule).
constexpr BufferUsage kMappingUsageBits =
    BufferUsage::MappingScoped | BufferUsage::MappingPersistent;

template <typename E> constexpr bool allBitsSet(E value, E bits) {
  return (uint32_t(value) & uint32_t(bits)) == uint32_t(bits);
}
template <typename E> constexpr bool anyBitSet(E value, E bits) {
  return (uint32_t(value) & uint32_t(bits)) != 0;
}

/// "HostVisible|DeviceLocal": combined names first, then single bits, as
/// `hal.memory_type<"...">` prints them; "None" for 0; unknown bits in hex.
std::string toString(MemoryType type);
/// "Transfer|DispatchStorage|SharingExport"; same rules as above.
std::string toString(BufferUsage usage);
/// Parses the `|`-separated names printed above (and single bit names).
bool parseMemoryType(std::string_view text, MemoryType &out);
bool parseBufferUsage(std::string_view text, BufferUsage &out);

/// A bit mask of queue indices (`affinity(%q)` in the IR, i64). -1 = any.
using QueueAffinity = uint64_t;
constexpr QueueAffinity kQueueAffinityAny = ~QueueAffinity(0);

/// `hal.element_type`: `(kind << 24) | bits` (docs/ir-reference.md).
using ElementType = uint32_t;
namespace element_type {
constexpr uint32_t kKindSignlessInt = 0x10, kKindSignedInt = 0x11,
                   kKindUnsignedInt = 0x12, kKindBool = 0x13,
                   kKindIeeeFloat = 0x21, kKindBFloat = 0x22,
                   kKindComplex = 0x23;
constexpr ElementType make(uint32_t kind, uint32_t bits) {
  return (kind << 24) | bits;
}
constexpr ElementType kI1 = make(kKindBool, 8);
constexpr ElementType kI8 = make(kKindSignlessInt, 8);
constexpr ElementType kI16 = make(kKindSignlessInt, 16);
constexpr ElementType kI32 = make(kKindSignlessInt, 32);
constexpr ElementType kI64 = make(kKindSignlessInt, 64);
constexpr ElementType kF16 = make(kKindIeeeFloat, 16);
constexpr ElementType kF32 = make(kKindIeeeFloat, 32);
constexpr ElementType kF64 = make(kKindIeeeFloat, 64);
constexpr ElementType kBF16 = make(kKindBFloat, 16);
constexpr uint32_t kind(ElementType type) { return type >> 24; }
constexpr uint32_t bitCount(ElementType type) { return type & 0xFFFFFF; }
/// Storage bytes of one element (bits rounded up to whole bytes).
constexpr uint64_t byteSize(ElementType type) {
  return (uint64_t(bitCount(type)) + 7) / 8;
}
} // namespace element_type
/// "f32", "i8", "si32", "ui16", "i1", "bf16", "complex<f32>", "f8E4M3FN",
/// or "element_type(0x...)" for codes without a name.
std::string elementTypeName(ElementType type);

/// `hal.encoding_type<dense_row_major>` is 1 (docs/ir-reference.md).
using EncodingType = uint32_t;
constexpr EncodingType kEncodingDenseRowMajor = 1;

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_TYPES_H
