//===- Types.cpp - names of HAL bit fields and element types --------------===//

#include "fleet/runtime/hal/Types.h"

#include <cstdio>

namespace fleet::runtime::hal {
namespace {

struct BitName {
  uint32_t bits;
  const char *name;
};

// Combined names come first so they absorb their bits (the order
// `hal.memory_type<...>`/`hal.buffer_usage<...>` print in).
const BitName kMemoryTypeNames[] = {
    {0x46, "HostLocal"},    {0x30, "DeviceLocal"},  {0x1, "Optimal"},
    {0x2, "HostVisible"},   {0x4, "HostCoherent"},  {0x8, "HostCached"},
    {0x10, "DeviceVisible"},
};

const BitName kBufferUsageNames[] = {
    {0x3, "Transfer"},
    {0xC00, "DispatchStorage"},
    {0x3000, "DispatchImage"},
    {0x9000000, "Mapping"},
    {0x1, "TransferSource"},
    {0x2, "TransferTarget"},
    {0x100, "DispatchIndirectParameters"},
    {0x200, "DispatchUniformRead"},
    {0x400, "DispatchStorageRead"},
    {0x800, "DispatchStorageWrite"},
    {0x1000, "DispatchImageRead"},
    {0x2000, "DispatchImageWrite"},
    {0x10000, "SharingExport"},
    {0x20000, "SharingReplicate"},
    {0x40000, "SharingConcurrent"},
    {0x80000, "SharingImmutable"},
    {0x1000000, "MappingScoped"},
    {0x2000000, "MappingPersistent"},
    {0x4000000, "MappingOptional"},
    {0x8000000, "MappingAccessRandom"},
    {0x10000000, "MappingAccessSequentialWrite"},
};

template <size_t N>
std::string formatBits(uint32_t value, const BitName (&names)[N]) {
  if (value == 0)
    return "None";
  std::string text;
  uint32_t remaining = value;
  for (const BitName &entry : names) {
    if ((remaining & entry.bits) != entry.bits)
      continue;
    if (!text.empty())
      text += '|';
    text += entry.name;
    remaining &= ~entry.bits;
  }
  if (remaining) {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "0x%x", remaining);
    if (!text.empty())
      text += '|';
    text += hex;
  }
  return text;
}

template <size_t N>
bool parseBits(std::string_view text, const BitName (&names)[N],
               uint32_t &out) {
  uint32_t value = 0;
  while (!text.empty()) {
    size_t bar = text.find('|');
    std::string_view word = text.substr(0, bar);
    if (word != "None") {
      bool found = false;
      for (const BitName &entry : names) {
        if (word == entry.name) {
          value |= entry.bits;
          found = true;
          break;
        }
      }
      if (!found)
        return false;
    }
    if (bar == std::string_view::npos)
      break;
    text.remove_prefix(bar + 1);
  }
  out = value;
  return true;
}

} // namespace

std::string toString(MemoryType type) {
  return formatBits(uint32_t(type), kMemoryTypeNames);
}

std::string toString(BufferUsage usage) {
  return formatBits(uint32_t(usage), kBufferUsageNames);
}

bool parseMemoryType(std::string_view text, MemoryType &out) {
  uint32_t bits;
  if (!parseBits(text, kMemoryTypeNames, bits))
    return false;
  out = MemoryType(bits);
  return true;
}

bool parseBufferUsage(std::string_view text, BufferUsage &out) {
  uint32_t bits;
  if (!parseBits(text, kBufferUsageNames, bits))
    return false;
  out = BufferUsage(bits);
  return true;
}

std::string elementTypeName(ElementType type) {
  using namespace element_type;
  uint32_t bits = bitCount(type);
  switch (kind(type)) {
  case kKindSignlessInt:
    return "i" + std::to_string(bits);
  case kKindSignedInt:
    return "si" + std::to_string(bits);
  case kKindUnsignedInt:
    return "ui" + std::to_string(bits);
  case kKindBool:
    return "i1";
  case kKindIeeeFloat:
    return "f" + std::to_string(bits);
  case kKindBFloat:
    return "bf16";
  case kKindComplex:
    return "complex<f" + std::to_string(bits / 2) + ">";
  case 0x24:
    return "f8E5M2";
  case 0x25:
    return "f8E4M3FN";
  case 0x26:
    return "f8E5M2FNUZ";
  case 0x27:
    return "f8E4M3FNUZ";
  case 0x28:
    return "f8E8M0FNU";
  default:
    break;
  }
  char hex[32];
  std::snprintf(hex, sizeof(hex), "element_type(0x%08x)", type);
  return hex;
}

} // namespace fleet::runtime::hal
