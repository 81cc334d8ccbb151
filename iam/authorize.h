// Access control: the one question every front door (S3 today; IAM, KMS and the console later)
// asks before it runs a request: may this caller do this action on this resource? Users, ACLs
// and bucket policies will change only what is behind Authorizer::Authorize, never its callers.
//   https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iam/action.h"
#include "storage/records.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::iam {

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
  // The object's metadata when the caller has read it already; null: the Authorizer reads it
  // (HeadObject) when only the object's ACL can decide.
  const storage::ObjectMeta* object = nullptr;
  // The multipart upload asked about (AbortMultipartUpload, ListParts): its initiator may.
  std::string_view upload_id = {};
  // The version of the object asked about (the *Version actions); empty: the current one.
  std::string_view version_id = {};
};

// The request's headers, read only when a policy's condition asks for a key that comes from one
// (the front door implements it over its own request; iam/ sees no HTTP).
class RequestHeaders {
 public:
  // The first value of header `name` (lowercase), as received; nullopt when absent. The view
  // stays valid until the Authorize call returns.
  virtual std::optional<std::string_view> Find(std::string_view name) const = 0;

 protected:
  ~RequestHeaders() = default;
};

// What the request says about itself beyond action and resource: what policies' condition keys
// read (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html,
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html,
// https://docs.aws.amazon.com/AmazonS3/latest/API/bucket-policy-s3-sigv4-conditions.html), and
// the two facts an anonymous writer is held to (a whole object: no copy, no multipart). Views
// must outlive the Authorize call. Absent values: the request has no such key. Nothing here is
// computed for a request no condition asks about: headers are looked up, tags parsed and the
// object's tags read only when a policy names such a key.
struct RequestFacts {
  bool copy_source = false;       // x-amz-copy-source is set
  bool multipart = false;         // the request writes a multipart upload (create, part, complete)
  std::string_view source_ip;     // aws:SourceIp: the peer's address, "192.0.2.7" / "2001:db8::1"
  bool secure_transport = false;  // aws:SecureTransport: the request came over TLS
  std::chrono::system_clock::time_point now{};  // aws:CurrentTime, aws:EpochTime (epoch: absent)
  std::optional<std::string_view> referer;      // aws:Referer
  std::optional<std::string_view> user_agent;   // aws:UserAgent
  std::optional<std::string_view> prefix;       // s3:prefix (list requests)
  std::optional<std::string_view> delimiter;    // s3:delimiter
  std::optional<std::string_view> max_keys;     // s3:max-keys
  std::optional<std::string_view> canned_acl;   // s3:x-amz-acl
  std::string_view signature_version;           // s3:signatureversion: "AWS4-HMAC-SHA256" or "AWS"
  std::string_view auth_type;  // s3:authType: "REST-HEADER", "REST-QUERY-STRING" or "POST"
  // s3:signatureAge: the SigV4 signature's date, "20130524T000000Z" (X-Amz-Date), compared
  // with `now` when a condition asks; SigV2 signatures are 0 old, as AWS has it.
  std::string_view signature_date;
  std::string_view tls_version;  // s3:TlsVersion: "1.2", "1.3"; empty over plain HTTP (absent)
  // The headers the S3 keys are read from (s3:x-amz-server-side-encryption,
  // s3:x-amz-grant-*, s3:x-amz-copy-source, x-amz-tagging for s3:RequestObjectTag, ...); null:
  // none.
  const RequestHeaders* headers = nullptr;
  // s3:LocationConstraint: CreateBucket's body's LocationConstraint ("" for none given).
  std::optional<std::string_view> location_constraint;
  // s3:RequestObjectTag/<key> and s3:RequestObjectTagKeys from a body (PutObjectTagging);
  // null: from the x-amz-tagging header, if any.
  const std::vector<std::pair<std::string, std::string>>* request_tags = nullptr;
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

class PolicyCache;

// One evaluation per request, as S3 describes it
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/how-s3-evaluates-access-control.html,
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
//  - root's keys (all_buckets) may do anything; kListAllMyBuckets with a bucket (is it listed?)
//    is true for root's own buckets (and those without an owner, from before users);
//  - a COSI key (grant_name set) keeps its grants, exactly as before users: read actions need a
//    readable mode on the bucket, write actions a writable one, the gates any mode other than
//    kNone; bucket creation, deletion and every bucket-configuration write are denied;
//    kListAllMyBuckets is allowed, and with a bucket asks whether it is in the grants; a
//    request without a bucket is allowed. A key without a user (before format 2) likewise;
//  - any other user: requests without a bucket are allowed; kListAllMyBuckets with a bucket
//    asks whether the user owns it. Otherwise, with the user's inline policies (kIdentity,
//    resource arn:aws:s3:::bucket[/key]) and the bucket policy (principals: the user's ARN
//    arn:aws:iam::<account>:user/<name>, its canonical id, the account id):
//      1. an explicit Deny in either → kDeny;
//      2. kCreateBucket: allowed (a user may create buckets unless a policy denies it);
//      3. an Allow in a user policy, or in the bucket policy (unless RestrictPublicBuckets is
//         set, the policy is public and the caller is not the bucket owner) → kAllow;
//      4. the ACLs (iam/acl.h AclRequirementFor): bucket or object ACL permission as the table
//         says, with IgnorePublicAcls honoured and BucketOwnerEnforced making the bucket
//         owner's FULL_CONTROL the only grant; actions ACLs cannot grant are the bucket
//         owner's; AbortMultipartUpload and ListParts are the bucket owner's and the upload's
//         initiator's (for an upload from before initiators were kept, any bucket WRITE
//         grantee's); an object action on a missing object is
//         allowed to whoever may list the bucket (so it hears NoSuchKey, others AccessDenied);
//      5. otherwise kDeny.
//  - anonymous callers: service-level requests, bucket creation and bucket-configuration writes
//    are denied before any read; otherwise the bucket is read (missing: kNoSuchBucket), and the
//    same steps run with no principal (only "*" matches) and the AllUsers grants; an anonymous
//    write must be a whole object (no copy, no multipart), an anonymous delete needs the
//    bucket's AllUsers READ as well as WRITE (COSI's WriteOnly mode stays PutObject only), and
//    requests cubby does not implement are denied.
// An object without an ACL of its own (written without x-amz-acl or grant headers, or before
// format 2) is private: its owner's FULL_CONTROL only. A bucket's grants never reach its
// objects (a bucket READ grant lets others list it, not read what is in it), as in S3
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html#canned-acl).
// A bucket COSI made with a readable anonymousBucketAccessMode (ReadOnly, ReadWrite) is the one
// bucket-level rule: its objects may be read by anyone (COSI: "uncredentialed users can call
// ListBucket and GetObject"), as a public bucket policy would allow; IgnorePublicAcls turns it
// off like the AllUsers grants it stands beside.
// A bucket with no ACL stored (tests plant them) is storage::BucketAclFor(owner, anonymous).
// A stored policy that does not parse (none should: they are checked before they are stored)
// counts as no policy.
// Bucket records and users are cached with their policies parsed, and read again only after the
// store's AccessGeneration() moved (some bucket, user or key changed): the hot path reads the
// store only for the access key (authentication) and parses no JSON; a changed policy counts
// from the next request on.
// Thread-safe; Authorize may run on many threads at once.
class Authorizer {
 public:
  // `store` must outlive the Authorizer.
  explicit Authorizer(storage::Store* store);
  ~Authorizer();
  Authorizer(const Authorizer&) = delete;
  Authorizer& operator=(const Authorizer&) = delete;

