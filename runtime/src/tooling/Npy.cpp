//===- Npy.cpp - numpy's .npy format --------------------------------------===//
//
// The format (numpy's NEP 1): the magic "\x93NUMPY", a major and minor
// version byte, the header length (uint16 in 1.0, uint32 in 2.0/3.0), then a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape':
// (2, 3), } padded with spaces and ending in '\n' so the data starts on a
// 64-byte boundary, then the row-major data. Several arrays may follow each
// other in one file.
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/tooling/Tensor.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fleet::runtime::tooling {

using hal::ElementType;
using hal::makeStatus;
using hal::Status;
using hal::StatusCode;
namespace et = hal::element_type;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// descr's type code (without byte order) for an element type.
std::optional<std::string> descrOf(ElementType type) {
  switch (type) {
  case et::kF16:
    return std::string("f2");
  case et::kF32:
    return std::string("f4");
  case et::kF64:
    return std::string("f8");
  case et::kI1:
    return std::string("b1");
  case et::kBF16:
    // numpy has no bfloat16; ml_dtypes' bfloat16 arrays save as 2-byte
    // void ('|V2'), which is what numpy (with or without ml_dtypes) reads.
    return std::string("V2");
  default:
    break;
  }
  uint32_t kind = et::kind(type), bytes = uint32_t(et::byteSize(type));
  if ((kind == et::kKindSignlessInt || kind == et::kKindSignedInt) &&
      (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8))
    return "i" + std::to_string(bytes);
  if (kind == et::kKindUnsignedInt &&
      (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8))
    return "u" + std::to_string(bytes);
  return std::nullopt;
}

/// numpy's signed integers read as signless (how compiled programs type
/// their tensors); unsigned stay unsigned.
std::optional<ElementType> typeOfDescr(const std::string &code) {
  if (code == "f2")
    return et::kF16;
  if (code == "f4")
    return et::kF32;
  if (code == "f8")
    return et::kF64;
  if (code == "b1")
    return et::kI1;
  if (code == "V2")
    return et::kBF16; // ml_dtypes' bfloat16 (see descrOf)
  if (code.size() == 2 && (code[0] == 'i' || code[0] == 'u')) {
    uint32_t bytes = uint32_t(code[1] - '0');
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
      return std::nullopt;
    return et::make(code[0] == 'i' ? et::kKindSignlessInt
                                   : et::kKindUnsignedInt,
                    bytes * 8);
  }
  return std::nullopt;
}

/// The value of `key` in the header dict, up to the next top-level ',' or
/// '}' (tuples keep their commas).
std::optional<std::string> dictValue(const std::string &header,
                                     const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    at = header.find("\"" + key + "\"");
  if (at == std::string::npos)
    return std::nullopt;
  size_t colon = header.find(':', at + key.size() + 2);
  if (colon == std::string::npos)
    return std::nullopt;
  size_t begin = colon + 1, depth = 0, end = begin;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')' && depth)
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  std::string value = header.substr(begin, end - begin);
  size_t first = value.find_first_not_of(" \t");
  size_t last = value.find_last_not_of(" \t");
  if (first == std::string::npos)
    return std::string();
  return value.substr(first, last - first + 1);
}

