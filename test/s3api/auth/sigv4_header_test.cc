// ParseAuthorization, the first step of SigV4 header verification; the verification itself is
// tested through Authenticate (auth_test.cc).
#include "s3api/auth/sigv4_header.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace cubby::s3api::auth::sigv4 {
namespace {

TEST(ParseAuthorizationTest, AcceptsWithAndWithoutSpaces) {
  for (std::string_view v :
       {"AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws4_request,"
        "SignedHeaders=host;x-amz-date,Signature=abcd",
        "AWS4-HMAC-SHA256 Credential=AKID/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=abcd",
        "  AWS4-HMAC-SHA256 Signature=abcd ,  SignedHeaders=host;x-amz-date,"
        "Credential=AKID/20130524/us-east-1/s3/aws4_request  "}) {
    std::string error;
    std::optional<ParsedAuthorization> p = ParseAuthorization(v, &error);
    ASSERT_TRUE(p) << v << ": " << error;
    EXPECT_EQ(p->credential.access_key_id, "AKID");
    EXPECT_EQ(p->signed_headers, (std::vector<std::string>{"host", "x-amz-date"}));
    EXPECT_EQ(p->signature, "abcd");
  }
}

TEST(ParseAuthorizationTest, RejectsMalformed) {
  const std::string cred = "Credential=AKID/20130524/us-east-1/s3/aws4_request";
  for (const std::string& v : std::vector<std::string>{
           std::string("AWS4-HMAC-SHA256"),
           "AWS4-HMAC-SHA256 " + cred,
           "AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=host",
           "AWS4-HMAC-SHA256 SignedHeaders=host, Signature=ab",
           "AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=, Signature=ab",
           "AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=host;;date, Signature=ab",
           "AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=host, Signature=",
           "AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=host, Signature=ab, Foo=bar",
           "AWS4-HMAC-SHA256 " + cred + ", " + cred + ", SignedHeaders=host, Signature=ab",
           "AWS4-HMAC-SHA256 Credential=AKID/us-east-1/s3/aws4_request, SignedHeaders=host, "
           "Signature=ab",
           "AWS4-HMAC-SHA256 " + cred + " SignedHeaders=host Signature=ab",
           "AWS4-HMAC-SHA512 " + cred + ", SignedHeaders=host, Signature=ab",
       }) {
    std::string error;
    EXPECT_FALSE(ParseAuthorization(v, &error)) << v;
    EXPECT_FALSE(error.empty()) << v;
  }
}

}  // namespace
}  // namespace cubby::s3api::auth::sigv4
