// Status and Result<T>: how every mlfkit library reports failure.
//
// No exception crosses a library boundary. A function that can fail returns a
// Status (no value) or a Result<T> (a value or a Status). Messages name what
// failed (the member, field or tensor) and, where it helps, what to do.
//
//   Result<Metadata> md = ParseMetadata(text);
//   if (!md.ok()) return md.status();
//   Use(*md);
//
// MLF_RETURN_IF_ERROR and MLF_ASSIGN_OR_RETURN shorten the common forwarding.
#ifndef MLFKIT_ARTIFACT_BASE_STATUS_H_
#define MLFKIT_ARTIFACT_BASE_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace mlf {

// Codes follow Abseil's canonical set, trimmed to what mlfkit reports.
enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the caller's input is malformed (bad JSON, bad tar, bad flag)
  kNotFound,            // a file, member, module or tensor does not exist
  kAlreadyExists,       // e.g. a duplicate archive member
  kFailedPrecondition,  // input is well formed but not acceptable (wrong version)
  kOutOfRange,          // a size or count bound was exceeded
  kDataLoss,            // digest mismatch, truncated or corrupt data
  kUnauthenticated,     // signature missing, wrong or made with another key
  kPermissionDenied,    // unsafe content: path traversal, links, devices
  kUnimplemented,       // a feature this build does not support
  kInternal,            // a bug or an unexpected library failure
  kIoError,             // the operating system refused a read or write
};

// Returns a stable lower-case name such as "invalid_argument".
const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(const std::string& context) const;

  // "ok" or "<code name>: <message>".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status FailedPrecondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status Unauthenticated(std::string m) { return {StatusCode::kUnauthenticated, std::move(m)}; }
inline Status PermissionDenied(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }

// Builds an kIoError status from errno: "<what>: <strerror(errno)>".
Status ErrnoError(const std::string& what);

// A value of type T or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "Result needs a value or a failed Status");
    if (status_.ok()) status_ = Internal("Result constructed from an ok Status");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace mlf

#define MLF_STATUS_CONCAT_INNER_(a, b) a##b
#define MLF_STATUS_CONCAT_(a, b) MLF_STATUS_CONCAT_INNER_(a, b)

// Returns the Status of `expr` from the enclosing function when it is not ok.
#define MLF_RETURN_IF_ERROR(expr)                       \
  do {                                                  \
    ::mlf::Status mlf_status_ = (expr);                 \
    if (!mlf_status_.ok()) return mlf_status_;          \
  } while (0)

// Evaluates `rexpr` (a Result<T>); on failure returns its Status, otherwise
// moves the value into `lhs` (which may be a declaration: `auto x`).
#define MLF_ASSIGN_OR_RETURN(lhs, rexpr) \
  MLF_ASSIGN_OR_RETURN_IMPL_(MLF_STATUS_CONCAT_(mlf_result_, __LINE__), lhs, rexpr)
#define MLF_ASSIGN_OR_RETURN_IMPL_(result, lhs, rexpr) \
  auto result = (rexpr);                               \
  if (!result.ok()) return result.status();            \
  lhs = std::move(result).value()

#endif  // MLFKIT_ARTIFACT_BASE_STATUS_H_
