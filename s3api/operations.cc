// The one table of S3 operations: OperationName, RouteRequest's parameters and the service's
// authorization, space check and dispatch all read it.
#include "s3api/operations.h"

#include <cstddef>
#include <iterator>

#include "s3api/handlers.h"

namespace cubby::s3api {

namespace {

using iam::Action;

// A sub-resource or action cubby does not implement.
HttpResponse AnswerNotImplemented(const Context& ctx) {
  return ErrorResponse(ctx, ErrorCode::kNotImplemented);
}

// An Operation value with no row: a bug, never a client's doing.
HttpResponse AnswerInternalError(const Context& ctx) {
  return ErrorResponse(ctx, ErrorCode::kInternalError);
}

// OperationInfo::needs_space, by name.
constexpr bool kNeedsSpace = true;
constexpr bool kNoSpaceCheck = false;

// One row per Operation, in the enum's order, so that Info is an index. The IAM actions follow
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html; the
// multipart calls that write an upload need s3:PutObject
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html#mpuAndPermissions).
constexpr OperationInfo kOperations[] = {
    {Operation::kListBuckets, "ListBuckets", Action::kListAllMyBuckets, kNoSpaceCheck, nullptr,
     ListBuckets},
    {Operation::kCreateBucket, "CreateBucket", Action::kCreateBucket, kNeedsSpace, nullptr,
     CreateBucket},
    {Operation::kHeadBucket, "HeadBucket", Action::kListBucket, kNoSpaceCheck, nullptr, HeadBucket},
    {Operation::kDeleteBucket, "DeleteBucket", Action::kDeleteBucket, kNoSpaceCheck, nullptr,
     DeleteBucket},
    {Operation::kGetBucketLocation, "GetBucketLocation", Action::kGetBucketLocation, kNoSpaceCheck,
     nullptr, GetBucketLocation},
    {Operation::kGetBucketVersioning, "GetBucketVersioning", Action::kGetBucketVersioning,
     kNoSpaceCheck, nullptr, GetBucketVersioning},
    {Operation::kPutBucketVersioning, "PutBucketVersioning", Action::kPutBucketVersioning,
     kNeedsSpace, nullptr, PutBucketVersioning},
    {Operation::kListObjectVersions, "ListObjectVersions", Action::kListBucketVersions,
     kNoSpaceCheck, ParseListObjectVersions, ListObjectVersions},
    {Operation::kGetBucketAcl, "GetBucketAcl", Action::kGetBucketAcl, kNoSpaceCheck, nullptr,
     GetBucketAcl},
    {Operation::kPutBucketAcl, "PutBucketAcl", Action::kPutBucketAcl, kNeedsSpace, nullptr,
     PutBucketAcl},
    {Operation::kGetObjectAcl, "GetObjectAcl", Action::kGetObjectAcl, kNoSpaceCheck, ParseVersionId,
     GetObjectAcl},
    {Operation::kGetBucketPolicy, "GetBucketPolicy", Action::kGetBucketPolicy, kNoSpaceCheck,
     nullptr, GetBucketPolicy},
    {Operation::kPutBucketPolicy, "PutBucketPolicy", Action::kPutBucketPolicy, kNeedsSpace, nullptr,
     PutBucketPolicy},
    {Operation::kDeleteBucketPolicy, "DeleteBucketPolicy", Action::kDeleteBucketPolicy,
     kNoSpaceCheck, nullptr, DeleteBucketPolicy},
    {Operation::kGetBucketPolicyStatus, "GetBucketPolicyStatus", Action::kGetBucketPolicyStatus,
     kNoSpaceCheck, nullptr, GetBucketPolicyStatus},
    {Operation::kPutObjectAcl, "PutObjectAcl", Action::kPutObjectAcl, kNeedsSpace, ParseVersionId,
     PutObjectAcl},
    {Operation::kGetBucketOwnershipControls, "GetBucketOwnershipControls",
     Action::kGetBucketOwnershipControls, kNoSpaceCheck, nullptr, GetBucketOwnershipControls},
    {Operation::kPutBucketOwnershipControls, "PutBucketOwnershipControls",
     Action::kPutBucketOwnershipControls, kNeedsSpace, nullptr, PutBucketOwnershipControls},
    {Operation::kDeleteBucketOwnershipControls, "DeleteBucketOwnershipControls",
     Action::kPutBucketOwnershipControls, kNoSpaceCheck, nullptr, DeleteBucketOwnershipControls},
    {Operation::kGetPublicAccessBlock, "GetPublicAccessBlock", Action::kGetBucketPublicAccessBlock,
     kNoSpaceCheck, nullptr, GetPublicAccessBlock},
    {Operation::kPutPublicAccessBlock, "PutPublicAccessBlock", Action::kPutBucketPublicAccessBlock,
     kNeedsSpace, nullptr, PutPublicAccessBlock},
    {Operation::kDeletePublicAccessBlock, "DeletePublicAccessBlock",
     Action::kPutBucketPublicAccessBlock, kNoSpaceCheck, nullptr, DeletePublicAccessBlock},
    {Operation::kGetBucketLifecycleConfiguration, "GetBucketLifecycleConfiguration",
     Action::kGetLifecycleConfiguration, kNoSpaceCheck, nullptr, GetBucketLifecycleConfiguration},
    {Operation::kPutBucketLifecycleConfiguration, "PutBucketLifecycleConfiguration",
     Action::kPutLifecycleConfiguration, kNeedsSpace, nullptr, PutBucketLifecycleConfiguration},
    {Operation::kDeleteBucketLifecycle, "DeleteBucketLifecycle", Action::kPutLifecycleConfiguration,
     kNoSpaceCheck, nullptr, DeleteBucketLifecycle},
    {Operation::kListObjects, "ListObjects", Action::kListBucket, kNoSpaceCheck, ParseListObjects,
     ListObjects},
    {Operation::kListObjectsV2, "ListObjectsV2", Action::kListBucket, kNoSpaceCheck,
     ParseListObjectsV2, ListObjectsV2},
    {Operation::kPutObject, "PutObject", Action::kPutObject, kNeedsSpace, nullptr, PutObject},
    {Operation::kGetObject, "GetObject", Action::kGetObject, kNoSpaceCheck, ParseGetObject,
     GetObject},
    {Operation::kHeadObject, "HeadObject", Action::kGetObject, kNoSpaceCheck, ParseGetObject,
     GetObject},
    {Operation::kDeleteObject, "DeleteObject", Action::kDeleteObject, kNoSpaceCheck, ParseVersionId,
     DeleteObject},
    {Operation::kCreateMultipartUpload, "CreateMultipartUpload", Action::kPutObject, kNeedsSpace,
     nullptr, CreateMultipartUpload},
    {Operation::kUploadPart, "UploadPart", Action::kPutObject, kNeedsSpace, ParseUploadPart,
     UploadPart},
    {Operation::kUploadPartCopy, "UploadPartCopy", Action::kPutObject, kNeedsSpace, ParseUploadPart,
     UploadPartCopy},
    {Operation::kCompleteMultipartUpload, "CompleteMultipartUpload", Action::kPutObject,
     kNeedsSpace, ParseUploadId, CompleteMultipartUpload},
    {Operation::kAbortMultipartUpload, "AbortMultipartUpload", Action::kAbortMultipartUpload,
     kNoSpaceCheck, ParseUploadId, AbortMultipartUpload},
    {Operation::kListParts, "ListParts", Action::kListMultipartUploadParts, kNoSpaceCheck,
     ParseListParts, ListParts},
    {Operation::kListMultipartUploads, "ListMultipartUploads", Action::kListBucketMultipartUploads,
     kNoSpaceCheck, ParseListMultipartUploads, ListMultipartUploads},
    {Operation::kCopyObject, "CopyObject", Action::kPutObject, kNeedsSpace, nullptr, CopyObject},
    // Then each key as s3:DeleteObject (delete_objects.cc).
    {Operation::kDeleteObjects, "DeleteObjects", Action::kAnyBucketAccess, kNoSpaceCheck, nullptr,
     DeleteObjects},
    {Operation::kGetObjectLockConfiguration, "GetObjectLockConfiguration",
     Action::kGetBucketObjectLockConfiguration, kNoSpaceCheck, nullptr, GetObjectLockConfiguration},
    {Operation::kPutObjectLockConfiguration, "PutObjectLockConfiguration",
     Action::kPutBucketObjectLockConfiguration, kNeedsSpace, nullptr, PutObjectLockConfiguration},
    {Operation::kGetObjectRetention, "GetObjectRetention", Action::kGetObjectRetention,
     kNoSpaceCheck, ParseVersionId, GetObjectRetention},
    {Operation::kPutObjectRetention, "PutObjectRetention", Action::kPutObjectRetention, kNeedsSpace,
     ParseVersionId, PutObjectRetention},
    {Operation::kGetObjectLegalHold, "GetObjectLegalHold", Action::kGetObjectLegalHold,
     kNoSpaceCheck, ParseVersionId, GetObjectLegalHold},
    {Operation::kPutObjectLegalHold, "PutObjectLegalHold", Action::kPutObjectLegalHold, kNeedsSpace,
     ParseVersionId, PutObjectLegalHold},
    {Operation::kGetObjectTagging, "GetObjectTagging", Action::kGetObjectTagging, kNoSpaceCheck,
     ParseVersionId, GetObjectTagging},
    // Then s3:GetObjectAttributes too, asked by the handler.
    {Operation::kGetObjectAttributes, "GetObjectAttributes", Action::kGetObject, kNoSpaceCheck,
     ParseVersionId, GetObjectAttributes},
    {Operation::kPutObjectTagging, "PutObjectTagging", Action::kPutObjectTagging, kNeedsSpace,
     ParseVersionId, PutObjectTagging},
    {Operation::kDeleteObjectTagging, "DeleteObjectTagging", Action::kDeleteObjectTagging,
     kNoSpaceCheck, ParseVersionId, DeleteObjectTagging},
    {Operation::kGetBucketTagging, "GetBucketTagging", Action::kGetBucketTagging, kNoSpaceCheck,
     nullptr, GetBucketTagging},
    {Operation::kPutBucketTagging, "PutBucketTagging", Action::kPutBucketTagging, kNeedsSpace,
     nullptr, PutBucketTagging},
    {Operation::kDeleteBucketTagging, "DeleteBucketTagging", Action::kPutBucketTagging,
     kNoSpaceCheck, nullptr, DeleteBucketTagging},
    {Operation::kGetBucketCors, "GetBucketCors", Action::kGetBucketCors, kNoSpaceCheck, nullptr,
     GetBucketCors},
    {Operation::kPutBucketCors, "PutBucketCors", Action::kPutBucketCors, kNeedsSpace, nullptr,
     PutBucketCors},
    {Operation::kDeleteBucketCors, "DeleteBucketCors", Action::kPutBucketCors, kNoSpaceCheck,
     nullptr, DeleteBucketCors},
    // Authenticated, authorized and checked for space by its handler, from the form.
    {Operation::kPostObject, "PostObject", Action::kPutObject, kNeedsSpace, nullptr, PostObject},
    // Bucket sub-resources: bucket_subresources.cc answers those cubby keeps no configuration
    // for, bucket_encryption.cc the encryption ones.
    {Operation::kGetBucketWebsite, "GetBucketWebsite", Action::kGetBucketWebsite, kNoSpaceCheck,
     nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketWebsite, "PutBucketWebsite", Action::kPutBucketWebsite, kNoSpaceCheck,
     nullptr, UnconfiguredBucketSubresource},
    {Operation::kDeleteBucketWebsite, "DeleteBucketWebsite", Action::kDeleteBucketWebsite,
     kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketLogging, "GetBucketLogging", Action::kGetBucketLogging, kNoSpaceCheck,
     nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketLogging, "PutBucketLogging", Action::kPutBucketLogging, kNoSpaceCheck,
     nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketNotificationConfiguration, "GetBucketNotificationConfiguration",
     Action::kGetBucketNotification, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketNotificationConfiguration, "PutBucketNotificationConfiguration",
     Action::kPutBucketNotification, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketRequestPayment, "GetBucketRequestPayment",
     Action::kGetBucketRequestPayment, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketRequestPayment, "PutBucketRequestPayment",
     Action::kPutBucketRequestPayment, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketAccelerateConfiguration, "GetBucketAccelerateConfiguration",
     Action::kGetAccelerateConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketAccelerateConfiguration, "PutBucketAccelerateConfiguration",
     Action::kPutAccelerateConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketReplication, "GetBucketReplication", Action::kGetReplicationConfiguration,
     kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketReplication, "PutBucketReplication", Action::kPutReplicationConfiguration,
     kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kDeleteBucketReplication, "DeleteBucketReplication",
     Action::kPutReplicationConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketEncryption, "GetBucketEncryption", Action::kGetEncryptionConfiguration,
     kNoSpaceCheck, nullptr, GetBucketEncryption},
    {Operation::kPutBucketEncryption, "PutBucketEncryption", Action::kPutEncryptionConfiguration,
     kNeedsSpace, nullptr, PutBucketEncryption},
    {Operation::kDeleteBucketEncryption, "DeleteBucketEncryption",
     Action::kPutEncryptionConfiguration, kNoSpaceCheck, nullptr, DeleteBucketEncryption},
    {Operation::kListBucketAnalyticsConfigurations, "ListBucketAnalyticsConfigurations",
     Action::kGetAnalyticsConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketAnalyticsConfiguration, "GetBucketAnalyticsConfiguration",
     Action::kGetAnalyticsConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketAnalyticsConfiguration, "PutBucketAnalyticsConfiguration",
     Action::kPutAnalyticsConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kDeleteBucketAnalyticsConfiguration, "DeleteBucketAnalyticsConfiguration",
     Action::kPutAnalyticsConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kListBucketMetricsConfigurations, "ListBucketMetricsConfigurations",
     Action::kGetMetricsConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketMetricsConfiguration, "GetBucketMetricsConfiguration",
     Action::kGetMetricsConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketMetricsConfiguration, "PutBucketMetricsConfiguration",
     Action::kPutMetricsConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kDeleteBucketMetricsConfiguration, "DeleteBucketMetricsConfiguration",
     Action::kPutMetricsConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kListBucketInventoryConfigurations, "ListBucketInventoryConfigurations",
     Action::kGetInventoryConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketInventoryConfiguration, "GetBucketInventoryConfiguration",
     Action::kGetInventoryConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketInventoryConfiguration, "PutBucketInventoryConfiguration",
     Action::kPutInventoryConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kDeleteBucketInventoryConfiguration, "DeleteBucketInventoryConfiguration",
     Action::kPutInventoryConfiguration, kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kListBucketIntelligentTieringConfigurations,
     "ListBucketIntelligentTieringConfigurations", Action::kGetIntelligentTieringConfiguration,
     kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kGetBucketIntelligentTieringConfiguration,
     "GetBucketIntelligentTieringConfiguration", Action::kGetIntelligentTieringConfiguration,
     kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kPutBucketIntelligentTieringConfiguration,
     "PutBucketIntelligentTieringConfiguration", Action::kPutIntelligentTieringConfiguration,
     kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    {Operation::kDeleteBucketIntelligentTieringConfiguration,
     "DeleteBucketIntelligentTieringConfiguration", Action::kPutIntelligentTieringConfiguration,
     kNoSpaceCheck, nullptr, UnconfiguredBucketSubresource},
    // Never authorized: a preflight is answered before authentication (Pipeline).
    {Operation::kOptionsObject, "OptionsObject", Action::kUnimplemented, kNoSpaceCheck, nullptr,
     OptionsObject},
    {Operation::kNotImplemented, "NotImplemented", Action::kUnimplemented, kNoSpaceCheck, nullptr,
     AnswerNotImplemented},
};

constexpr bool RowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kOperations); ++i) {
    if (kOperations[i].id != static_cast<Operation>(i)) return false;
  }
  return true;
}
static_assert(std::size(kOperations) == static_cast<size_t>(Operation::kCount),
              "every Operation needs a row in kOperations");
static_assert(RowsInEnumOrder(), "kOperations' rows must follow the Operation enum's order");

}  // namespace

const OperationInfo& Info(Operation op) {
  const auto index = static_cast<size_t>(op);
  if (index >= std::size(kOperations)) {
    static constexpr OperationInfo unknown{.id = Operation::kCount,
                                           .name = "Unknown",
                                           .action = Action::kUnimplemented,
                                           .needs_space = false,
                                           .parse_params = nullptr,
                                           .handler = AnswerInternalError};
    return unknown;
  }
  return kOperations[index];
}

std::string_view OperationName(Operation op) { return Info(op).name; }

}  // namespace cubby::s3api
