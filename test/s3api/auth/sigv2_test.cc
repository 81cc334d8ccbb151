// Signature Version 2: AWS's documented examples, requests signed by botocore (HmacV1Auth and
// HmacV1QueryAuth, path- and virtual-hosted-style), and every error path.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html
#include "s3api/auth/sigv2.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "s3api/auth/auth.h"
#include "s3api/auth/sigv4.h"
#include "text/time.h"
#include "text/uri.h"

namespace cubby::s3api::auth {
namespace {

using std::chrono::seconds;
using TimePoint = std::chrono::system_clock::time_point;

constexpr char kAkid[] = "AKIAIOSFODNN7EXAMPLE";
constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

struct V2Request {
  std::string vhost_bucket;
  std::string method;
  std::string target;
  std::vector<Header> headers;
};

#include "test/s3api/auth/botocore_v2_vectors.inc"

KeyLookup Keys(std::string secret = kSecret) {
  return [secret](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    if (id != kAkid) return std::nullopt;
    storage::AccessKeyRecord r;
    r.access_key_id = kAkid;
    r.secret = storage::SecretKey(secret);
    return r;
  };
}

// HttpRequest::Find lives in cubby_s3api, which this test does not link.
const std::string* Find(const HttpRequest& r, std::string_view name) {
  for (const Header& h : r.headers) {
    if (h.name == name) return &h.value;
  }
  return nullptr;
}

HttpRequest Request(const V2Request& v) {
  HttpRequest r;
  r.method = v.method;
  r.target = v.target;
  r.headers = v.headers;
  return r;
}

TimePoint At(std::string_view http_date) {
  std::string gmt(http_date);
  if (gmt.ends_with(" +0000")) gmt = gmt.substr(0, gmt.size() - 6) + " GMT";
  std::optional<TimePoint> t = text::ParseImfFixdate(gmt);
  EXPECT_TRUE(t.has_value()) << http_date;
  return t.value_or(TimePoint{});
}

// The examples of the AWS page (bucket awsexamplebucket1, virtual-hosted).
struct AwsExample {
  std::string name;
  V2Request request;
  std::string string_to_sign;
  std::string signature;
};

std::vector<AwsExample> AwsExamples() {
  return {
      {"Object GET",
       {"awsexamplebucket1", "GET", "/photos/puppy.jpg",
        {{"host", "awsexamplebucket1.us-west-1.s3.amazonaws.com"},
         {"date", "Tue, 27 Mar 2007 19:36:42 +0000"}}},
       "GET\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n/awsexamplebucket1/photos/puppy.jpg",
       "qgk2+6Sv9/oM7G3qLEjTH1a1l1g="},
      {"Object PUT",
       {"awsexamplebucket1", "PUT", "/photos/puppy.jpg",
        {{"content-type", "image/jpeg"},
         {"content-length", "94328"},
         {"host", "awsexamplebucket1.s3.us-west-1.amazonaws.com"},
         {"date", "Tue, 27 Mar 2007 21:15:45 +0000"}}},
       "PUT\n\nimage/jpeg\nTue, 27 Mar 2007 21:15:45 +0000\n/awsexamplebucket1/photos/puppy.jpg",
       "iqRzw+ileNPu1fhspnRs8nOjjIA="},
      {"List",
       {"awsexamplebucket1", "GET", "/?prefix=photos&max-keys=50&marker=puppy",
        {{"user-agent", "Mozilla/5.0"},
         {"host", "awsexamplebucket1.s3.us-west-1.amazonaws.com"},
         {"date", "Tue, 27 Mar 2007 19:42:41 +0000"}}},
       "GET\n\n\nTue, 27 Mar 2007 19:42:41 +0000\n/awsexamplebucket1/",
       "m0WP8eCtspQl5Ahe6L1SozdX9YA="},
      {"Fetch ACL",
       {"awsexamplebucket1", "GET", "/?acl",
        {{"host", "awsexamplebucket1.s3.us-west-1.amazonaws.com"},
         {"date", "Tue, 27 Mar 2007 19:44:46 +0000"}}},
       "GET\n\n\nTue, 27 Mar 2007 19:44:46 +0000\n/awsexamplebucket1/?acl",
       "82ZHiFIjc+WbcwFKGUVEQspPn+0="},
  };
}

TEST(SigV2Test, AwsDocumentedExamples) {
  for (const AwsExample& e : AwsExamples()) {
    SCOPED_TRACE(e.name);
    const HttpRequest r = Request(e.request);
    const size_t q = r.target.find('?');
    const std::string path = r.target.substr(0, q);
    const std::string query = q == std::string::npos ? "" : r.target.substr(q + 1);
    const std::string* type = Find(r, "content-type");
    const std::string sts = sigv2::StringToSign(
        r.method, "", type ? *type : "", *Find(r, "date"), sigv2::CanonicalAmzHeaders(r.headers),
        sigv2::CanonicalResource(e.request.vhost_bucket, path, query));
    EXPECT_EQ(sts, e.string_to_sign);
    EXPECT_EQ(sigv2::Signature(kSecret, sts), e.signature);

    HttpRequest signed_request = r;
    signed_request.headers.push_back(
        {"authorization", std::string("AWS ") + kAkid + ":" + e.signature});
    const AuthResult result = Authenticate(signed_request, "us-east-1", Keys(),
                                           At(*Find(r, "date")), e.request.vhost_bucket);
    EXPECT_EQ(result.error, ErrorCode::kNone) << result.error_message;
    EXPECT_FALSE(result.anonymous);
    EXPECT_EQ(result.signature_version, 2);
    EXPECT_EQ(result.payload, PayloadMode::kUnsigned);
    // Path-style would sign another resource.
    EXPECT_EQ(Authenticate(signed_request, "us-east-1", Keys(), At(*Find(r, "date"))).error,
              ErrorCode::kSignatureDoesNotMatch);
  }
}

TEST(SigV2Test, AwsDocumentedQueryStringExample) {
  // johnsmith.s3.amazonaws.com, Expires 1175139620 (the page's query-string example).
  HttpRequest r;
  r.method = "GET";
  r.target =
      "/photos/puppy.jpg?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=NpgCjnDzrM%2BWFzoENXmpNDUs"
      "Sn8%3D&Expires=1175139620";
  r.headers = {{"host", "johnsmith.s3.amazonaws.com"}};
  const TimePoint before = TimePoint{} + seconds(1175139620 - 60);
  const AuthResult ok = Authenticate(r, "us-east-1", Keys(), before, "johnsmith");
  EXPECT_EQ(ok.error, ErrorCode::kNone) << ok.error_message;
  EXPECT_EQ(ok.signature_version, 2);
  const AuthResult expired =
      Authenticate(r, "us-east-1", Keys(), TimePoint{} + seconds(1175139621), "johnsmith");
  EXPECT_EQ(expired.error, ErrorCode::kAccessDenied);
  EXPECT_EQ(expired.error_message, "Request has expired");
}

TEST(SigV2Test, BotocoreHeaderSignedRequestsVerify) {
  ASSERT_GE(kBotocoreV2Signed.size(), 10u);
  for (const V2Request& v : kBotocoreV2Signed) {
    SCOPED_TRACE(v.method + " " + v.target);
    const HttpRequest r = Request(v);
    const TimePoint when = At(*Find(r, "date"));
    AuthResult result = Authenticate(r, "us-east-1", Keys(), when, v.vhost_bucket);
    EXPECT_EQ(result.error, ErrorCode::kNone) << result.error_message;
    EXPECT_EQ(result.signature_version, 2);
    // Wrong secret, another method, or a changed x-amz-* header all break it.
    EXPECT_EQ(Authenticate(r, "us-east-1", Keys("other"), when, v.vhost_bucket).error,
              ErrorCode::kSignatureDoesNotMatch);
    HttpRequest other = r;
    other.method = r.method == "GET" ? "HEAD" : "GET";
    EXPECT_EQ(Authenticate(other, "us-east-1", Keys(), when, v.vhost_bucket).error,
              ErrorCode::kSignatureDoesNotMatch);
    HttpRequest extra = r;
    extra.headers.push_back({"x-amz-meta-added", "1"});
    EXPECT_EQ(Authenticate(extra, "us-east-1", Keys(), when, v.vhost_bucket).error,
              ErrorCode::kSignatureDoesNotMatch);
  }
}

TEST(SigV2Test, BotocorePresignedUrlsVerify) {
  ASSERT_EQ(kBotocoreV2Presigned.size(), 4u);
  for (const V2Request& v : kBotocoreV2Presigned) {
    SCOPED_TRACE(v.method + " " + v.target);
    const HttpRequest r = Request(v);
    const size_t e = v.target.find("Expires=");
    ASSERT_NE(e, std::string::npos);
    const int64_t expires = std::stoll(v.target.substr(e + 8));
    const TimePoint valid = TimePoint{} + seconds(expires - 100);
    EXPECT_EQ(Authenticate(r, "us-east-1", Keys(), valid, v.vhost_bucket).error, ErrorCode::kNone);
    EXPECT_EQ(
        Authenticate(r, "us-east-1", Keys(), TimePoint{} + seconds(expires + 1), v.vhost_bucket)
            .error,
        ErrorCode::kAccessDenied);
    HttpRequest tampered = r;
    tampered.target.replace(e + 8, 1, v.target[e + 8] == '1' ? "2" : "1");  // later Expires
    EXPECT_EQ(Authenticate(tampered, "us-east-1", Keys(), valid, v.vhost_bucket).error,
              ErrorCode::kSignatureDoesNotMatch);
  }
}

TEST(SigV2Test, CanonicalResourceAndHeaders) {
  EXPECT_EQ(sigv2::CanonicalResource("", "/b/k", "versionId=v%2B1&foo=bar&acl&uploadId=u+2"),
            "/b/k?acl&uploadId=u+2&versionId=v+1");
  EXPECT_EQ(sigv2::CanonicalResource("b", "/", "list-type=2"), "/b/");
  EXPECT_EQ(sigv2::CanonicalResource("b", "", ""), "/b/");
  EXPECT_EQ(sigv2::CanonicalResource("", "/b", "response-content-type=a%2Fb&partNumber=2"),
            "/b?partNumber=2&response-content-type=a/b");
  EXPECT_EQ(sigv2::CanonicalAmzHeaders({{"x-amz-meta-b", " 2 "},
                                        {"content-type", "x"},
                                        {"X-Amz-Meta-A", "1"},
                                        {"x-amz-meta-b", "3"}}),
            "x-amz-meta-a:1\nx-amz-meta-b:2,3\n");
  using V = std::vector<std::string>;
  EXPECT_EQ(sigv2::CandidateResources("", "/b/k", "acl"), V{"/b/k?acl"});
  EXPECT_EQ(sigv2::CandidateResources("", "/b", "acl"),
            (V{"/b?acl", "/b?acl?acl", "/b/?acl", "/b/?acl?acl"}));
  EXPECT_EQ(sigv2::CandidateResources("b", "/", "prefix=x"), (V{"/b/", "/b"}));
  // An empty value signs without '=' (AWS's canonical resource; minio-go sends "?uploads=");
  // the '=' form is still accepted second.
  EXPECT_EQ(sigv2::CanonicalResource("", "/b/k", "uploads="), "/b/k?uploads");
  EXPECT_EQ(sigv2::CanonicalResource("", "/b", "policy=&x=1"), "/b?policy");
  EXPECT_EQ(sigv2::CandidateResources("", "/b/k", "uploads="),
            (V{"/b/k?uploads", "/b/k?uploads="}));
  EXPECT_TRUE(sigv2::IsSubResource("uploads"));
  EXPECT_FALSE(sigv2::IsSubResource("prefix"));
}

HttpRequest Signed(std::string date_header, std::string date_value, std::string authorization) {
  HttpRequest r;
  r.method = "GET";
  r.target = "/b/k";
  r.headers = {{"host", "h"}, {date_header, date_value}, {"authorization", authorization}};
  return r;
}

std::string V2Auth(std::string_view sts, std::string secret = kSecret) {
  return std::string("AWS ") + kAkid + ":" + sigv2::Signature(secret, sts);
}

// minio-go's V2 signer: "POST /b/k?uploads=" signed for the resource "/b/k?uploads".
TEST(SigV2Test, EmptySubResourceValueSignsWithoutEquals) {
  const std::string date = "Fri, 24 May 2013 00:00:00 GMT";
  for (const std::string target : {"/b/k?uploads=", "/b?location=", "/b?policy="}) {
    SCOPED_TRACE(target);
    std::string resource = target.substr(0, target.size() - 1);  // without the '='
    HttpRequest r = Signed("date", date, V2Auth("GET\n\n\n" + date + "\n" + resource));
    r.target = target;
    EXPECT_EQ(Authenticate(r, "us-east-1", Keys(), At(date)).error, ErrorCode::kNone);
    HttpRequest other = Signed("date", date, V2Auth("GET\n\n\n" + date + "\n/b/other"));
    other.target = target;
    EXPECT_EQ(Authenticate(other, "us-east-1", Keys(), At(date)).error,
              ErrorCode::kSignatureDoesNotMatch);
  }
}

TEST(SigV2Test, HeaderErrors) {
  const std::string date = "Fri, 24 May 2013 00:00:00 GMT";
  const TimePoint now = At(date);
  const std::string sts = "GET\n\n\n" + date + "\n/b/k";
  struct Case {
    std::string name;
    HttpRequest request;
    TimePoint now;
    ErrorCode expected;
  };
  const std::vector<Case> cases = {
      {"ok", Signed("date", date, V2Auth(sts)), now, ErrorCode::kNone},
      {"x-amz-date replaces Date",
       Signed("x-amz-date", date, V2Auth("GET\n\n\n\nx-amz-date:" + date + "\n/b/k")), now,
       ErrorCode::kNone},
      {"no colon", Signed("date", date, std::string("AWS ") + kAkid), now,
       ErrorCode::kInvalidArgument},
      {"empty key", Signed("date", date, "AWS :c2ln"), now, ErrorCode::kInvalidArgument},
      {"empty signature", Signed("date", date, std::string("AWS ") + kAkid + ":"), now,
       ErrorCode::kInvalidArgument},
      {"unknown key", Signed("date", date, "AWS AKIDUNKNOWN:" + sigv2::Signature(kSecret, sts)),
       now, ErrorCode::kInvalidAccessKeyId},
      {"wrong secret", Signed("date", date, V2Auth(sts, "nope")), now,
       ErrorCode::kSignatureDoesNotMatch},
      {"no date", Signed("x-other", date, V2Auth(sts)), now, ErrorCode::kAccessDenied},
      {"bad date", Signed("date", "yesterday", V2Auth(sts)), now, ErrorCode::kAccessDenied},
      {"16 minutes late", Signed("date", date, V2Auth(sts)), now + std::chrono::minutes(16),
       ErrorCode::kRequestTimeTooSkewed},
      {"16 minutes early", Signed("date", date, V2Auth(sts)), now - std::chrono::minutes(16),
       ErrorCode::kRequestTimeTooSkewed},
      {"14 minutes late", Signed("date", date, V2Auth(sts)), now + std::chrono::minutes(14),
       ErrorCode::kNone},
      // s3-tests' bad_date_*_aws2 (x-amz-date is what is signed): AWS's answers.
      {"x-amz-date empty", Signed("x-amz-date", "", V2Auth("GET\n\n\n\nx-amz-date:\n/b/k")), now,
       ErrorCode::kAccessDenied},
      {"x-amz-date invalid",
       Signed("x-amz-date", "Bad Date", V2Auth("GET\n\n\n\nx-amz-date:Bad Date\n/b/k")), now,
       ErrorCode::kAccessDenied},
      {"x-amz-date before epoch",
       Signed("x-amz-date", "Tue, 07 Jul 1950 21:53:04 GMT",
              V2Auth("GET\n\n\n\nx-amz-date:Tue, 07 Jul 1950 21:53:04 GMT\n/b/k")),
       now, ErrorCode::kAccessDenied},
      {"x-amz-date in 2010",
       Signed("x-amz-date", "Tue, 07 Jul 2010 21:53:04 GMT",
              V2Auth("GET\n\n\n\nx-amz-date:Tue, 07 Jul 2010 21:53:04 GMT\n/b/k")),
       now, ErrorCode::kRequestTimeTooSkewed},
      {"x-amz-date in 2030",
       Signed("x-amz-date", "Tue, 07 Jul 2030 21:53:04 GMT",
              V2Auth("GET\n\n\n\nx-amz-date:Tue, 07 Jul 2030 21:53:04 GMT\n/b/k")),
       now, ErrorCode::kRequestTimeTooSkewed},
      {"Date with -0000", Signed("date", "Fri, 24 May 2013 00:00:00 -0000",
                                 V2Auth("GET\n\n\nFri, 24 May 2013 00:00:00 -0000\n/b/k")),
       now, ErrorCode::kNone},
      {"Date before epoch", Signed("date", "Tue, 07 Jul 1950 21:53:04 GMT",
                                   V2Auth("GET\n\n\nTue, 07 Jul 1950 21:53:04 GMT\n/b/k")),
       now, ErrorCode::kAccessDenied},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const AuthResult r = Authenticate(c.request, "us-east-1", Keys(), c.now);
    EXPECT_EQ(r.error, c.expected) << r.error_message;
  }
}

// A request with both Date and x-amz-date signs x-amz-date (and an empty Date line), whatever
// Date says, even empty (s3-tests test_object_create_date_and_amz_date, _amz_date_and_no_date).
TEST(SigV2Test, DateBesideAmzDateIsNotSigned) {
  const std::string date = "Fri, 24 May 2013 00:00:00 GMT";
  const std::string sts = "GET\n\n\n\nx-amz-date:" + date + "\n/b/k";
  for (std::string other : {date, std::string(""), std::string("Bad Date"),
                            std::string("Tue, 07 Jul 2010 21:53:04 GMT")}) {
    SCOPED_TRACE(other);
    HttpRequest r = Signed("x-amz-date", date, V2Auth(sts));
    r.headers.push_back({"date", other});
    EXPECT_EQ(Authenticate(r, "us-east-1", Keys(), At(date)).error, ErrorCode::kNone);
    // Signing the Date line instead does not match.
    HttpRequest wrong = Signed("x-amz-date", date, V2Auth("GET\n\n\n" + other + "\n/b/k"));
    wrong.headers.push_back({"date", other});
    EXPECT_EQ(Authenticate(wrong, "us-east-1", Keys(), At(date)).error,
              ErrorCode::kSignatureDoesNotMatch);
  }
}

TEST(SigV2Test, QueryErrors) {
  const int64_t expires = 1369353600;
  const std::string sig = sigv2::Signature(kSecret, "GET\n\n\n1369353600\n/b/k");
  const std::string encoded = text::UriEncode(sig, text::Slash::kEncode);
  const TimePoint now = TimePoint{} + seconds(expires - 10);
  struct Case {
    std::string name;
    std::string target;
    ErrorCode expected;
  };
  const std::vector<Case> cases = {
      {"ok", "/b/k?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1369353600&Signature=" + encoded,
       ErrorCode::kNone},
      {"unencoded signature",
       "/b/k?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1369353600&Signature=" + sig,
       ErrorCode::kNone},
      {"no Expires", "/b/k?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=" + encoded,
       ErrorCode::kAccessDenied},
      {"Expires not a number",
       "/b/k?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=soon&Signature=" + encoded,
       ErrorCode::kAccessDenied},
      {"no Signature", "/b/k?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1369353600",
       ErrorCode::kAccessDenied},
      {"unknown key", "/b/k?AWSAccessKeyId=OTHER&Expires=1369353600&Signature=" + encoded,
       ErrorCode::kInvalidAccessKeyId},
      {"wrong signature",
       "/b/k?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1369353600&Signature=AAAA",
       ErrorCode::kSignatureDoesNotMatch},
      {"signed for another key",
       "/b/other?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1369353600&Signature=" + encoded,
       ErrorCode::kSignatureDoesNotMatch},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    HttpRequest r;
    r.method = "GET";
    r.target = c.target;
    r.headers = {{"host", "h"}};
    const AuthResult result = Authenticate(r, "us-east-1", Keys(), now);
    EXPECT_EQ(result.error, c.expected) << result.error_message;
  }
}

}  // namespace
}  // namespace cubby::s3api::auth
