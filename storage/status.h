// Status and Result: the only way storage reports failure. Nothing in storage/ throws.
// Codes are domain codes; outer layers map them (s3api → S3 errors, cosi → grpc::Status)
// with exhaustive switches, so adding a code here makes the compiler point at both maps.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace cubby::storage {

enum class Code {
  kOk,
  kNoSuchBucket,
  kNoSuchKey,
  kNoSuchUpload,
  kNoSuchAccessKey,
  kBucketAlreadyExists,  // a bucket of that name exists (buckets have one owner: the appliance)
  kBucketNotEmpty,
  kPreconditionFailed,  // a write condition (If-Match / If-None-Match) did not hold
  kInvalidArgument,     // caller passed something storage cannot represent
  kInvalidPart,         // CompleteUpload named a part number the upload does not hold
  kAborted,             // a conflicting concurrent change won; retrying may succeed
  kIOError,             // RocksDB or filesystem failure
  kCorruption,          // a stored record could not be decoded
  kFormatTooNew,        // the data folder was written by a newer release (format.h)
  kNoSpace,             // the store is full: the write would eat into the reserve, or hit ENOSPC
  // Users (IAM's codes, which the IAM API answers as they are):
  kNoSuchEntity,         // no such user, user policy, or access key of that user
  kEntityAlreadyExists,  // a user of that name or e-mail address, or a key of that id, exists
  kDeleteConflict,       // the user still owns access keys or policies (or is root)
  kLimitExceeded,        // more than 2 keys, 50 tags, or 2048 policy characters for a user
  // Versioning:
  kNoSuchVersion,  // a well-formed version id that names no version of the key
  kObjectLocked,   // object lock: the version's retention or legal hold forbids the change
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
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace cubby::storage