hal::StatusOr<HostTensor> decodeOne(std::string_view bytes, size_t &offset,
                                    const std::string &name) {
  auto bad = [&](const std::string &why) {
    return makeStatus(StatusCode::InvalidArgument, "'", name,
                      "' is not a valid .npy file: ", why);
  };
  std::string_view rest = bytes.substr(offset);
  if (rest.size() < kMagicSize + 4 ||
      std::memcmp(rest.data(), kMagic, kMagicSize) != 0)
    return bad("missing the \\x93NUMPY magic");
  uint8_t major = uint8_t(rest[6]);
  size_t headerLength, prefix;
  if (major == 1) {
    headerLength = uint8_t(rest[8]) | (size_t(uint8_t(rest[9])) << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (rest.size() < 12)
      return bad("truncated header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= size_t(uint8_t(rest[8 + i])) << (8 * i);
    prefix = 12;
  } else {
    return bad("unsupported format version " + std::to_string(major));
  }
  if (rest.size() < prefix + headerLength)
    return bad("truncated header");
  std::string header(rest.substr(prefix, headerLength));

  std::optional<std::string> descr = dictValue(header, "descr");
  std::optional<std::string> fortran = dictValue(header, "fortran_order");
  std::optional<std::string> shapeText = dictValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return bad("the header lacks descr, fortran_order or shape");
  if (descr->size() < 4 || ((*descr)[0] != '\'' && (*descr)[0] != '"'))
    return bad("descr " + *descr + " is not a simple type string");
  std::string code = descr->substr(1, descr->size() - 2);
  char order = code[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return bad("descr " + *descr + " has no byte order");
  std::optional<ElementType> type = typeOfDescr(code.substr(1));
  if (!type)
    return makeStatus(StatusCode::InvalidArgument, "'", name,
                      "': unsupported numpy dtype ", *descr,
                      " (supported: bool, int8..int64, uint8..uint64, "
                      "float16, float32, float64, and bfloat16 as V2)");
  if (*fortran != "False")
    return makeStatus(StatusCode::InvalidArgument, "'", name,
                      "': Fortran-ordered arrays are not supported (save "
                      "np.ascontiguousarray(x))");

  HostTensor tensor;
  tensor.elementType = *type;
  std::string dims = *shapeText;
  if (dims.size() < 2 || dims.front() != '(' || dims.back() != ')')
    return bad("shape " + dims + " is not a tuple");
  std::stringstream stream(dims.substr(1, dims.size() - 2));
  std::string item;
  while (std::getline(stream, item, ',')) {
    size_t first = item.find_first_not_of(" \t");
    if (first == std::string::npos)
      continue;
    item = item.substr(first, item.find_last_not_of(" \t") - first + 1);
    char *end = nullptr;
    long long dim = std::strtoll(item.c_str(), &end, 10);
    if (*end != '\0' || dim < 0)
      return bad("shape " + dims + " has a bad dimension");
    tensor.shape.push_back(dim);
  }
  size_t elementBytes = et::byteSize(*type);
  uint64_t count = 1;
  bool overflow = false;
  for (int64_t dim : tensor.shape)
    overflow |= __builtin_mul_overflow(count, uint64_t(dim), &count);
  size_t dataStart = prefix + headerLength;
  if (overflow || count > (rest.size() - dataStart) / elementBytes)
    return bad("truncated data (" + std::to_string(rest.size() - dataStart) +
               " bytes for " + tensor.typeString() + ")");
  tensor.bytes.assign(rest.data() + dataStart,
                      rest.data() + dataStart + count * elementBytes);
  if (order == '>' && elementBytes > 1)
    for (uint64_t i = 0; i < count; ++i)
      std::reverse(tensor.bytes.begin() + i * elementBytes,
                   tensor.bytes.begin() + (i + 1) * elementBytes);
  offset += dataStart + count * elementBytes;
  return tensor;
}

} // namespace

hal::StatusOr<std::vector<HostTensor>> decodeNpy(std::string_view bytes,
                                                 const std::string &name) {
  std::vector<HostTensor> arrays;
  size_t offset = 0;
  do {
    auto tensor = decodeOne(bytes, offset, name);
    if (!tensor.ok())
      return tensor.status();
    arrays.push_back(std::move(*tensor));
  } while (offset < bytes.size());
  return arrays;
}

hal::StatusOr<std::vector<HostTensor>> readNpyFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return makeStatus(StatusCode::NotFound, "cannot open '", path,
                      "': ", std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  return decodeNpy(bytes, path);
}

bool hasNpyDtype(hal::ElementType type) { return descrOf(type).has_value(); }

hal::StatusOr<std::string> encodeNpy(const HostTensor &tensor) {
  std::optional<std::string> code = descrOf(tensor.elementType);
  if (!code)
    return makeStatus(StatusCode::InvalidArgument,
                      "element type ", hal::elementTypeName(tensor.elementType),
                      " has no numpy dtype");
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  if (tensor.shape.size() == 1)
    shape += ",";
  shape += ")";
  char order = et::byteSize(tensor.elementType) == 1 || (*code)[0] == 'V'
                   ? '|'
                   : '<';
  std::string header = std::string("{'descr': '") + order + *code +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so magic + version + length + header is a multiple of
  // 64, ending in '\n'.
  bool version2 = header.size() + 11 > 65535;
  size_t prefix = version2 ? 12 : 10;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += char(version2 ? 2 : 1);
  out += char(0);
  size_t length = header.size();
  for (size_t i = 0; i < (version2 ? 4u : 2u); ++i)
    out += char((length >> (8 * i)) & 0xFF);
  out += header;
  out.append(reinterpret_cast<const char *>(tensor.bytes.data()),
             tensor.bytes.size());
  return out;
}

hal::Status writeNpyFile(const std::string &path, const HostTensor &tensor,
                         bool append) {
  auto bytes = encodeNpy(tensor);
  if (!bytes.ok())
    return bytes.status();
  std::ofstream file(path, append ? std::ios::binary | std::ios::app
                                  : std::ios::binary | std::ios::trunc);
  if (!file)
    return makeStatus(StatusCode::NotFound, "cannot write '", path,
                      "': ", std::strerror(errno));
  file.write(bytes->data(), std::streamsize(bytes->size()));
  if (!file)
    return makeStatus(StatusCode::DataLoss, "writing '", path, "' failed");
  return Status();
}

} // namespace fleet::runtime::tooling
