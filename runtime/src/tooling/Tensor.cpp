//===- Tensor.cpp - host tensors: text form and comparison ---------------===//

#include "fleet/runtime/tooling/Tensor.h"

#include "fleet/runtime/hal/HalfFloat.h"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace fleet::runtime::tooling {

using hal::bfloatToFloat;
using hal::ElementType;
using hal::floatToBFloat;
using hal::floatToHalf;
using hal::halfToFloat;
using hal::makeStatus;
using hal::Status;
using hal::StatusCode;
namespace et = hal::element_type;

uint64_t HostTensor::elementCount() const {
  uint64_t count = 1;
  for (int64_t dim : shape)
    count *= uint64_t(dim);
  return count;
}

std::string HostTensor::typeString() const {
  std::string text;
  for (int64_t dim : shape)
    text += std::to_string(dim) + "x";
  return text + hal::elementTypeName(elementType);
}

bool parseElementType(std::string_view text, ElementType &out) {
  auto parseBits = [](std::string_view digits, uint32_t &bits) {
    if (digits.empty() || digits.size() > 2)
      return false;
    bits = 0;
    for (char c : digits) {
      if (c < '0' || c > '9')
        return false;
      bits = bits * 10 + uint32_t(c - '0');
    }
    return bits == 8 || bits == 16 || bits == 32 || bits == 64;
  };
  uint32_t bits = 0;
  if (text == "i1") {
    out = et::kI1;
    return true;
  }
  if (text == "bf16") {
    out = et::kBF16;
    return true;
  }
  if (text.size() > 1 && text[0] == 'f' && parseBits(text.substr(1), bits) &&
      bits != 8) {
    out = et::make(et::kKindIeeeFloat, bits);
    return true;
  }
  if (text.size() > 2 && text.substr(0, 2) == "si" &&
      parseBits(text.substr(2), bits)) {
    out = et::make(et::kKindSignedInt, bits);
    return true;
  }
  if (text.size() > 2 && text.substr(0, 2) == "ui" &&
      parseBits(text.substr(2), bits)) {
    out = et::make(et::kKindUnsignedInt, bits);
    return true;
  }
  if (text.size() > 1 && text[0] == 'i' && parseBits(text.substr(1), bits)) {
    out = et::make(et::kKindSignlessInt, bits);
    return true;
  }
  return false;
}

namespace {

bool isFloat(ElementType type) {
  return et::kind(type) == et::kKindIeeeFloat ||
         et::kind(type) == et::kKindBFloat;
}
bool isUnsigned(ElementType type) {
  return et::kind(type) == et::kKindUnsignedInt;
}
bool supported(ElementType type) {
  uint32_t kind = et::kind(type), bits = et::bitCount(type);
  if (kind == et::kKindBool)
    return bits == 8;
  if (kind == et::kKindIeeeFloat)
    return bits == 16 || bits == 32 || bits == 64;
  if (kind == et::kKindBFloat)
    return bits == 16;
  if (kind == et::kKindSignlessInt || kind == et::kKindSignedInt ||
      kind == et::kKindUnsignedInt)
    return bits == 8 || bits == 16 || bits == 32 || bits == 64;
  return false;
}

void storeFloat(ElementType type, double value, uint8_t *target) {
  if (type == et::kF32) {
    float f = float(value);
    std::memcpy(target, &f, 4);
  } else if (type == et::kF64) {
    std::memcpy(target, &value, 8);
  } else if (type == et::kF16) {
    uint16_t h = floatToHalf(float(value));
    std::memcpy(target, &h, 2);
  } else {
    uint16_t b = floatToBFloat(float(value));
    std::memcpy(target, &b, 2);
  }
}

void storeInteger(uint64_t bits, size_t bytes, uint8_t *target) {
  std::memcpy(target, &bits, bytes); // little-endian host
}

/// One element of the text form into `target`.
Status parseElement(std::string_view token, ElementType type,
                    uint8_t *target) {
  std::string text(token);
  auto bad = [&](const char *why) {
    return makeStatus(StatusCode::InvalidArgument, "'", text, "' ", why,
                      " for element type ", hal::elementTypeName(type));
  };
  size_t bytes = et::byteSize(type);
  if (et::kind(type) == et::kKindBool) {
    if (text == "true" || text == "1")
      *target = 1;
    else if (text == "false" || text == "0")
      *target = 0;
    else
      return bad("is not a boolean (true, false, 1, 0)");
    return Status();
  }
  char *end = nullptr;
  errno = 0;
  if (isFloat(type)) {
    double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0')
      return bad("is not a number");
    storeFloat(type, value, target);
    return Status();
  }
  unsigned bits = et::bitCount(type);
  if (isUnsigned(type)) {
    if (!text.empty() && text[0] == '-')
      return bad("is negative");
    unsigned long long value = std::strtoull(text.c_str(), &end, 0);
    if (end == text.c_str() || *end != '\0')
      return bad("is not an integer");
    if (errno == ERANGE || (bits < 64 && value >> bits))
      return bad("is out of range");
    storeInteger(value, bytes, target);
    return Status();
  }
  long long value = std::strtoll(text.c_str(), &end, 0);
  if (end == text.c_str() || *end != '\0')
    return bad("is not an integer");
  bool signedKind = et::kind(type) == et::kKindSignedInt;
  if (errno == ERANGE)
    return bad("is out of range");
  if (bits < 64) {
    // Signless integers accept the signed and the unsigned range (IREE).
    long long min = -(1LL << (bits - 1));
    long long max = signedKind ? (1LL << (bits - 1)) - 1 : (1LL << bits) - 1;
    if (value < min || value > max)
      return bad("is out of range");
  }
  storeInteger(uint64_t(value), bytes, target);
  return Status();
}

std::string trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace((unsigned char)text[begin]))
    ++begin;
  while (end > begin && std::isspace((unsigned char)text[end - 1]))
    --end;
  return std::string(text.substr(begin, end - begin));
}

