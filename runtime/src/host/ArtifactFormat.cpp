//===- ArtifactFormat.cpp - header, op table, record checker -------------===//

#include "fleet/runtime/host/ArtifactFormat.h"

#include "fleet/runtime/hal/KernelLibrary.h"
#include "fleet/runtime/host/Value.h"

#include <vector>

namespace fleet::runtime::host {

uint64_t artifactChecksum(const uint8_t *data, size_t size) {
  return hal::kernel_library::checksum(data, size);
}

namespace {
void put32(uint8_t *out, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out[i] = uint8_t(value >> (8 * i));
}
void put64(uint8_t *out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out[i] = uint8_t(value >> (8 * i));
}
uint64_t get(const uint8_t *in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= uint64_t(in[i]) << (8 * i);
  return value;
}
} // namespace

void writeArtifactHeader(uint8_t *out, const uint8_t *payload, size_t size) {
  std::memcpy(out, kArtifactMagic, sizeof(kArtifactMagic));
  put32(out + 8, kArtifactFormatVersion);
  put32(out + 12, uint32_t(size));
  put64(out + 16, artifactChecksum(payload, size));
}

bool readArtifactHeader(const uint8_t *data, size_t size,
                        ArtifactHeader &header) {
  if (size < kArtifactHeaderSize ||
      std::memcmp(data, kArtifactMagic, sizeof(kArtifactMagic)) != 0)
    return false;
  header.version = uint32_t(get(data + 8, 4));
  header.payloadSize = uint32_t(get(data + 12, 4));
  header.checksum = get(data + 16, 8);
  return true;
}

namespace {

struct KindInfo {
  const char *kind;
  const char *name;
  const char *layout;
  OpDataKind data;
  const char *imm;
};

const KindInfo kKinds[] = {
#define FLEET_HOST_OP(Kind, Name, Layout, Data, Imm, Handler)                  \
  {#Kind, Name, Layout, OpDataKind::Data, #Imm},
#include "fleet/runtime/host/OpTable.def"
};
static_assert(sizeof(kKinds) / sizeof(kKinds[0]) == kOpKindCount);

/// A parsed layout: fixed items, and at most one of each group.
struct Item {
  char code;
  /// 0: once; '#': imm times; '%': imm2 times; '?': zero or one; '*': any.
  char repeat;
  /// Items of one group share a group number (0 = not in a group).
  int group;
};
struct Layout {
  std::vector<Item> items;
  enum ImmRule { Free, Count, Shift, Bytes, Load, Pattern, Loop, CmpF } imm;
};

Layout::ImmRule parseImm(const char *text) {
  std::string rule(text);
  if (rule == "Count")
    return Layout::Count;
  if (rule == "Shift")
    return Layout::Shift;
  if (rule == "Bytes")
    return Layout::Bytes;
  if (rule == "Load")
    return Layout::Load;
  if (rule == "Pattern")
    return Layout::Pattern;
  if (rule == "Loop")
    return Layout::Loop;
  if (rule == "CmpF")
    return Layout::CmpF;
  return Layout::Free;
}

Layout parseLayout(const KindInfo &info) {
  Layout layout;
  layout.imm = parseImm(info.imm);
  std::string text(info.layout);
  int group = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ')
      continue;
    if (c == '(') {
      size_t close = text.find(')', i);
      char repeat = close + 1 < text.size() ? text[close + 1] : '?';
      ++group;
      for (size_t j = i + 1; j < close; ++j)
        if (text[j] != ' ')
          layout.items.push_back(Item{text[j], repeat, group});
      i = close + 1;
      continue;
    }
    layout.items.push_back(Item{c, 0, 0});
  }
  return layout;
}

const std::vector<Layout> &layouts() {
  static const std::vector<Layout> parsed = [] {
    std::vector<Layout> result;
    for (const KindInfo &info : kKinds)
      result.push_back(parseLayout(info));
    return result;
  }();
  return parsed;
}

ValueType refTypeOf(char code) {
  switch (code) {
  case 'D':
    return ValueType::Device;
  case 'A':
    return ValueType::Allocator;
  case 'B':
    return ValueType::Buffer;
  case 'V':
    return ValueType::BufferView;
  case 'F':
    return ValueType::Fence;
  case 'C':
    return ValueType::CommandBuffer;
  case 'E':
    return ValueType::Executable;
  default:
    return ValueType::HostBuffer;
  }
}

} // namespace

const char *opKindName(OpKind kind) {
  return uint32_t(kind) < kOpKindCount ? kKinds[uint32_t(kind)].kind : "?";
}
const char *opKindOpName(OpKind kind) {
  return uint32_t(kind) < kOpKindCount ? kKinds[uint32_t(kind)].name : "?";
}
const char *opKindLayout(OpKind kind) {
  return uint32_t(kind) < kOpKindCount ? kKinds[uint32_t(kind)].layout : "";
}
OpDataKind opKindData(OpKind kind) {
  return uint32_t(kind) < kOpKindCount ? kKinds[uint32_t(kind)].data
                                       : OpDataKind::None;
}

std::string checkRecord(OpKind kind, const uint32_t *slots, uint32_t count,
                        int64_t imm, int64_t imm2, const RegisterTypes &types) {
  if (uint32_t(kind) >= kOpKindCount)
    return "unknown record kind " + std::to_string(uint32_t(kind));
  const Layout &layout = layouts()[uint32_t(kind)];
  // Immediates first: they decide the group counts.
  switch (layout.imm) {
  case Layout::Shift:
    if (imm2 < 0 || imm2 > 63)
      return "shift " + std::to_string(imm2) + " out of [0, 63]";
    break;
  case Layout::Bytes:
  case Layout::Load:
    if (imm != 1 && imm != 2 && imm != 4 && imm != 8)
      return "access width " + std::to_string(imm) + " not 1, 2, 4 or 8";
    if (layout.imm == Layout::Load && imm2 != 0 && imm2 != 1)
      return "i1 flag " + std::to_string(imm2) + " not 0 or 1";
    break;
  case Layout::Pattern:
    if (imm != 1 && imm != 2 && imm != 4)
      return "pattern width " + std::to_string(imm) + " not 1, 2 or 4";
    break;
  case Layout::Loop:
    if ((imm2 & 0xFF) > 63 || (imm2 & ~int64_t(0x1FF)) != 0)
      return "loop mode " + std::to_string(imm2) + " invalid";
    break;
  case Layout::CmpF:
    if (imm2 < 0 || imm2 > 15)
      return "cmpf predicate " + std::to_string(imm2) + " out of [0, 15]";
    break;
  default:
    break;
  }
  // Expected slot count.
  uint64_t fixed = 0, perImm = 0, perImm2 = 0, optional = 0;
  for (const Item &item : layout.items) {
    if (item.repeat == 0)
      ++fixed;
    else if (item.repeat == '#')
      ++perImm;
    else if (item.repeat == '%')
      ++perImm2;
    else
      ++optional;
  }
  if ((perImm && (imm < 0 || imm > (1 << 20))) ||
      (perImm2 && (imm2 < 0 || imm2 > (1 << 20))))
    return "count " + std::to_string(perImm ? imm : imm2) + " out of range";
  uint64_t expected = fixed + perImm * uint64_t(perImm ? imm : 0) +
                      perImm2 * uint64_t(perImm2 ? imm2 : 0);
  bool withOptional = false;
  uint64_t anyTimes = 0;
  bool any = false;
  for (const Item &item : layout.items)
    any |= item.repeat == '*';
  if (any && count >= expected && (count - expected) % optional == 0)
    anyTimes = (count - expected) / optional;
  else if (!any && optional && count == expected + optional)
    withOptional = true;
  else if (count != expected)
    return "has " + std::to_string(count) + " slots, its layout '" +
           std::string(opKindLayout(kind)) + "' needs " +
           std::to_string(expected) +
           (optional ? " (or " + std::to_string(expected + optional) + ")"
                     : std::string());
  // Walk the items in order, expanding groups.
  uint32_t position = 0;
  auto checkSlot = [&](char code, uint32_t slot,
                       ValueType *typeOut) -> std::string {
    auto where = [&] { return "slot " + std::to_string(position) + ": "; };
    bool tagged = code == 't' || code == '*';
    bool isRef;
    uint32_t index;
    if (tagged) {
      isRef = (slot & 0x80000000u) != 0;
      index = slot & ~0x80000000u;
    } else {
      isRef = code != 's' && code != 'p';
      index = slot;
    }
    if (isRef) {
      if (index >= types.refCount)
        return where() + "reference register " + std::to_string(index) +
               " of " + std::to_string(types.refCount);
      auto type = ValueType(types.refs[index]);
      if (!isReferenceType(type) || uint8_t(type) > uint8_t(ValueType::HostBuffer))
        return where() + "register type " + std::to_string(types.refs[index]) +
               " is not a reference type";
      if (code == 't' && type != ValueType::Buffer)
        return where() + "a " + typeName(type) + " where a buffer is expected";
      if (code != 't' && code != '*' && code != 'R' && type != refTypeOf(code))
        return where() + "a " + typeName(type) + " where a " +
               typeName(refTypeOf(code)) + " is expected";
      *typeOut = type;
      return std::string();
    }
    if (index >= types.scalarCount)
      return where() + "scalar register " + std::to_string(index) + " of " +
             std::to_string(types.scalarCount);
    auto type = ValueType(types.scalars[index]);
    if (isReferenceType(type) || uint8_t(type) > uint8_t(ValueType::HostBuffer))
      return where() + "scalar register type " +
             std::to_string(types.scalars[index]) + " invalid";
    if (code == 'p' && type != ValueType::Pointer)
      return where() + "a " + typeName(type) + " where a !util.ptr is expected";
    *typeOut = type;
    return std::string();
  };
  std::vector<ValueType> seen;
  seen.reserve(count);
  size_t i = 0;
  while (i < layout.items.size()) {
    const Item &item = layout.items[i];
    if (item.repeat == 0) {
      ValueType type = ValueType::I64;
      std::string error = checkSlot(item.code, slots[position], &type);
      if (!error.empty())
        return error;
      seen.push_back(type);
      ++position;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < layout.items.size() && layout.items[end].group == item.group)
      ++end;
    uint64_t times = item.repeat == '#'   ? uint64_t(imm)
                     : item.repeat == '%' ? uint64_t(imm2)
                     : item.repeat == '*' ? anyTimes
                                          : (withOptional ? 1 : 0);
    for (uint64_t n = 0; n < times; ++n) {
      for (size_t j = i; j < end; ++j) {
        ValueType type = ValueType::I64;
        std::string error =
            checkSlot(layout.items[j].code, slots[position], &type);
        if (!error.empty())
          return error;
        seen.push_back(type);
        ++position;
      }
    }
    i = end;
  }
  // Pairwise types.
  if (kind == OpKind::Move) {
    for (size_t p = 0; p + 1 < seen.size(); p += 2)
      if (seen[p] != seen[p + 1])
        return "move " + std::to_string(p / 2) + " from a " +
               typeName(seen[p]) + " to a " + typeName(seen[p + 1]);
  } else if (kind == OpKind::SelectRef) {
    if (seen[1] != seen[3] || seen[2] != seen[3])
      return "arith.select of different reference types";
  }
  return std::string();
}

} // namespace fleet::runtime::host
