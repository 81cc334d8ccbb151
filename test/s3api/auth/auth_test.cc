// Authenticate, SignV4 and PresignV4: AWS's published requests verified with the clock fixed at
// their date, one case per error path, and sign → verify round trips.
#include "s3api/auth/auth.h"

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "s3api/auth/crypto.h"
#include "s3api/auth/signer.h"
#include "s3api/auth/sigv4.h"
#include "text/encoding.h"
#include "text/time.h"

namespace cubby::s3api::auth {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using TimePoint = std::chrono::system_clock::time_point;

constexpr char kAkid[] = "AKIAIOSFODNN7EXAMPLE";
constexpr char kSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr char kRegion[] = "us-east-1";
constexpr char kEmptySha[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TimePoint AwsTime() { return *text::ParseIso8601Basic("20130524T000000Z"); }

KeyLookup Keys(std::string secret = kSecret) {
  return [secret](std::string_view id) -> std::optional<storage::AccessKeyRecord> {
    if (id != kAkid) return std::nullopt;
    storage::AccessKeyRecord r;
    r.access_key_id = kAkid;
    r.secret = storage::SecretKey(secret);
    return r;
  };
}

HttpRequest Request(std::string method, std::string target, std::vector<Header> headers) {
  HttpRequest r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.headers = std::move(headers);
  return r;
}

std::string* MutableHeader(HttpRequest& r, std::string_view name) {
  for (Header& h : r.headers) {
    if (h.name == name) return &h.value;
  }
  return nullptr;
}

void RemoveHeader(HttpRequest& r, std::string_view name) {
  std::erase_if(r.headers, [&](const Header& h) { return h.name == name; });
}

// Replaces `from` with `to` once in s; the test fails if `from` is absent.
void ReplaceOnce(std::string& s, std::string_view from, std::string_view to) {
  const size_t at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << s;
  s.replace(at, from.size(), to);
}

// Flips the last hex digit of a signature in place.
void FlipLastDigit(std::string& s) { s.back() = s.back() == '0' ? '1' : '0'; }

// ---- AWS's published examples, verified as a server would receive them.

struct AwsVector {
  std::string name;
  std::string method;
  std::string target;
  std::vector<Header> headers;  // as sent, without Authorization
  std::string signed_headers;
  std::string signature;
  PayloadMode payload;
};

std::vector<AwsVector> AwsVectors() {
  const std::string host = "examplebucket.s3.amazonaws.com";
  const std::string put_sha = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072";
  return {
      {"GetObject",
       "GET",
       "/test.txt",
       {{"host", host},
        {"range", "bytes=0-9"},
        {"x-amz-content-sha256", kEmptySha},
        {"x-amz-date", "20130524T000000Z"}},
       "host;range;x-amz-content-sha256;x-amz-date",
       "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
       PayloadMode::kSha256},
      {"PutObject",
       "PUT",
       "/test$file.text",
       {{"host", host},
        {"date", "Fri, 24 May 2013 00:00:00 GMT"},
        {"x-amz-date", "20130524T000000Z"},
        {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
        {"x-amz-content-sha256", put_sha}},
       "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
       "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
       PayloadMode::kSha256},
      {"GetBucketLifecycle",
       "GET",
       "/?lifecycle",
       {{"host", host}, {"x-amz-date", "20130524T000000Z"}, {"x-amz-content-sha256", kEmptySha}},
       "host;x-amz-content-sha256;x-amz-date",
       "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
       PayloadMode::kSha256},
      {"ListObjects",
       "GET",
       "/?max-keys=2&prefix=J",
       {{"host", host}, {"x-amz-date", "20130524T000000Z"}, {"x-amz-content-sha256", kEmptySha}},
       "host;x-amz-content-sha256;x-amz-date",
       "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
       PayloadMode::kSha256},
      {"StreamingPutSeed",
       "PUT",
       "/examplebucket/chunkObject.txt",
       {{"host", "s3.amazonaws.com"},
        {"x-amz-date", "20130524T000000Z"},
        {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
        {"x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"},
        {"content-encoding", "aws-chunked"},
        {"x-amz-decoded-content-length", "66560"},
        {"content-length", "66824"}},
       "content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;"
       "x-amz-decoded-content-length;x-amz-storage-class",
       "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9",
       PayloadMode::kStreamingSigned},
  };
}

std::string AwsAuthorization(const AwsVector& v) {
  return std::string("AWS4-HMAC-SHA256 Credential=") + kAkid +
         "/20130524/us-east-1/s3/aws4_request,SignedHeaders=" + v.signed_headers +
         ",Signature=" + v.signature;
}

TEST(AwsVectorTest, AuthenticateAcceptsPublishedRequests) {
  for (const AwsVector& v : AwsVectors()) {
    SCOPED_TRACE(v.name);
    std::vector<Header> headers = v.headers;
    headers.push_back({"authorization", AwsAuthorization(v)});
    const AuthResult r = Authenticate(Request(v.method, v.target, headers), kRegion, Keys(), AwsTime());
    ASSERT_EQ(r.error, ErrorCode::kNone) << r.error_message;
    EXPECT_FALSE(r.anonymous);
    ASSERT_TRUE(r.key);
    EXPECT_EQ(r.key->access_key_id, kAkid);
    EXPECT_EQ(r.payload, v.payload);
    EXPECT_EQ(r.amz_date, "20130524T000000Z");
    EXPECT_EQ(r.scope, "20130524/us-east-1/s3/aws4_request");
  }
}

TEST(AwsVectorTest, OneFlippedSignatureDigitIsRejected) {
  for (const AwsVector& v : AwsVectors()) {
    SCOPED_TRACE(v.name);
    AwsVector bad = v;
    FlipLastDigit(bad.signature);
    std::vector<Header> headers = bad.headers;
    headers.push_back({"authorization", AwsAuthorization(bad)});
    EXPECT_EQ(Authenticate(Request(v.method, v.target, headers), kRegion, Keys(), AwsTime()).error,
              ErrorCode::kSignatureDoesNotMatch);
  }
}

TEST(AwsVectorTest, StreamingSeedGivesChunkChain) {
  const AwsVector v = AwsVectors()[4];
  std::vector<Header> headers = v.headers;
  headers.push_back({"authorization", AwsAuthorization(v)});
  const AuthResult r =
      Authenticate(Request(v.method, v.target, headers), kRegion, Keys(), AwsTime());
  ASSERT_EQ(r.error, ErrorCode::kNone) << r.error_message;
  EXPECT_EQ(r.seed_signature, v.signature);
  EXPECT_EQ(r.signing_key, sigv4::SigningKey(kSecret, "20130524", "us-east-1", "s3"));
  EXPECT_EQ(sigv4::ChunkSignature(r.signing_key, r.amz_date, r.scope, r.seed_signature,
                                  std::string(65536, 'a')),
            "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648");
}

TEST(AwsVectorTest, SignV4ReproducesPublishedSignatures) {
  for (const AwsVector& v : AwsVectors()) {
    SCOPED_TRACE(v.name);
    SignInput in;
    in.method = v.method;
    const size_t q = v.target.find('?');
    in.path = v.target.substr(0, q);
    in.query = q == std::string::npos ? "" : v.target.substr(q + 1);
    for (const Header& h : v.headers) {
      if (h.name == "host") {
        in.host = h.value;
      } else if (h.name == "x-amz-content-sha256") {
        in.payload_sha256 = h.value;
      } else if (h.name != "x-amz-date") {
        in.extra_headers.push_back(h);
      }
    }
    in.access_key_id = kAkid;
    in.secret_key = kSecret;
    in.region = kRegion;
    in.now = AwsTime();
    const std::vector<Header> added = SignV4(in);
    ASSERT_EQ(added.size(), 4u);
    EXPECT_EQ(added[0].name, "host");
    EXPECT_EQ(added[1].name, "x-amz-date");
    EXPECT_EQ(added[1].value, "20130524T000000Z");
    EXPECT_EQ(added[2].name, "x-amz-content-sha256");
    EXPECT_EQ(added[3].name, "authorization");
    EXPECT_EQ(added[3].value, std::string("AWS4-HMAC-SHA256 Credential=") + kAkid +
                                  "/20130524/us-east-1/s3/aws4_request, SignedHeaders=" +
                                  v.signed_headers + ", Signature=" + v.signature);
  }
}

TEST(AwsVectorTest, PresignedGetObject) {
  SignInput in;
  in.method = "GET";
  in.host = "examplebucket.s3.amazonaws.com";
  in.path = "/test.txt";
  in.access_key_id = kAkid;
  in.secret_key = kSecret;
  in.region = kRegion;
  in.now = AwsTime();
  const std::string target = PresignV4(in, 86400);
  EXPECT_EQ(target,
            "/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F"
            "20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires="
            "86400&X-Amz-SignedHeaders=host&X-Amz-Signature="
            "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");

  const AuthResult r = Authenticate(Request("GET", target, {{"host", in.host}}), kRegion, Keys(),
                                    AwsTime() + std::chrono::hours(23));
  ASSERT_EQ(r.error, ErrorCode::kNone) << r.error_message;
  EXPECT_FALSE(r.anonymous);
  EXPECT_EQ(r.payload, PayloadMode::kUnsigned);
}

// ---- Anonymous and scheme detection

TEST(AuthenticateTest, NoCredentialsIsAnonymous) {
  for (std::string target : {"/", "/bucket/key?list-type=2", "/b?X-Amz-Date=20130524T000000Z"}) {
    const AuthResult r = Authenticate(Request("GET", target, {{"host", "h"}}), kRegion, Keys(), AwsTime());
    EXPECT_EQ(r.error, ErrorCode::kNone) << target;
    EXPECT_TRUE(r.anonymous);
    EXPECT_FALSE(r.key);
    EXPECT_EQ(r.payload, PayloadMode::kUnsigned);
  }
}

// An empty Authorization header carries no credential: the request is anonymous, whatever
// signing headers it has (s3-tests test_object_create_bad_authorization_empty, _none).
TEST(AuthenticateTest, EmptyAuthorizationIsAnonymous) {
  for (std::string value : {"", " ", "\t"}) {
    HttpRequest r = Request("PUT", "/bucket/key",
                            {{"host", "h"},
                             {"x-amz-date", "20130524T000000Z"},
                             {"x-amz-content-sha256", kEmptySha},
                             {"authorization", value}});
    const AuthResult result = Authenticate(r, kRegion, Keys(), AwsTime());
    EXPECT_EQ(result.error, ErrorCode::kNone) << "[" << value << "]";
    EXPECT_TRUE(result.anonymous);
    EXPECT_FALSE(result.key);
    // With a presigned query it is not a second credential.
    r.target += "?X-Amz-Algorithm=AWS4-HMAC-SHA256";
    EXPECT_NE(Authenticate(r, kRegion, Keys(), AwsTime()).error, ErrorCode::kInvalidArgument);
  }
}

// ---- Error paths, header auth. Each case starts from a correctly signed PUT and breaks one thing.

struct HeaderCase {
  std::string name;
  std::function<void(HttpRequest&)> mutate;
  ErrorCode expected;
  std::string region = kRegion;
  TimePoint::duration clock_offset{};  // server clock minus signing time
  std::string server_secret = kSecret;
  std::string sign_region = kRegion;
};

constexpr char kPutSha[] = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072";

HttpRequest SignedPut(std::string_view sign_region) {
  SignInput in;
  in.method = "PUT";
  in.host = "localhost:9000";
  in.path = "/bucket/photos/a%20b.jpg";
  in.query = "tagging=&x=1";
  in.extra_headers = {{"x-amz-meta-color", "blue"}, {"content-type", "image/jpeg"}};
  in.payload_sha256 = kPutSha;
  in.access_key_id = kAkid;
  in.secret_key = kSecret;
  in.region = std::string(sign_region);
  in.now = AwsTime();
  HttpRequest r = Request("PUT", in.path + "?" + in.query, in.extra_headers);
  for (Header& h : SignV4(in)) r.headers.push_back(std::move(h));
  return r;
}

std::vector<HeaderCase> HeaderCases() {
  using E = ErrorCode;
  auto auth_replace = [](std::string from, std::string to) {
    return [from, to](HttpRequest& r) { ReplaceOnce(*MutableHeader(r, "authorization"), from, to); };
  };
  auto set_auth = [](std::string value) {
    return [value](HttpRequest& r) { *MutableHeader(r, "authorization") = value; };
  };
  const std::string cred = std::string("Credential=") + kAkid + "/20130524/us-east-1/s3/aws4_request";
  const auto nothing = [](HttpRequest&) {};
  return {
      {"Valid", nothing, E::kNone},
      {"ValidAt14MinutesPast", nothing, E::kNone, kRegion, minutes(14)},
      {"ValidAt14MinutesAhead", nothing, E::kNone, kRegion, -minutes(14)},
      {"WrongSecret", nothing, E::kSignatureDoesNotMatch, kRegion, {}, "not-the-secret"},
      {"UnknownKey", auth_replace(kAkid, "AKIDUNKNOWN"), E::kInvalidAccessKeyId},
      {"SkewPast", nothing, E::kRequestTimeTooSkewed, kRegion, minutes(15) + seconds(1)},
      {"SkewFuture", nothing, E::kRequestTimeTooSkewed, kRegion, -minutes(15) - seconds(1)},
      {"WrongRegion", nothing, E::kAuthorizationHeaderMalformed, kRegion, {}, kSecret, "eu-west-1"},
      {"WrongService", auth_replace("/s3/", "/ec2/"), E::kAuthorizationHeaderMalformed},
      {"WrongTerminator", auth_replace("aws4_request", "aws5_request"),
       E::kAuthorizationHeaderMalformed},
      {"CredentialDateNotRequestDate", auth_replace("/20130524/", "/20130523/"),
       E::kAuthorizationHeaderMalformed},
      {"CredentialTooShort", auth_replace("/us-east-1/", "/"), E::kAuthorizationHeaderMalformed},
      {"MissingSignature", set_auth("AWS4-HMAC-SHA256 " + cred + ", SignedHeaders=host"),
       E::kAuthorizationHeaderMalformed},
      {"MissingSignedHeaders", set_auth("AWS4-HMAC-SHA256 " + cred + ", Signature=00"),
       E::kAuthorizationHeaderMalformed},
      {"MissingCredential", set_auth("AWS4-HMAC-SHA256 SignedHeaders=host, Signature=00"),
       E::kAuthorizationHeaderMalformed},
      {"EmptySignedHeaders", auth_replace("SignedHeaders=", "SignedHeaders=;"),
       E::kAuthorizationHeaderMalformed},
      {"UnknownComponent", auth_replace(", Signature=", ", Foo=bar, Signature="),
       E::kAuthorizationHeaderMalformed},
      {"AlgorithmOnly", set_auth("AWS4-HMAC-SHA256"), E::kAuthorizationHeaderMalformed},
      {"OtherV4Algorithm", auth_replace("AWS4-HMAC-SHA256", "AWS4-ECDSA-P256-SHA256"),
       E::kAuthorizationHeaderMalformed},
      {"SigV2WrongSignature", set_auth(std::string("AWS ") + kAkid + ":c2lnbmF0dXJl"),
       E::kSignatureDoesNotMatch},
      {"OtherScheme", set_auth("Bearer token"), E::kAuthorizationHeaderMalformed},
      {"MissingDates", [](HttpRequest& r) { RemoveHeader(r, "x-amz-date"); }, E::kAccessDenied},
      {"MalformedAmzDate", [](HttpRequest& r) { *MutableHeader(r, "x-amz-date") = "2013-05-24"; },
       E::kAccessDenied},
      // s3-tests' bad_amz_date_*_aws4 and *_date_* (x-amz-date changed after signing; Date
      // beside x-amz-date is not read): AWS's answers.
      {"EmptyAmzDate", [](HttpRequest& r) { *MutableHeader(r, "x-amz-date") = ""; },
       E::kAccessDenied},
      {"AmzDateBeforeEpoch",
       [](HttpRequest& r) { *MutableHeader(r, "x-amz-date") = "19500707T215304Z"; },
       E::kAccessDenied},
      {"AmzDateAnotherDay",
       [](HttpRequest& r) { *MutableHeader(r, "x-amz-date") = "20100707T215304Z"; },
       E::kRequestTimeTooSkewed},
      {"AmzDateIn2030",
       [](HttpRequest& r) { *MutableHeader(r, "x-amz-date") = "20300707T215304Z"; },
       E::kRequestTimeTooSkewed},
      {"DateBesideAmzDate",
       [](HttpRequest& r) { r.headers.push_back({"date", "Fri, 24 May 2013 00:00:00 GMT"}); },
       E::kNone},
      {"BadDateBesideAmzDate", [](HttpRequest& r) { r.headers.push_back({"date", "Bad Date"}); },
       E::kNone},
      {"EmptyDateBesideAmzDate", [](HttpRequest& r) { r.headers.push_back({"date", ""}); },
       E::kNone},
      {"OldDateBesideAmzDate",
       [](HttpRequest& r) { r.headers.push_back({"date", "Tue, 07 Jul 1950 21:53:04 GMT"}); },
       E::kNone},
      {"MissingContentSha256", [](HttpRequest& r) { RemoveHeader(r, "x-amz-content-sha256"); },
       E::kInvalidRequest},
      {"BadContentSha256",
       [](HttpRequest& r) { *MutableHeader(r, "x-amz-content-sha256") = "abc"; },
       E::kInvalidArgument},
      {"StreamingSigV4aContentSha256",
       [](HttpRequest& r) {
         *MutableHeader(r, "x-amz-content-sha256") = "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD";
       },
       E::kInvalidArgument},
      {"ContentSha256ChangedAfterSigning",
       [](HttpRequest& r) { *MutableHeader(r, "x-amz-content-sha256") = kEmptySha; },
       E::kSignatureDoesNotMatch},
      {"HeaderValueChangedAfterSigning",
       [](HttpRequest& r) { *MutableHeader(r, "x-amz-meta-color") = "red"; },
       E::kSignatureDoesNotMatch},
      {"SignedHeaderMissing", [](HttpRequest& r) { RemoveHeader(r, "content-type"); },
       E::kSignatureDoesNotMatch},
      {"SignedHeaderRepeated", [](HttpRequest& r) { r.headers.push_back({"content-type", "x"}); },
       E::kSignatureDoesNotMatch},
      {"UnsignedAmzHeaderAdded",
       [](HttpRequest& r) { r.headers.push_back({"x-amz-meta-extra", "1"}); }, E::kAccessDenied},
      {"UnsignedOtherHeaderAddedIsFine",
       [](HttpRequest& r) { r.headers.push_back({"user-agent", "x"}); }, E::kNone},
      {"HostNotSigned", auth_replace("content-type;host;", "content-type;"), E::kAccessDenied},
      {"TamperedQueryParameter", [](HttpRequest& r) { ReplaceOnce(r.target, "x=1", "x=2"); },
       E::kSignatureDoesNotMatch},
      {"AddedQueryParameter", [](HttpRequest& r) { r.target += "&y"; },
       E::kSignatureDoesNotMatch},
      {"ChangedPath", [](HttpRequest& r) { ReplaceOnce(r.target, "a%20b", "a%20c"); },
       E::kSignatureDoesNotMatch},
      {"EncodedSlashIsNotSlash", [](HttpRequest& r) { ReplaceOnce(r.target, "photos/", "photos%2F"); },
       E::kSignatureDoesNotMatch},
      {"ChangedMethod", [](HttpRequest& r) { r.method = "POST"; }, E::kSignatureDoesNotMatch},
      {"UppercaseSignature",
       [](HttpRequest& r) {
         std::string& a = *MutableHeader(r, "authorization");
         for (size_t i = a.find("Signature=") + 10; i < a.size(); ++i) a[i] = std::toupper(a[i]);
       },
       E::kSignatureDoesNotMatch},
      {"AlsoPresigned", [](HttpRequest& r) { r.target += "&X-Amz-Algorithm=AWS4-HMAC-SHA256"; },
       E::kInvalidArgument},
  };
}

TEST(AuthenticateHeaderTest, ErrorTable) {
  for (const HeaderCase& c : HeaderCases()) {
    SCOPED_TRACE(c.name);
    HttpRequest r = SignedPut(c.sign_region);
    c.mutate(r);
    if (::testing::Test::HasFatalFailure()) return;
    const AuthResult result =
        Authenticate(r, c.region, Keys(c.server_secret), AwsTime() + c.clock_offset);
    EXPECT_EQ(result.error, c.expected) << result.error_message;
    if (c.expected == ErrorCode::kNone) {
      EXPECT_FALSE(result.anonymous);
      EXPECT_EQ(result.payload, PayloadMode::kSha256);
      EXPECT_EQ(result.payload_sha256, kPutSha);
    } else {
      EXPECT_FALSE(result.key);
    }
  }
}

TEST(AuthenticateHeaderTest, WrongRegionNamesBoth) {
  const AuthResult r = Authenticate(SignedPut("eu-west-1"), "us-east-1", Keys(), AwsTime());
  ASSERT_EQ(r.error, ErrorCode::kAuthorizationHeaderMalformed);
  EXPECT_NE(r.error_message.find("the region 'eu-west-1' is wrong; expecting 'us-east-1'"),
            std::string::npos)
      << r.error_message;
  // The error document's <Region>: what s3cmd re-signs for.
  EXPECT_EQ(r.error_region, "us-east-1");
}

// Only a wrong region names one: another scope error (here the service) does not.
TEST(AuthenticateHeaderTest, RightRegionWrongDateNamesNoRegion) {
  const AuthResult ok_region = Authenticate(SignedPut(kRegion), kRegion, Keys(), AwsTime());
  EXPECT_TRUE(ok_region.error_region.empty());
  const AuthResult wrong_time =
      Authenticate(SignedPut(kRegion), kRegion, Keys(), AwsTime() + std::chrono::hours(1));
  EXPECT_EQ(wrong_time.error, ErrorCode::kRequestTimeTooSkewed);
  EXPECT_TRUE(wrong_time.error_region.empty());
}

TEST(AuthenticateHeaderTest, MessagesCarryNoSecretMaterial) {
  const std::string signing_key_hex =
      text::HexEncode(sigv4::SigningKey(kSecret, "20130524", kRegion, "s3"));
  for (const HeaderCase& c : HeaderCases()) {
    HttpRequest r = SignedPut(c.sign_region);
    c.mutate(r);
    const AuthResult result =
        Authenticate(r, c.region, Keys(c.server_secret), AwsTime() + c.clock_offset);
    EXPECT_EQ(result.error_message.find(kSecret), std::string::npos) << c.name;
    EXPECT_EQ(result.error_message.find(signing_key_hex), std::string::npos) << c.name;
    EXPECT_EQ(result.error_message.find("Signature="), std::string::npos) << c.name;
  }
}

TEST(AuthenticateHeaderTest, DateHeaderAloneIsAccepted) {
  // No x-amz-date: the Date header gives the request time, and the string to sign carries it
  // in ISO 8601 form.
  HttpRequest r = Request("GET", "/b/k",
                          {{"date", "Fri, 24 May 2013 00:00:00 GMT"},
                           {"host", "h"},
                           {"x-amz-content-sha256", kEmptySha}});
  const std::vector<std::string> names = {"date", "host", "x-amz-content-sha256"};
  const std::string canonical =
      sigv4::CanonicalRequest("GET", "/b/k", "", sigv4::CanonicalHeaders(r.headers, names),
                              sigv4::JoinSignedHeaders(names), kEmptySha);
  const std::string signature =
      sigv4::Signature(sigv4::SigningKey(kSecret, "20130524", kRegion, "s3"),
                       sigv4::StringToSign("20130524T000000Z",
                                           "20130524/us-east-1/s3/aws4_request", canonical));
  r.headers.push_back({"authorization", std::string("AWS4-HMAC-SHA256 Credential=") + kAkid +
                                            "/20130524/us-east-1/s3/aws4_request, "
                                            "SignedHeaders=date;host;x-amz-content-sha256, "
                                            "Signature=" + signature});
  EXPECT_EQ(Authenticate(r, kRegion, Keys(), AwsTime()).error, ErrorCode::kNone);
  EXPECT_EQ(Authenticate(r, kRegion, Keys(), AwsTime() + minutes(16)).error,
            ErrorCode::kRequestTimeTooSkewed);
  // botocore signs a request that has a Date header with formatdate()'s "-0000" zone; the
  // canonical Date header is what was sent, the time the same.
  for (std::string zone : {"-0000", "+0000"}) {
    HttpRequest numeric = r;
    *MutableHeader(numeric, "date") = "Fri, 24 May 2013 00:00:00 " + zone;
    EXPECT_EQ(Authenticate(numeric, kRegion, Keys(), AwsTime()).error,
              ErrorCode::kSignatureDoesNotMatch);  // the signature covered the GMT form
  }
  *MutableHeader(r, "date") = "Fri, 24 May 2013 00:00:01 GMT";
  EXPECT_EQ(Authenticate(r, kRegion, Keys(), AwsTime()).error, ErrorCode::kSignatureDoesNotMatch);
  *MutableHeader(r, "date") = "yesterday";
  EXPECT_EQ(Authenticate(r, kRegion, Keys(), AwsTime()).error, ErrorCode::kAccessDenied);
}

TEST(AuthenticateHeaderTest, PayloadModes) {
  struct Case {
    std::string value;
    PayloadMode mode;
  };
  const std::vector<Case> cases = {
      {"UNSIGNED-PAYLOAD", PayloadMode::kUnsigned},
      {kEmptySha, PayloadMode::kSha256},
      {"STREAMING-AWS4-HMAC-SHA256-PAYLOAD", PayloadMode::kStreamingSigned},
      {"STREAMING-UNSIGNED-PAYLOAD-TRAILER", PayloadMode::kStreamingUnsignedTrailer},
      {"STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", PayloadMode::kStreamingSignedTrailer},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    SignInput in;
    in.method = "PUT";
    in.host = "h";
    in.path = "/b/k";
    in.payload_sha256 = c.value;
    in.access_key_id = kAkid;
    in.secret_key = kSecret;
    in.region = kRegion;
    in.now = AwsTime();
    in.extra_headers = {{"x-amz-decoded-content-length", "5"},
                        {"x-amz-trailer", "x-amz-checksum-crc32, X-Amz-Checksum-Sha1"}};
    std::vector<Header> headers = SignV4(in);
    headers.insert(headers.end(), in.extra_headers.begin(), in.extra_headers.end());
    const AuthResult r = Authenticate(Request("PUT", "/b/k", headers), kRegion, Keys(), AwsTime());
    ASSERT_EQ(r.error, ErrorCode::kNone) << r.error_message;
    EXPECT_EQ(r.payload, c.mode);
    const bool streaming = c.mode != PayloadMode::kUnsigned && c.mode != PayloadMode::kSha256;
    EXPECT_EQ(r.signing_key.empty(), !streaming);
    EXPECT_EQ(r.seed_signature.size(), streaming ? 64u : 0u);
    EXPECT_EQ(r.decoded_content_length, streaming ? 5u : 0u);
    const std::vector<std::string> trailers = {"x-amz-checksum-crc32", "x-amz-checksum-sha1"};
    EXPECT_EQ(r.trailer_names, streaming ? trailers : std::vector<std::string>{});
  }
}

TEST(AuthenticateHeaderTest, StreamingNeedsADecodedContentLength) {
  struct Case {
    std::string name;
    std::optional<std::string> decoded;
    ErrorCode expected;
  };
  const Case cases[] = {
      {"missing", std::nullopt, ErrorCode::kMissingContentLength},
      {"not a number", "12x", ErrorCode::kInvalidArgument},
      {"negative", "-1", ErrorCode::kInvalidArgument},
      {"empty", "", ErrorCode::kInvalidArgument},
      {"ok", "0", ErrorCode::kNone},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SignInput in;
    in.method = "PUT";
    in.host = "h";
    in.path = "/b/k";
    in.payload_sha256 = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
    in.access_key_id = kAkid;
    in.secret_key = kSecret;
    in.region = kRegion;
    in.now = AwsTime();
    if (c.decoded) in.extra_headers = {{"x-amz-decoded-content-length", *c.decoded}};
    std::vector<Header> headers = SignV4(in);
    headers.insert(headers.end(), in.extra_headers.begin(), in.extra_headers.end());
    const AuthResult r = Authenticate(Request("PUT", "/b/k", headers), kRegion, Keys(), AwsTime());
    EXPECT_EQ(r.error, c.expected) << r.error_message;
  }
}

TEST(AuthenticateAnonymousTest, UnsignedTrailerBodyIsDecodedForAnonymousRequests) {
  AuthResult r = Authenticate(
      Request("PUT", "/b/k",
              {{"host", "h"},
               {"x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"},
               {"x-amz-decoded-content-length", "3"},
               {"x-amz-trailer", "x-amz-checksum-crc32"}}),
      kRegion, Keys(), AwsTime());
  ASSERT_EQ(r.error, ErrorCode::kNone);
  EXPECT_TRUE(r.anonymous);
  EXPECT_EQ(r.payload, PayloadMode::kStreamingUnsignedTrailer);
  EXPECT_EQ(r.decoded_content_length, 3u);
  r = Authenticate(Request("PUT", "/b/k",
                           {{"host", "h"},
                            {"x-amz-content-sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"}}),
                   kRegion, Keys(), AwsTime());
  EXPECT_EQ(r.error, ErrorCode::kMissingContentLength);
}

TEST(AuthenticateHeaderTest, UppercaseContentSha256IsNormalised) {
  SignInput in;
  in.method = "PUT";
  in.host = "h";
  in.path = "/b/k";
  in.payload_sha256 = "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855";
  in.access_key_id = kAkid;
  in.secret_key = kSecret;
  in.region = kRegion;
  in.now = AwsTime();
  const AuthResult r = Authenticate(Request("PUT", "/b/k", SignV4(in)), kRegion, Keys(), AwsTime());
  ASSERT_EQ(r.error, ErrorCode::kNone) << r.error_message;
  EXPECT_EQ(r.payload_sha256, kEmptySha);
}

// ---- Error paths, presigned URLs.

void RemoveParam(std::string& target, std::string_view key) {
  const std::string needle = std::string(key) + "=";
  size_t at = target.find("&" + needle);
  if (at == std::string::npos) at = target.find("?" + needle);
  ASSERT_NE(at, std::string::npos) << key;
  const size_t end = target.find('&', at + 1);
  if (target[at] == '?') {
    target.erase(at + 1, end == std::string::npos ? std::string::npos : end - at);
  } else {
    target.erase(at, end == std::string::npos ? std::string::npos : end - at);
  }
}

void SetParam(std::string& target, std::string_view key, std::string_view value) {
  const std::string needle = std::string(key) + "=";
  size_t at = target.find(needle);
  ASSERT_NE(at, std::string::npos) << key;
  at += needle.size();
  const size_t end = target.find('&', at);
  target.replace(at, end == std::string::npos ? std::string::npos : end - at, value);
}

struct QueryCase {
  std::string name;
  std::function<void(HttpRequest&)> mutate;
  ErrorCode expected;
  TimePoint::duration clock_offset{};
  int expires = 3600;
  std::string sign_region = kRegion;
};

HttpRequest Presigned(int expires, std::string_view sign_region) {
  SignInput in;
  in.method = "GET";
  in.host = "localhost:9000";
  in.path = "/bucket/dir/r%C3%A9sum%C3%A9.pdf";
  in.query = "response-content-type=application%2Fpdf";
  in.access_key_id = kAkid;
  in.secret_key = kSecret;
  in.region = std::string(sign_region);
  in.now = AwsTime();
  return Request("GET", PresignV4(in, expires), {{"host", in.host}});
}

std::vector<QueryCase> QueryCases() {
  using E = ErrorCode;
  const auto nothing = [](HttpRequest&) {};
  auto remove = [](std::string key) { return [key](HttpRequest& r) { RemoveParam(r.target, key); }; };
  auto set = [](std::string key, std::string value) {
    return [key, value](HttpRequest& r) { SetParam(r.target, key, value); };
  };
  std::vector<QueryCase> cases = {
      {"Valid", nothing, E::kNone},
      {"ValidAtLastSecond", nothing, E::kNone, seconds(3600)},
      {"ValidWeek", nothing, E::kNone, seconds(604800), 604800},
      {"ValidSlightlyEarly", nothing, E::kNone, -minutes(14)},
      {"Expired", nothing, E::kAccessDenied, seconds(3601)},
      {"NotYetValid", nothing, E::kAccessDenied, -minutes(15) - seconds(1)},
      {"ExpiresOverAWeek", nothing, E::kExpiresOutOfRange, {}, 604801},
      // Well formed, but over when it is made (as S3 answers it).
      {"ExpiresZero", nothing, E::kAccessDenied, {}, 0},
      {"ExpiresNegative", set("X-Amz-Expires", "-5"), E::kExpiresOutOfRange},
      {"ExpiresNotANumber", set("X-Amz-Expires", "soon"), E::kAuthorizationQueryParametersError},
      {"ExpiresHuge", set("X-Amz-Expires", "99999999999999999999"),
       E::kAuthorizationQueryParametersError},
      {"WrongAlgorithm", set("X-Amz-Algorithm", "AWS4-HMAC-SHA1"),
       E::kAuthorizationQueryParametersError},
      {"MalformedDate", set("X-Amz-Date", "20130524"), E::kAuthorizationQueryParametersError},
      {"MalformedCredential", set("X-Amz-Credential", "AKID%2Fus-east-1"),
       E::kAuthorizationQueryParametersError},
      {"WrongRegion", nothing, E::kAuthorizationQueryParametersError, {}, 3600, "eu-west-1"},
      {"WrongService", set("X-Amz-Credential", std::string(kAkid) + "%2F20130524%2Fus-east-1%2Fiam%2Faws4_request"),
       E::kAuthorizationQueryParametersError},
      {"CredentialDateNotRequestDate",
       set("X-Amz-Credential", std::string(kAkid) + "%2F20130523%2Fus-east-1%2Fs3%2Faws4_request"),
       E::kAuthorizationQueryParametersError},
      {"EmptySignedHeaders", set("X-Amz-SignedHeaders", ""), E::kAuthorizationQueryParametersError},
      {"DuplicateParameter", [](HttpRequest& r) { r.target += "&X-Amz-Date=20130524T000000Z"; },
       E::kAuthorizationQueryParametersError},
      {"UnknownKey",
       set("X-Amz-Credential", "AKIDUNKNOWN%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"),
       E::kInvalidAccessKeyId},
      {"TamperedQueryParameter", set("response-content-type", "text%2Fhtml"),
       E::kSignatureDoesNotMatch},
      {"TamperedExpires", set("X-Amz-Expires", "7200"), E::kSignatureDoesNotMatch},
      {"TamperedSignature", set("X-Amz-Signature", std::string(64, '0')),
       E::kSignatureDoesNotMatch},
      {"ChangedPath", [](HttpRequest& r) { ReplaceOnce(r.target, "/dir/", "/dir2/"); },
       E::kSignatureDoesNotMatch},
      {"ChangedHost", [](HttpRequest& r) { *MutableHeader(r, "host") = "evil:9000"; },
       E::kSignatureDoesNotMatch},
      {"ChangedMethod", [](HttpRequest& r) { r.method = "PUT"; }, E::kSignatureDoesNotMatch},
      {"UnsignedAmzHeader", [](HttpRequest& r) { r.headers.push_back({"x-amz-acl", "public-read"}); },
       E::kAccessDenied},
      {"BadContentSha256Header",
       [](HttpRequest& r) { r.headers.push_back({"x-amz-content-sha256", "nope"}); },
       E::kInvalidArgument},
      {"StreamingContentSha256Header",
       [](HttpRequest& r) {
         r.headers.push_back({"x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"});
       },
       E::kInvalidArgument},
      {"AlsoAuthorizationHeader",
       [](HttpRequest& r) { r.headers.push_back({"authorization", "AWS4-HMAC-SHA256 x"}); },
       E::kInvalidArgument},
  };
  for (std::string key : {"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires",
                          "X-Amz-SignedHeaders", "X-Amz-Signature"}) {
    cases.push_back({"Missing" + key, remove(key), E::kAuthorizationQueryParametersError});
  }
  return cases;
}

TEST(AuthenticateQueryTest, ErrorTable) {
  for (const QueryCase& c : QueryCases()) {
    SCOPED_TRACE(c.name);
    HttpRequest r = Presigned(c.expires, c.sign_region);
    c.mutate(r);
    if (::testing::Test::HasFatalFailure()) return;
    const AuthResult result = Authenticate(r, kRegion, Keys(), AwsTime() + c.clock_offset);
    EXPECT_EQ(result.error, c.expected) << result.error_message << " target=" << r.target;
    if (c.expected == ErrorCode::kNone) {
      EXPECT_FALSE(result.anonymous);
      EXPECT_EQ(result.payload, PayloadMode::kUnsigned);
    }
  }
}

TEST(AuthenticateQueryTest, WrongRegionNamesTheExpectedOne) {
  const AuthResult r = Authenticate(Presigned(3600, "eu-west-1"), kRegion, Keys(), AwsTime());
  ASSERT_EQ(r.error, ErrorCode::kAuthorizationQueryParametersError);
  EXPECT_EQ(r.error_region, kRegion);
}

// X-Amz-Expires in S3's words: out of range (negative, over a week) is 403
// AuthorizationQueryParametersError, not a number the same code with 400, and a URL of zero
// seconds has expired (AccessDenied, 403).
TEST(AuthenticateQueryTest, ExpiresOutOfRangeInS3sWords) {
  struct Case {
    std::string value;
    ErrorCode code;
    std::string message;
  } cases[] = {
      {"604801", ErrorCode::kExpiresOutOfRange,
       "X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires "
       "must be less than 604800 seconds"},
      {"-1", ErrorCode::kExpiresOutOfRange, "X-Amz-Expires must be non-negative"},
      {"-604801", ErrorCode::kExpiresOutOfRange, "X-Amz-Expires must be non-negative"},
      {"soon", ErrorCode::kAuthorizationQueryParametersError, "X-Amz-Expires should be a number"},
      {"", ErrorCode::kAuthorizationQueryParametersError, "X-Amz-Expires should be a number"},
      {"0", ErrorCode::kAccessDenied, "Request has expired"},
  };
  for (const Case& c : cases) {
    HttpRequest r = Presigned(3600, kRegion);
    SetParam(r.target, "X-Amz-Expires", c.value);
    const AuthResult result = Authenticate(r, kRegion, Keys(), AwsTime());
    EXPECT_EQ(result.error, c.code) << c.value;
    EXPECT_EQ(result.error_message, c.message) << c.value;
  }
}

TEST(AuthenticateQueryTest, ExpiredSaysSo) {
  const AuthResult r = Authenticate(Presigned(60, kRegion), kRegion, Keys(), AwsTime() + minutes(2));
  ASSERT_EQ(r.error, ErrorCode::kAccessDenied);
  EXPECT_EQ(r.error_message, "Request has expired");
}

TEST(AuthenticateQueryTest, SignedPayloadHashInQuery) {
  SignInput in;
  in.method = "PUT";
  in.host = "h";
  in.path = "/b/k";
  in.payload_sha256 = kPutSha;
  in.access_key_id = kAkid;
  in.secret_key = kSecret;
  in.region = kRegion;
  in.now = AwsTime();
  HttpRequest req = Request("PUT", PresignV4(in, 600), {{"host", "h"}});
  AuthResult r = Authenticate(req, kRegion, Keys(), AwsTime());
  ASSERT_EQ(r.error, ErrorCode::kNone) << r.error_message;
  EXPECT_EQ(r.payload, PayloadMode::kSha256);
  EXPECT_EQ(r.payload_sha256, kPutSha);
  SetParam(req.target, "X-Amz-Content-Sha256", kEmptySha);
  EXPECT_EQ(Authenticate(req, kRegion, Keys(), AwsTime()).error, ErrorCode::kSignatureDoesNotMatch);
}

// ---- Round trips: what the client signs, the server accepts, however the path was encoded.

struct RoundTrip {
  std::string signed_path;   // what SignV4 is given
  std::string sent_path;     // what goes on the wire
  std::string signed_query;
  std::string sent_query;
};

const std::vector<RoundTrip> kRoundTrips = {
    {"/bucket/my%20key", "/bucket/my%20key", "", ""},
    {"/bucket/my key", "/bucket/my%20key", "", ""},
    {"/bucket/%C3%A9t%C3%A9/%E2%9C%93.txt", "/bucket/\xc3\xa9t\xc3\xa9/\xe2\x9c\x93.txt", "", ""},
    {"/bucket/a%21b%7Ec%24%26%27%28%29%2A%2B%2C%3B%3D%3A%40", "/bucket/a!b~c$&'()*+,;=:@", "", ""},
    {"/bucket/a!b~c", "/bucket/a%21b%7ec", "", ""},
    {"/bucket/dir%2Fkey", "/bucket/dir%2fkey", "", ""},
    {"/bucket/deep/nested/key", "/bucket/deep/nested/key", "", ""},
    {"/bucket", "/bucket", "list-type=2&prefix=a%20b&delimiter=%2F", "delimiter=/&prefix=a+b&list-type=2"},
    {"/bucket", "/bucket", "prefix=%E2%9C%93%20x&start-after=k%2Bv", "prefix=%e2%9c%93%20x&start-after=k%2bv"},
    {"/bucket", "/bucket", "uploads", "uploads="},
    {"/bucket/k", "/bucket/k", "tagging&versionId=a%3Db", "versionId=a%3Db&tagging"},
};

TEST(RoundTripTest, SignV4ThenAuthenticate) {
  for (const RoundTrip& t : kRoundTrips) {
    SCOPED_TRACE(t.signed_path + "?" + t.signed_query);
    SignInput in;
    in.method = "PUT";
    in.host = "127.0.0.1:9000";
    in.path = t.signed_path;
    in.query = t.signed_query;
    in.extra_headers = {{"X-Amz-Meta-Note", "  caf\xc3\xa9   au  lait "}, {"Content-Type", "text/plain"}};
    in.payload_sha256 = "UNSIGNED-PAYLOAD";
    in.access_key_id = kAkid;
    in.secret_key = kSecret;
    in.region = kRegion;
    in.now = AwsTime() + seconds(12345);
    std::vector<Header> headers = {{"x-amz-meta-note", "caf\xc3\xa9 au lait"},
                                   {"content-type", "text/plain"}};
    for (Header& h : SignV4(in)) headers.push_back(std::move(h));
    const std::string target = t.sent_path + (t.sent_query.empty() ? "" : "?" + t.sent_query);
    const AuthResult r = Authenticate(Request("PUT", target, headers), kRegion, Keys(), in.now);
    EXPECT_EQ(r.error, ErrorCode::kNone) << r.error_message;
    EXPECT_EQ(r.payload, PayloadMode::kUnsigned);
  }
}

TEST(RoundTripTest, PresignV4ThenAuthenticate) {
  for (const RoundTrip& t : kRoundTrips) {
    SCOPED_TRACE(t.signed_path + "?" + t.signed_query);
    SignInput in;
    in.method = "GET";
    in.host = "127.0.0.1:9000";
    in.path = t.signed_path;
    in.query = t.signed_query;
    in.access_key_id = kAkid;
    in.secret_key = kSecret;
    in.region = kRegion;
    in.now = AwsTime();
    std::string target = PresignV4(in, 900);
    // Swap the signed path and leading query for the way they are sent on the wire.
    ReplaceOnce(target, t.signed_path + "?" + (t.signed_query.empty() ? "" : t.signed_query + "&"),
                t.sent_path + "?" + (t.sent_query.empty() ? "" : t.sent_query + "&"));
    const AuthResult r =
        Authenticate(Request("GET", target, {{"host", in.host}}), kRegion, Keys(), in.now);
    EXPECT_EQ(r.error, ErrorCode::kNone) << r.error_message << " target=" << target;
  }
}

TEST(RoundTripTest, SecretsWithAnyBytes) {
  for (const std::string& secret : std::vector<std::string>{
           "", "short", "with space/and+plus=", "\xc3\xa9\xc3\xa8", std::string(200, 'k')}) {
    SignInput in;
    in.method = "GET";
    in.host = "h";
    in.path = "/";
    in.payload_sha256 = kEmptySha;
    in.access_key_id = kAkid;
    in.secret_key = secret;
    in.region = kRegion;
    in.now = AwsTime();
    const HttpRequest r = Request("GET", "/", SignV4(in));
    EXPECT_EQ(Authenticate(r, kRegion, Keys(secret), AwsTime()).error, ErrorCode::kNone);
    EXPECT_EQ(Authenticate(r, kRegion, Keys(secret + "x"), AwsTime()).error,
              ErrorCode::kSignatureDoesNotMatch);
  }
}

}  // namespace
}  // namespace cubby::s3api::auth
