// Access control: the one question every front door (S3 today; IAM, KMS and the console later)
// asks before it runs a request: may this caller do this action on this resource? Users, ACLs
// and bucket policies will change only what is behind Authorizer::Authorize, never its callers.
//   https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html
#pragma once

#include <string_view>

#include "storage/records.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::iam {

// IAM's vocabulary for S3 (bucket policies speak it), plus two gates of cubby's own for requests
// that have no single IAM action.
enum class Action {
  kListAllMyBuckets,  // ListBuckets; with a bucket in the Resource: is it listed
  kCreateBucket,
  kDeleteBucket,
  kListBucket,  // ListObjects(V2), HeadBucket
  kGetBucketLocation,
  kGetBucketVersioning,
  kGetBucketAcl,
  kPutBucketAcl,
  kGetObject,  // GetObject, HeadObject, and the source of a copy
  kGetObjectAcl,
  kPutObject,     // PutObject, CopyObject, and the multipart calls that write an upload
  kDeleteObject,  // DeleteObject, and each key of DeleteObjects
  kAbortMultipartUpload,
  kListMultipartUploadParts,    // ListParts
  kListBucketMultipartUploads,  // ListMultipartUploads
  // Not IAM actions; policies never name them.
  kAnyBucketAccess,  // the gate of DeleteObjects: some right on the bucket (its keys are then
                     // asked one by one as kDeleteObject)
  kUnimplemented,    // a request cubby answers NotImplemented: whoever may see the bucket hears so
};

// "s3:GetObject", ...; "cubby:AnyBucketAccess" and "cubby:Unimplemented" for the two gates.
std::string_view ActionName(Action action);

// Who asks: an access key (its record, as authentication found it) or nobody (anonymous).
struct Identity {
  const storage::AccessKeyRecord* key = nullptr;  // null: anonymous; else must outlive the call

  static Identity Anonymous() { return {}; }
  static Identity Key(const storage::AccessKeyRecord& record) { return {&record}; }
  bool anonymous() const { return key == nullptr; }
};

// What is asked about: the service (empty bucket), a bucket (empty key) or an object.
struct Resource {
  std::string_view bucket;
  std::string_view key;
};

// What the request says about itself beyond action and resource (what policies' condition keys
// will read). Today only the anonymous bucket modes look at it: an anonymous writer may PUT a
// whole object, not copy one or write a multipart upload.
struct RequestFacts {
  bool copy_source = false;  // x-amz-copy-source is set (IAM's s3:x-amz-copy-source key)
  bool multipart = false;    // the request writes a multipart upload (create, part, complete)
};

enum class Verdict {
  kAllow,
  kDeny,
  kNoSuchBucket,    // an anonymous caller asked about a bucket that does not exist
  kStorageFailure,  // the bucket could not be read; see Decision::failure
};

struct Decision {
  Verdict verdict = Verdict::kDeny;
  storage::Status failure;  // kStorageFailure only: what the store answered

  bool allowed() const { return verdict == Verdict::kAllow; }
};

// Today's rules (ahead of users, ACLs and policies):
//  - the root key (all_buckets) may do anything;
//  - any other key (issued by COSI) has a mode per bucket in its grants: read actions need a
//    readable mode, write actions a writable one, the gates a mode other than kNone; bucket
//    creation, deletion and PutBucketAcl are denied; kListAllMyBuckets is allowed, and with a
//    bucket it asks whether that bucket is in the grants (ListBuckets lists only those); a
//    request without a bucket (kUnimplemented on the service) is allowed;
//  - anonymous callers follow the bucket's anonymous mode (COSI's anonymousBucketAccessMode, or
//    the canned ACLs public-read / public-read-write): readable → kListBucket and kGetObject;
//    writable → kPutObject of a whole object (no copy, no multipart); read-write →
//    kDeleteObject too; any mode → kAnyBucketAccess. Nothing else, and nothing without a
//    bucket. The bucket is read from the store: a missing one is kNoSuchBucket, a failed read
//    kStorageFailure (the service-level and bucket-admin actions are denied before any read).
// Thread-safe; cheap to construct (it holds the store pointer only).
class Authorizer {
 public:
  // `store` must outlive the Authorizer.
  explicit Authorizer(storage::Store* store) : store_(store) {}

  Decision Authorize(const Identity& who, Action action, const Resource& resource,
                     const RequestFacts& facts) const;

 private:
  Decision AuthorizeAnonymous(Action action, const Resource& resource,
                              const RequestFacts& facts) const;

  storage::Store* store_;
};

}  // namespace cubby::iam
