#include "iam/authorize.h"

namespace cubby::iam {

namespace {

// What an action needs from a key's mode on the bucket.
enum class Need { kService, kAdmin, kRead, kWrite, kAnyMode };

Need NeedOf(Action action) {
  switch (action) {
    case Action::kListAllMyBuckets:
      return Need::kService;
    case Action::kCreateBucket:
    case Action::kDeleteBucket:
    case Action::kPutBucketAcl:
      return Need::kAdmin;
    case Action::kListBucket:
    case Action::kGetBucketLocation:
    case Action::kGetBucketVersioning:
    case Action::kGetBucketAcl:
    case Action::kGetObject:
    case Action::kGetObjectAcl:
    case Action::kListMultipartUploadParts:
    case Action::kListBucketMultipartUploads:
      return Need::kRead;
    case Action::kPutObject:
    case Action::kDeleteObject:
    case Action::kAbortMultipartUpload:
      return Need::kWrite;
    case Action::kAnyBucketAccess:
    case Action::kUnimplemented:
      return Need::kAnyMode;
  }
  return Need::kAdmin;
}

bool ModeAllows(Need need, storage::AccessMode mode) {
  switch (need) {
    case Need::kRead:
      return storage::CanRead(mode);
    case Need::kWrite:
      return storage::CanWrite(mode);
    case Need::kAnyMode:
      return mode != storage::AccessMode::kNone;
    case Need::kService:
    case Need::kAdmin:
      break;
  }
  return false;
}

Decision Of(bool allowed) { return {allowed ? Verdict::kAllow : Verdict::kDeny, {}}; }

// A COSI key: its grants decide.
Decision AuthorizeGrants(const storage::AccessKeyRecord& key, Action action,
                         const Resource& resource) {
  const Need need = NeedOf(action);
  if (need == Need::kService) {
    return Of(resource.bucket.empty() || key.grants.contains(std::string(resource.bucket)));
  }
  if (need == Need::kAdmin) return Of(false);
  if (resource.bucket.empty()) return Of(true);  // a service-level request cubby does not implement
  auto grant = key.grants.find(std::string(resource.bucket));
  return Of(grant != key.grants.end() && ModeAllows(need, grant->second));
}

// What a bucket's anonymous mode lets anyone do. ReadWrite is also the canned ACL
// public-read-write, whose bucket WRITE permission lets anyone "create, overwrite, and delete any
// object in the bucket"
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html#permissions), so
// DeleteObject is allowed there; WriteOnly (COSI) is PutObject only.
bool AnonymousAllowed(Action action, const RequestFacts& facts, storage::AccessMode mode) {
  switch (action) {
    case Action::kListBucket:
    case Action::kGetObject:
      return storage::CanRead(mode);
    case Action::kPutObject:
      return storage::CanWrite(mode) && !facts.copy_source && !facts.multipart;
    case Action::kDeleteObject:
      return mode == storage::AccessMode::kReadWrite;
    case Action::kAnyBucketAccess:
      return mode != storage::AccessMode::kNone;
    case Action::kListAllMyBuckets:
    case Action::kCreateBucket:
    case Action::kDeleteBucket:
    case Action::kGetBucketLocation:
    case Action::kGetBucketVersioning:
    case Action::kGetBucketAcl:
    case Action::kPutBucketAcl:
    case Action::kGetObjectAcl:
    case Action::kAbortMultipartUpload:
    case Action::kListMultipartUploadParts:
    case Action::kListBucketMultipartUploads:
    case Action::kUnimplemented:
      return false;
  }
  return false;
}

}  // namespace

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kListAllMyBuckets: return "s3:ListAllMyBuckets";
    case Action::kCreateBucket: return "s3:CreateBucket";
    case Action::kDeleteBucket: return "s3:DeleteBucket";
    case Action::kListBucket: return "s3:ListBucket";
    case Action::kGetBucketLocation: return "s3:GetBucketLocation";
    case Action::kGetBucketVersioning: return "s3:GetBucketVersioning";
    case Action::kGetBucketAcl: return "s3:GetBucketAcl";
    case Action::kPutBucketAcl: return "s3:PutBucketAcl";
    case Action::kGetObject: return "s3:GetObject";
    case Action::kGetObjectAcl: return "s3:GetObjectAcl";
    case Action::kPutObject: return "s3:PutObject";
    case Action::kDeleteObject: return "s3:DeleteObject";
    case Action::kAbortMultipartUpload: return "s3:AbortMultipartUpload";
    case Action::kListMultipartUploadParts: return "s3:ListMultipartUploadParts";
    case Action::kListBucketMultipartUploads: return "s3:ListBucketMultipartUploads";
    case Action::kAnyBucketAccess: return "cubby:AnyBucketAccess";
    case Action::kUnimplemented: return "cubby:Unimplemented";
  }
  return "cubby:Unknown";
}

