// Status and StatusOr<T>: how errors cross module boundaries.
//
// A Status is ok or carries one human-readable line and a kind. The kind
// says whose the failure is, and is what decides, each in one place, a
// command's exit code (cli/exit_code.h) and a gRPC answer's code
// (proto/grpc_status.h). Library exceptions are caught at the module edge
// and translated into a Status; nothing throws across a module boundary.
#ifndef STAMPEDE_COMMON_STATUS_H_
#define STAMPEDE_COMMON_STATUS_H_

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace stampede {

enum class StatusKind : uint8_t {
  kOk,
  kFailed,         // anything below: a server, the disk, stampede itself
  kInvalidInput,   // a plan, flag, file or request that is wrong: the user's to fix
  kNotFound,       // a file, run or directory that is not there
  kPermission,     // refused: a certificate, token or file mode
  kAlreadyExists,  // a name or directory already taken
  kUnavailable,    // a peer that did not answer (it may later)
  kExhausted,      // a limit reached (too many agents, sessions)
};

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(StatusKind::kFailed, std::move(message)); }
  static Status Invalid(std::string message) { return Status(StatusKind::kInvalidInput, std::move(message)); }
  static Status NotFound(std::string message) { return Status(StatusKind::kNotFound, std::move(message)); }
  static Status Denied(std::string message) { return Status(StatusKind::kPermission, std::move(message)); }
  static Status Exists(std::string message) { return Status(StatusKind::kAlreadyExists, std::move(message)); }
  static Status Unavailable(std::string message) { return Status(StatusKind::kUnavailable, std::move(message)); }
  static Status Exhausted(std::string message) { return Status(StatusKind::kExhausted, std::move(message)); }
  // "CONTEXT: strerror(err)", of the kind the error number means (a
  // missing file is not found, EACCES refused, a full disk failed).
  static Status FromErrno(const std::string& context, int err);
  Status(StatusKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  bool ok() const { return kind_ == StatusKind::kOk; }
  StatusKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with context ("connect 127.0.0.1:5432: "); the
  // kind stays.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(kind_, context + ": " + message_);
  }

 private:
  StatusKind kind_ = StatusKind::kOk;
  std::string message_;
};

template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT: implicit
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit
    assert(!status_.ok());
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace stampede

#endif  // STAMPEDE_COMMON_STATUS_H_
