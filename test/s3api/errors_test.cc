#include "s3api/errors.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "s3api/handlers.h"

namespace cubby::s3api {
namespace {

TEST(ErrorsTest, EveryCodeHasItsOwnUniqueRow) {
  std::set<std::string_view> codes;
  for (int i = static_cast<int>(ErrorCode::kNone) + 1; i < static_cast<int>(ErrorCode::kCount);
       ++i) {
    const ErrorInfo& info = Info(static_cast<ErrorCode>(i));
    SCOPED_TRACE(std::string(info.code));
    EXPECT_EQ(info.id, static_cast<ErrorCode>(i)) << "the lookup returned another code's row";
    EXPECT_FALSE(info.code.empty());
    EXPECT_FALSE(info.message.empty());
    EXPECT_GE(info.http_status, 300);
    EXPECT_LT(info.http_status, 600);
    // One code string a row, but for the one S3 answers with two statuses.
    if (info.id == ErrorCode::kExpiresOutOfRange) {
      EXPECT_EQ(info.code, Info(ErrorCode::kAuthorizationQueryParametersError).code);
      EXPECT_EQ(info.http_status, 403);
      continue;
    }
    EXPECT_TRUE(codes.insert(info.code).second) << "duplicate code string";
  }
  EXPECT_EQ(codes.size(), static_cast<size_t>(ErrorCode::kCount) - 2);
}

TEST(ErrorsTest, SpotChecks) {
  struct Case {
    ErrorCode code;
    std::string_view name;
    int status;
  };
  for (const Case& c : {Case{ErrorCode::kNoSuchKey, "NoSuchKey", 404},
                        Case{ErrorCode::kNoSuchBucket, "NoSuchBucket", 404},
                        Case{ErrorCode::kAccessDenied, "AccessDenied", 403},
                        Case{ErrorCode::kBucketNotEmpty, "BucketNotEmpty", 409},
                        Case{ErrorCode::kBucketAlreadyOwnedByYou, "BucketAlreadyOwnedByYou", 409},
                        Case{ErrorCode::kInvalidRange, "InvalidRange", 416},
                        Case{ErrorCode::kPreconditionFailed, "PreconditionFailed", 412},
                        Case{ErrorCode::kMissingContentLength, "MissingContentLength", 411},
                        Case{ErrorCode::kNotImplemented, "NotImplemented", 501},
                        Case{ErrorCode::kInvalidBucketState, "InvalidBucketState", 409},
                        Case{ErrorCode::kNoSuchObjectLockConfiguration,
                             "NoSuchObjectLockConfiguration", 404},
                        Case{ErrorCode::kMethodNotAllowed, "MethodNotAllowed", 405},
                        Case{ErrorCode::kAuthorizationQueryParametersError,
                             "AuthorizationQueryParametersError", 400},
                        Case{ErrorCode::kSignatureDoesNotMatch, "SignatureDoesNotMatch", 403},
                        Case{ErrorCode::kRequestTimeTooSkewed, "RequestTimeTooSkewed", 403},
                        Case{ErrorCode::kInternalError, "InternalError", 500},
                        Case{ErrorCode::kServiceUnavailable, "ServiceUnavailable", 503},
                        Case{ErrorCode::kInsufficientStorage, "InsufficientStorage", 507},
                        Case{ErrorCode::kQuotaExceeded, "QuotaExceeded", 403},
                        Case{ErrorCode::kXAmzContentSHA256Mismatch, "XAmzContentSHA256Mismatch",
                             400}}) {
    EXPECT_EQ(Info(c.code).code, c.name);
    EXPECT_EQ(Info(c.code).http_status, c.status) << c.name;
  }
}

// The access-control codes: names and statuses as AWS's error list and the Object Ownership
// troubleshooting page give them.
TEST(ErrorsTest, AccessControlCodes) {
  struct Case {
    ErrorCode code;
    std::string_view name;
    int status;
  };
  for (const Case& c : {
           Case{ErrorCode::kAccessControlListNotSupported, "AccessControlListNotSupported", 400},
           Case{ErrorCode::kInvalidBucketAclWithObjectOwnership,
                "InvalidBucketAclWithObjectOwnership", 400},
           Case{ErrorCode::kMalformedACLError, "MalformedACLError", 400},
           Case{ErrorCode::kMalformedPolicy, "MalformedPolicy", 400},
           Case{ErrorCode::kNoSuchPublicAccessBlockConfiguration,
                "NoSuchPublicAccessBlockConfiguration", 404},
           Case{ErrorCode::kOwnershipControlsNotFoundError, "OwnershipControlsNotFoundError", 404},
           Case{ErrorCode::kUnresolvableGrantByEmailAddress, "UnresolvableGrantByEmailAddress",
                400},
       }) {
    EXPECT_EQ(Info(c.code).code, c.name);
    EXPECT_EQ(Info(c.code).http_status, c.status) << c.name;
  }
}

// storage → S3: every storage::Code (service.cc's FromStorage).
TEST(ErrorsTest, FromStorageEveryCode) {
  using storage::Code;
  const std::vector<std::pair<Code, ErrorCode>> cases = {
      {Code::kOk, ErrorCode::kInternalError},  // not an error: a caller bug
      {Code::kNoSuchBucket, ErrorCode::kNoSuchBucket},
      {Code::kNoSuchKey, ErrorCode::kNoSuchKey},
      {Code::kNoSuchUpload, ErrorCode::kNoSuchUpload},
      {Code::kNoSuchAccessKey, ErrorCode::kInvalidAccessKeyId},
      {Code::kBucketAlreadyExists, ErrorCode::kBucketAlreadyOwnedByYou},
      {Code::kBucketNotEmpty, ErrorCode::kBucketNotEmpty},
      {Code::kPreconditionFailed, ErrorCode::kPreconditionFailed},
      {Code::kInvalidArgument, ErrorCode::kInvalidArgument},
      {Code::kInvalidPart, ErrorCode::kInvalidPart},
      {Code::kAborted, ErrorCode::kServiceUnavailable},
      {Code::kIOError, ErrorCode::kInternalError},
      {Code::kCorruption, ErrorCode::kInternalError},
      {Code::kNoSpace, ErrorCode::kInsufficientStorage},
      {Code::kNoSuchEntity, ErrorCode::kInternalError},  // IAM's codes: the IAM API maps them
      {Code::kEntityAlreadyExists, ErrorCode::kInternalError},
      {Code::kDeleteConflict, ErrorCode::kInternalError},
      {Code::kLimitExceeded, ErrorCode::kInternalError},
      {Code::kNoSuchVersion, ErrorCode::kNoSuchVersion},
      {Code::kObjectLocked, ErrorCode::kAccessDenied},
  };
  for (const auto& [code, want] : cases) {
    EXPECT_EQ(FromStorage(code), want) << storage::CodeName(code);
  }
}

TEST(ErrorsTest, ErrorXml) {
  EXPECT_EQ(ErrorXml(ErrorCode::kNoSuchKey, "/b/a&b", "REQ1"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>"
            "<Resource>/b/a&amp;b</Resource><RequestId>REQ1</RequestId></Error>");
  std::string custom = ErrorXml(ErrorCode::kInvalidArgument, "/b", "R", "max-keys <0>");
  EXPECT_NE(custom.find("<Message>max-keys &lt;0&gt;</Message>"), std::string::npos);
  EXPECT_EQ(custom.find("<Region>"), std::string::npos);
  EXPECT_NE(ErrorXml(ErrorCode::kAuthorizationHeaderMalformed, "/b", "R", "m", "us-east-1")
                .find("<Message>m</Message><Region>us-east-1</Region><Resource>"),
            std::string::npos);
}

}  // namespace
}  // namespace cubby::s3api
