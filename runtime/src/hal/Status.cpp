//===- Status.cpp - error values ------------------------------------------===//

#include "fleet/runtime/hal/Status.h"

namespace fleet::runtime::hal {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "OK";
  case StatusCode::Cancelled:
    return "CANCELLED";
  case StatusCode::Unknown:
    return "UNKNOWN";
  case StatusCode::InvalidArgument:
    return "INVALID_ARGUMENT";
  case StatusCode::DeadlineExceeded:
    return "DEADLINE_EXCEEDED";
  case StatusCode::NotFound:
    return "NOT_FOUND";
  case StatusCode::AlreadyExists:
    return "ALREADY_EXISTS";
  case StatusCode::PermissionDenied:
    return "PERMISSION_DENIED";
  case StatusCode::ResourceExhausted:
    return "RESOURCE_EXHAUSTED";
  case StatusCode::FailedPrecondition:
    return "FAILED_PRECONDITION";
  case StatusCode::Aborted:
    return "ABORTED";
  case StatusCode::OutOfRange:
    return "OUT_OF_RANGE";
  case StatusCode::Unimplemented:
    return "UNIMPLEMENTED";
  case StatusCode::Internal:
    return "INTERNAL";
  case StatusCode::Unavailable:
    return "UNAVAILABLE";
  case StatusCode::DataLoss:
    return "DATA_LOSS";
  case StatusCode::Unauthenticated:
    return "UNAUTHENTICATED";
  case StatusCode::Deferred:
    return "DEFERRED";
  case StatusCode::Incompatible:
    return "INCOMPATIBLE";
  }
  return "UNKNOWN_CODE";
}

std::string Status::toString() const {
  if (ok())
    return "OK";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

Status Status::withContext(std::string_view context) const {
  if (ok())
    return *this;
  std::string message(context);
  message += ": ";
  message += message_;
  return Status(code_, std::move(message));
}

} // namespace fleet::runtime::hal
