// Every S3 error cubby can answer, in one table: code string, default message, HTTP status.
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html
#pragma once

#include <string>
#include <string_view>

namespace cubby::s3api {

enum class ErrorCode {
  kNone,
  kAccessControlListNotSupported,
  kAccessDenied,
  kAccessForbidden,
  kAuthorizationHeaderMalformed,
  kAuthorizationQueryParametersError,
  // The same code with 403: a presigned URL's X-Amz-Expires out of range (negative, over a week).
  kExpiresOutOfRange,
  kBadDigest,
  kBadRequest,
  kBucketAlreadyExists,
  kBucketAlreadyOwnedByYou,
  kBucketNotEmpty,
  kEntityTooLarge,
  kEntityTooSmall,
  kIncompleteBody,
  kIncorrectNumberOfFilesInPostRequest,
  kInsufficientStorage,
  kInternalError,
  kInvalidAccessKeyId,
  kInvalidArgument,
  kInvalidBucketAclWithObjectOwnership,
  kInvalidBucketName,
  kInvalidBucketState,
  kInvalidDigest,
  kInvalidEncryptionAlgorithmError,
  kInvalidLocationConstraint,
  kInvalidPart,
  kInvalidPartOrder,
  kInvalidPartNumber,
  kInvalidPolicyDocument,
  kInvalidRange,
  kInvalidRequest,
  kInvalidStorageClass,
  kInvalidTag,
  kInvalidURI,
  kKeyTooLongError,
  kKmsDisabled,      // KMS.DisabledException: SSE-KMS with a disabled key
  kKmsInvalidState,  // KMS.KMSInvalidStateException: a key pending deletion
  kKmsNotFound,      // KMS.NotFoundException: no such KMS key
  kMalformedACLError,
  kMalformedPolicy,
  kMalformedPOSTRequest,
  kMalformedXML,
  kMaxPostPreDataLengthExceededError,
  kMetadataTooLarge,
  kMethodNotAllowed,
  kMissingContentLength,
  kMissingSecurityHeader,
  kNoSuchBucket,
  kNoSuchBucketPolicy,
  kNoSuchConfiguration,
  kNoSuchCORSConfiguration,
  kNoSuchKey,
  kNoSuchLifecycleConfiguration,
  kNoSuchObjectLockConfiguration,
  kNoSuchPublicAccessBlockConfiguration,
  kNoSuchTagSet,
  kNoSuchUpload,
  kNoSuchVersion,
  kNoSuchWebsiteConfiguration,
  kNotImplemented,
  kNotModified,
  kObjectLockConfigurationNotFoundError,
  kOperationAborted,
  kOwnershipControlsNotFoundError,
  kPreconditionFailed,
  kQuotaExceeded,  // cubby's (Ceph RGW's name): a write would pass its bucket's quota
  kReplicationConfigurationNotFoundError,
  kRequestTimeTooSkewed,
  kRequestTimeout,
  kServerSideEncryptionConfigurationNotFoundError,
  kServiceUnavailable,
  kSignatureDoesNotMatch,
  kUnresolvableGrantByEmailAddress,
  kXAmzContentSHA256Mismatch,
  // Not a code: how many there are. Keep it last; errors.cc's table must have a row for every
  // code above, in this order (a static_assert checks it).
  kCount,
};

struct ErrorInfo {
  ErrorCode id;              // ErrorCode::kNoSuchKey: the row's own code
  std::string_view code;     // "NoSuchKey"
  std::string_view message;  // AWS's default message
  int http_status;           // 404
};

// The row of `code`. REQUIRES: code != kNone (asserted; it answers as an InternalError) and
// code != kCount (an out-of-range value answers as an InternalError too).
const ErrorInfo& Info(ErrorCode code);

// The AWS error document:
// <Error><Code/><Message/><Resource/><RequestId/></Error>, with `message` replacing the default
// message when not empty, and <Region/> after <Message/> when `region` is not empty (AWS names
// the region it expects when a request was signed for another one). Values are XML-escaped.
std::string ErrorXml(ErrorCode code, std::string_view resource, std::string_view request_id,
                     std::string_view message = {}, std::string_view region = {});

}  // namespace cubby::s3api
