//===- Value.cpp - host values and signatures ----------------------------===//

#include "fleet/runtime/host/Context.h"

#include "fleet/runtime/hal/HalfFloat.h"

#include <cstdio>
#include <cstdlib>

namespace fleet::runtime::host {

unsigned bitWidth(ValueType type) {
  switch (type) {
  case ValueType::I1:
    return 1;
  case ValueType::I8:
    return 8;
  case ValueType::I16:
  case ValueType::F16:
  case ValueType::BF16:
    return 16;
  case ValueType::I32:
  case ValueType::F32:
    return 32;
  case ValueType::I64:
  case ValueType::Index:
  case ValueType::F64:
  case ValueType::Pointer:
    return 64;
  default:
    return 0;
  }
}

const char *typeName(ValueType type) {
  switch (type) {
  case ValueType::I1:
    return "i1";
  case ValueType::I8:
    return "i8";
  case ValueType::I16:
    return "i16";
  case ValueType::I32:
    return "i32";
  case ValueType::I64:
    return "i64";
  case ValueType::Index:
    return "index";
  case ValueType::F32:
    return "f32";
  case ValueType::F64:
    return "f64";
  case ValueType::F16:
    return "f16";
  case ValueType::BF16:
    return "bf16";
  case ValueType::Pointer:
    return "!util.ptr";
  case ValueType::Device:
    return "!hal.device";
  case ValueType::Allocator:
    return "!hal.allocator";
  case ValueType::Buffer:
    return "!hal.buffer";
  case ValueType::BufferView:
    return "!hal.buffer_view";
  case ValueType::Fence:
    return "!hal.fence";
  case ValueType::CommandBuffer:
    return "!hal.command_buffer";
  case ValueType::Executable:
    return "!hal.executable";
  case ValueType::HostBuffer:
    return "!util.buffer";
  }
  return "?";
}

hal::Ref<HostBuffer> HostBuffer::create(const void *data, size_t size,
                                        size_t alignment) {
  if (alignment < 16 || (alignment & (alignment - 1)) != 0)
    alignment = 64;
  hal::Ref<HostBuffer> buffer = hal::Ref<HostBuffer>::adopt(new HostBuffer());
  // aligned_alloc wants a size that is a multiple of the alignment.
  size_t padded = (size + alignment - 1) / alignment * alignment;
  buffer->data_ = static_cast<uint8_t *>(
      std::aligned_alloc(alignment, padded ? padded : alignment));
  buffer->size_ = size;
  if (size)
    std::memcpy(buffer->data_, data, size);
  return buffer;
}

HostBuffer::~HostBuffer() { std::free(data_); }

Value Value::integer(ValueType type, int64_t value) {
  unsigned width = bitWidth(type);
  uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  return fromBits(type, uint64_t(value) & mask);
}

int64_t Value::asSigned() const {
  unsigned width = bitWidth(type_);
  if (width == 0 || width >= 64)
    return int64_t(bits_);
  unsigned shift = 64 - width;
  return int64_t(bits_ << shift) >> shift;
}

double Value::asFloat() const {
  if (type_ == ValueType::F32) {
    float value;
    uint32_t bits = uint32_t(bits_);
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  if (type_ == ValueType::F64) {
    double value;
    std::memcpy(&value, &bits_, sizeof(value));
    return value;
  }
  if (type_ == ValueType::F16)
    return hal::halfToFloat(uint16_t(bits_));
  if (type_ == ValueType::BF16)
    return hal::bfloatToFloat(uint16_t(bits_));
  return double(asSigned());
}

std::string Value::toString() const {
  if (isReference())
    return object_ ? std::string(typeName(type_))
                   : std::string("null ") + typeName(type_);
  char text[64];
  if (isFloatType(type_) || isHalfFloatType(type_))
    std::snprintf(text, sizeof(text), "%G", asFloat());
  else if (type_ == ValueType::I1)
    std::snprintf(text, sizeof(text), "%d", bits_ ? 1 : 0);
  else
    std::snprintf(text, sizeof(text), "%lld", (long long)asSigned());
  return std::string(typeName(type_)) + "=" + text;
}

std::string TensorDescription::toString() const {
  if (!known)
    return "?";
  std::string text;
  for (int64_t dim : shape)
    text += (dim < 0 ? std::string("?") : std::to_string(dim)) + "x";
  return text + (elementType ? hal::elementTypeName(elementType) : "?");
}

size_t FunctionSignature::inputCount() const {
  if (convention == Convention::CoarseFences && arguments.size() >= 2)
    return arguments.size() - 2;
  return arguments.size();
}

std::string FunctionSignature::toString(const std::string &name) const {
  auto describe = [](ValueType type, const TensorDescription &tensor) {
    if (type == ValueType::BufferView && tensor.known)
      return tensor.toString();
    return std::string(typeName(type));
  };
  std::string text = "@" + name + "(";
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i)
      text += ", ";
    if (i >= inputCount())
      text += i == inputCount() ? "wait fence" : "signal fence";
    else
      text += describe(arguments[i], i < argumentTensors.size()
                                         ? argumentTensors[i]
                                         : TensorDescription());
  }
  text += ") -> (";
  for (size_t i = 0; i < results.size(); ++i) {
    if (i)
      text += ", ";
    text += describe(results[i], i < resultTensors.size() ? resultTensors[i]
                                                          : TensorDescription());
  }
  return text + ")";
}

} // namespace fleet::runtime::host
