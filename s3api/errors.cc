// The one table of S3 errors. Codes, messages and statuses follow
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html#ErrorCodeList
#include "s3api/errors.h"

#include <cassert>
#include <cstddef>

#include "s3api/xml.h"

namespace cubby::s3api {

namespace {

// One row per ErrorCode, in the enum's order, so that Info is an index.
constexpr ErrorInfo kErrors[] = {
    {ErrorCode::kNone, "InternalError", "No error.", 500},
    // The bucket's object ownership is BucketOwnerEnforced and the request sets an ACL
    // (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-ownership-error-responses.html).
    {ErrorCode::kAccessControlListNotSupported, "AccessControlListNotSupported",
     "The bucket does not allow ACLs", 400},
    {ErrorCode::kAccessDenied, "AccessDenied", "Access Denied", 403},
    // A CORS preflight refused (cors.h AnswerPreflight gives the message).
    {ErrorCode::kAccessForbidden, "AccessForbidden",
     "CORSResponse: This CORS request is not allowed.", 403},
    {ErrorCode::kAuthorizationHeaderMalformed, "AuthorizationHeaderMalformed",
     "The authorization header that you provided is not valid.", 400},
    {ErrorCode::kAuthorizationQueryParametersError, "AuthorizationQueryParametersError",
     "Error parsing the X-Amz-Credential parameter.", 400},
    // X-Amz-Expires negative or over 604800: S3 refuses the URL with 403 (what Ceph's s3-tests
    // test_object_raw_get_x_amz_expires_out_* expect), in AuthorizationQueryParametersError's name.
    {ErrorCode::kExpiresOutOfRange, "AuthorizationQueryParametersError",
     "X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires must "
     "be less than 604800 seconds",
     403},
    {ErrorCode::kBadDigest, "BadDigest",
     "The Content-MD5 you specified did not match what we received.", 400},
    // Too many bucket tags: "Bucket tag count cannot be greater than 50" (PutBucketTagging).
    {ErrorCode::kBadRequest, "BadRequest", "Bad Request", 400},
    {ErrorCode::kBucketAlreadyExists, "BucketAlreadyExists",
     "The requested bucket name is not available. The bucket namespace is shared by all users of "
     "the system. Please select a different name and try again.",
     409},
    {ErrorCode::kBucketAlreadyOwnedByYou, "BucketAlreadyOwnedByYou",
     "Your previous request to create the named bucket succeeded and you already own it.", 409},
    {ErrorCode::kBucketNotEmpty, "BucketNotEmpty", "The bucket you tried to delete is not empty",
     409},
    {ErrorCode::kEntityTooLarge, "EntityTooLarge",
     "Your proposed upload exceeds the maximum allowed object size.", 400},
    {ErrorCode::kEntityTooSmall, "EntityTooSmall",
     "Your proposed upload is smaller than the minimum allowed object size.", 400},
    {ErrorCode::kIncompleteBody, "IncompleteBody",
     "You did not provide the number of bytes specified by the Content-Length HTTP header.", 400},
    // POST Object: the form has no `file` field.
    {ErrorCode::kIncorrectNumberOfFilesInPostRequest, "IncorrectNumberOfFilesInPostRequest",
     "POST requires exactly one file upload per request.", 400},
    // Not an AWS code (S3 never runs out of space): cubby's answer when its disk is full. 507
    // (RFC 4918 section 11.5) rather than 503 SlowDown: a full disk does not clear in the
    // seconds a client's retries last, and boto3, the aws cli and rclone retry a 503 (up to 5
    // times over some 20 s) but not a 507, so the client reports the real cause at once. MinIO
    // answers the same status (XMinioStorageFull).
    {ErrorCode::kInsufficientStorage, "InsufficientStorage",
     "The store is full: writes are refused until space is freed (delete objects or abort "
     "multipart uploads).",
     507},
    {ErrorCode::kInternalError, "InternalError",
     "We encountered an internal error. Please try again.", 500},
    {ErrorCode::kInvalidAccessKeyId, "InvalidAccessKeyId",
     "The AWS access key ID you provided does not exist in our records.", 403},
    {ErrorCode::kInvalidArgument, "InvalidArgument", "Invalid Argument", 400},
    {ErrorCode::kInvalidBucketAclWithObjectOwnership, "InvalidBucketAclWithObjectOwnership",
     "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting", 400},
    {ErrorCode::kInvalidBucketName, "InvalidBucketName", "The specified bucket is not valid.", 400},
    // Object lock asked of a bucket whose versioning is not Enabled, or versioning suspended on a
    // bucket with object lock.
    {ErrorCode::kInvalidBucketState, "InvalidBucketState",
     "The request is not valid with the current state of the bucket.", 409},
    {ErrorCode::kInvalidDigest, "InvalidDigest", "The Content-MD5 you specified is not valid.",
     400},
    {ErrorCode::kInvalidEncryptionAlgorithmError, "InvalidEncryptionAlgorithmError",
     "The encryption request you specified is not valid. Supported value: AES256.", 400},
    {ErrorCode::kInvalidLocationConstraint, "InvalidLocationConstraint",
     "The specified location constraint is not valid.", 400},
    {ErrorCode::kInvalidPart, "InvalidPart",
     "One or more of the specified parts could not be found. The part may not have been uploaded, "
     "or the specified entity tag may not match the part's entity tag.",
     400},
    {ErrorCode::kInvalidPartOrder, "InvalidPartOrder",
     "The list of parts was not in ascending order. The parts list must be specified in order by "
     "part number.",
     400},
    {ErrorCode::kInvalidPartNumber, "InvalidPartNumber",
     "The requested partnumber is not satisfiable", 416},
    // POST Object: the policy document is not base64 JSON of the expected shape.
    {ErrorCode::kInvalidPolicyDocument, "InvalidPolicyDocument",
     "The content of the form does not meet the conditions specified in the policy document.", 400},
    {ErrorCode::kInvalidRange, "InvalidRange", "The requested range is not satisfiable", 416},
    {ErrorCode::kInvalidRequest, "InvalidRequest", "Invalid Request", 400},
    // x-amz-storage-class names no storage class AWS has.
    {ErrorCode::kInvalidStorageClass, "InvalidStorageClass",
     "The storage class you specified is not valid", 400},
    {ErrorCode::kInvalidTag, "InvalidTag", "The tag provided was not a valid tag.", 400},
    {ErrorCode::kInvalidURI, "InvalidURI", "Couldn't parse the specified URI.", 400},
    {ErrorCode::kKeyTooLongError, "KeyTooLongError", "Your key is too long", 400},
    {ErrorCode::kKmsDisabled, "KMS.DisabledException", "The KMS key is disabled.", 400},
    {ErrorCode::kKmsInvalidState, "KMS.KMSInvalidStateException",
     "The KMS key is pending deletion.", 400},
    {ErrorCode::kKmsNotFound, "KMS.NotFoundException", "The KMS key does not exist.", 400},
    {ErrorCode::kMalformedACLError, "MalformedACLError",
     "The XML you provided was not well-formed or did not validate against our published schema",
     400},
    // PutBucketPolicy: the document does not parse; the message says why (iam/policy.h Parse).
    {ErrorCode::kMalformedPolicy, "MalformedPolicy", "Policies must be valid JSON", 400},
    {ErrorCode::kMalformedPOSTRequest, "MalformedPOSTRequest",
     "The body of your POST request is not well-formed multipart/form-data.", 400},
    {ErrorCode::kMalformedXML, "MalformedXML",
     "The XML you provided was not well-formed or did not validate against our published schema",
     400},
    {ErrorCode::kMaxPostPreDataLengthExceededError, "MaxPostPreDataLengthExceededError",
     "Your POST request fields preceding the upload file were too large.", 400},
    {ErrorCode::kMetadataTooLarge, "MetadataTooLarge",
     "Your metadata headers exceed the maximum allowed metadata size.", 400},
    {ErrorCode::kMethodNotAllowed, "MethodNotAllowed",
     "The specified method is not allowed against this resource.", 405},
    {ErrorCode::kMissingContentLength, "MissingContentLength",
     "You must provide the Content-Length HTTP header.", 411},
    {ErrorCode::kMissingSecurityHeader, "MissingSecurityHeader",
     "Your request is missing a required header.", 400},
    {ErrorCode::kNoSuchBucket, "NoSuchBucket", "The specified bucket does not exist", 404},
    {ErrorCode::kNoSuchBucketPolicy, "NoSuchBucketPolicy", "The bucket policy does not exist", 404},
    // An analytics, metrics, inventory or intelligent-tiering configuration id that is not set.
    {ErrorCode::kNoSuchConfiguration, "NoSuchConfiguration",
     "The specified configuration does not exist.", 404},
    {ErrorCode::kNoSuchCORSConfiguration, "NoSuchCORSConfiguration",
     "The CORS configuration does not exist", 404},
    {ErrorCode::kNoSuchKey, "NoSuchKey", "The specified key does not exist.", 404},
    {ErrorCode::kNoSuchLifecycleConfiguration, "NoSuchLifecycleConfiguration",
     "The lifecycle configuration does not exist", 404},
    // GetObjectRetention / GetObjectLegalHold of a version that has none.
    {ErrorCode::kNoSuchObjectLockConfiguration, "NoSuchObjectLockConfiguration",
     "The specified object does not have a ObjectLock configuration", 404},
    {ErrorCode::kNoSuchPublicAccessBlockConfiguration, "NoSuchPublicAccessBlockConfiguration",
     "The public access block configuration was not found", 404},
    {ErrorCode::kNoSuchTagSet, "NoSuchTagSet", "The TagSet does not exist", 404},
    {ErrorCode::kNoSuchUpload, "NoSuchUpload",
     "The specified upload does not exist. The upload ID may be invalid, or the upload may have "
     "been aborted or completed.",
     404},
    // A version id that is well formed but names no version of the key.
    {ErrorCode::kNoSuchVersion, "NoSuchVersion", "The specified version does not exist.", 404},
    {ErrorCode::kNoSuchWebsiteConfiguration, "NoSuchWebsiteConfiguration",
     "The specified bucket does not have a website configuration", 404},
    {ErrorCode::kNotImplemented, "NotImplemented",
     "A header you provided implies functionality that is not implemented.", 501},
    {ErrorCode::kNotModified, "NotModified", "Not Modified", 304},
    {ErrorCode::kObjectLockConfigurationNotFoundError, "ObjectLockConfigurationNotFoundError",
     "Object Lock configuration does not exist for this bucket", 404},
    {ErrorCode::kOperationAborted, "OperationAborted",
     "A conflicting conditional operation is currently in progress against this resource. "
     "Try again.",
     409},
    {ErrorCode::kOwnershipControlsNotFoundError, "OwnershipControlsNotFoundError",
     "The bucket ownership controls were not found", 404},
    {ErrorCode::kPreconditionFailed, "PreconditionFailed",
     "At least one of the preconditions you specified did not hold.", 412},
    // Not an AWS code: a write that would take its bucket past the quota the root user set
    // (s3api/quota.h). Named as Ceph RGW names it; the message names the limit.
    {ErrorCode::kQuotaExceeded, "QuotaExceeded", "The bucket's quota would be exceeded.", 403},
    {ErrorCode::kReplicationConfigurationNotFoundError, "ReplicationConfigurationNotFoundError",
     "The replication configuration was not found", 404},
    {ErrorCode::kRequestTimeTooSkewed, "RequestTimeTooSkewed",
     "The difference between the request time and the current time is too large.", 403},
    {ErrorCode::kRequestTimeout, "RequestTimeout",
     "Your socket connection to the server was not read from or written to within the timeout "
     "period.",
     400},
    {ErrorCode::kServerSideEncryptionConfigurationNotFoundError,
     "ServerSideEncryptionConfigurationNotFoundError",
     "The server side encryption configuration was not found", 404},
    {ErrorCode::kServiceUnavailable, "ServiceUnavailable", "Please reduce your request rate.", 503},
    {ErrorCode::kSignatureDoesNotMatch, "SignatureDoesNotMatch",
     "The request signature we calculated does not match the signature you provided. Check your "
     "key and signing method.",
     403},
    {ErrorCode::kUnresolvableGrantByEmailAddress, "UnresolvableGrantByEmailAddress",
     "The email address you provided does not match any account on record.", 400},
    {ErrorCode::kXAmzContentSHA256Mismatch, "XAmzContentSHA256Mismatch",
     "The provided 'x-amz-content-sha256' header does not match what was computed.", 400},
};

constexpr bool RowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kErrors); ++i) {
    if (kErrors[i].id != static_cast<ErrorCode>(i)) return false;
  }
  return true;
}
static_assert(std::size(kErrors) == static_cast<size_t>(ErrorCode::kCount),
              "every ErrorCode needs a row in kErrors");
static_assert(RowsInEnumOrder(), "kErrors' rows must follow the ErrorCode enum's order");

}  // namespace

const ErrorInfo& Info(ErrorCode code) {
  assert(code != ErrorCode::kNone && "Info(kNone)");
  const auto index = static_cast<size_t>(code);
  if (index >= std::size(kErrors)) {
    static constexpr ErrorInfo unknown{ErrorCode::kInternalError, "InternalError",
                                       "Unknown error code.", 500};
    return unknown;
  }
  return kErrors[index];
}

std::string ErrorXml(ErrorCode code, std::string_view resource, std::string_view request_id,
                     std::string_view message, std::string_view region) {
  const ErrorInfo& info = Info(code);
  XmlWriter w;
  w.Open("Error");
  w.Element("Code", info.code);
  w.Element("Message", message.empty() ? info.message : message);
  if (!region.empty()) w.Element("Region", region);
  w.Element("Resource", resource);
  w.Element("RequestId", request_id);
  w.Close();
  return std::move(w).Finish();
}

}  // namespace cubby::s3api
