// ParseAuthorization, the first step of SigV4 header verification, and the order of
// VerifyHeader's checks under each service's rules; the S3 verification's every error is tested
// through Authenticate (auth_test.cc).
#include "s3api/auth/sigv4_header.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "s3api/auth/crypto.h"
#include "s3api/auth/signer.h"
#include "text/encoding.h"
#include "text/time.h"

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

// A request failing two checks shows which comes first: S3 checks the time before the scope
// and x-amz-content-sha256 before the signed headers; IAM and KMS check the scope and the signed
// headers before the time, and the body's hash after it.
TEST(VerifyHeaderTest, OrderOfChecksByService) {
  constexpr char kAkid[] = "AKIAIOSFODNN7EXAMPLE";
  constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  constexpr char kServerRegion[] = "eu-west-1";
  const std::string body = "Action=ListUsers&Version=2010-05-08";
  const std::chrono::system_clock::time_point signed_at =
      *text::ParseIso8601Basic("20130524T000000Z");
  const KeyLookup keys = [&](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    if (id != kAkid) return std::nullopt;
    storage::AccessKeyRecord r;
    r.access_key_id = kAkid;
    r.secret = storage::SecretKey(kSecret);
    return r;
  };
  using E = ErrorCode;
  struct Case {
    std::string name;
    std::string sign_region = kServerRegion;
    std::chrono::seconds clock_offset{0};
    std::function<void(HttpRequest&)> mutate = [](HttpRequest&) {};
    E s3, iam, kms;
  };
  auto add_unsigned = [](HttpRequest& r) { r.headers.push_back({"x-amz-meta-extra", "1"}); };
  auto drop_sha = [](HttpRequest& r) {
    std::erase_if(r.headers, [](const Header& h) { return h.name == kAmzContentSha256; });
  };
  auto other_sha = [](HttpRequest& r) {
    for (Header& h : r.headers) {
      if (h.name == kAmzContentSha256) h.value = std::string(kEmptySha256);
    }
  };
  const std::chrono::seconds hour = std::chrono::hours(1);
  const std::vector<Case> cases = {
      {.name = "valid", .s3 = E::kNone, .iam = E::kNone, .kms = E::kNone},
      {.name = "IAM's global regions",
       .sign_region = "us-east-1",
       .s3 = E::kAuthorizationHeaderMalformed,
       .iam = E::kNone,
       .kms = E::kAuthorizationHeaderMalformed},
      {.name = "no region",
       .sign_region = "",
       .s3 = E::kAuthorizationHeaderMalformed,
       .iam = E::kNone,
       .kms = E::kAuthorizationHeaderMalformed},
      {.name = "skewed, wrong region",
       .sign_region = "us-west-2",
       .clock_offset = hour,
       .s3 = E::kRequestTimeTooSkewed,
       .iam = E::kAuthorizationHeaderMalformed,
       .kms = E::kAuthorizationHeaderMalformed},
      {.name = "skewed, an unsigned x-amz header",
       .clock_offset = hour,
       .mutate = add_unsigned,
       .s3 = E::kRequestTimeTooSkewed,
       .iam = E::kAccessDenied,
       .kms = E::kAccessDenied},
      {.name = "no x-amz-content-sha256, an unsigned x-amz header",
       .mutate =
           [&](HttpRequest& r) {
             drop_sha(r);
             add_unsigned(r);
           },
       .s3 = E::kInvalidRequest,
       .iam = E::kAccessDenied,
       .kms = E::kAccessDenied},
      {.name = "x-amz-content-sha256 not the body's",
       .mutate = other_sha,
       .s3 = E::kSignatureDoesNotMatch,
       .iam = E::kXAmzContentSHA256Mismatch,
       .kms = E::kXAmzContentSHA256Mismatch},
      {.name = "skewed, x-amz-content-sha256 not the body's",
       .clock_offset = hour,
       .mutate = other_sha,
       .s3 = E::kRequestTimeTooSkewed,
       .iam = E::kRequestTimeTooSkewed,
       .kms = E::kRequestTimeTooSkewed},
  };
  const struct {
    const HeaderRules& rules;
    E Case::*expected;
  } services[] = {
      {kS3HeaderRules, &Case::s3}, {kIamHeaderRules, &Case::iam}, {kKmsHeaderRules, &Case::kms}};
  for (const Case& c : cases) {
    for (const auto& service : services) {
      SCOPED_TRACE(c.name + " (" + std::string(service.rules.service) + ")");
      SignInput in;
      in.method = "POST";
      in.host = "localhost";
      in.path = "/";
      in.payload_sha256 = text::HexEncode(Sha256(body));
      in.access_key_id = kAkid;
      in.secret_key = kSecret;
      in.region = c.sign_region;
      in.now = signed_at;
      in.service = std::string(service.rules.service);
      HttpRequest request;
      request.method = "POST";
      request.target = "/";
      request.headers = SignV4(in);
      c.mutate(request);
      const std::vector<text::NameValue> params;
      const VerifyInput verify{request,       "/", "",   params,
                               kServerRegion, "",  keys, signed_at + c.clock_offset};
      const AuthResult r =
          VerifyHeader(verify, *FindHeader(request.headers, kAuthorization), service.rules, body);
      EXPECT_EQ(r.error, c.*service.expected) << r.error_message;
    }
  }
}

// A scope for another region names the server's in the refusal (the error document's <Region>).
TEST(VerifyHeaderTest, WrongRegionNamesTheServers) {
  SignInput in;
  in.method = "GET";
  in.host = "localhost";
  in.path = "/";
  in.payload_sha256 = std::string(kEmptySha256);
  in.access_key_id = "AKID";
  in.secret_key = "secret";
  in.region = "us-west-2";
  in.now = *text::ParseIso8601Basic("20130524T000000Z");
  HttpRequest request;
  request.method = "GET";
  request.target = "/";
  request.headers = SignV4(in);
  const std::vector<text::NameValue> params;
  const KeyLookup none = [](std::string_view) { return std::optional<storage::AccessKeyRecord>(); };
  const VerifyInput verify{request, "/", "", params, "eu-west-1", "", none, in.now};
  const AuthResult r = VerifyHeader(verify, *FindHeader(request.headers, kAuthorization));
  EXPECT_EQ(r.error, ErrorCode::kAuthorizationHeaderMalformed);
  EXPECT_EQ(r.error_region, "eu-west-1");
}

}  // namespace
}  // namespace cubby::s3api::auth::sigv4
