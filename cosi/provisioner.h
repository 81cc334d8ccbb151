// COSI Provisioner service (cosi.v1alpha1): buckets and Key grants on a storage::Store.
//
// How the v0.2 sidecar drives this service, and how each call answers:
//  - DriverCreateBucket(name="bucket-<uid>", parameters=BucketClass parameters): creates the S3
//    bucket named exactly `name`, with the versioning, object lock, lifecycle, encryption and
//    quota the parameters ask for (params.h) from its first moment; bucket_id == name.
//    Idempotent: same name and same effective parameters → OK (also for a bucket made earlier
//    through S3); different → ALREADY_EXISTS.
//  - DriverDeleteBucket(bucket_id, delete_context=BucketClass parameters): unknown → OK. A
//    non-empty bucket is deleted with its objects and uploads only when forceDelete is "true" in
//    delete_context or in its create parameters; otherwise FAILED_PRECONDITION and nothing
//    changes. Every key granted on it is deleted with it.
//  - DriverGrantBucketAccess(bucket_id, name="ba-<uid>", Key, parameters): one key per
//    (bucket_id, name), usable only on that bucket; a retry answers the same account_id and
//    keys. Never ALREADY_EXISTS (the sidecar crashes on it). IAM → INVALID_ARGUMENT.
//  - DriverRevokeBucketAccess(bucket_id, account_id): deletes the key, which stops working on
//    the next S3 request. Empty or unknown account_id, or a deleted bucket → OK. A key that is
//    not a COSI grant on bucket_id (another bucket's grant, the root key) is left alone → OK.
//
// Errors: a missing or oversized field, an unknown parameter or a bad value → INVALID_ARGUMENT
// naming it; storage failures via ToGrpcStatus (status_map.h).
//
// Thread-safety: calls may arrive on any number of threads. Calls on the same bucket are
// serialized by a striped lock; storage's atomic GetOrCreate* calls make concurrent identical
// requests answer identically. Logs carry only the method, bucket and code, never secrets.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "cosi.grpc.pb.h"
#include "cosi/provisioner_common.h"
#include "storage/store.h"

namespace cubby::cosi {

struct ProvisionerOptions {
  std::string region = "us-east-1";  // S3 region, in bucket_info and the "s3" credentials
  std::string endpoint;              // full URL of the S3 service as workloads reach it
  // Called once per call with the method, the bucket it names (sanitized, bounded) and the
  // gRPC code name ("OK", "NOT_FOUND", ...): nothing else, so no secret can reach a log.
  // Unset: one line "cosi <method> bucket=<bucket> code=<code>" on stderr.
  CallLog log;
  // Milliseconds since the Unix epoch, for created_ms. Unset: the system clock.
  std::function<int64_t()> now_ms;
  // The --domain of virtual-hosted-style requests; empty: none. v1alpha2 answers
  // addressing_style VIRTUAL for DNS-safe buckets when it is set, PATH otherwise.
  std::string domain;
};

class ProvisionerService final : public ::cosi::v1alpha1::Provisioner::Service {
 public:
  // `store` must outlive the service.
  ProvisionerService(storage::Store* store, ProvisionerOptions options);

  grpc::Status DriverCreateBucket(grpc::ServerContext* context,
                                  const ::cosi::v1alpha1::DriverCreateBucketRequest* request,
                                  ::cosi::v1alpha1::DriverCreateBucketResponse* response) override;
  grpc::Status DriverDeleteBucket(grpc::ServerContext* context,
                                  const ::cosi::v1alpha1::DriverDeleteBucketRequest* request,
                                  ::cosi::v1alpha1::DriverDeleteBucketResponse* response) override;
  grpc::Status DriverGrantBucketAccess(
      grpc::ServerContext* context, const ::cosi::v1alpha1::DriverGrantBucketAccessRequest* request,
      ::cosi::v1alpha1::DriverGrantBucketAccessResponse* response) override;
  grpc::Status DriverRevokeBucketAccess(
      grpc::ServerContext* context,
      const ::cosi::v1alpha1::DriverRevokeBucketAccessRequest* request,
      ::cosi::v1alpha1::DriverRevokeBucketAccessResponse* response) override;

 private:
  grpc::Status CreateBucket(const ::cosi::v1alpha1::DriverCreateBucketRequest& request,
                            ::cosi::v1alpha1::DriverCreateBucketResponse* response);
  grpc::Status DeleteBucket(const ::cosi::v1alpha1::DriverDeleteBucketRequest& request);
  grpc::Status GrantAccess(const ::cosi::v1alpha1::DriverGrantBucketAccessRequest& request,
                           ::cosi::v1alpha1::DriverGrantBucketAccessResponse* response);
  grpc::Status RevokeAccess(const ::cosi::v1alpha1::DriverRevokeBucketAccessRequest& request);

  // Returns `status` after logging method, bucket and code (nothing else).
  grpc::Status Log(std::string_view method, std::string_view bucket, const grpc::Status& status);
  std::mutex& BucketLock(std::string_view bucket);
  int64_t NowMs() const;

  storage::Store* const store_;
  const ProvisionerOptions options_;
  NameLocks bucket_locks_;
};

}  // namespace cubby::cosi
