//===- Tensor.h - host tensors for tools --------------------------*- C++ -*-===//
//
// What tools (fleet-run, benchmarks, tests) move in and out of host
// programs: a dense row-major tensor in host memory, its text form
// (iree-run-module's: `2x2xf32=[1 2][3 4]`), .npy files, and the bridge to
// runtime buffer views.
//
// Text accepted by parseTensor:
//   4xf32=1,2,3,4      values separated by spaces and/or commas
//   2x2xf32=[1 2][3 4] brackets are accepted and ignored
//   4096xf32=-2.0      a single value fills the whole shape
//   f32=0.5            rank 0 (also how scalar inputs are written)
//   4xi32              no values: zero-filled
//   @file.npy          the first array of a .npy file
// Element types: i1 i8 i16 i32 i64 (signless), si8..si64, ui8..ui64, f16,
// bf16, f32, f64.
//
// Ownership: plain values. Thread safety: pure functions, except the
// buffer-view bridge, which submits queue ops (like Transfer.h).
// Failure behaviour: malformed text, unknown types, wrong value counts,
// unreadable or malformed files are InvalidArgument/NotFound errors quoting
// the text or file and saying what is wrong; nothing aborts.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_TOOLING_TENSOR_H
#define FLEET_RUNTIME_TOOLING_TENSOR_H

#include "fleet/runtime/hal/Buffer.h"
#include "fleet/runtime/hal/Device.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleet::runtime::tooling {

struct HostTensor {
  std::vector<int64_t> shape;
  hal::ElementType elementType = 0;
  /// Row-major element bytes, little-endian.
  std::vector<uint8_t> bytes;

  uint64_t elementCount() const;
  /// "2x2xf32" ("f32" for rank 0).
  std::string typeString() const;
};

/// Parses "f32", "si8", "ui64", "i1", "bf16", ...
bool parseElementType(std::string_view text, hal::ElementType &out);

/// See the header comment.
hal::StatusOr<HostTensor> parseTensor(std::string_view text);

/// iree-run-module's form; after `maxElements` elements prints "...".
std::string formatTensor(const HostTensor &tensor, size_t maxElements = 1024);

/// Element `index` as a double (integers exactly up to 2^53).
double elementAsDouble(const HostTensor &tensor, size_t index);

/// Compares `actual` with `expected`: same type and shape, integers exact,
/// floats within the absolute `tolerance` (NaN matches NaN). Returns a
/// description of the first mismatch, or nullopt when they match.
std::optional<std::string> compareTensors(const HostTensor &actual,
                                          const HostTensor &expected,
                                          double tolerance);

// ---- .npy files (numpy's format, versions 1.0–3.0) -----------------------

/// Every array stored in the file, in order (numpy appends arrays to one
/// file with repeated np.save calls).
hal::StatusOr<std::vector<HostTensor>> readNpyFile(const std::string &path);
hal::StatusOr<std::vector<HostTensor>> decodeNpy(std::string_view bytes,
                                                 const std::string &name);
/// Whether arrays of `type` can be written as .npy (bf16 as '|V2', the way
/// ml_dtypes' bfloat16 arrays are saved; i1 as bool).
bool hasNpyDtype(hal::ElementType type);
/// One array in format 1.0 (2.0 when the header needs it).
hal::StatusOr<std::string> encodeNpy(const HostTensor &tensor);
/// Writes (or with `append` adds) one array.
hal::Status writeNpyFile(const std::string &path, const HostTensor &tensor,
                         bool append);

// ---- buffer views -----------------------------------------------------------

/// A buffer view on `device` holding `tensor`: host-local memory the devices
/// can use, with SharingExport so any device of the group may import it
/// (docs/design.md §3).
hal::StatusOr<hal::Ref<hal::BufferView>> uploadTensor(hal::Device &device,
                                                      const HostTensor &tensor);
/// The view's contents: mapped when possible, else staged with a queue copy
/// on the buffer's device (Transfer.h). Every write to the buffer must have
/// completed.
hal::StatusOr<HostTensor> downloadTensor(const hal::BufferView &view,
                                         hal::Timeout timeout);

} // namespace fleet::runtime::tooling

#endif // FLEET_RUNTIME_TOOLING_TENSOR_H
