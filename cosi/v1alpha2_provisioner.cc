#include "cosi/v1alpha2_provisioner.h"

#include <set>
#include <utility>

#include "cosi/params.h"
#include "cosi/status_map.h"
#include "storage/bucket_name.h"
#include "storage/keygen.h"

namespace cubby::cosi {
namespace {

namespace v2 = ::sigs::k8s::io::cosi::v1alpha2;
using storage::AccessMode;
using storage::Code;

// The one protocol cubby speaks. proto3 enums are open: a value from a newer peer lands in
// `default`.
grpc::Status CheckProtocol(v2::ObjectProtocol::Type type, std::string_view field) {
  switch (type) {
    case v2::ObjectProtocol::S3:
      return grpc::Status::OK;
    case v2::ObjectProtocol::AZURE:
      return InvalidArgument(std::string(field) + " AZURE is not supported: cubby serves only S3");
    case v2::ObjectProtocol::GCS:
      return InvalidArgument(std::string(field) + " GCS is not supported: cubby serves only S3");
    case v2::ObjectProtocol::UNKNOWN:
      return InvalidArgument(std::string(field) +
                             " UNKNOWN is not supported: cubby serves only S3");
    default:
      return InvalidArgument(std::string(field) + " has an unknown value: cubby serves only S3");
  }
}

// DriverCreateBucket / DriverGetExistingBucket: empty (the sidecar's default) or only S3.
grpc::Status CheckProtocols(const google::protobuf::RepeatedPtrField<v2::ObjectProtocol>& list) {
  for (const v2::ObjectProtocol& protocol : list) {
    if (grpc::Status s = CheckProtocol(protocol.type(), "protocol"); !s.ok()) return s;
  }
  return grpc::Status::OK;
}

storage::Result<AccessMode> ToAccessMode(v2::AccessMode::Mode mode, const std::string& bucket) {
  switch (mode) {
    case v2::AccessMode::READ_WRITE:
      return AccessMode::kReadWrite;
    case v2::AccessMode::READ_ONLY:
      return AccessMode::kReadOnly;
    case v2::AccessMode::WRITE_ONLY:
      return AccessMode::kWriteOnly;
    case v2::AccessMode::UNKNOWN:
      break;
    default:  // open enum: a value this proto does not define
      break;
  }
  return storage::Status(
      Code::kInvalidArgument,
      "access_mode of bucket \"" + bucket + "\" must be READ_WRITE, READ_ONLY or WRITE_ONLY");
}

std::string DescribeGrants(const std::map<std::string, AccessMode>& grants) {
  std::string out;
  for (const auto& [bucket, mode] : grants) {
    if (!out.empty()) out += ", ";
    out += bucket + "=" + std::string(AccessModeName(mode));
  }
  return out;
}

}  // namespace

V1alpha2ProvisionerService::V1alpha2ProvisionerService(storage::Store* store,
                                                       ProvisionerOptions options)
    : store_(store), options_(std::move(options)) {}

grpc::Status V1alpha2ProvisionerService::DriverCreateBucket(grpc::ServerContext* context,
                                                            const CreateRequest* request,
                                                            CreateResponse* response) {
  grpc::Status status = CreateBucket(*request, response);
  if (!status.ok()) response->Clear();
  return LogCall(options_.log, "DriverCreateBucket", request->name(), status);
}

grpc::Status V1alpha2ProvisionerService::DriverGetExistingBucket(grpc::ServerContext* context,
                                                                 const GetExistingRequest* request,
                                                                 GetExistingResponse* response) {
  grpc::Status status = GetExistingBucket(*request, response);
  if (!status.ok()) response->Clear();
  return LogCall(options_.log, "DriverGetExistingBucket", request->existing_bucket_id(), status);
}

grpc::Status V1alpha2ProvisionerService::DriverDeleteBucket(grpc::ServerContext* context,
                                                            const DeleteRequest* request,
                                                            DeleteResponse* response) {
  return LogCall(options_.log, "DriverDeleteBucket", request->bucket_id(), DeleteBucket(*request));
}

grpc::Status V1alpha2ProvisionerService::DriverGrantBucketAccess(grpc::ServerContext* context,
                                                                 const GrantRequest* request,
                                                                 GrantResponse* response) {
  grpc::Status status = GrantAccess(*request, response);
  if (!status.ok()) response->Clear();
  return LogCall(options_.log, "DriverGrantBucketAccess", request->account_name(), status);
}

grpc::Status V1alpha2ProvisionerService::DriverRevokeBucketAccess(grpc::ServerContext* context,
                                                                  const RevokeRequest* request,
                                                                  RevokeResponse* response) {
  // account_id is the access key id: not a secret (it is in every signed request).
  return LogCall(options_.log, "DriverRevokeBucketAccess", request->account_id(),
                 RevokeAccess(*request));
}

void V1alpha2ProvisionerService::FillS3(const std::string& bucket,
                                        v2::ObjectProtocolAndBucketInfo* info) const {
  v2::S3BucketInfo* s3 = info->mutable_s3();
  s3->set_bucket_id(bucket);
  s3->set_endpoint(options_.endpoint);
  s3->set_region(options_.region);
  // Virtual-hosted style needs the server to know its domain (--domain) and a bucket name that
  // is one DNS label: https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html
  const bool virtual_hosted = !options_.domain.empty() && IsDnsSafeBucketName(bucket);
  s3->mutable_addressing_style()->set_style(virtual_hosted ? v2::S3AddressingStyle::VIRTUAL
                                                           : v2::S3AddressingStyle::PATH);
}

grpc::Status V1alpha2ProvisionerService::CreateBucket(const CreateRequest& request,
                                                      CreateResponse* response) {
  if (grpc::Status s = CheckRequired("name", request.name(), kMaxLongNameBytes); !s.ok()) {
    return s;
  }
  if (grpc::Status s = CheckProtocols(request.protocols()); !s.ok()) return s;
  storage::Result<Parameters> parameters = ToParameters("parameters", request.parameters());
  if (!parameters.ok()) return ToGrpcStatus(parameters.status());
  storage::Result<BucketParams> wanted = ParseBucketParameters(*parameters);
  if (!wanted.ok()) return ToGrpcStatus(wanted.status());

  const std::string bucket = DeriveBucketName(request.name());
  std::lock_guard<std::mutex> lock(bucket_locks_.For(bucket));
  if (grpc::Status s = CreateOrMatchBucket(store_, bucket, *wanted, NowMs(options_.now_ms));
      !s.ok()) {
    return s;
  }
  response->set_bucket_id(bucket);
  FillS3(bucket, response->mutable_protocols());
  return grpc::Status::OK;
}

grpc::Status V1alpha2ProvisionerService::GetExistingBucket(const GetExistingRequest& request,
                                                           GetExistingResponse* response) {
  const std::string& bucket_id = request.existing_bucket_id();
  if (grpc::Status s = CheckRequired("existing_bucket_id", bucket_id); !s.ok()) return s;
  if (grpc::Status s = CheckProtocols(request.protocols()); !s.ok()) return s;
  storage::Result<Parameters> parameters = ToParameters("parameters", request.parameters());
  if (!parameters.ok()) return ToGrpcStatus(parameters.status());
  storage::Result<BucketParams> wanted = ParseBucketParameters(*parameters);
  if (!wanted.ok()) return ToGrpcStatus(wanted.status());

  storage::Result<storage::BucketRecord> bucket = store_->GetBucket(bucket_id);
  if (!bucket.ok()) {
    if (bucket.status().code() == Code::kNoSuchBucket) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "bucket \"" + bucket_id + "\" does not exist");
    }
    return ToGrpcStatus(bucket.status());
  }
  // A static bucket keeps its own settings (nothing here changes it); only the parameters the
  // BucketClass states must agree with it, each as params.h's StatedParametersMismatch says.
  if (const std::string mismatch =
          StatedParametersMismatch(*parameters, *wanted, BucketParamsOf(*bucket));
      !mismatch.empty()) {
    return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                        "bucket \"" + bucket_id + "\" differs from the BucketClass: " + mismatch);
  }
  response->set_bucket_id(bucket_id);
  FillS3(bucket_id, response->mutable_protocols());
  return grpc::Status::OK;
}

