#include "python/native/status_error.h"

namespace mlf::py {
namespace {

namespace pb = pybind11;

// The class name in mlfkit._errors for each code.
const char* ErrorClassName(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return "InvalidArgumentError";
    case StatusCode::kNotFound: return "NotFoundError";
    case StatusCode::kAlreadyExists: return "AlreadyExistsError";
    case StatusCode::kFailedPrecondition: return "FailedPreconditionError";
    case StatusCode::kOutOfRange: return "OutOfRangeError";
    case StatusCode::kDataLoss: return "DataLossError";
    case StatusCode::kUnauthenticated: return "SignatureError";
    case StatusCode::kPermissionDenied: return "PermissionDeniedError";
    case StatusCode::kUnimplemented: return "UnimplementedError";
    case StatusCode::kIoError: return "IOError";
    case StatusCode::kOk:
    case StatusCode::kInternal: break;
  }
  return "InternalError";
}

}  // namespace

void Raise(const Status& status) {
  pb::object errors = pb::module_::import("mlfkit._errors");
  pb::object cls = errors.attr(ErrorClassName(status.code()));
  PyErr_SetObject(cls.ptr(), pb::str(status.message()).ptr());
  throw pb::error_already_set();
}

void RaiseInvalidArgument(const std::string& message) {
  Raise(InvalidArgument(message));
}

}  // namespace mlf::py
