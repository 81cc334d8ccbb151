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

// Who asks: an access key (its record, as authentication found it) or nobody (anonymous). The
// key names its user (key->user_id, a canonical id): the user is who asks. Kinds of keys:
//  - root's (all_buckets): the administrator;
//  - a COSI grant's (grant_name set): its user exists, but the grants decide, as before users;
//  - any other user's.
struct Identity {
  const storage::AccessKeyRecord* key = nullptr;  // null: anonymous; else must outlive the call

  static Identity Anonymous() { return {}; }
  static Identity Key(const storage::AccessKeyRecord& record) { return {&record}; }
  bool anonymous() const { return key == nullptr; }
  // The canonical id of the user asking; empty for anonymous callers.
  std::string_view user_id() const { return key == nullptr ? std::string_view() : key->user_id; }
};

// What is asked about: the service (empty bucket), a bucket (empty key) or an object.
struct Resource {
  std::string_view bucket;
  std::string_view key;
  // The bucket's record when the caller has read it already (ListBuckets asks once per bucket);
  // null: the Authorizer reads it when a rule needs it.
  const storage::BucketRecord* record = nullptr;
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

// The interim rules, until ACLs and policies are enforced (issue 13): users own buckets and
// nothing else grants access.
//  - root's keys (all_buckets) may do anything; kListAllMyBuckets with a bucket (is it listed?)
//    is true for root's own buckets (and those without an owner, from before users);
//  - a COSI key (grant_name set) has a mode per bucket in its grants: read actions need a
//    readable mode, write actions a writable one, the gates a mode other than kNone; bucket
//    creation, deletion and PutBucketAcl are denied; kListAllMyBuckets is allowed, and with a
//    bucket it asks whether that bucket is in the grants (ListBuckets lists only those); a
//    request without a bucket (kUnimplemented on the service) is allowed;
//  - a key without a user (written before format 2) follows the two rules above, by all_buckets;
//  - any other user's key may create buckets and list its own (kListAllMyBuckets with a bucket:
//    the user owns it), and may do anything to a bucket it owns and the objects in it; on a
//    bucket another user owns everything is denied (AccessDenied), and a missing bucket is
//    kNoSuchBucket; requests without a bucket are allowed;
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
  Decision AuthorizeUser(const storage::AccessKeyRecord& key, Action action,
                         const Resource& resource) const;
  // The bucket of `resource` (its record, or read from the store), or the verdict for a
  // missing or unreadable one.
  storage::Result<storage::BucketRecord> BucketOf(const Resource& resource) const;

  storage::Store* store_;
};

}  // namespace cubby::iam
