//===- Status.h - error values of the Fleet runtime --------------*- C++ -*-===//
//
// Every fallible runtime call returns a Status (or a StatusOr<T>): a code and
// a message that names the object and the operation at fault, e.g.
//   "hal.device.queue.copy on device 'local-task:1': source buffer ...".
// Nothing in the runtime API throws.
//
// Ownership: Status and StatusOr are plain values; copying a Status copies its
// message. An OK status holds no heap memory.
// Thread safety: a Status is immutable once built; distinct objects may be
// used from different threads freely.
// Failure behaviour: the codes are those of IREE's iree_status_code_t (which
// follow absl), so `hal.fence.query`/`hal.fence.await` results computed from
// them read the same in both runtimes; Deferred (17) means "not yet".
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_STATUS_H
#define FLEET_RUNTIME_HAL_STATUS_H

#include <cassert>
#include <cstdint>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace fleet::runtime::hal {

enum class StatusCode : int32_t {
  Ok = 0,
  Cancelled = 1,
  Unknown = 2,
  InvalidArgument = 3,
  DeadlineExceeded = 4,
  NotFound = 5,
  AlreadyExists = 6,
  PermissionDenied = 7,
  ResourceExhausted = 8,
  FailedPrecondition = 9,
  Aborted = 10,
  OutOfRange = 11,
  Unimplemented = 12,
  Internal = 13,
  Unavailable = 14,
  DataLoss = 15,
  Unauthenticated = 16,
  Deferred = 17,
  Incompatible = 18,
};

/// "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", ... (IREE's spelling).
const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  /// OK.
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status okStatus() { return Status(); }

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// "INVALID_ARGUMENT: <message>", or "OK".
  std::string toString() const;

  /// The same code with "<context>: " put before the message; OK stays OK.
  Status withContext(std::string_view context) const;

  /// Marks a status as intentionally dropped (e.g. signalling a semaphore
  /// that another op already failed).
  void ignoreError() const {}

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

namespace detail {
inline void appendAll(std::ostringstream &) {}
template <typename T, typename... Rest>
void appendAll(std::ostringstream &os, const T &first, const Rest &...rest) {
  os << first;
  appendAll(os, rest...);
}
} // namespace detail

/// Concatenates the streamable arguments into a string.
template <typename... Args> std::string concat(const Args &...args) {
  std::ostringstream os;
  detail::appendAll(os, args...);
  return os.str();
}

/// Builds a non-OK Status from streamable message pieces.
template <typename... Args>
Status makeStatus(StatusCode code, const Args &...args) {
  return Status(code, concat(args...));
}

/// A value or the Status explaining why there is none.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(Status status) : status_(std::move(status)) {
    assert(!status_.ok() && "StatusOr built from an OK status has no value");
    if (status_.ok())
      status_ = Status(StatusCode::Internal, "StatusOr built from OK status");
  }
  StatusOr(T value) : hasValue_(true) { new (&storage_) T(std::move(value)); }
  StatusOr(const StatusOr &other) : status_(other.status_) {
    if (other.hasValue_) {
      new (&storage_) T(*other);
      hasValue_ = true;
    }
  }
  StatusOr(StatusOr &&other) : status_(std::move(other.status_)) {
    if (other.hasValue_) {
      new (&storage_) T(std::move(*other));
      hasValue_ = true;
    }
  }
  StatusOr &operator=(StatusOr other) {
    reset();
    status_ = std::move(other.status_);
    if (other.hasValue_) {
      new (&storage_) T(std::move(*other));
      hasValue_ = true;
    }
    return *this;
  }
  ~StatusOr() { reset(); }

  bool ok() const { return hasValue_; }
  const Status &status() const { return status_; }

  T &value() & {
    assert(hasValue_ && "StatusOr has no value");
    return *std::launder(reinterpret_cast<T *>(&storage_));
  }
  const T &value() const & {
    assert(hasValue_ && "StatusOr has no value");
    return *std::launder(reinterpret_cast<const T *>(&storage_));
  }
  T &&value() && { return std::move(value()); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  void reset() {
    if (hasValue_)
      value().~T();
    hasValue_ = false;
  }

  Status status_;
  bool hasValue_ = false;
  alignas(T) unsigned char storage_[sizeof(T)];
};

} // namespace fleet::runtime::hal

/// Returns the status of `expr` from the enclosing function when it is not OK.
#define FLEET_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    ::fleet::runtime::hal::Status fleetStatus_ = (expr);                       \
    if (!fleetStatus_.ok())                                                    \
      return fleetStatus_;                                                     \
  } while (false)

#define FLEET_STATUS_CONCAT_INNER(a, b) a##b
#define FLEET_STATUS_CONCAT(a, b) FLEET_STATUS_CONCAT_INNER(a, b)
/// `FLEET_ASSIGN_OR_RETURN(auto x, makeX());`
#define FLEET_ASSIGN_OR_RETURN(lhs, expr)                                      \
  FLEET_ASSIGN_OR_RETURN_IMPL(FLEET_STATUS_CONCAT(fleetOr_, __LINE__), lhs, expr)
#define FLEET_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                            \
  auto tmp = (expr);                                                           \
  if (!tmp.ok())                                                               \
    return tmp.status();                                                       \
  lhs = std::move(tmp).value()

#endif // FLEET_RUNTIME_HAL_STATUS_H
