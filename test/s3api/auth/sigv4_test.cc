// The SigV4 steps one by one, against the canonical requests and signatures that AWS publishes:
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
// The encodings and dates underneath (UriEncode, percent-decoding, ISO 8601 and HTTP dates) have
// their tables in test/text.
#include "s3api/auth/sigv4.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "s3api/auth/crypto.h"
#include "text/encoding.h"

namespace cubby::s3api::auth::sigv4 {
namespace {

constexpr std::string_view kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr std::string_view kAwsDate = "20130524T000000Z";
constexpr std::string_view kAwsScope = "20130524/us-east-1/s3/aws4_request";

TEST(CanonicalUriTest, NormalisesEncodingButNotSlashes) {
  struct Case {
    std::string raw;
    std::string canonical;
  };
  const std::vector<Case> cases = {
      {"", "/"},
      {"/", "/"},
      {"/test.txt", "/test.txt"},
      {"/test$file.text", "/test%24file.text"},      // AWS's PUT example sends '$' raw
      {"/test%24file.text", "/test%24file.text"},    // ...or encoded: same canonical URI
      {"/b/a!~b", "/b/a%21~b"},
      {"/b/a%21%7eb", "/b/a%21~b"},
      {"/b/my key", "/b/my%20key"},
      {"/b/my%20key", "/b/my%20key"},
      {"/b/a+b", "/b/a%2Bb"},                        // '+' in a path is a plus
      {"/b/dir/file", "/b/dir/file"},
      {"/b/dir%2Ffile", "/b/dir%2Ffile"},            // an encoded slash stays encoded
      {"/b//double/", "/b//double/"},
      {"/b/%C3%A9t%C3%A9", "/b/%C3%A9t%C3%A9"},
      {"/b/\xc3\xa9t\xc3\xa9", "/b/%C3%A9t%C3%A9"},
      {"/b/100%", "/b/100%25"},
  };
  for (const Case& c : cases) EXPECT_EQ(CanonicalUri(c.raw), c.canonical) << c.raw;
}

TEST(CanonicalQueryTest, SortsEncodesAndFillsEmptyValues) {
  struct Case {
    std::string raw;
    std::string canonical;
  };
  const std::vector<Case> cases = {
      {"", ""},
      {"lifecycle", "lifecycle="},
      {"prefix=J&max-keys=2", "max-keys=2&prefix=J"},
      {"b=2&a=2&a=1", "a=1&a=2&b=2"},
      {"prefix=a b", "prefix=a%20b"},
      {"prefix=a+b", "prefix=a%20b"},
      {"prefix=a%2Bb", "prefix=a%2Bb"},
      {"delimiter=/", "delimiter=%2F"},
      {"delimiter=%2f", "delimiter=%2F"},
      {"x=%E2%9C%93&y=!", "x=%E2%9C%93&y=%21"},
      {"a=1&&b=", "a=1&b="},
      {"uploads&prefix=", "prefix=&uploads="},
      {"k=v=w", "k=v%3Dw"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CanonicalQueryString(SplitQuery(c.raw)), c.canonical) << c.raw;
  }
}

TEST(CanonicalQueryTest, ExcludesSignature) {
  EXPECT_EQ(CanonicalQueryString(SplitQuery("X-Amz-Signature=abc&a=1"), kQuerySignature), "a=1");
}

TEST(CanonicalHeadersTest, TrimsCollapsesAndJoinsRepeats) {
  EXPECT_EQ(CanonicalHeaderValue("  a   b  c "), "a b c");
  EXPECT_EQ(CanonicalHeaderValue(""), "");
  const std::vector<Header> headers = {
      {"host", "example.com"}, {"x-amz-meta-a", " one  two "}, {"x-amz-meta-a", "three"}};
  EXPECT_EQ(CanonicalHeaders(headers, {"host", "x-amz-meta-a"}),
            "host:example.com\nx-amz-meta-a:one two,three\n");
  EXPECT_EQ(CanonicalHeaders(headers, {"missing"}), "missing:\n");
}

TEST(SigningKeyTest, IamDocumentationExample) {
  // https://docs.aws.amazon.com/IAM/latest/UserGuide/signing-elements.html (IAM example key).
  EXPECT_EQ(text::HexEncode(SigningKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215",
                                 "us-east-1", "iam")),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

// The memo answers exactly what SigningKey derives, whichever input changes, also after its
// entries are evicted and when a key's secret changes under the same date (no stale key).
TEST(SigningKeyTest, CachedSigningKeyMatchesDerivation) {
  struct Case {
    std::string secret, date, region, service;
  };
  const Case cases[] = {
      {"wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam"},
      {std::string(kSecret), "20130524", "us-east-1", "s3"},
      {std::string(kSecret), "20130525", "us-east-1", "s3"},  // next day
      {std::string(kSecret), "20130524", "eu-west-1", "s3"},
      {std::string(kSecret), "20130524", "us-east-1", "iam"},
      {"rotated-secret", "20130524", "us-east-1", "s3"},      // same scope, new secret
      {std::string(kSecret) + "x", "20130524", "us-east-1", "s3"},
      {"", "20130524", "us-east-1", "s3"},
  };
  for (int round = 0; round < 3; ++round) {  // more cases than entries: hits and evictions
    for (const Case& c : cases) {
      SCOPED_TRACE(c.secret + " " + c.date + " " + c.region + " " + c.service);
      EXPECT_EQ(text::HexEncode(CachedSigningKey(c.secret, c.date, c.region, c.service)),
                text::HexEncode(SigningKey(c.secret, c.date, c.region, c.service)));
      // A repeat right away is a hit and must still be the same key.
      EXPECT_EQ(text::HexEncode(CachedSigningKey(c.secret, c.date, c.region, c.service)),
                text::HexEncode(SigningKey(c.secret, c.date, c.region, c.service)));
    }
  }
  EXPECT_EQ(text::HexEncode(CachedSigningKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215",
                                       "us-east-1", "iam")),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

// The canonical requests printed in AWS's S3 examples, rebuilt from their parts.
TEST(AwsExampleTest, GetObjectCanonicalRequestAndSignature) {
  const std::vector<Header> headers = {{"host", "examplebucket.s3.amazonaws.com"},
                                       {"range", "bytes=0-9"},
                                       {"x-amz-content-sha256", std::string(kEmptySha256)},
                                       {"x-amz-date", std::string(kAwsDate)}};
  const std::vector<std::string> names = {"host", "range", "x-amz-content-sha256", "x-amz-date"};
  const std::string canonical =
      CanonicalRequest("GET", CanonicalUri("/test.txt"), CanonicalQueryString(SplitQuery("")),
                       CanonicalHeaders(headers, names), JoinSignedHeaders(names), kEmptySha256);
  EXPECT_EQ(canonical,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::string sts = StringToSign(kAwsDate, kAwsScope, canonical);
  EXPECT_EQ(sts,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(Signature(SigningKey(kSecret, "20130524", "us-east-1", "s3"), sts),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(AwsExampleTest, PutObjectCanonicalRequestAndSignature) {
  const std::string payload = text::HexEncode(Sha256("Welcome to Amazon S3."));
  ASSERT_EQ(payload, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const std::vector<Header> headers = {{"host", "examplebucket.s3.amazonaws.com"},
                                       {"date", "Fri, 24 May 2013 00:00:00 GMT"},
                                       {"x-amz-date", std::string(kAwsDate)},
                                       {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                                       {"x-amz-content-sha256", payload}};
  const std::vector<std::string> names = {"date", "host", "x-amz-content-sha256", "x-amz-date",
                                          "x-amz-storage-class"};
  const std::string canonical =
      CanonicalRequest("PUT", CanonicalUri("/test$file.text"), "",
                       CanonicalHeaders(headers, names), JoinSignedHeaders(names), payload);
  EXPECT_EQ(canonical,
            "PUT\n/test%24file.text\n\ndate:Fri, 24 May 2013 00:00:00 GMT\n"
            "host:examplebucket.s3.amazonaws.com\n"
            "x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
            "x-amz-date:20130524T000000Z\nx-amz-storage-class:REDUCED_REDUNDANCY\n\n"
            "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const std::string sts = StringToSign(kAwsDate, kAwsScope, canonical);
  EXPECT_EQ(sts.substr(sts.rfind('\n') + 1),
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(Signature(SigningKey(kSecret, "20130524", "us-east-1", "s3"), sts),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(AwsExampleTest, StreamingSeedAndChunkSignatures) {
  const std::vector<Header> headers = {
      {"host", "s3.amazonaws.com"},
      {"x-amz-date", std::string(kAwsDate)},
      {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
      {"x-amz-content-sha256", std::string(kStreamingSignedPayload)},
      {"content-encoding", "aws-chunked"},
      {"x-amz-decoded-content-length", "66560"},
      {"content-length", "66824"}};
  const std::vector<std::string> names = {"content-encoding",
                                          "content-length",
                                          "host",
                                          "x-amz-content-sha256",
                                          "x-amz-date",
                                          "x-amz-decoded-content-length",
                                          "x-amz-storage-class"};
  const std::string canonical = CanonicalRequest(
      "PUT", CanonicalUri("/examplebucket/chunkObject.txt"), "", CanonicalHeaders(headers, names),
      JoinSignedHeaders(names), kStreamingSignedPayload);
  const std::string sts = StringToSign(kAwsDate, kAwsScope, canonical);
  EXPECT_EQ(sts.substr(sts.rfind('\n') + 1),
            "cee3fed04b70f867d036f722359b0b1f2f0e5dc0efadbc082b76c4c60e316455");
  const std::string key = SigningKey(kSecret, "20130524", "us-east-1", "s3");
  const std::string seed = Signature(key, sts);
  EXPECT_EQ(seed, "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9");

  const std::string first = ChunkSignature(key, kAwsDate, kAwsScope, seed, std::string(65536, 'a'));
  EXPECT_EQ(first, "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648");
  const std::string second = ChunkSignature(key, kAwsDate, kAwsScope, first, std::string(1024, 'a'));
  EXPECT_EQ(second, "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497");
  EXPECT_EQ(ChunkSignature(key, kAwsDate, kAwsScope, second, ""),
            "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9");
}

TEST(ParseCredentialTest, Table) {
  std::optional<Credential> c = ParseCredential("AKID/20130524/us-east-1/s3/aws4_request");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->access_key_id, "AKID");
  EXPECT_EQ(c->Scope(), "20130524/us-east-1/s3/aws4_request");
  for (std::string_view bad :
       {"", "AKID", "AKID/20130524/us-east-1/s3", "/20130524/r/s3/aws4_request",
        "AKID//r/s3/aws4_request", "AKID/20130524/r//aws4_request", "AKID/20130524/r/s3/"}) {
    EXPECT_FALSE(ParseCredential(bad)) << bad;
  }
  // An empty region parses (botocore signs a global service so when it has no region); the
  // scope check then refuses it for S3.
  c = ParseCredential("AKID/20130524//iam/aws4_request");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->region, "");
  EXPECT_EQ(c->service, "iam");
  EXPECT_NE(CheckScope(*c, "20130524", "us-east-1", "iam").find("region"), std::string::npos);
}

TEST(CheckScopeTest, EachMismatchIsNamed) {
  const Credential ok{"AKID", "20130524", "us-east-1", "s3", "aws4_request"};
  EXPECT_EQ(CheckScope(ok, "20130524", "us-east-1"), "");
  EXPECT_NE(CheckScope(ok, "20130525", "us-east-1").find("date"), std::string::npos);
  EXPECT_EQ(CheckScope(ok, "20130524", "eu-west-1"),
            "the region 'us-east-1' is wrong; expecting 'eu-west-1'");
  Credential svc = ok;
  svc.service = "ec2";
  EXPECT_NE(CheckScope(svc, "20130524", "us-east-1").find("service"), std::string::npos);
  Credential term = ok;
  term.terminator = "aws5_request";
  EXPECT_NE(CheckScope(term, "20130524", "us-east-1").find("terminal"), std::string::npos);
}

}  // namespace
}  // namespace cubby::s3api::auth::sigv4
