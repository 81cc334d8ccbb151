#include "cosi/provisioner.h"

#include <chrono>
#include <iostream>
#include <utility>

#include "cosi/params.h"
#include "cosi/status_map.h"
#include "storage/bucket_name.h"
#include "storage/keygen.h"
#include "storage/users.h"

namespace cubby::cosi {
namespace {

namespace v1 = ::cosi::v1alpha1;
using storage::AccessMode;
using storage::Code;

grpc::Status InvalidArgument(std::string message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::move(message));
}

// A REQUIRED string field: present and within the spec's size limit.
grpc::Status CheckRequired(std::string_view field, std::string_view value) {
  if (value.empty()) return InvalidArgument(std::string(field) + " is required");
  return ToGrpcStatus(CheckStringSize(field, value));
}

// Copies a proto map and checks the spec's map size limit.
storage::Result<Parameters> ToParameters(std::string_view field,
                                         const google::protobuf::Map<std::string, std::string>& in) {
  Parameters out(in.begin(), in.end());
  storage::Status size = CheckMapSize(field, out);
  if (!size.ok()) return size;
  return out;
}

std::string_view GrpcCodeName(grpc::StatusCode code) {
  static constexpr std::string_view kNames[] = {
      "OK",           "CANCELLED",          "UNKNOWN",   "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED", "NOT_FOUND",     "ALREADY_EXISTS", "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",          "UNAVAILABLE", "DATA_LOSS",
      "UNAUTHENTICATED"};
  const auto index = static_cast<size_t>(code);
  return index < std::size(kNames) ? kNames[index] : "UNKNOWN";
}

}  // namespace

ProvisionerService::ProvisionerService(storage::Store* store, ProvisionerOptions options)
    : store_(store), options_(std::move(options)) {}

grpc::Status ProvisionerService::DriverCreateBucket(grpc::ServerContext* context,
                                                    const v1::DriverCreateBucketRequest* request,
                                                    v1::DriverCreateBucketResponse* response) {
  return Log("DriverCreateBucket", request->name(), CreateBucket(*request, response));
}

grpc::Status ProvisionerService::DriverDeleteBucket(grpc::ServerContext* context,
                                                    const v1::DriverDeleteBucketRequest* request,
                                                    v1::DriverDeleteBucketResponse* response) {
  return Log("DriverDeleteBucket", request->bucket_id(), DeleteBucket(*request));
}

grpc::Status ProvisionerService::DriverGrantBucketAccess(
    grpc::ServerContext* context, const v1::DriverGrantBucketAccessRequest* request,
    v1::DriverGrantBucketAccessResponse* response) {
  grpc::Status status = GrantAccess(*request, response);
  // The v0.2 sidecar crashes on ALREADY_EXISTS from Grant; whatever storage says, never send it.
  if (status.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
    status = grpc::Status(grpc::StatusCode::ABORTED, status.error_message());
  }
  if (!status.ok()) response->Clear();
  return Log("DriverGrantBucketAccess", request->bucket_id(), status);
}

grpc::Status ProvisionerService::DriverRevokeBucketAccess(
    grpc::ServerContext* context, const v1::DriverRevokeBucketAccessRequest* request,
    v1::DriverRevokeBucketAccessResponse* response) {
  return Log("DriverRevokeBucketAccess", request->bucket_id(), RevokeAccess(*request));
}

