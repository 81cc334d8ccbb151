// The one table of S3 errors. Codes, messages and statuses follow
// https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html#ErrorCodeList
#include "s3api/errors.h"

#include <cassert>

#include "s3api/xml.h"

namespace cubby::s3api {

const ErrorInfo& Info(ErrorCode code) {
  // One static per case keeps the switch exhaustive (no default:), so a new ErrorCode
  // without a row is a compiler warning.
  switch (code) {
    case ErrorCode::kNone: {
      assert(false && "Info(kNone)");
      static constexpr ErrorInfo e{"InternalError", "No error.", 500};
      return e;
    }
    case ErrorCode::kAccessDenied: {
      static constexpr ErrorInfo e{"AccessDenied", "Access Denied", 403};
      return e;
    }
    case ErrorCode::kAuthorizationHeaderMalformed: {
      static constexpr ErrorInfo e{"AuthorizationHeaderMalformed",
                                   "The authorization header that you provided is not valid.", 400};
      return e;
    }
    case ErrorCode::kAuthorizationQueryParametersError: {
      static constexpr ErrorInfo e{"AuthorizationQueryParametersError",
                                   "Error parsing the X-Amz-Credential parameter.", 400};
      return e;
    }
    case ErrorCode::kBadDigest: {
      static constexpr ErrorInfo e{"BadDigest",
                                   "The Content-MD5 you specified did not match what we received.",
                                   400};
      return e;
    }
    case ErrorCode::kBucketAlreadyExists: {
      static constexpr ErrorInfo e{"BucketAlreadyExists",
                                   "The requested bucket name is not available. The bucket "
                                   "namespace is shared by all users of the system. Please select "
                                   "a different name and try again.",
                                   409};
      return e;
    }
    case ErrorCode::kBucketAlreadyOwnedByYou: {
      static constexpr ErrorInfo e{"BucketAlreadyOwnedByYou",
                                   "Your previous request to create the named bucket succeeded "
                                   "and you already own it.",
                                   409};
      return e;
    }
    case ErrorCode::kBucketNotEmpty: {
      static constexpr ErrorInfo e{"BucketNotEmpty",
                                   "The bucket you tried to delete is not empty", 409};
      return e;
    }
    case ErrorCode::kEntityTooLarge: {
      static constexpr ErrorInfo e{"EntityTooLarge",
                                   "Your proposed upload exceeds the maximum allowed object size.",
                                   400};
      return e;
    }
    case ErrorCode::kEntityTooSmall: {
      static constexpr ErrorInfo e{"EntityTooSmall",
                                   "Your proposed upload is smaller than the minimum allowed "
                                   "object size.",
                                   400};
      return e;
    }
    case ErrorCode::kIncompleteBody: {
      static constexpr ErrorInfo e{"IncompleteBody",
                                   "You did not provide the number of bytes specified by the "
                                   "Content-Length HTTP header.",
                                   400};
      return e;
    }
    case ErrorCode::kInternalError: {
      static constexpr ErrorInfo e{"InternalError",
                                   "We encountered an internal error. Please try again.", 500};
      return e;
    }
    case ErrorCode::kInvalidAccessKeyId: {
      static constexpr ErrorInfo e{"InvalidAccessKeyId",
                                   "The AWS access key ID you provided does not exist in our "
                                   "records.",
                                   403};
      return e;
    }
    case ErrorCode::kInvalidArgument: {
      static constexpr ErrorInfo e{"InvalidArgument", "Invalid Argument", 400};
      return e;
    }
    case ErrorCode::kInvalidBucketName: {
      static constexpr ErrorInfo e{"InvalidBucketName", "The specified bucket is not valid.",
                                   400};
      return e;
    }
    case ErrorCode::kInvalidDigest: {
      static constexpr ErrorInfo e{"InvalidDigest",
                                   "The Content-MD5 you specified is not valid.", 400};
      return e;
    }
    case ErrorCode::kInvalidLocationConstraint: {
      static constexpr ErrorInfo e{"InvalidLocationConstraint",
                                   "The specified location constraint is not valid.", 400};
      return e;
    }
    case ErrorCode::kInvalidPart: {
      static constexpr ErrorInfo e{"InvalidPart",
                                   "One or more of the specified parts could not be found. The "
                                   "part may not have been uploaded, or the specified entity tag "
                                   "may not match the part's entity tag.",
                                   400};
      return e;
    }
    case ErrorCode::kInvalidPartOrder: {
      static constexpr ErrorInfo e{"InvalidPartOrder",
                                   "The list of parts was not in ascending order. The parts list "
                                   "must be specified in order by part number.",
                                   400};
      return e;
    }
    case ErrorCode::kInvalidPartNumber: {
      static constexpr ErrorInfo e{"InvalidPartNumber", "The requested partnumber is not satisfiable",
                                   416};
      return e;
    }
    case ErrorCode::kInvalidRange: {
      static constexpr ErrorInfo e{"InvalidRange", "The requested range is not satisfiable",
                                   416};
      return e;
    }
    case ErrorCode::kInvalidRequest: {
      static constexpr ErrorInfo e{"InvalidRequest", "Invalid Request", 400};
      return e;
    }
    case ErrorCode::kInvalidURI: {
      static constexpr ErrorInfo e{"InvalidURI", "Couldn't parse the specified URI.", 400};
      return e;
    }
    case ErrorCode::kKeyTooLongError: {
      static constexpr ErrorInfo e{"KeyTooLongError", "Your key is too long", 400};
      return e;
    }
    case ErrorCode::kMalformedXML: {
      static constexpr ErrorInfo e{"MalformedXML",
                                   "The XML you provided was not well-formed or did not validate "
                                   "against our published schema",
                                   400};
      return e;
    }
    case ErrorCode::kMetadataTooLarge: {
      static constexpr ErrorInfo e{"MetadataTooLarge",
                                   "Your metadata headers exceed the maximum allowed metadata "
                                   "size.",
                                   400};
      return e;
    }
    case ErrorCode::kMethodNotAllowed: {
      static constexpr ErrorInfo e{"MethodNotAllowed",
                                   "The specified method is not allowed against this resource.",
                                   405};
      return e;
    }
    case ErrorCode::kMissingContentLength: {
      static constexpr ErrorInfo e{"MissingContentLength",
                                   "You must provide the Content-Length HTTP header.", 411};
      return e;
    }
    case ErrorCode::kMissingSecurityHeader: {
      static constexpr ErrorInfo e{"MissingSecurityHeader",
                                   "Your request is missing a required header.", 400};
      return e;
    }
    case ErrorCode::kNoSuchBucket: {
      static constexpr ErrorInfo e{"NoSuchBucket", "The specified bucket does not exist", 404};
      return e;
    }
    case ErrorCode::kNoSuchBucketPolicy: {
      static constexpr ErrorInfo e{"NoSuchBucketPolicy", "The bucket policy does not exist",
                                   404};
      return e;
    }
    case ErrorCode::kNoSuchCORSConfiguration: {
      static constexpr ErrorInfo e{"NoSuchCORSConfiguration",
                                   "The CORS configuration does not exist", 404};
      return e;
    }
    case ErrorCode::kNoSuchKey: {
      static constexpr ErrorInfo e{"NoSuchKey", "The specified key does not exist.", 404};
      return e;
    }
    case ErrorCode::kNoSuchLifecycleConfiguration: {
      static constexpr ErrorInfo e{"NoSuchLifecycleConfiguration",
                                   "The lifecycle configuration does not exist", 404};
      return e;
    }
    case ErrorCode::kNoSuchTagSet: {
      static constexpr ErrorInfo e{"NoSuchTagSet", "The TagSet does not exist", 404};
      return e;
    }
    case ErrorCode::kNoSuchUpload: {
      static constexpr ErrorInfo e{"NoSuchUpload",
                                   "The specified upload does not exist. The upload ID may be "
                                   "invalid, or the upload may have been aborted or completed.",
                                   404};
      return e;
    }
    case ErrorCode::kNoSuchWebsiteConfiguration: {
      static constexpr ErrorInfo e{"NoSuchWebsiteConfiguration",
                                   "The specified bucket does not have a website configuration",
                                   404};
      return e;
    }
    case ErrorCode::kNotImplemented: {
      static constexpr ErrorInfo e{"NotImplemented",
                                   "A header you provided implies functionality that is not "
                                   "implemented.",
                                   501};
      return e;
    }
    case ErrorCode::kNotModified: {
      static constexpr ErrorInfo e{"NotModified", "Not Modified", 304};
      return e;
    }
    case ErrorCode::kObjectLockConfigurationNotFoundError: {
      static constexpr ErrorInfo e{"ObjectLockConfigurationNotFoundError",
                                   "Object Lock configuration does not exist for this bucket",
                                   404};
      return e;
    }
    case ErrorCode::kPreconditionFailed: {
      static constexpr ErrorInfo e{"PreconditionFailed",
                                   "At least one of the preconditions you specified did not hold.",
                                   412};
      return e;
    }
    case ErrorCode::kRequestTimeTooSkewed: {
      static constexpr ErrorInfo e{"RequestTimeTooSkewed",
                                   "The difference between the request time and the current time "
                                   "is too large.",
                                   403};
      return e;
    }
    case ErrorCode::kRequestTimeout: {
      static constexpr ErrorInfo e{"RequestTimeout",
                                   "Your socket connection to the server was not read from or "
                                   "written to within the timeout period.",
                                   400};
      return e;
    }
    case ErrorCode::kServerSideEncryptionConfigurationNotFoundError: {
      static constexpr ErrorInfo e{"ServerSideEncryptionConfigurationNotFoundError",
                                   "The server side encryption configuration was not found", 404};
      return e;
    }
    case ErrorCode::kServiceUnavailable: {
      static constexpr ErrorInfo e{"ServiceUnavailable", "Please reduce your request rate.", 503};
      return e;
    }
    case ErrorCode::kSignatureDoesNotMatch: {
      static constexpr ErrorInfo e{"SignatureDoesNotMatch",
                                   "The request signature we calculated does not match the "
                                   "signature you provided. Check your key and signing method.",
                                   403};
      return e;
    }
    case ErrorCode::kXAmzContentSHA256Mismatch: {
      static constexpr ErrorInfo e{"XAmzContentSHA256Mismatch",
                                   "The provided 'x-amz-content-sha256' header does not match "
                                   "what was computed.",
                                   400};
      return e;
    }
  }
  static constexpr ErrorInfo unknown{"InternalError", "Unknown error code.", 500};
  return unknown;
}

std::string ErrorXml(ErrorCode code, std::string_view resource, std::string_view request_id,
                     std::string_view message) {
  const ErrorInfo& info = Info(code);
  XmlWriter w;
  w.Open("Error");
  w.Element("Code", info.code);
  w.Element("Message", message.empty() ? info.message : message);
  w.Element("Resource", resource);
  w.Element("RequestId", request_id);
  w.Close();
  return std::move(w).Finish();
}

}  // namespace cubby::s3api
