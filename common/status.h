// Status and StatusOr<T>: how errors cross module boundaries.
//
// A Status is ok or carries one human-readable line. Library exceptions are
// caught at the module edge and translated into a Status; nothing throws
// across a module boundary.
#ifndef STAMPEDE_COMMON_STATUS_H_
#define STAMPEDE_COMMON_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace stampede {

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) {
    Status s;
    s.ok_ = false;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return ok_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with context ("connect 127.0.0.1:5432: ").
  Status WithContext(const std::string& context) const {
    if (ok_) return *this;
    return Error(context + ": " + message_);
  }

 private:
  bool ok_ = true;
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
