// The one table of IAM actions: every function of action.h reads it.
#include "iam/action.h"

#include <cstddef>
#include <iterator>

namespace cubby::iam {

namespace {

using storage::AclPermission;

// The ACL permissions that grant an action (acl-overview.html#permissions, "Mapping of ACL
// permissions and access policy permissions"); anything S3's table does not list (the s3:*Tagging
// actions too) is not grantable.
constexpr AclRequirement kBucketRead{AclScope::kBucket, AclPermission::kRead};
constexpr AclRequirement kBucketWrite{AclScope::kBucket, AclPermission::kWrite};
constexpr AclRequirement kBucketReadAcp{AclScope::kBucket, AclPermission::kReadAcp};
constexpr AclRequirement kBucketWriteAcp{AclScope::kBucket, AclPermission::kWriteAcp};
constexpr AclRequirement kObjectRead{AclScope::kObject, AclPermission::kRead};
constexpr AclRequirement kObjectReadAcp{AclScope::kObject, AclPermission::kReadAcp};
constexpr AclRequirement kObjectWriteAcp{AclScope::kObject, AclPermission::kWriteAcp};
constexpr AclRequirement kInitiator{AclScope::kInitiator, AclPermission::kFullControl};
constexpr AclRequirement kAnyBucketGrant{AclScope::kBucketAny, AclPermission::kFullControl};
constexpr AclRequirement kNotGrantable{AclScope::kNotGrantable, AclPermission::kFullControl};

// ActionInfo::anonymous_never and ActionInfo::existing_object, by name.
constexpr bool kAnonymousNever = true;
constexpr bool kAnonymousMay = false;
constexpr bool kExistingObject = true;
constexpr bool kNotExisting = false;

// One row per Action, in the enum's order, so that Info is an index.
constexpr ActionInfo kActions[] = {
    {Action::kListAllMyBuckets, "s3:ListAllMyBuckets", kNotGrantable, ModeNeed::kService,
     kAnonymousNever, kNotExisting},
    {Action::kCreateBucket, "s3:CreateBucket", kNotGrantable, ModeNeed::kAdmin, kAnonymousNever,
     kNotExisting},
    {Action::kDeleteBucket, "s3:DeleteBucket", kNotGrantable, ModeNeed::kAdmin, kAnonymousNever,
     kNotExisting},
    {Action::kListBucket, "s3:ListBucket", kBucketRead, ModeNeed::kRead, kAnonymousMay,
     kNotExisting},
    {Action::kGetBucketLocation, "s3:GetBucketLocation", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kGetBucketVersioning, "s3:GetBucketVersioning", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kPutBucketVersioning, "s3:PutBucketVersioning", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousNever, kNotExisting},
    {Action::kListBucketVersions, "s3:ListBucketVersions", kBucketRead, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kGetBucketAcl, "s3:GetBucketAcl", kBucketReadAcp, ModeNeed::kRead, kAnonymousMay,
     kNotExisting},
    {Action::kPutBucketAcl, "s3:PutBucketAcl", kBucketWriteAcp, ModeNeed::kAdmin, kAnonymousNever,
     kNotExisting},
    {Action::kGetObject, "s3:GetObject", kObjectRead, ModeNeed::kRead, kAnonymousMay,
     kExistingObject},
    {Action::kGetObjectAcl, "s3:GetObjectAcl", kObjectReadAcp, ModeNeed::kRead, kAnonymousMay,
     kExistingObject},
    {Action::kGetObjectVersion, "s3:GetObjectVersion", kObjectRead, ModeNeed::kRead, kAnonymousMay,
     kExistingObject},
    {Action::kGetObjectVersionAcl, "s3:GetObjectVersionAcl", kObjectReadAcp, ModeNeed::kRead,
     kAnonymousMay, kExistingObject},
    {Action::kPutObject, "s3:PutObject", kBucketWrite, ModeNeed::kWrite, kAnonymousMay,
     kNotExisting},
    {Action::kDeleteObject, "s3:DeleteObject", kBucketWrite, ModeNeed::kWrite, kAnonymousMay,
     kNotExisting},
    {Action::kDeleteObjectVersion, "s3:DeleteObjectVersion", kBucketWrite, ModeNeed::kWrite,
     kAnonymousMay, kNotExisting},
    {Action::kBypassGovernanceRetention, "s3:BypassGovernanceRetention", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    // Multipart uploads (mpuoverview.html#mpuAndPermissions): by default the bucket owner and
    // the upload's initiator may abort one and list its parts.
    {Action::kAbortMultipartUpload, "s3:AbortMultipartUpload", kInitiator, ModeNeed::kWrite,
     kAnonymousMay, kNotExisting},
    {Action::kListMultipartUploadParts, "s3:ListMultipartUploadParts", kInitiator, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kListBucketMultipartUploads, "s3:ListBucketMultipartUploads", kBucketRead,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutObjectAcl, "s3:PutObjectAcl", kObjectWriteAcp, ModeNeed::kAdmin, kAnonymousMay,
     kExistingObject},
    {Action::kPutObjectVersionAcl, "s3:PutObjectVersionAcl", kObjectWriteAcp, ModeNeed::kAdmin,
     kAnonymousMay, kExistingObject},
    {Action::kGetBucketPolicy, "s3:GetBucketPolicy", kNotGrantable, ModeNeed::kRead, kAnonymousMay,
     kNotExisting},
    {Action::kPutBucketPolicy, "s3:PutBucketPolicy", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousNever, kNotExisting},
    {Action::kDeleteBucketPolicy, "s3:DeleteBucketPolicy", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousNever, kNotExisting},
    {Action::kGetBucketPolicyStatus, "s3:GetBucketPolicyStatus", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kGetBucketOwnershipControls, "s3:GetBucketOwnershipControls", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutBucketOwnershipControls, "s3:PutBucketOwnershipControls", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetBucketPublicAccessBlock, "s3:GetBucketPublicAccessBlock", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutBucketPublicAccessBlock, "s3:PutBucketPublicAccessBlock", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetLifecycleConfiguration, "s3:GetLifecycleConfiguration", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutLifecycleConfiguration, "s3:PutLifecycleConfiguration", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetBucketObjectLockConfiguration, "s3:GetBucketObjectLockConfiguration",
     kNotGrantable, ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutBucketObjectLockConfiguration, "s3:PutBucketObjectLockConfiguration",
     kNotGrantable, ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetObjectRetention, "s3:GetObjectRetention", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kExistingObject},
    {Action::kPutObjectRetention, "s3:PutObjectRetention", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousMay, kExistingObject},
    {Action::kGetObjectLegalHold, "s3:GetObjectLegalHold", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kExistingObject},
    {Action::kPutObjectLegalHold, "s3:PutObjectLegalHold", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousMay, kExistingObject},
    {Action::kGetObjectTagging, "s3:GetObjectTagging", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kExistingObject},
    {Action::kGetObjectVersionTagging, "s3:GetObjectVersionTagging", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kExistingObject},
    {Action::kGetObjectAttributes, "s3:GetObjectAttributes", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kExistingObject},
    {Action::kGetObjectVersionAttributes, "s3:GetObjectVersionAttributes", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kExistingObject},
    {Action::kPutObjectTagging, "s3:PutObjectTagging", kNotGrantable, ModeNeed::kWrite,
     kAnonymousMay, kExistingObject},
    {Action::kPutObjectVersionTagging, "s3:PutObjectVersionTagging", kNotGrantable,
     ModeNeed::kWrite, kAnonymousMay, kExistingObject},
    {Action::kDeleteObjectTagging, "s3:DeleteObjectTagging", kNotGrantable, ModeNeed::kWrite,
     kAnonymousMay, kExistingObject},
    {Action::kDeleteObjectVersionTagging, "s3:DeleteObjectVersionTagging", kNotGrantable,
     ModeNeed::kWrite, kAnonymousMay, kExistingObject},
    {Action::kGetBucketTagging, "s3:GetBucketTagging", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kPutBucketTagging, "s3:PutBucketTagging", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousNever, kNotExisting},
    {Action::kGetBucketCors, "s3:GetBucketCORS", kNotGrantable, ModeNeed::kRead, kAnonymousMay,
     kNotExisting},
    {Action::kPutBucketCors, "s3:PutBucketCORS", kNotGrantable, ModeNeed::kAdmin, kAnonymousNever,
     kNotExisting},
    {Action::kGetBucketWebsite, "s3:GetBucketWebsite", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kPutBucketWebsite, "s3:PutBucketWebsite", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousNever, kNotExisting},
    {Action::kDeleteBucketWebsite, "s3:DeleteBucketWebsite", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousNever, kNotExisting},
    {Action::kGetBucketLogging, "s3:GetBucketLogging", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kPutBucketLogging, "s3:PutBucketLogging", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousNever, kNotExisting},
    {Action::kGetBucketNotification, "s3:GetBucketNotification", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kPutBucketNotification, "s3:PutBucketNotification", kNotGrantable, ModeNeed::kAdmin,
     kAnonymousNever, kNotExisting},
    {Action::kGetBucketRequestPayment, "s3:GetBucketRequestPayment", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kPutBucketRequestPayment, "s3:PutBucketRequestPayment", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetAccelerateConfiguration, "s3:GetAccelerateConfiguration", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutAccelerateConfiguration, "s3:PutAccelerateConfiguration", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetReplicationConfiguration, "s3:GetReplicationConfiguration", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutReplicationConfiguration, "s3:PutReplicationConfiguration", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetEncryptionConfiguration, "s3:GetEncryptionConfiguration", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutEncryptionConfiguration, "s3:PutEncryptionConfiguration", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetAnalyticsConfiguration, "s3:GetAnalyticsConfiguration", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutAnalyticsConfiguration, "s3:PutAnalyticsConfiguration", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetMetricsConfiguration, "s3:GetMetricsConfiguration", kNotGrantable, ModeNeed::kRead,
     kAnonymousMay, kNotExisting},
    {Action::kPutMetricsConfiguration, "s3:PutMetricsConfiguration", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetInventoryConfiguration, "s3:GetInventoryConfiguration", kNotGrantable,
     ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutInventoryConfiguration, "s3:PutInventoryConfiguration", kNotGrantable,
     ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    {Action::kGetIntelligentTieringConfiguration, "s3:GetIntelligentTieringConfiguration",
     kNotGrantable, ModeNeed::kRead, kAnonymousMay, kNotExisting},
    {Action::kPutIntelligentTieringConfiguration, "s3:PutIntelligentTieringConfiguration",
     kNotGrantable, ModeNeed::kAdmin, kAnonymousNever, kNotExisting},
    // cubby's two gates: not IAM actions, so policies never name them.
    {Action::kAnyBucketAccess, "cubby:AnyBucketAccess", kAnyBucketGrant, ModeNeed::kAnyMode,
     kAnonymousMay, kNotExisting},
    {Action::kUnimplemented, "cubby:Unimplemented", kAnyBucketGrant, ModeNeed::kAnyMode,
     kAnonymousNever, kNotExisting},
};

constexpr bool RowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kActions); ++i) {
    if (kActions[i].id != static_cast<Action>(i)) return false;
  }
  return true;
}
static_assert(std::size(kActions) == static_cast<size_t>(Action::kCount),
              "every Action needs a row in kActions");
static_assert(RowsInEnumOrder(), "kActions' rows must follow the Action enum's order");

}  // namespace

const ActionInfo& Info(Action action) {
  const auto index = static_cast<size_t>(action);
  if (index >= std::size(kActions)) {
    static constexpr ActionInfo unknown{Action::kCount,   "cubby:Unknown", kNotGrantable,
                                        ModeNeed::kAdmin, kAnonymousNever, kNotExisting};
    return unknown;
  }
  return kActions[index];
}

std::string_view ActionName(Action action) { return Info(action).name; }

}  // namespace cubby::iam
