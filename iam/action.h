// IAM's action vocabulary for S3, in one table (action.cc): each action's IAM name and what
// access control asks of it (the ACL permission that grants it, what a COSI key's access mode
// must allow, whether an anonymous caller may ever do it, whether it acts on an object that
// exists). The Authorizer (authorize.h) and the ACL model (acl.h) read it.
//   https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html#permissions
#pragma once

#include <string_view>

#include "storage/access_records.h"

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
  kPutBucketVersioning,
  kListBucketVersions,  // ListObjectVersions
  kGetBucketAcl,
  kPutBucketAcl,
  kGetObject,  // GetObject, HeadObject, and the source of a copy
  kGetObjectAcl,
  kGetObjectVersion,     // GetObject, HeadObject and a copy's source, with a versionId
  kGetObjectVersionAcl,  // GetObjectAcl with a versionId
  kPutObject,            // PutObject, CopyObject, and the multipart calls that write an upload
  kDeleteObject,         // DeleteObject, and each key of DeleteObjects
  kDeleteObjectVersion,  // the same with a versionId
  kBypassGovernanceRetention,  // x-amz-bypass-governance-retention: true on a delete or retention
  kAbortMultipartUpload,
  kListMultipartUploadParts,    // ListParts
  kListBucketMultipartUploads,  // ListMultipartUploads
  kPutObjectAcl,
  kPutObjectVersionAcl,  // PutObjectAcl with a versionId
  kGetBucketPolicy,
  kPutBucketPolicy,
  kDeleteBucketPolicy,
  kGetBucketPolicyStatus,
  kGetBucketOwnershipControls,
  kPutBucketOwnershipControls,  // Put and DeleteBucketOwnershipControls
  kGetBucketPublicAccessBlock,
  kPutBucketPublicAccessBlock,        // Put and DeletePublicAccessBlock
  kGetLifecycleConfiguration,         // GetBucketLifecycleConfiguration
  kPutLifecycleConfiguration,         // Put and DeleteBucketLifecycle(Configuration), as AWS has it
  kGetBucketObjectLockConfiguration,  // GetObjectLockConfiguration
  kPutBucketObjectLockConfiguration,  // PutObjectLockConfiguration
  kGetObjectRetention,
  kPutObjectRetention,
  kGetObjectLegalHold,
  kPutObjectLegalHold,
  kGetObjectTagging,
  kGetObjectVersionTagging,  // GetObjectTagging with a versionId
  // GetObjectAttributes asks for these besides kGetObject (kGetObjectVersion with a versionId).
  kGetObjectAttributes,
  kGetObjectVersionAttributes,  // GetObjectAttributes with a versionId
  kPutObjectTagging,            // PutObjectTagging, and a write with x-amz-tagging
  kPutObjectVersionTagging,     // PutObjectTagging with a versionId
  kDeleteObjectTagging,
  kDeleteObjectVersionTagging,  // DeleteObjectTagging with a versionId
  kGetBucketTagging,
  kPutBucketTagging,  // Put and DeleteBucketTagging, as AWS has it
  kGetBucketCors,     // GetBucketCors (IAM spells it s3:GetBucketCORS)
  kPutBucketCors,     // Put and DeleteBucketCors, as AWS has it (s3:PutBucketCORS)
  // The bucket sub-resources cubby keeps no configuration for (s3api/bucket_subresources.cc):
  // the Get (and List) calls need the Get action, Put and Delete the Put one (DeleteBucketWebsite
  // has its own).
  kGetBucketWebsite,
  kPutBucketWebsite,
  kDeleteBucketWebsite,
  kGetBucketLogging,
  kPutBucketLogging,
  kGetBucketNotification,
  kPutBucketNotification,
  kGetBucketRequestPayment,
  kPutBucketRequestPayment,
  kGetAccelerateConfiguration,
  kPutAccelerateConfiguration,
  kGetReplicationConfiguration,
  kPutReplicationConfiguration,
  kGetEncryptionConfiguration,
  kPutEncryptionConfiguration,
  kGetAnalyticsConfiguration,
  kPutAnalyticsConfiguration,
  kGetMetricsConfiguration,
  kPutMetricsConfiguration,
  kGetInventoryConfiguration,
  kPutInventoryConfiguration,
  kGetIntelligentTieringConfiguration,
  kPutIntelligentTieringConfiguration,
  // Not IAM actions; policies never name them.
  kAnyBucketAccess,  // the gate of DeleteObjects: some right on the bucket (its keys are then
                     // asked one by one as kDeleteObject)
  kUnimplemented,    // a request cubby answers NotImplemented: whoever may see the bucket hears so
  // Not an action: how many there are. Keep it last; action.cc's table must have a row for
  // every action above, in this order (a static_assert checks it).
  kCount,
};

// Which ACL permission grants an action (acl-overview.html#permissions).
enum class AclScope {
  kBucket,        // `permission` on the bucket's ACL
  kObject,        // `permission` on the object's ACL
  kBucketAny,     // any grant on the bucket's ACL (cubby's two gates: see Action)
  kInitiator,     // not granted by ACLs: the bucket owner or the multipart upload's initiator
  kNotGrantable,  // not granted by ACLs: the resource owner only (or a policy), e.g.
                  // s3:DeleteBucket, s3:PutBucketPolicy, s3:GetBucketLocation, s3:CreateBucket
};

struct AclRequirement {
  AclScope scope = AclScope::kNotGrantable;
  storage::AclPermission permission = storage::AclPermission::kFullControl;  // kBucket, kObject
  bool operator==(const AclRequirement&) const = default;
};

// What an action needs from a COSI key's access mode on the bucket (a COSI key's grants decide
// what it may do: see Authorizer).
enum class ModeNeed {
  kService,  // ListBuckets: allowed; with a bucket, whether the key has a grant on it
  kAdmin,    // never a COSI key's: bucket creation, deletion and configuration writes
  kRead,     // a readable mode
  kWrite,    // a writable mode
  kAnyMode,  // any mode but kNone (the two gates)
};

struct ActionInfo {
  Action id;              // the row's own action
  std::string_view name;  // "s3:GetObject"; "cubby:AnyBucketAccess", "cubby:Unimplemented"
  AclRequirement acl;     // the ACL permission that grants it (acl.h AclRequirementFor)
  ModeNeed mode;          // what a COSI key's mode on the bucket must allow
  // Never an anonymous caller's, whatever a policy or an ACL says: service-level requests,
  // bucket creation and deletion, bucket-configuration writes, requests cubby does not
  // implement (denied before the bucket is read).
  bool anonymous_never;
  // Acts on an object that exists: the condition key s3:ExistingObjectTag is filled (not for
  // PutObject, DeleteObject or the multipart calls, as AWS has it).
  bool existing_object;
};

// The row of `action`. An out-of-range value gets a row named "cubby:Unknown" that nothing
// grants and no anonymous caller may do.
const ActionInfo& Info(Action action);

// Info(action).name: "s3:GetObject", ...; "cubby:AnyBucketAccess" and "cubby:Unimplemented" for
// the two gates.
std::string_view ActionName(Action action);

}  // namespace cubby::iam
