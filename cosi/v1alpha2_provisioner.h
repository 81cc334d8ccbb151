// COSI Provisioner service (sigs.k8s.io.cosi.v1alpha2): buckets and Key grants on a
// storage::Store, beside the v1alpha1 service on the same socket and the same data (a bucket or
// key made through either version is the same bucket or key). Only the S3 protocol.
//
//  - DriverCreateBucket(name, protocols, parameters): protocols empty or [S3]; AZURE, GCS or
//    UNKNOWN → INVALID_ARGUMENT. name (≤ 253 characters) becomes the bucket
//    DeriveBucketName(name) (params.h: itself when it is a valid S3 bucket name, else a readable
//    prefix and a hash), returned as bucket_id. Same name and effective parameters → OK with the
//    same answer; different → ALREADY_EXISTS. The answer's protocols.s3 has bucket_id, endpoint,
//    region and addressing_style (VIRTUAL when a --domain is set and the name is DNS-safe, else
//    PATH).
//  - DriverGetExistingBucket(existing_bucket_id, protocols, parameters): a bucket made through
//    S3, the admin API or either COSI version → OK with the same protocols.s3. Protocols and
//    parameters are validated as for Create; the bucket is never changed, and a stated
//    parameter the bucket does not agree with (params.h StatedParametersMismatch: e.g.
//    anonymousAccessMode, versioning, expireAfterDays; forceDelete only matters when deleting)
//    → ALREADY_EXISTS naming it. Unknown → NOT_FOUND.
//  - DriverDeleteBucket(bucket_id, parameters): as v1alpha1 (unknown → OK; non-empty only with
//    forceDelete in the parameters or the bucket's create parameters, else
//    FAILED_PRECONDITION). Each key granted on it loses that bucket (and goes with its last).
//  - DriverGrantBucketAccess(account_name, protocol, KEY, buckets with a mode each): one key
//    confined to exactly those buckets, each with its mode (READ_WRITE, READ_ONLY,
//    WRITE_ONLY); account_name is the idempotency key: the same buckets and modes → OK with the
//    same account_id and keys; anything else → ALREADY_EXISTS. protocol UNKNOWN (unset) or S3;
//    SERVICE_ACCOUNT, an unknown auth type, AZURE/GCS, no buckets, a bucket named twice, a mode
//    UNKNOWN or any parameter → INVALID_ARGUMENT; a bucket that does not exist → NOT_FOUND.
//    The answer: account_id (the access key id), one BucketInfo per bucket in request order,
//    credentials.s3 (access_key_id, access_secret_key).
//  - DriverRevokeBucketAccess(account_id, ...): deletes the key, refused from the next S3
//    request on. Unknown → OK; an account_id that is not a COSI grant (the root key, an IAM
//    user's key) is left alone → OK. Empty account_id → INVALID_ARGUMENT.
//
// Errors: a missing or oversized field → INVALID_ARGUMENT naming it; storage failures via
// ToGrpcStatus (status_map.h). Thread-safety: any number of threads; calls on the same bucket
// or account name are serialized by striped locks, and storage's atomic GetOrCreate* calls make
// concurrent identical requests answer identically. Logs carry only the method, bucket or
// account name, and the code: never secrets.
#pragma once

#include <string>

#include "cosi/provisioner.h"
#include "cosi/provisioner_common.h"
#include "cosi_v1alpha2.grpc.pb.h"
#include "storage/store.h"

namespace cubby::cosi {

class V1alpha2ProvisionerService final
    : public ::sigs::k8s::io::cosi::v1alpha2::Provisioner::Service {
 public:
  using CreateRequest = ::sigs::k8s::io::cosi::v1alpha2::DriverCreateBucketRequest;
  using CreateResponse = ::sigs::k8s::io::cosi::v1alpha2::DriverCreateBucketResponse;
  using GetExistingRequest = ::sigs::k8s::io::cosi::v1alpha2::DriverGetExistingBucketRequest;
  using GetExistingResponse = ::sigs::k8s::io::cosi::v1alpha2::DriverGetExistingBucketResponse;
  using DeleteRequest = ::sigs::k8s::io::cosi::v1alpha2::DriverDeleteBucketRequest;
  using DeleteResponse = ::sigs::k8s::io::cosi::v1alpha2::DriverDeleteBucketResponse;
  using GrantRequest = ::sigs::k8s::io::cosi::v1alpha2::DriverGrantBucketAccessRequest;
  using GrantResponse = ::sigs::k8s::io::cosi::v1alpha2::DriverGrantBucketAccessResponse;
  using RevokeRequest = ::sigs::k8s::io::cosi::v1alpha2::DriverRevokeBucketAccessRequest;
  using RevokeResponse = ::sigs::k8s::io::cosi::v1alpha2::DriverRevokeBucketAccessResponse;

  // `store` must outlive the service.
  V1alpha2ProvisionerService(storage::Store* store, ProvisionerOptions options);

  grpc::Status DriverCreateBucket(grpc::ServerContext* context, const CreateRequest* request,
                                  CreateResponse* response) override;
  grpc::Status DriverGetExistingBucket(grpc::ServerContext* context,
                                       const GetExistingRequest* request,
                                       GetExistingResponse* response) override;
  grpc::Status DriverDeleteBucket(grpc::ServerContext* context, const DeleteRequest* request,
                                  DeleteResponse* response) override;
  grpc::Status DriverGrantBucketAccess(grpc::ServerContext* context, const GrantRequest* request,
                                       GrantResponse* response) override;
  grpc::Status DriverRevokeBucketAccess(grpc::ServerContext* context, const RevokeRequest* request,
                                        RevokeResponse* response) override;

 private:
  grpc::Status CreateBucket(const CreateRequest& request, CreateResponse* response);
  grpc::Status GetExistingBucket(const GetExistingRequest& request, GetExistingResponse* response);
  grpc::Status DeleteBucket(const DeleteRequest& request);
  grpc::Status GrantAccess(const GrantRequest& request, GrantResponse* response);
  grpc::Status RevokeAccess(const RevokeRequest& request);
  // Fills protocols.s3 for `bucket`.
  void FillS3(const std::string& bucket,
              ::sigs::k8s::io::cosi::v1alpha2::ObjectProtocolAndBucketInfo* info) const;

  storage::Store* const store_;
  const ProvisionerOptions options_;
  NameLocks bucket_locks_;
  NameLocks account_locks_;
};

}  // namespace cubby::cosi
