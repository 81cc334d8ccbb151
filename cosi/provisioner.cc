#include "cosi/provisioner.h"

#include <utility>

#include "cosi/params.h"
#include "cosi/provisioner_common.h"
#include "cosi/status_map.h"
#include "storage/bucket_name.h"
#include "storage/keygen.h"
#include "storage/users.h"

namespace cubby::cosi {
namespace {

namespace v1 = ::cosi::v1alpha1;
using storage::AccessMode;
using storage::Code;

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

  std::lock_guard<std::mutex> lock(BucketLock(name));
  if (grpc::Status s = CreateOrMatchBucket(store_, name, *wanted, NowMs()); !s.ok()) return s;
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
  return DeleteBucketAs(store_, bucket_id, *class_params);
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
  return LogCall(options_.log, method, bucket.substr(0, kMaxStringBytes), status);
}

std::mutex& ProvisionerService::BucketLock(std::string_view bucket) {
  return bucket_locks_.For(bucket);
}

int64_t ProvisionerService::NowMs() const { return cosi::NowMs(options_.now_ms); }

}  // namespace cubby::cosi
