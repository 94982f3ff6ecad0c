//===- BufferViews.cpp - host tensors to and from buffer views -----------===//

#include "fleet/runtime/tooling/Tensor.h"

#include "fleet/runtime/hal/Transfer.h"

#include <cstring>

namespace fleet::runtime::tooling {

using hal::makeStatus;
using hal::StatusCode;

hal::StatusOr<hal::Ref<hal::BufferView>>
uploadTensor(hal::Device &device, const HostTensor &tensor) {
  // Host memory the devices can see; SharingExport lets a device that only
  // reaches `device` by export_import (a discrete one) import it instead of
  // needing a copy (docs/design.md §3). Mapping lets the host write it
  // directly.
  hal::MemoryType type = hal::MemoryType::HostLocal |
                         hal::MemoryType::DeviceVisible;
  hal::BufferUsage usage =
      hal::BufferUsage::Transfer | hal::BufferUsage::DispatchStorage |
      hal::BufferUsage::SharingExport | hal::BufferUsage::Mapping;
  auto buffer = device.allocator().allocate(type, usage, tensor.bytes.size());
  if (!buffer.ok())
    return buffer.status();
  if (!tensor.bytes.empty()) {
    hal::Status status =
        (*buffer)->write(0, tensor.bytes.data(), tensor.bytes.size());
    if (!status.ok())
      return status;
  }
  return hal::BufferView::create(*buffer, 0, tensor.bytes.size(),
                                 tensor.shape, tensor.elementType);
}

hal::StatusOr<HostTensor> downloadTensor(const hal::BufferView &view,
                                         hal::Timeout timeout) {
  HostTensor tensor;
  tensor.shape = view.shape();
  tensor.elementType = view.elementType();
  uint64_t length = 0;
  if (__builtin_mul_overflow(tensor.elementCount(),
                             hal::element_type::byteSize(view.elementType()),
                             &length) ||
      length > view.byteLength())
    return makeStatus(StatusCode::OutOfRange, "buffer view ",
                      view.typeString(), " needs ", length,
                      " bytes but its range holds ", view.byteLength());
  tensor.bytes.resize(length);
  if (length == 0)
    return tensor;
  hal::Buffer &buffer = view.buffer();
  if (!buffer.hasStorage())
    return makeStatus(StatusCode::FailedPrecondition, "the ",
                      buffer.describe(), " behind buffer view ",
                      view.typeString(), " has no storage (deallocated?)");
  bool mappable =
      hal::allBitsSet(buffer.memoryType(), hal::MemoryType::HostVisible) &&
      hal::anyBitSet(buffer.allowedUsage(), hal::kMappingUsageBits);
  hal::Status status =
      mappable ? buffer.read(view.byteOffset(), tensor.bytes.data(), length)
               : hal::transferToHost(buffer.device(), buffer,
                                     view.byteOffset(), tensor.bytes.data(),
                                     length, timeout);
  if (!status.ok())
    return status;
  return tensor;
}

} // namespace fleet::runtime::tooling