Decision Authorizer::Authorize(const Identity& who, Action action, const Resource& resource,
                               const RequestFacts& facts) const {
  if (who.anonymous()) return AuthorizeAnonymous(action, resource, facts);
  const storage::AccessKeyRecord& key = *who.key;
  if (key.all_buckets && (action != Action::kListAllMyBuckets || resource.bucket.empty())) {
    return Of(true);
  }
  // A key without a user (only written before format 2; tests plant them) keeps the rules of
  // that time: root or its grants.
  if (key.user_id.empty())
    return key.all_buckets ? Of(true) : AuthorizeGrants(key, action, resource);
  if (!key.all_buckets && !key.grant_name.empty()) return AuthorizeGrants(key, action, resource);
  return AuthorizeUser(key, action, resource);
}

storage::Result<storage::BucketRecord> Authorizer::BucketOf(const Resource& resource) const {
  if (resource.record != nullptr) return *resource.record;
  return store_->GetBucket(resource.bucket);
}

// Interim (see authorize.h): a user has every right on the buckets it owns, and none on others.
// Root (all_buckets) reaches here only to ask whether a bucket is listed.
// TODO(issue 13, ACL/policy integration): ACL grants and bucket/user policies extend this.
Decision Authorizer::AuthorizeUser(const storage::AccessKeyRecord& key, Action action,
                                   const Resource& resource) const {
  if (action == Action::kCreateBucket || resource.bucket.empty()) return Of(true);
  storage::Result<storage::BucketRecord> bucket = BucketOf(resource);
  if (!bucket.ok()) {
    if (bucket.status().code() == storage::Code::kNoSuchBucket) {
      // Listing asks only about buckets that exist; any other action hears NoSuchBucket, as
      // AWS answers a signed request for a missing bucket.
      return action == Action::kListAllMyBuckets ? Of(false) : Decision{Verdict::kNoSuchBucket, {}};
    }
    return {Verdict::kStorageFailure, bucket.status()};
  }
  const bool owner = !key.user_id.empty() && bucket->owner_id == key.user_id;
  // Buckets from before users have no owner: they are root's.
  return Of(owner || (key.all_buckets && bucket->owner_id.empty()));
}

Decision Authorizer::AuthorizeAnonymous(Action action, const Resource& resource,
                                        const RequestFacts& facts) const {
  const Need need = NeedOf(action);
  if (need == Need::kService || need == Need::kAdmin || resource.bucket.empty()) {
    return Of(false);
  }
  // AWS answers NoSuchBucket to anonymous requests on a missing bucket.
  storage::Result<storage::BucketRecord> bucket = BucketOf(resource);
  if (!bucket.ok()) {
    if (bucket.status().code() == storage::Code::kNoSuchBucket) {
      return {Verdict::kNoSuchBucket, {}};
    }
    return {Verdict::kStorageFailure, bucket.status()};
  }
  return Of(AnonymousAllowed(action, facts, bucket->anonymous));
}

}  // namespace cubby::iam
