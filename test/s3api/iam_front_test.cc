// The IAM query API's door on the S3 port (s3api/iam_front.h): which requests it takes, its
// SigV4 for service "iam", IAM's codes for every authentication failure, the body limit.
#include "s3api/iam_front.h"

#include <gtest/gtest.h>

#include "iam/iam_api.h"
#include "test/s3api/service_fixture.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

class IamFrontTest : public ServiceTest {
 protected:
  Req Form(std::string form, std::string key_id = kRootId) {
    Req r;
    r.method = "POST";
    r.path = "/";
    r.headers = {{"content-type", "application/x-www-form-urlencoded; charset=utf-8"}};
    r.body = std::move(form);
    r.key_id = std::move(key_id);
    r.service = "iam";
    return r;
  }
};

TEST_F(IamFrontTest, WhichRequestsAreIam) {
  struct Case {
    std::string method, target, content_type;
    bool iam;
  } cases[] = {
      {"POST", "/", "application/x-www-form-urlencoded", true},
      {"POST", "/", "Application/X-WWW-Form-Urlencoded; charset=utf-8", true},
      {"POST", "/?x=1", "application/x-www-form-urlencoded", true},
      {"GET", "/?Action=ListUsers&Version=2010-05-08", "", true},
      {"POST", "/bucket", "application/x-www-form-urlencoded", false},
      {"POST", "/", "multipart/form-data", false},
      {"POST", "/", "", false},
      {"GET", "/", "", false},
      {"GET", "/?max-buckets=1", "", false},
      {"GET", "/bucket?Action=ListUsers", "", false},
      {"PUT", "/?Action=ListUsers", "", false},
  };
  for (const Case& c : cases) {
    HttpRequest r;
    r.method = c.method;
    r.target = c.target;
    if (!c.content_type.empty()) r.headers.push_back({"content-type", c.content_type});
    EXPECT_EQ(IsIamRequest(r), c.iam) << c.method << " " << c.target << " " << c.content_type;
  }
}

TEST_F(IamFrontTest, SignedForIamAsPostOrGet) {
  Reply r = Send(Form("Action=CreateUser&UserName=alice&Version=2010-05-08"));
  ASSERT_EQ(r.status(), 200) << r.body;
  EXPECT_EQ(r.Header("Content-Type"), "text/xml");
  EXPECT_TRUE(Contains(r.body, "<CreateUserResponse xmlns=\"https://iam.amazonaws.com/doc/"));
  EXPECT_EQ(r.summary.operation, "iam:CreateUser");
  EXPECT_EQ(r.summary.access_key_id, kRootId);
  EXPECT_TRUE(store_->GetUser("alice").ok());

  Req get;
  get.path = "/";
  get.query = "Action=GetUser&UserName=alice&Version=2010-05-08";
  get.service = "iam";
  r = Send(get);
  ASSERT_EQ(r.status(), 200) << r.body;
  EXPECT_EQ(Tag(r.body, "UserName"), "alice");
  EXPECT_EQ(r.summary.operation, "iam:GetUser");
}

// IAM is a global service: whatever the server's region, a request signed for us-east-1 or
// with an empty region (botocore's when the client has none) is taken; any other region is not.
TEST_F(IamFrontTest, GlobalRegionsWhateverTheServersRegion) {
  ServiceOptions options;
  options.region = "eu-west-1";
  options.clock = [this] { return now_; };
  service_ = std::make_unique<S3Service>(store_.get(), options);
  struct Case {
    std::string signed_region;
    int status;
  } cases[] = {{"", 200}, {"us-east-1", 200}, {"eu-west-1", 200}, {"us-west-2", 400}};
  for (const Case& c : cases) {
    Req req = Form("Action=ListUsers&Version=2010-05-08");
    req.region = c.signed_region;
    Reply r = Send(req);
    EXPECT_EQ(r.status(), c.status) << "'" << c.signed_region << "'\n" << r.body;
  }
  // S3 is regional: an empty region is the wrong one.
  Req s3;
  s3.region = "";
  EXPECT_EQ(Send(s3).Code(), "AuthorizationHeaderMalformed");
}

