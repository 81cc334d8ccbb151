// Bucket quotas: the one check every write path calls before it stores a body, and
// again before it commits.
//
// A bucket's quota (storage::BucketQuota, set by the root user through /_cubby/quota or by a
// COSI BucketClass) limits its usage, storage::BucketStats: the bytes and the number of its
// current objects (noncurrent versions, delete markers and multipart uploads in progress are
// not counted). A write is refused with 403 QuotaExceeded when
//   - usage.bytes + size > quota.bytes, where size is the write's whole new size: an overwrite
//     of an existing key counts its full new size, not the difference (simple and
//     conservative: a bucket at its limit takes no overwrite that adds bytes); or
//   - it makes a new current object and usage.objects + 1 > quota.objects. An overwrite of a
//     key that has a current object does not add one (asked of the store only when this is
//     what decides).
// Parts of an upload count only their own size against the bytes, not the other parts in
// progress; CompleteMultipartUpload counts the final object's size, and its refusal leaves the
// upload as it was (the client may abort it, or delete other objects and retry).
//
// Concurrency: the check reads the usage, the write stores its body, the check runs again, and
// the write commits. Writers that pass the second check at the same time may each commit, so a
// bucket passes its quota by at most the writes in flight at that moment; never by a write
// whose body arrived while the usage was already at the limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "s3api/handlers.h"
#include "storage/records.h"
#include "storage/store.h"

namespace cubby::s3api {

// The limit a write would pass.
struct QuotaRefusal {
  enum class Limit { kBytes, kObjects };
  Limit limit = Limit::kBytes;
  uint64_t value = 0;  // the quota's limit on that figure
};

// Pure: the limit of `quota` that a write adding `added_bytes` and `added_objects` (0 or 1) to
// `usage` passes, bytes first; nullopt when it fits (and always for a quota without limits).
// The objects limit is asked only when added_objects > 0. No overflow for any values.
std::optional<QuotaRefusal> ExceededQuota(const storage::BucketQuota& quota,
                                          const storage::BucketStats& usage, uint64_t added_bytes,
                                          uint64_t added_objects);

// The QuotaExceeded message naming the limit, e.g. "The bucket's quota of 1048576 bytes would
// be exceeded." or "... of 1 object ...".
std::string QuotaMessage(const QuotaRefusal& refusal);

// The check for a write of `added_bytes` to the request's bucket (ctx.route.bucket). `key`: the
// key of the current object the write makes (PutObject, POST, CopyObject, Complete); nullopt
// for a write that makes no object (UploadPart, UploadPartCopy). Failure::None() when it fits;
// else 403 QuotaExceeded with QuotaMessage, or the error of a failed store read. No store read
// for a bucket without a quota (its record is the Authorizer's cached copy, RequestBucket);
// with one, a BucketStats read, and a HeadObject of `key` only when the objects limit decides.
Failure CheckQuota(const Context& ctx, uint64_t added_bytes, std::optional<std::string_view> key);

}  // namespace cubby::s3api
