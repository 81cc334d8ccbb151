// Requests signed by botocore (the SDK behind boto3 and the AWS CLI), captured by
// make_botocore_vectors.py: cubby must accept each at its own date, reject it with one digit of
// the signature changed, and sign the same inputs to the same signature.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "s3api/auth/auth.h"
#include "s3api/auth/signer.h"
#include "s3api/auth/sigv4.h"
#include "text/time.h"

namespace cubby::s3api::auth {
namespace {

struct CapturedRequest {
  std::string method;
  std::string target;
  std::vector<Header> headers;
};

#include "test/s3api/auth/botocore_vectors.inc"

constexpr char kAkid[] = "AKIAIOSFODNN7EXAMPLE";
constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr char kRegion[] = "us-east-1";

KeyLookup Keys() {
  return [](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    if (id != kAkid) return std::nullopt;
    storage::AccessKeyRecord r;
    r.access_key_id = kAkid;
    r.secret = storage::SecretKey(kSecret);
    return r;
  };
}

const std::string& HeaderValue(const CapturedRequest& c, std::string_view name) {
  for (const Header& h : c.headers) {
    if (h.name == name) return h.value;
  }
  static const std::string kEmpty;
  ADD_FAILURE() << "no header " << name;
  return kEmpty;
}

HttpRequest ToRequest(const CapturedRequest& c) {
  HttpRequest r;
  r.method = c.method;
  r.target = c.target;
  r.headers = c.headers;
  return r;
}

std::pair<std::string, std::string> SplitTarget(const std::string& target) {
  const size_t q = target.find('?');
  if (q == std::string::npos) return {target, ""};
  return {target.substr(0, q), target.substr(q + 1)};
}

std::string QueryValue(const std::string& target, std::string_view key) {
  for (const text::NameValue& p : sigv4::SplitQuery(SplitTarget(target).second)) {
    if (p.name == key) return p.value;
  }
  ADD_FAILURE() << "no parameter " << key;
  return {};
}

TEST(BotocoreTest, HeaderSignedRequestsVerify) {
  ASSERT_FALSE(kBotocoreSigned.empty());
  for (const CapturedRequest& c : kBotocoreSigned) {
    SCOPED_TRACE(c.method + " " + c.target);
    const auto now = *text::ParseIso8601Basic(HeaderValue(c, "x-amz-date"));
    const AuthResult r = Authenticate(ToRequest(c), kRegion, Keys(), now);
    EXPECT_EQ(r.error, ErrorCode::kNone) << r.error_message;
    EXPECT_EQ(r.payload, PayloadMode::kSha256);

    HttpRequest tampered = ToRequest(c);
    for (Header& h : tampered.headers) {
      if (h.name == "authorization") h.value.back() = h.value.back() == '0' ? '1' : '0';
    }
    EXPECT_EQ(Authenticate(tampered, kRegion, Keys(), now).error,
              ErrorCode::kSignatureDoesNotMatch);
  }
}

TEST(BotocoreTest, SignV4GivesBotocoresAuthorization) {
  for (const CapturedRequest& c : kBotocoreSigned) {
    SCOPED_TRACE(c.method + " " + c.target);
    const std::string& authorization = HeaderValue(c, "authorization");
    const size_t sh = authorization.find("SignedHeaders=") + 14;
    const std::vector<std::string> signed_names =
        *sigv4::ParseSignedHeaders(authorization.substr(sh, authorization.find(',', sh) - sh));
    SignInput in;
    in.method = c.method;
    std::tie(in.path, in.query) = SplitTarget(c.target);
    in.host = HeaderValue(c, "host");
    in.payload_sha256 = HeaderValue(c, "x-amz-content-sha256");
    for (const Header& h : c.headers) {
      const bool is_signed =
          std::find(signed_names.begin(), signed_names.end(), h.name) != signed_names.end();
      if (is_signed && h.name != "host" && h.name != "x-amz-date" &&
          h.name != "x-amz-content-sha256") {
        in.extra_headers.push_back(h);
      }
    }
    in.access_key_id = kAkid;
    in.secret_key = kSecret;
    in.region = kRegion;
    in.now = *text::ParseIso8601Basic(HeaderValue(c, "x-amz-date"));
    const std::vector<Header> added = SignV4(in);
    ASSERT_FALSE(added.empty());
    EXPECT_EQ(added.back().name, "authorization");
    EXPECT_EQ(added.back().value, authorization);
  }
}

TEST(BotocoreTest, PresignedUrlsVerifyAndReproduce) {
  ASSERT_FALSE(kBotocorePresigned.empty());
  for (const CapturedRequest& c : kBotocorePresigned) {
    SCOPED_TRACE(c.method + " " + c.target);
    const auto signed_at = *text::ParseIso8601Basic(QueryValue(c.target, "X-Amz-Date"));
    const int expires = std::stoi(QueryValue(c.target, "X-Amz-Expires"));
    const AuthResult r =
        Authenticate(ToRequest(c), kRegion, Keys(), signed_at + std::chrono::seconds(expires));
    EXPECT_EQ(r.error, ErrorCode::kNone) << r.error_message;
    EXPECT_EQ(Authenticate(ToRequest(c), kRegion, Keys(),
                           signed_at + std::chrono::seconds(expires + 1))
                  .error,
              ErrorCode::kAccessDenied);

    // Presign the same path and non-auth parameters; botocore orders the X-Amz-* parameters
    // differently, which the canonical (sorted) query string makes irrelevant.
    SignInput in;
    in.method = c.method;
    const auto [path, query] = SplitTarget(c.target);
    in.path = path;
    in.query = query.substr(0, query.find("X-Amz-"));
    if (!in.query.empty() && in.query.back() == '&') in.query.pop_back();
    in.host = HeaderValue(c, "host");
    in.access_key_id = kAkid;
    in.secret_key = kSecret;
    in.region = kRegion;
    in.now = signed_at;
    EXPECT_EQ(QueryValue(PresignV4(in, expires), "X-Amz-Signature"),
              QueryValue(c.target, "X-Amz-Signature"));
  }
}

}  // namespace
}  // namespace cubby::s3api::auth