TEST_F(IamFrontTest, AuthenticationFailuresInIamsWords) {
  storage::AccessKeyRecord wrong;  // a key whose secret is not the one the fixture signs with
  wrong.access_key_id = "CBWRONGSECRET";
  wrong.secret = storage::SecretKey("not-the-key-secret");
  ASSERT_TRUE(store_->PutAccessKey(wrong).ok());
  storage::UserRecord user;
  user.name = "plain";
  ASSERT_TRUE(store_->CreateUser(user).ok());
  storage::AccessKeyRecord plain;
  plain.access_key_id = "CBPLAINUSERKEY0001";
  plain.secret = storage::SecretKey(kKeySecret);
  ASSERT_TRUE(store_->CreateAccessKey("plain", plain).ok());
  storage::UserRecord sleepy_user;
  sleepy_user.name = "sleepy";
  ASSERT_TRUE(store_->CreateUser(sleepy_user).ok());
  storage::AccessKeyRecord sleepy = plain;
  sleepy.access_key_id = "CBSLEEPYUSERKEY001";
  ASSERT_TRUE(store_->CreateAccessKey("sleepy", sleepy).ok());
  ASSERT_TRUE(
      store_->UpdateAccessKeyStatus("sleepy", sleepy.access_key_id, storage::KeyStatus::kInactive)
          .ok());

  const std::string list = "Action=ListUsers&Version=2010-05-08";
  Req unsigned_req = Form(list, "");
  Req unknown = Form(list, "CBNOSUCHKEY");
  Req bad_signature = Form(list, "CBWRONGSECRET");
  Req s3_scope = Form(list);
  s3_scope.service = "s3";
  Req tampered = Form(list);
  tampered.payload_sha256 = text::HexEncode(auth::Sha256("something else"));
  Req too_large = Form(list + "&x=" + std::string(iam::kMaxIamFormBytes, 'a'));
  Req too_large_unannounced = too_large;  // no Content-Length: refused while reading
  too_large_unannounced.content_length = std::optional<uint64_t>();
  struct Case {
    const char* what;
    Req req;
    int status;
    std::string code;
  } cases[] = {
      {"unsigned", unsigned_req, 403, "MissingAuthenticationToken"},
      {"unknown key", unknown, 403, "InvalidClientTokenId"},
      {"Inactive key", Form(list, sleepy.access_key_id), 403, "InvalidClientTokenId"},
      {"wrong signature", bad_signature, 403, "SignatureDoesNotMatch"},
      {"scope for s3", s3_scope, 400, "IncompleteSignature"},
      {"payload hash not the body's", tampered, 400, "IncompleteSignature"},
      {"a user, not root", Form(list, plain.access_key_id), 403, "AccessDenied"},
      {"no Action", Form("Version=2010-05-08"), 400, "InvalidAction"},
      {"malformed escape", Form("Action=ListUsers&x=%zz"), 400, "ValidationError"},
      {"over 256 KiB", too_large, 413, "RequestEntityTooLarge"},
      {"over 256 KiB, no Content-Length", too_large_unannounced, 413, "RequestEntityTooLarge"},
  };
  for (Case& c : cases) {
    Reply r = Send(c.req);
    EXPECT_EQ(r.status(), c.status) << c.what << "\n" << r.body;
    EXPECT_EQ(Tag(r.body, "Code"), c.code) << c.what;
    EXPECT_TRUE(Contains(r.body, "<ErrorResponse xmlns=\"https://iam.amazonaws.com/doc/"))
        << c.what;
    EXPECT_EQ(r.summary.error, c.code) << c.what;
  }
}

}  // namespace
}  // namespace cubby::s3api