grpc::Status ProvisionerService::CreateBucket(const v1::DriverCreateBucketRequest& request,
                                              v1::DriverCreateBucketResponse* response) {
  const std::string& name = request.name();
  if (grpc::Status s = CheckRequired("name", name); !s.ok()) return s;
  if (storage::Status s = storage::ValidateBucketName(name); !s.ok()) return ToGrpcStatus(s);
  storage::Result<Parameters> parameters = ToParameters("parameters", request.parameters());
  if (!parameters.ok()) return ToGrpcStatus(parameters.status());
  storage::Result<BucketParams> wanted = ParseBucketParameters(*parameters);
  if (!wanted.ok()) return ToGrpcStatus(wanted.status());

  storage::BucketRecord candidate;
  candidate.name = name;
  candidate.created_ms = NowMs();
  candidate.anonymous = wanted->anonymous;
  candidate.force_delete = wanted->force_delete;
  candidate.created_by_cosi = true;
  const Parameters effective = EffectiveParameters(*wanted);
  candidate.cosi_parameters = {effective.begin(), effective.end()};
  // COSI's buckets belong to root, the administrator, as every bucket did before users; their
  // anonymous mode is also their ACL (storage::BucketAclFor). A store without root (a test's)
  // leaves the owner empty.
  storage::Result<storage::UserRecord> root = store_->GetUser(storage::kRootUserName);
  if (root.ok()) {
    candidate.owner_id = root->user_id;
    candidate.acl = storage::BucketAclFor(root->user_id, candidate.anonymous);
  } else if (root.status().code() != storage::Code::kNoSuchEntity) {
    return ToGrpcStatus(root.status());
  }

  std::lock_guard<std::mutex> lock(BucketLock(name));
  bool created = false;
  storage::Result<storage::BucketRecord> bucket = store_->GetOrCreateBucket(candidate, &created);
  if (!bucket.ok()) return ToGrpcStatus(bucket.status());
  if (!created) {
    // A bucket made through S3 has the default effective parameters unless its anonymous
    // mode was changed; compare what the bucket does, not what it was created with.
    const BucketParams existing = BucketParamsOf(*bucket);
    if (!(existing == *wanted)) {
      return grpc::Status(
          grpc::StatusCode::ALREADY_EXISTS,
          "bucket \"" + name + "\" exists with different parameters (anonymousAccessMode=" +
              std::string(AnonymousModeName(existing.anonymous)) +
              ", forceDelete=" + (existing.force_delete ? "true" : "false") + ")");
    }
  }
  response->set_bucket_id(name);
  v1::S3* s3 = response->mutable_bucket_info()->mutable_s3();
  s3->set_region(options_.region);
  s3->set_signature_version(v1::S3V4);
  return grpc::Status::OK;
}

grpc::Status ProvisionerService::DeleteBucket(const v1::DriverDeleteBucketRequest& request) {
  const std::string& bucket_id = request.bucket_id();
  if (grpc::Status s = CheckRequired("bucket_id", bucket_id); !s.ok()) return s;
  storage::Result<Parameters> context = ToParameters("delete_context", request.delete_context());
  if (!context.ok()) return ToGrpcStatus(context.status());
  // delete_context carries the BucketClass parameters, so it is parsed by the same rules.
  storage::Result<BucketParams> class_params = ParseBucketParameters(*context);
  if (!class_params.ok()) return ToGrpcStatus(class_params.status());

  std::lock_guard<std::mutex> lock(BucketLock(bucket_id));
  storage::Result<storage::BucketRecord> bucket = store_->GetBucket(bucket_id);
  if (!bucket.ok()) {
    if (bucket.status().code() == Code::kNoSuchBucket) return grpc::Status::OK;
    return ToGrpcStatus(bucket.status());
  }
  const bool force = class_params->force_delete || bucket->force_delete;
  storage::Status deleted = store_->DeleteBucket(bucket_id, force);
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

grpc::Status ProvisionerService::GrantAccess(const v1::DriverGrantBucketAccessRequest& request,
                                             v1::DriverGrantBucketAccessResponse* response) {
  const std::string& bucket_id = request.bucket_id();
  if (grpc::Status s = CheckRequired("bucket_id", bucket_id); !s.ok()) return s;
  if (grpc::Status s = CheckRequired("name", request.name()); !s.ok()) return s;
  switch (request.authentication_type()) {
    case v1::Key:
      break;
    case v1::IAM:
      return InvalidArgument(
          "authentication_type IAM is not supported: cubby issues only Key credentials "
          "(set authenticationType: Key in the BucketAccessClass)");
    case v1::UnknownAuthenticationType:
      return InvalidArgument("authentication_type is required (only Key is supported)");
    default:
      return InvalidArgument("authentication_type has an unknown value (only Key is supported)");
  }
  storage::Result<Parameters> parameters = ToParameters("parameters", request.parameters());
  if (!parameters.ok()) return ToGrpcStatus(parameters.status());
  storage::Result<AccessMode> mode = ParseAccessParameters(*parameters);
  if (!mode.ok()) return ToGrpcStatus(mode.status());

  storage::Result<storage::AccessKeyRecord> candidate = storage::GenerateAccessKey();
  if (!candidate.ok()) return ToGrpcStatus(candidate.status());
  candidate->grants = {{bucket_id, *mode}};
  candidate->grant_name = request.name();
  candidate->created_ms = NowMs();

  std::lock_guard<std::mutex> lock(BucketLock(bucket_id));
  bool created = false;
  storage::Result<storage::AccessKeyRecord> key =
      store_->GetOrCreateGrant(bucket_id, request.name(), *candidate, &created);
  if (!key.ok()) {
    if (key.status().code() == Code::kNoSuchBucket) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "bucket \"" + bucket_id + "\" does not exist");
    }
    return ToGrpcStatus(key.status());
  }
  if (!created) {
    auto it = key->grants.find(bucket_id);
    const AccessMode granted = it == key->grants.end() ? AccessMode::kNone : it->second;
    if (granted != *mode) {
      // Not ALREADY_EXISTS (the sidecar crashes on it): the BucketAccessClass changed under a
      // BucketAccess that already has its Secret.
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "access \"" + request.name() + "\" on bucket \"" + bucket_id +
                              "\" was already granted with accessMode " +
                              std::string(AccessModeName(granted)) + ", not " +
                              std::string(AccessModeName(*mode)));
    }
  }
  response->set_account_id(key->access_key_id);
  auto* secrets = (*response->mutable_credentials())["s3"].mutable_secrets();
  (*secrets)["accessKeyID"] = key->access_key_id;
  (*secrets)["accessSecretKey"] = key->secret.reveal();
  (*secrets)["endpoint"] = options_.endpoint;
  (*secrets)["region"] = options_.region;
  return grpc::Status::OK;
}

