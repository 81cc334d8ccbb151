// Status and Result: the only way storage reports failure. Nothing in storage/ throws.
// Codes are domain codes; outer layers map them (s3api → S3 errors, cosi → grpc::Status)
// with exhaustive switches, so adding a code here makes the compiler point at both maps.
#pragma once

#include "text/status.h"

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

using Status = text::Status<Code>;
template <typename T>
using Result = text::Result<Status, T>;

}  // namespace cubby::storage
