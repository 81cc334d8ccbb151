// The KMS JSON API's door on the S3 port (s3api/kms_front.h): which requests it takes, its SigV4
// for service "kms", KMS's JSON codes for every authentication failure, the body limit, and
// the hand-over to kms::KeyService.
#include "s3api/kms_front.h"

#include <gtest/gtest.h>

#include "crypt/key.h"
#include "kms/kms.h"
#include "test/s3api/service_fixture.h"
#include "text/json.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

class KmsFrontTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    crypt::Result<crypt::Key256> kek = crypt::NewRandomKey();
    ASSERT_TRUE(kek.ok());
    kek_ = std::move(kek).value();
    kms_ = std::make_unique<kms::KeyService>(store_.get(), &kek_, "us-east-1");
    UseKms(kms_.get());
  }
  void TearDown() override {
    service_.reset();
    kms_.reset();
    ServiceTest::TearDown();
  }
  void UseKms(kms::KeyService* kms) {
    ServiceOptions options;
    options.region = "us-east-1";
    options.clock = [this] { return now_ + skew_; };  // the server's clock
    options.kms = kms;
    service_ = std::make_unique<S3Service>(store_.get(), options);
  }
  Req Kms(std::string op, std::string body, std::string key_id = kRootId) {
    Req r;
    r.method = "POST";
    r.path = "/";
    r.headers = {{"content-type", "application/x-amz-json-1.1"},
                 {"x-amz-target", "TrentService." + op}};
    r.body = std::move(body);
    r.key_id = std::move(key_id);
    r.service = "kms";
    return r;
  }
  static std::string Type(const Reply& r) {
    text::JsonValue doc;
    if (!text::ParseJson(r.body, 1 << 20, &doc, nullptr)) return "<not json>";
    const text::JsonValue* t = doc.Find("__type");
    return t == nullptr ? "" : t->text;
  }

  crypt::Key256 kek_;
  std::unique_ptr<kms::KeyService> kms_;
  std::chrono::seconds skew_{0};  // how far the server's clock is ahead of the signer's
};

TEST_F(KmsFrontTest, WhichRequestsAreKms) {
  struct Case {
    std::string method, target, amz_target;
    bool kms;
  } cases[] = {
      {"POST", "/", "TrentService.ListKeys", true},
      {"POST", "/", "TrentService.Nope", true},
      {"POST", "/", "DynamoDB_20120810.ListTables", false},
      {"POST", "/", "", false},
      {"GET", "/", "TrentService.ListKeys", false},
      {"POST", "/bucket", "TrentService.ListKeys", false},
      {"POST", "/?delete", "TrentService.ListKeys", false},
  };
  for (const Case& c : cases) {
    HttpRequest r;
    r.method = c.method;
    r.target = c.target;
    if (!c.amz_target.empty()) r.headers.push_back({"x-amz-target", c.amz_target});
    EXPECT_EQ(IsKmsRequest(r), c.kms) << c.method << " " << c.target << " " << c.amz_target;
  }
}

TEST_F(KmsFrontTest, ServesTheJsonApi) {
  Reply r = Send(Kms("CreateKey", R"({"Description":"d"})"));
  ASSERT_EQ(r.status(), 200) << r.body;
  EXPECT_EQ(r.Header("Content-Type"), "application/x-amz-json-1.1");
  EXPECT_EQ(r.summary.operation, "kms:CreateKey");
  EXPECT_EQ(r.summary.access_key_id, kRootId);
  EXPECT_TRUE(r.summary.error.empty());
  r = Send(Kms("DescribeKey", R"({"KeyId":"alias/none"})"));
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(Type(r), "NotFoundException");
  EXPECT_EQ(r.summary.error, "NotFoundException");
  r = Send(Kms("Encrypt", "{}"));
  EXPECT_EQ(Type(r), "UnknownOperationException");
  EXPECT_EQ(r.summary.operation, "kms:Unknown");
}

TEST_F(KmsFrontTest, AuthenticationFailuresInKmsWords) {
  storage::AccessKeyRecord wrong;
  wrong.access_key_id = "CBWRONGSECRET";
  wrong.secret = storage::SecretKey("not-the-key-secret");
  ASSERT_TRUE(store_->PutAccessKey(wrong).ok());

  Req s3_scope = Kms("ListKeys", "{}");
  s3_scope.service = "s3";
  Req tampered = Kms("ListKeys", "{}");
  tampered.payload_sha256 = text::HexEncode(auth::Sha256("something else"));
  Req too_large = Kms("CreateKey", "{" + std::string(kMaxKmsBodyBytes, ' ') + "}");
  Req too_large_unannounced = too_large;
  too_large_unannounced.content_length = std::optional<uint64_t>();
  struct Case {
    const char* what;
    Req req;
    std::string type;
  } cases[] = {
      {"unsigned", Kms("ListKeys", "{}", ""), "MissingAuthenticationTokenException"},
      {"unknown key", Kms("ListKeys", "{}", "CBNOSUCHKEY"), "UnrecognizedClientException"},
      {"wrong signature", Kms("ListKeys", "{}", "CBWRONGSECRET"), "InvalidSignatureException"},
      {"scope for s3", s3_scope, "IncompleteSignatureException"},
      {"payload hash not the body's", tampered, "IncompleteSignatureException"},
      {"not the administrator", Kms("ListKeys", "{}", kReaderId), "AccessDeniedException"},
      {"over 64 KiB", too_large, "ValidationException"},
      {"over 64 KiB, no Content-Length", too_large_unannounced, "ValidationException"},
  };
  for (Case& c : cases) {
    Reply r = Send(c.req);
    EXPECT_EQ(r.status(), 400) << c.what << "\n" << r.body;
    EXPECT_EQ(Type(r), c.type) << c.what << "\n" << r.body;
    EXPECT_EQ(r.summary.error, c.type) << c.what;
    EXPECT_EQ(r.Header("Content-Type"), "application/x-amz-json-1.1") << c.what;
  }
}

TEST_F(KmsFrontTest, RequestTimeOutOfRange) {
  skew_ = std::chrono::hours(1);
  Reply r = Send(Kms("ListKeys", "{}"));
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(Type(r), "InvalidSignatureException");
  skew_ = std::chrono::seconds(0);
  EXPECT_EQ(Send(Kms("ListKeys", "{}")).status(), 200);
}

TEST_F(KmsFrontTest, BodyThatCannotBeRead) {
  struct Failing : BodyReader {
    ReadResult Read(char*, size_t) override { return {0, ErrorCode::kIncompleteBody}; }
  } body;
  HttpRequest request;
  request.method = "POST";
  request.target = "/";
  request.headers = {{"x-amz-target", "TrentService.ListKeys"}};
  request.request_id = "REQ-body";
  ServiceOptions options;
  options.kms = kms_.get();
  RequestSummary summary;
  const auth::KeyLookup lookup = [](std::string_view) {
    return std::optional<storage::AccessKeyRecord>();
  };
  const iam::Authorizer authorizer(store_.get());
  HttpResponse r = ServeKms(authorizer, options, request, body, now_, lookup, &summary);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(summary.error, "SerializationException");
  EXPECT_EQ(summary.operation, "kms:ListKeys");
}

TEST_F(KmsFrontTest, WithoutAKeyStore) {
  UseKms(nullptr);
  Reply r = Send(Kms("ListKeys", "{}"));
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(Type(r), "UnsupportedOperationException");
}

}  // namespace
}  // namespace cubby::s3api