grpc::Status ProvisionerService::RevokeAccess(const v1::DriverRevokeBucketAccessRequest& request) {
  const std::string& account_id = request.account_id();
  const std::string& bucket_id = request.bucket_id();
  // The sidecar revokes with an empty account_id when the grant never completed: nothing to do.
  if (account_id.empty()) return grpc::Status::OK;
  if (grpc::Status s = CheckRequired("bucket_id", bucket_id); !s.ok()) return s;
  if (grpc::Status s = CheckRequired("account_id", account_id); !s.ok()) return s;
  storage::Result<Parameters> context =
      ToParameters("revoke_access_context", request.revoke_access_context());
  if (!context.ok()) return ToGrpcStatus(context.status());

  std::lock_guard<std::mutex> lock(BucketLock(bucket_id));
  storage::Result<storage::AccessKeyRecord> key = store_->GetAccessKey(account_id);
  if (!key.ok()) {
    // Unknown, or already gone with its bucket.
    if (key.status().code() == Code::kNoSuchAccessKey) return grpc::Status::OK;
    return ToGrpcStatus(key.status());
  }
  // Only a COSI grant on this very bucket is revoked here; the root key or another bucket's
  // grant is never deleted by a revoke that names a different bucket.
  const bool grant_on_bucket = !key->all_buckets && !key->grant_name.empty() &&
                               key->grants.size() == 1 && key->grants.contains(bucket_id);
  if (!grant_on_bucket) return grpc::Status::OK;
  return ToGrpcStatus(store_->DeleteAccessKey(account_id));
}

grpc::Status ProvisionerService::Log(std::string_view method, std::string_view bucket,
                                     const grpc::Status& status) {
  // The bucket comes from the client: keep the line one line, printable and bounded.
  std::string safe_bucket(bucket.substr(0, kMaxStringBytes));
  for (char& c : safe_bucket) {
    if (c < 0x21 || c > 0x7e) c = '?';
  }
  const std::string_view code = GrpcCodeName(status.error_code());
  if (options_.log) {
    options_.log(method, safe_bucket, code);
  } else {
    std::clog << "cosi " << method << " bucket=" << safe_bucket << " code=" << code << '\n';
  }
  return status;
}

std::mutex& ProvisionerService::BucketLock(std::string_view bucket) {
  return bucket_locks_[std::hash<std::string_view>{}(bucket) % bucket_locks_.size()];
}

int64_t ProvisionerService::NowMs() const {
  if (options_.now_ms) return options_.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace cubby::cosi
