// Status and Result for crypt/: every fallible call returns one; nothing here throws. The codes
// are crypt's own (crypt depends on nothing of ours but text/); a caller maps them to its
// layer's errors with an exhaustive switch (s3api: kAuthFailed → 500 InternalError, logged).
// A message never holds key material or plaintext.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace cubby::crypt {

enum class Code {
  kOk,
  kInvalidArgument,  // the caller broke a REQUIRES (a range outside the object, a use after Finish)
  kAuthFailed,       // sealed data failed authentication: a tag mismatch (tampered, reordered,
                     // wrong data key or context) or truncated/extended data. Never with bytes.
  kWrongKey,         // a wrapped key or check value does not verify under the given key
  kBadFormat,        // a blob, a key file or a sealed size that cannot be what we wrote
  kNotFound,         // a key file that does not exist
  kAlreadyExists,    // generating a key file where one exists
  kBadPermissions,   // a key file readable or writable by group or others
  kIOError,          // reading or writing a file failed (errno text in the message)
  kSinkFailed,       // the caller's sink returned false; the caller holds its own reason
  kInternal,         // OpenSSL failed (allocation, RAND_bytes): not the data's fault
};

const char* CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  static Status Ok() { return Status(); }
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;
  // Explicit, searchable way to drop a status on purpose.
  void IgnoreError() const {}

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or a non-OK Status. REQUIRES for value(): ok().
template <typename T>
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

}  // namespace cubby::crypt
