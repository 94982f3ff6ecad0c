//===- Buffer.cpp - device buffers and buffer views ------------------------===//

#include "fleet/runtime/hal/Buffer.h"

#include "fleet/runtime/hal/Device.h"

#include <cstring>

namespace fleet::runtime::hal {

Buffer::Buffer(Ref<Device> device, MemoryType type, BufferUsage usage,
               uint64_t byteSize)
    : device_(std::move(device)), memoryType_(type), allowedUsage_(usage),
      byteSize_(byteSize) {}

Buffer::~Buffer() {
  releaseImports();
  if (ownsStorage_)
    device_->allocator().decommit(*this);
  if (releaseCallback_)
    releaseCallback_();
}

void Buffer::addImportRelease(std::function<void()> release) {
  std::lock_guard<std::mutex> lock(importMutex_);
  importReleases_.push_back(std::move(release));
}

void Buffer::releaseImports() {
  std::vector<std::function<void()>> releases;
  {
    std::lock_guard<std::mutex> lock(importMutex_);
    releases.swap(importReleases_);
  }
  for (std::function<void()> &release : releases)
    release();
}

std::string Buffer::describe() const {
  return concat("buffer of ", byteSize_, " bytes (", toString(memoryType_),
                ", ", toString(allowedUsage_), ") on device '",
                device_->name(), "'");
}

Status Buffer::requireUsage(std::string_view operation, std::string_view what,
                            BufferUsage usage) const {
  if (anyBitSet(allowedUsage(), usage))
    return Status();
  return makeStatus(StatusCode::PermissionDenied, operation, ": ", what, " ",
                    describe(), " lacks usage ", toString(usage));
}

StatusOr<uint64_t> Buffer::resolveRange(std::string_view operation,
                                        std::string_view what, uint64_t offset,
                                        uint64_t length) const {
  if (offset > byteSize_)
    return makeStatus(StatusCode::OutOfRange, operation, ": ", what,
                      " offset ", offset, " is past the end of ", describe());
  if (length == kWholeBuffer)
    return byteSize_ - offset;
  if (length > byteSize_ - offset)
    return makeStatus(StatusCode::OutOfRange, operation, ": ", what,
                      " range [", offset, ", ", offset + length,
                      ") exceeds ", describe());
  return length;
}

StatusOr<uint8_t *> Buffer::map(uint64_t offset, uint64_t length) const {
  static constexpr const char *kOperation = "map";
  if (!allBitsSet(memoryType_, MemoryType::HostVisible))
    return makeStatus(StatusCode::PermissionDenied, kOperation, " of ",
                      describe(),
                      ": memory type lacks HostVisible (the host cannot "
                      "address this memory)");
  if (!anyBitSet(allowedUsage_, kMappingUsageBits))
    return makeStatus(StatusCode::PermissionDenied, kOperation, " of ",
                      describe(),
                      ": usage lacks a Mapping bit (MappingScoped or "
                      "MappingPersistent)");
  uint8_t *base = storage();
  if (!base)
    return makeStatus(StatusCode::FailedPrecondition, kOperation, " of ",
                      describe(),
                      ": the buffer has no storage (its queue_alloca has not "
                      "run, or its queue_dealloca has)");
  FLEET_ASSIGN_OR_RETURN(uint64_t resolved,
                         resolveRange(kOperation, "mapped", offset, length));
  (void)resolved;
  return base + offset;
}

Status Buffer::read(uint64_t offset, void *target, uint64_t length) const {
  FLEET_ASSIGN_OR_RETURN(uint8_t * data, map(offset, length));
  std::memcpy(target, data, length);
  return Status();
}

Status Buffer::write(uint64_t offset, const void *source, uint64_t length) {
  FLEET_ASSIGN_OR_RETURN(uint8_t * data, map(offset, length));
  std::memcpy(data, source, length);
  return Status();
}

//===----------------------------------------------------------------------===//
// BufferView
//===----------------------------------------------------------------------===//

StatusOr<Ref<BufferView>>
BufferView::create(Ref<Buffer> buffer, uint64_t offset, uint64_t length,
                   std::vector<int64_t> shape, ElementType elementType,
                   EncodingType encoding) {
  static constexpr const char *kOperation = "hal.buffer_view.create";
  if (!buffer)
    return Status(StatusCode::InvalidArgument,
                  std::string(kOperation) + ": null buffer");
  FLEET_ASSIGN_OR_RETURN(uint64_t resolved,
                         buffer->resolveRange(kOperation, "view", offset,
                                              length));
  uint64_t elements = 1;
  bool overflow = false;
  for (int64_t dim : shape) {
    if (dim < 0)
      return makeStatus(StatusCode::InvalidArgument, kOperation,
                        ": negative dimension ", dim);
    overflow |= __builtin_mul_overflow(elements, uint64_t(dim), &elements);
  }
  uint64_t needed = 0;
  overflow |= __builtin_mul_overflow(
      elements, element_type::byteSize(elementType), &needed);
  if (overflow)
    return makeStatus(StatusCode::OutOfRange, kOperation,
                      ": the shape's byte size overflows 64 bits");
  if (needed > resolved)
    return makeStatus(StatusCode::OutOfRange, kOperation, ": shape needs ",
                      needed, " bytes of ", elementTypeName(elementType),
                      " but the view covers ", resolved, " bytes of ",
                      buffer->describe());
  Ref<BufferView> view = Ref<BufferView>::adopt(new BufferView());
  view->buffer_ = std::move(buffer);
  view->byteOffset_ = offset;
  view->byteLength_ = resolved;
  view->shape_ = std::move(shape);
  view->elementType_ = elementType;
  view->encoding_ = encoding;
  return view;
}

uint64_t BufferView::elementCount() const {
  uint64_t count = 1;
  for (int64_t dim : shape_)
    count *= uint64_t(dim);
  return count;
}

std::string BufferView::typeString() const {
  std::string text;
  for (int64_t dim : shape_)
    text += std::to_string(dim) + "x";
  return text + elementTypeName(elementType_);
}

Status BufferView::check(std::string_view message,
                         const std::vector<int64_t> &shape,
                         ElementType elementType, EncodingType encoding) const {
  auto shapeText = [](const std::vector<int64_t> &dims) {
    std::string text = "[";
    for (size_t i = 0; i < dims.size(); ++i)
      text += (i ? ", " : "") + std::to_string(dims[i]);
    return text + "]";
  };
  if (shape != shape_)
    return makeStatus(StatusCode::InvalidArgument,
                      "hal.buffer_view.assert '", message, "': shape ",
                      shapeText(shape_), " does not match expected ",
                      shapeText(shape));
  if (elementType != elementType_)
    return makeStatus(StatusCode::InvalidArgument,
                      "hal.buffer_view.assert '", message, "': element type ",
                      elementTypeName(elementType_), " does not match ",
                      elementTypeName(elementType));
  if (encoding != encoding_)
    return makeStatus(StatusCode::InvalidArgument,
                      "hal.buffer_view.assert '", message, "': encoding ",
                      encoding_, " does not match ", encoding);
  return Status();
}

} // namespace fleet::runtime::hal
