#include "cosi/provisioner_common.h"

#include <iostream>
#include <utility>

#include "cosi/status_map.h"
#include "storage/users.h"
#include "text/time.h"

namespace cubby::cosi {

using storage::Code;

grpc::Status InvalidArgument(std::string message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::move(message));
}

grpc::Status CheckRequired(std::string_view field, std::string_view value, size_t max_bytes) {
  if (value.empty()) return InvalidArgument(std::string(field) + " is required");
  if (value.size() > max_bytes) {
    return InvalidArgument(std::string(field) + " is longer than " + std::to_string(max_bytes) +
                           " bytes");
  }
  return grpc::Status::OK;
}

storage::Result<Parameters> ToParameters(
    std::string_view field, const google::protobuf::Map<std::string, std::string>& in) {
  Parameters out(in.begin(), in.end());
  storage::Status size = CheckMapSize(field, out);
  if (!size.ok()) return size;
  return out;
}

std::string_view GrpcCodeName(grpc::StatusCode code) {
  static constexpr std::string_view kNames[] = {"OK",
                                                "CANCELLED",
                                                "UNKNOWN",
                                                "INVALID_ARGUMENT",
                                                "DEADLINE_EXCEEDED",
                                                "NOT_FOUND",
                                                "ALREADY_EXISTS",
                                                "PERMISSION_DENIED",
                                                "RESOURCE_EXHAUSTED",
                                                "FAILED_PRECONDITION",
                                                "ABORTED",
                                                "OUT_OF_RANGE",
                                                "UNIMPLEMENTED",
                                                "INTERNAL",
                                                "UNAVAILABLE",
                                                "DATA_LOSS",
                                                "UNAUTHENTICATED"};
  const auto index = static_cast<size_t>(code);
  return index < std::size(kNames) ? kNames[index] : "UNKNOWN";
}

grpc::Status CreateOrMatchBucket(storage::Store* store, const std::string& name,
                                 const BucketParams& wanted, int64_t now_ms) {
  storage::BucketRecord candidate;
  candidate.name = name;
  candidate.created_ms = now_ms;
  candidate.anonymous = wanted.anonymous;
  candidate.force_delete = wanted.force_delete;
  candidate.created_by_cosi = true;
  // The class's settings go into the record that creates the bucket, in its one write
  // (Store::GetOrCreateBucket stores versioning and object lock as given): the bucket never
  // exists without them, so no S3 write can land in it unversioned, unlocked or unencrypted. A
  // Suspended bucket is created Suspended, which is where S3's CreateBucket then
  // PutBucketVersioning(Suspended) would leave it.
  candidate.versioning = wanted.versioning;
  candidate.object_lock = wanted.object_lock;
  candidate.lifecycle = wanted.lifecycle;
  candidate.encryption = wanted.encryption;
  candidate.quota = wanted.quota;
  const Parameters effective = EffectiveParameters(wanted);
  candidate.cosi_parameters = {effective.begin(), effective.end()};
  // COSI's buckets belong to root, the administrator, as every bucket did before users; their
  // anonymous mode is also their ACL (storage::BucketAclFor). A store without root (a test's)
  // leaves the owner empty.
  storage::Result<storage::UserRecord> root = store->GetUser(storage::kRootUserName);
  if (root.ok()) {
    candidate.owner_id = root->user_id;
    candidate.acl = storage::BucketAclFor(root->user_id, candidate.anonymous);
  } else if (root.status().code() != Code::kNoSuchEntity) {
    return ToGrpcStatus(root.status());
  }

  bool created = false;
  storage::Result<storage::BucketRecord> bucket = store->GetOrCreateBucket(candidate, &created);
  if (!bucket.ok()) return ToGrpcStatus(bucket.status());
  if (!created) {
    // A bucket made through S3 (or by an older cubby) has the default effective parameters
    // unless its configuration was changed; compare what the bucket does, not what it was
    // created with.
    const BucketParams existing = BucketParamsOf(*bucket);
    if (!(existing == wanted)) {
      const Parameters have = EffectiveParameters(existing);
      std::string differing;
      for (const auto& [key, value] : effective) {
        auto it = have.find(key);
        if (it == have.end() || it->second != value) {
          differing += (differing.empty() ? "" : ", ") + key + "=" + value;
        }
      }
      for (const auto& [key, value] : have) {
        if (!effective.contains(key)) {
          differing += (differing.empty() ? "" : ", ") + key + " unset";
        }
      }
      return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                          "bucket \"" + name + "\" exists with different parameters (" +
                              DescribeParameters(have) + "); this request asks for " + differing);
    }
  }
  return grpc::Status::OK;
}

grpc::Status DeleteBucketAs(storage::Store* store, const std::string& bucket_id,
                            const BucketParams& class_params) {
  storage::Result<storage::BucketRecord> bucket = store->GetBucket(bucket_id);
  if (!bucket.ok()) {
    if (bucket.status().code() == Code::kNoSuchBucket) return grpc::Status::OK;
    return ToGrpcStatus(bucket.status());
  }
  const bool force = class_params.force_delete || bucket->force_delete;
  storage::Status deleted = store->DeleteBucket(bucket_id, force);
  switch (deleted.code()) {
    case Code::kOk:
    case Code::kNoSuchBucket:  // deleted meanwhile through S3: the goal holds
      return grpc::Status::OK;
    case Code::kBucketNotEmpty:
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "bucket \"" + bucket_id +
                              "\" is not empty; set forceDelete: \"true\" in the BucketClass "
                              "parameters to delete it with its objects");
    case Code::kObjectLocked:
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "bucket \"" + bucket_id +
                              "\" holds object versions under object lock (retention or a legal "
                              "hold), which forceDelete does not override: " +
                              deleted.message());
    default:
      return ToGrpcStatus(deleted);
  }
}

grpc::Status LogCall(const CallLog& log, std::string_view method, std::string_view bucket,
                     const grpc::Status& status) {
  // The name comes from the client: keep the line one line, printable and bounded.
  std::string safe_bucket(bucket.substr(0, kMaxLongNameBytes));
  for (char& c : safe_bucket) {
    if (c < 0x21 || c > 0x7e) c = '?';
  }
  const std::string_view code = GrpcCodeName(status.error_code());
  if (log) {
    log(method, safe_bucket, code);
  } else {
    std::clog << "cosi " << method << " bucket=" << safe_bucket << " code=" << code << '\n';
  }
  return status;
}

int64_t NowMs(const std::function<int64_t()>& now_ms) {
  return now_ms ? now_ms() : text::NowUnixMillis();
}

}  // namespace cubby::cosi