std::string formatElement(const HostTensor &tensor, size_t index) {
  ElementType type = tensor.elementType;
  size_t bytes = et::byteSize(type);
  if (!supported(type)) {
    // Element types without a text form print as hex bytes (IREE does too).
    static const char digits[] = "0123456789ABCDEF";
    std::string hex;
    for (size_t i = 0; i < bytes; ++i) {
      uint8_t byte = tensor.bytes[index * bytes + i];
      hex += digits[byte >> 4];
      hex += digits[byte & 15];
    }
    return hex;
  }
  uint64_t raw = 0;
  std::memcpy(&raw, tensor.bytes.data() + index * bytes, isFloat(type) ? 0 : bytes);
  char text[64];
  if (isFloat(type)) {
    // iree-run-module prints floats with %G.
    std::snprintf(text, sizeof(text), "%G", elementAsDouble(tensor, index));
  } else if (isUnsigned(type) || et::kind(type) == et::kKindBool) {
    std::snprintf(text, sizeof(text), "%" PRIu64, raw);
  } else {
    unsigned shift = 64 - unsigned(bytes * 8);
    std::snprintf(text, sizeof(text), "%" PRId64, int64_t(raw << shift) >> shift);
  }
  return text;
}

} // namespace

double elementAsDouble(const HostTensor &tensor, size_t index) {
  ElementType type = tensor.elementType;
  size_t bytes = et::byteSize(type);
  if (!supported(type))
    return std::nan("");
  const uint8_t *p = tensor.bytes.data() + index * bytes;
  if (type == et::kF32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (type == et::kF64) {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  if (type == et::kF16 || type == et::kBF16) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return type == et::kF16 ? halfToFloat(v) : bfloatToFloat(v);
  }
  uint64_t raw = 0;
  std::memcpy(&raw, p, bytes);
  if (isUnsigned(type) || et::kind(type) == et::kKindBool)
    return double(raw);
  unsigned shift = 64 - unsigned(bytes * 8);
  return double(int64_t(raw << shift) >> shift);
}

hal::StatusOr<HostTensor> parseTensor(std::string_view input) {
  std::string text = trim(input);
  if (text.empty())
    return makeStatus(StatusCode::InvalidArgument,
                      "empty value (expected e.g. 4xf32=1,2,3,4 or @file.npy)");
  if (text[0] == '@') {
    auto arrays = readNpyFile(text.substr(1));
    if (!arrays.ok())
      return arrays.status();
    if (arrays->empty())
      return makeStatus(StatusCode::InvalidArgument, "'", text.substr(1),
                        "' holds no array");
    return std::move((*arrays)[0]);
  }
  size_t equals = text.find('=');
  std::string typePart =
      trim(equals == std::string::npos ? text : text.substr(0, equals));
  bool hasData = equals != std::string::npos;
  std::string_view data =
      hasData ? std::string_view(text).substr(equals + 1) : std::string_view();

  HostTensor tensor;
  size_t start = 0;
  while (true) {
    size_t x = typePart.find('x', start);
    if (x == std::string::npos)
      break;
    std::string dim = typePart.substr(start, x - start);
    char *end = nullptr;
    long long value = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || *end != '\0' || value < 0 || dim[0] == '-' ||
        dim[0] == '+')
      return makeStatus(StatusCode::InvalidArgument, "'", text,
                        "': dimension '", dim,
                        "' is not a non-negative integer (expected "
                        "e.g. 2x3xf32=...)");
    tensor.shape.push_back(value);
    start = x + 1;
  }
  std::string typeName = typePart.substr(start);
  if (!parseElementType(typeName, tensor.elementType) ||
      !supported(tensor.elementType))
    return makeStatus(StatusCode::InvalidArgument, "'", text,
                      "': unknown element type '", typeName,
                      "' (known: i1, i8, i16, i32, i64, si8..si64, "
                      "ui8..ui64, f16, bf16, f32, f64)");
  size_t elementBytes = et::byteSize(tensor.elementType);
  uint64_t count = 1;
  bool overflow = false;
  for (int64_t dim : tensor.shape)
    overflow |= __builtin_mul_overflow(count, uint64_t(dim), &count);
  if (overflow || count > (uint64_t(1) << 34) / elementBytes)
    return makeStatus(StatusCode::InvalidArgument, "'", typePart,
                      "' is too large for a host tensor");
  tensor.bytes.assign(count * elementBytes, 0);

  std::vector<std::string_view> tokens;
  size_t i = 0;
  auto separator = [](char c) {
    return std::isspace((unsigned char)c) || c == ',' || c == '[' || c == ']';
  };
  while (i < data.size()) {
    while (i < data.size() && separator(data[i]))
      ++i;
    size_t begin = i;
    while (i < data.size() && !separator(data[i]))
      ++i;
    if (i > begin)
      tokens.push_back(data.substr(begin, i - begin));
  }
  if (tokens.empty()) {
    if (hasData && count != 0)
      return makeStatus(StatusCode::InvalidArgument, "'", text,
                        "': no values after '=' (give ", count,
                        " values, or one to fill the shape)");
    return tensor;
  }
  if (tokens.size() != 1 && tokens.size() != count)
    return makeStatus(StatusCode::InvalidArgument, "'", text, "': ",
                      tokens.size(), " values for ", count, " elements of ",
                      tensor.typeString(),
                      " (give every value, or one to fill the shape)");
  for (size_t index = 0; index < tokens.size(); ++index) {
    Status status = parseElement(tokens[index], tensor.elementType,
                                 tensor.bytes.data() + index * elementBytes);
    if (!status.ok())
      return status.withContext("'" + text + "'");
  }
  if (tokens.size() == 1)
    for (uint64_t index = 1; index < count; ++index)
      std::memcpy(tensor.bytes.data() + index * elementBytes,
                  tensor.bytes.data(), elementBytes);
  return tensor;
}

