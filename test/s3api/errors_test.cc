#include "s3api/errors.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace cubby::s3api {
namespace {

TEST(ErrorsTest, EveryCodeHasAUniqueRow) {
  std::set<std::string_view> codes;
  for (int i = static_cast<int>(ErrorCode::kNone) + 1;
       i <= static_cast<int>(ErrorCode::kXAmzContentSHA256Mismatch); ++i) {
    const ErrorInfo& info = Info(static_cast<ErrorCode>(i));
    SCOPED_TRACE(std::string(info.code));
    EXPECT_FALSE(info.code.empty());
    EXPECT_FALSE(info.message.empty());
    EXPECT_GE(info.http_status, 300);
    EXPECT_LT(info.http_status, 600);
    EXPECT_TRUE(codes.insert(info.code).second) << "duplicate code string";
  }
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
                        Case{ErrorCode::kMethodNotAllowed, "MethodNotAllowed", 405},
                        Case{ErrorCode::kSignatureDoesNotMatch, "SignatureDoesNotMatch", 403},
                        Case{ErrorCode::kRequestTimeTooSkewed, "RequestTimeTooSkewed", 403},
                        Case{ErrorCode::kInternalError, "InternalError", 500},
                        Case{ErrorCode::kServiceUnavailable, "ServiceUnavailable", 503},
                        Case{ErrorCode::kXAmzContentSHA256Mismatch, "XAmzContentSHA256Mismatch",
                             400}}) {
    EXPECT_EQ(Info(c.code).code, c.name);
    EXPECT_EQ(Info(c.code).http_status, c.status) << c.name;
  }
}

TEST(ErrorsTest, ErrorXml) {
  EXPECT_EQ(ErrorXml(ErrorCode::kNoSuchKey, "/b/a&b", "REQ1"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>"
            "<Resource>/b/a&amp;b</Resource><RequestId>REQ1</RequestId></Error>");
  std::string custom = ErrorXml(ErrorCode::kInvalidArgument, "/b", "R", "max-keys <0>");
  EXPECT_NE(custom.find("<Message>max-keys &lt;0&gt;</Message>"), std::string::npos);
}

}  // namespace
}  // namespace cubby::s3api
