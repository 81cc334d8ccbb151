// Bucket quotas through the admin API: the /_cubby/quota endpoint.
//
//   GET    /_cubby/quota                every bucket's quota and usage, by bucket name:
//                                       {"buckets":[<bucket document>, ...]}
//   GET    /_cubby/quota?bucket=NAME    200 and the bucket document
//   PUT    /_cubby/quota?bucket=NAME    sets the quota from the JSON body
//                                       {"bytes": N | null, "objects": M | null}: a member
//                                       absent or null is no limit on that figure, both absent
//                                       or null removes the quota; 200 and the bucket document
//   DELETE /_cubby/quota?bucket=NAME    removes the quota; 204
// where the bucket document is
//   {"bucket":"NAME","quota":{"bytes":N|null,"objects":M|null},
//    "usage":{"bytes":B,"objects":O}}
// (usage: storage::BucketStats, the bytes and count of the bucket's current objects). A limit
// is a whole number 0..18446744073709551615 written in plain decimal (no sign, fraction or
// exponent). s3api/quota.h says how writes are checked against it; a quota set below the usage
// refuses every write (an empty one too) until the usage is under it again.
//
// Every call needs a signed request (SigV4 or SigV2, header or presigned) whose caller may call
// cubby:GetBucketQuota (GET), cubby:PutBucketQuota (PUT) or cubby:DeleteBucketQuota (DELETE) on
// the bucket's ARN, or "*" without a bucket (Admit: root's keys, or a user's policy). Errors are
// JSON, {"code":"...","message":"..."}, with the S3 code's status: 403 AccessDenied (anonymous
// or not allowed) or the authentication error, 404 NoSuchBucket,
// 400 InvalidArgument (no bucket parameter on PUT or DELETE; a body that is not JSON, not an
// object, names another member, or whose limit is not such a number; a body over
// kMaxQuotaBodyBytes), 405 MethodNotAllowed (with Allow), 500 InternalError. A change is one
// Store::UpdateBucket (atomic with other changes of the bucket's record, durable on return)
// and the next request sees it.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "s3api/http.h"
#include "server/admin.h"
#include "storage/records.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::server {

inline constexpr size_t kMaxQuotaBodyBytes = 4096;

// The PUT body `json` as a quota. kInvalidArgument with a message saying what is wrong.
storage::Result<storage::BucketQuota> ParseQuotaJson(std::string_view json);

// The bucket document of `bucket` (see the file comment).
std::string QuotaJson(const storage::BucketRecord& bucket, const storage::BucketStats& usage);

// The endpoint as a plain function of the request and its body (read only for a PUT, at most
// kMaxQuotaBodyBytes + 1 bytes of it).
s3api::HttpResponse HandleQuotaRequest(const s3api::HttpRequest& request, s3api::BodyReader& body,
                                       const AdminDoor& door);

}  // namespace cubby::server
