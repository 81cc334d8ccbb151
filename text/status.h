// Status and Result, shaped once for every module that reports failure by value (storage,
// crypt): a module keeps its own Code enum and CodeName(Code), found by argument-dependent
// lookup, and names these with its Code (`using Status = text::Status<Code>`).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace cubby::text {

template <typename Code>
class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  static Status Ok() { return Status(); }
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "OK", or the code's name and the message: "NoSuchKey: no such key".
  std::string ToString() const {
    if (ok()) return "OK";
    std::string out = CodeName(code_);
    if (!message_.empty()) out += ": " + message_;
    return out;
  }
  // Explicit, searchable way to drop a status on purpose.
  void IgnoreError() const {}

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or a non-OK Status. REQUIRES for value(): ok().
template <typename Status, typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}                                  // NOLINT
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace cubby::text
