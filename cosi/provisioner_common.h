// What the Provisioner services of both COSI versions share: request checks, the bucket
// create-or-match and delete steps on a storage::Store, and the one-line call log. Each
// version's service converts its own messages and calls these.
#pragma once

#include <google/protobuf/map.h>
#include <grpcpp/support/status.h>

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "cosi/params.h"
#include "storage/store.h"

namespace cubby::cosi {

grpc::Status InvalidArgument(std::string message);

// A REQUIRED string field: present and at most `max_bytes` (the spec's 128 unless a field
// says otherwise) → OK; else INVALID_ARGUMENT naming `field`.
grpc::Status CheckRequired(std::string_view field, std::string_view value,
                           size_t max_bytes = kMaxStringBytes);

// Copies a proto map and checks the spec's map size limit (INVALID_ARGUMENT naming `field`).
storage::Result<Parameters> ToParameters(std::string_view field,
                                         const google::protobuf::Map<std::string, std::string>& in);

// "OK", "NOT_FOUND", ... (the names gRPC's documentation uses).
std::string_view GrpcCodeName(grpc::StatusCode code);

// Creates bucket `name` (owned by root, created_by_cosi) with `wanted` — its versioning, object
// lock, lifecycle, default encryption and quota set in the one write that creates it — or finds
// it: OK when it exists with the same effective parameters (BucketParamsOf; also a bucket made
// through S3 or by an older cubby), ALREADY_EXISTS naming its parameters and the requested ones
// that differ; storage errors via ToGrpcStatus.
// REQUIRES: storage::ValidateBucketName(name).ok(). Thread-safe (storage's GetOrCreateBucket).
grpc::Status CreateOrMatchBucket(storage::Store* store, const std::string& name,
                                 const BucketParams& wanted, int64_t now_ms);

// Deletes bucket `bucket_id`: unknown → OK; non-empty only when class_params.force_delete or the
// bucket's own forceDelete, else FAILED_PRECONDITION (nothing changes); versions under object
// lock → FAILED_PRECONDITION. Keys granted on it lose that grant (and go with their last one).
grpc::Status DeleteBucketAs(storage::Store* store, const std::string& bucket_id,
                            const BucketParams& class_params);

// Called once per call with the method, a name from the request and the gRPC code name:
// nothing else, so no secret can reach a log. Unset: one line on stderr.
using CallLog =
    std::function<void(std::string_view method, std::string_view bucket, std::string_view code)>;
// Logs (method, `bucket` made printable and bounded, code) and returns `status`.
grpc::Status LogCall(const CallLog& log, std::string_view method, std::string_view bucket,
                     const grpc::Status& status);

// Milliseconds since the Unix epoch from `now_ms`, or the system clock when it is unset.
int64_t NowMs(const std::function<int64_t()>& now_ms);

// Striped mutexes keyed by a name (a bucket, a grant): calls on the same name are serialized.
class NameLocks {
 public:
  std::mutex& For(std::string_view name) {
    return locks_[std::hash<std::string_view>{}(name) % locks_.size()];
  }

 private:
  std::array<std::mutex, 64> locks_;
};

}  // namespace cubby::cosi