std::string formatTensor(const HostTensor &tensor, size_t maxElements) {
  std::string text = tensor.typeString() + "=";
  uint64_t count = tensor.elementCount();
  if (tensor.shape.empty())
    return text + (count ? formatElement(tensor, 0) : std::string());
  size_t printed = 0;
  bool truncated = false;
  // Row-major walk: brackets around every dimension but the outermost.
  std::vector<int64_t> index(tensor.shape.size(), 0);
  size_t rank = tensor.shape.size();
  for (uint64_t flat = 0; flat < count; ++flat) {
    if (printed >= maxElements) {
      truncated = true;
      break;
    }
    // Opening brackets for dimensions starting at this element.
    size_t opening = 0;
    for (size_t d = rank - 1; d >= 1 && index[d] == 0; --d)
      ++opening;
    if (rank == 1 || index[rank - 1] != 0)
      text += flat ? " " : "";
    text.append(opening, '[');
    text += formatElement(tensor, size_t(flat));
    ++printed;
    // Advance the index, closing finished dimensions.
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < tensor.shape[d])
        break;
      index[d] = 0;
      if (d >= 1)
        text += ']';
    }
  }
  if (truncated)
    text += "...";
  return text;
}

std::optional<std::string> compareTensors(const HostTensor &actual,
                                          const HostTensor &expected,
                                          double tolerance) {
  if (actual.elementType != expected.elementType ||
      actual.shape != expected.shape)
    return "the result is " + actual.typeString() + " but " +
           expected.typeString() + " was expected";
  uint64_t count = actual.elementCount();
  size_t bytes = et::byteSize(actual.elementType);
  for (uint64_t i = 0; i < count; ++i) {
    bool match;
    if (isFloat(actual.elementType) && supported(actual.elementType)) {
      double a = elementAsDouble(actual, i), e = elementAsDouble(expected, i);
      match = (std::isnan(a) && std::isnan(e)) || a == e ||
              std::fabs(a - e) <= tolerance;
    } else {
      match = std::memcmp(actual.bytes.data() + i * bytes,
                          expected.bytes.data() + i * bytes, bytes) == 0;
    }
    if (match)
      continue;
    std::string where = "[";
    uint64_t rest = i;
    std::vector<int64_t> coordinates(actual.shape.size());
    for (size_t d = actual.shape.size(); d-- > 0;) {
      coordinates[d] = int64_t(rest % uint64_t(actual.shape[d]));
      rest /= uint64_t(actual.shape[d]);
    }
    for (size_t d = 0; d < coordinates.size(); ++d)
      where += (d ? ", " : "") + std::to_string(coordinates[d]);
    where += "]";
    if (isFloat(actual.elementType) && supported(actual.elementType)) {
      // All significant digits, so the two never print alike.
      double a = elementAsDouble(actual, i), e = elementAsDouble(expected, i);
      char text[128];
      std::snprintf(text, sizeof(text),
                    " is %.9g but %.9g was expected (difference %.3g, "
                    "tolerance %g)",
                    a, e, std::fabs(a - e), tolerance);
      return "element " + where + text;
    }
    return "element " + where + " is " + formatElement(actual, size_t(i)) +
           " but " + formatElement(expected, size_t(i)) + " was expected";
  }
  return std::nullopt;
}

} // namespace fleet::runtime::tooling