grpc::Status V1alpha2ProvisionerService::DeleteBucket(const DeleteRequest& request) {
  const std::string& bucket_id = request.bucket_id();
  if (grpc::Status s = CheckRequired("bucket_id", bucket_id); !s.ok()) return s;
  storage::Result<Parameters> parameters = ToParameters("parameters", request.parameters());
  if (!parameters.ok()) return ToGrpcStatus(parameters.status());
  storage::Result<BucketParams> class_params = ParseBucketParameters(*parameters);
  if (!class_params.ok()) return ToGrpcStatus(class_params.status());
  std::lock_guard<std::mutex> lock(bucket_locks_.For(bucket_id));
  return DeleteBucketAs(store_, bucket_id, *class_params);
}

grpc::Status V1alpha2ProvisionerService::GrantAccess(const GrantRequest& request,
                                                     GrantResponse* response) {
  const std::string& account_name = request.account_name();
  if (grpc::Status s = CheckRequired("account_name", account_name, kMaxLongNameBytes); !s.ok()) {
    return s;
  }
  // An unset protocol is read as S3, the only one there is.
  if (request.protocol().type() != v2::ObjectProtocol::UNKNOWN) {
    if (grpc::Status s = CheckProtocol(request.protocol().type(), "protocol"); !s.ok()) return s;
  }
  switch (request.authentication_type().type()) {
    case v2::AuthenticationType::KEY:
      break;
    case v2::AuthenticationType::SERVICE_ACCOUNT:
      return InvalidArgument(
          "authentication_type SERVICE_ACCOUNT is not supported: cubby issues only access keys "
          "(set authenticationType: Key in the BucketAccessClass)");
    case v2::AuthenticationType::UNKNOWN:
      return InvalidArgument("authentication_type is required (only KEY is supported)");
    default:  // open enum
      return InvalidArgument("authentication_type has an unknown value (only KEY is supported)");
  }
  storage::Result<Parameters> parameters = ToParameters("parameters", request.parameters());
  if (!parameters.ok()) return ToGrpcStatus(parameters.status());
  if (storage::Status s = ParseGrantParameters(*parameters); !s.ok()) return ToGrpcStatus(s);
  if (request.buckets().empty()) return InvalidArgument("buckets is required");

  std::map<std::string, AccessMode> wanted;
  for (const GrantRequest::AccessedBucket& accessed : request.buckets()) {
    if (grpc::Status s = CheckRequired("bucket_id", accessed.bucket_id()); !s.ok()) return s;
    storage::Result<AccessMode> mode =
        ToAccessMode(accessed.access_mode().mode(), accessed.bucket_id());
    if (!mode.ok()) return ToGrpcStatus(mode.status());
    if (!wanted.emplace(accessed.bucket_id(), *mode).second) {
      return InvalidArgument("bucket \"" + accessed.bucket_id() + "\" is named twice in buckets");
    }
  }

  storage::Result<storage::AccessKeyRecord> candidate = storage::GenerateAccessKey();
  if (!candidate.ok()) return ToGrpcStatus(candidate.status());
  candidate->grants = wanted;
  candidate->grant_name = account_name;
  candidate->created_ms = NowMs(options_.now_ms);

  std::lock_guard<std::mutex> lock(account_locks_.For(account_name));
  bool created = false;
  storage::Result<storage::AccessKeyRecord> key =
      store_->GetOrCreateMultiGrant(account_name, *candidate, &created);
  if (!key.ok()) {
    if (key.status().code() == Code::kNoSuchBucket) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, key.status().message());
    }
    return ToGrpcStatus(key.status());
  }
  if (!created && key->grants != wanted) {
    return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                        "access \"" + account_name + "\" was already granted as {" +
                            DescribeGrants(key->grants) + "}, not {" + DescribeGrants(wanted) +
                            "}");
  }
  response->set_account_id(key->access_key_id);
  for (const GrantRequest::AccessedBucket& accessed : request.buckets()) {
    GrantResponse::BucketInfo* info = response->add_buckets();
    info->set_bucket_id(accessed.bucket_id());
    FillS3(accessed.bucket_id(), info->mutable_bucket_info());
  }
  v2::S3CredentialInfo* s3 = response->mutable_credentials()->mutable_s3();
  s3->set_access_key_id(key->access_key_id);
  s3->set_access_secret_key(key->secret.reveal());
  return grpc::Status::OK;
}

grpc::Status V1alpha2ProvisionerService::RevokeAccess(const RevokeRequest& request) {
  const std::string& account_id = request.account_id();
  if (grpc::Status s = CheckRequired("account_id", account_id); !s.ok()) return s;
  storage::Result<Parameters> parameters = ToParameters("parameters", request.parameters());
  if (!parameters.ok()) return ToGrpcStatus(parameters.status());

  std::lock_guard<std::mutex> lock(account_locks_.For(account_id));
  storage::Result<storage::AccessKeyRecord> key = store_->GetAccessKey(account_id);
  if (!key.ok()) {
    if (key.status().code() == Code::kNoSuchAccessKey) return grpc::Status::OK;
    return ToGrpcStatus(key.status());
  }
  // Only a key COSI issued is revoked; the root key or an IAM user's key never is.
  if (key->all_buckets || key->grant_name.empty()) return grpc::Status::OK;
  return ToGrpcStatus(store_->DeleteAccessKey(account_id));
}

}  // namespace cubby::cosi