  Decision Authorize(const Identity& who, Action action, const Resource& resource,
                     const RequestFacts& facts) const;

  // The other front doors' question (the IAM API, KMS, the /_cubby/ admin endpoints): may `who`
  // call `action` ("iam:CreateUser", "kms:DescribeKey", "cubby:GetQuota") on `resource` (an
  // ARN, or "*")? Root's keys may call every action; a user may when one of its inline
  // policies allows it and none denies it (the global condition keys from `facts`: aws:SourceIp,
  // aws:username, aws:PrincipalTag/..., aws:CurrentTime, ...); anonymous callers, COSI keys and
  // keys without a user never may. kStorageFailure when the user could not be read.
  Decision AuthorizeCall(const Identity& who, std::string_view action, std::string_view resource,
                         const RequestFacts& facts) const;

  // The data folder's account id (what ARNs of users and KMS keys hold), read once.
  std::string_view AccountId() const;

  // The bucket's record as the cache above holds it (read again once the store's
  // AccessGeneration moved), for handlers that need a bucket setting on every request (the
  // lifecycle rules of x-amz-expiration) without a store read. kNoSuchBucket, or the read's
  // failure.
  storage::Result<std::shared_ptr<const storage::BucketRecord>> CachedBucket(
      std::string_view bucket) const;

 private:
  Decision AuthorizeAnonymous(Action action, const Resource& resource,
                              const RequestFacts& facts) const;
  Decision AuthorizeUser(const storage::AccessKeyRecord& key, Action action,
                         const Resource& resource, const RequestFacts& facts) const;

  storage::Store* store_;
  std::unique_ptr<PolicyCache> cache_;
};

// The ACL that counts for an object of `bucket` (what GetObjectAcl answers and evaluation
// reads): EffectiveAcl under BucketOwnerEnforced; the stored ACL when the object has one; else
// private: the owner's FULL_CONTROL (see Authorizer). The owner: the object's owner_id, else the
// bucket's.
storage::AclRecord ObjectAclOf(const storage::BucketRecord& bucket,
                               const storage::ObjectMeta& object);
// The ACL that counts for `bucket`: EffectiveAcl of the stored one, or BucketAclFor(owner,
// anonymous) when none is stored.
storage::AclRecord BucketAclOf(const storage::BucketRecord& bucket);

}  // namespace cubby::iam
