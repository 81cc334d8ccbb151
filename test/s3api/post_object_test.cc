// POST Object through S3Service (s3api/post_object.cc): the form authenticates and is
// authorized as its own caller, whatever the request's headers; each refusal stores nothing.
// Every response mode and field is driven end to end in test/e2e/test_post_object.py.
#include <string>
#include <utility>
#include <vector>

#include "s3api/auth/crypto.h"
#include "service_fixture.h"
#include "text/encoding.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

constexpr char kBoundary[] = "b0undary";

std::string FormBody(const std::vector<std::pair<std::string, std::string>>& fields,
                     const std::string& content) {
  std::string out;
  for (const auto& [name, value] : fields) {
    out += std::string("--") + kBoundary + "\r\nContent-Disposition: form-data; name=\"" + name +
           "\"\r\n\r\n" + value + "\r\n";
  }
  out += std::string("--") + kBoundary +
         "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\n" + content +
         "\r\n--" + kBoundary + "--\r\n";
  return out;
}

// A SigV2 form for `key` signed by `key_id` / `secret`, its policy naming `bucket` and `key`.
std::vector<std::pair<std::string, std::string>> SignedFields(const std::string& bucket,
                                                              const std::string& key,
                                                              const std::string& key_id,
                                                              const std::string& secret) {
  const std::string policy = text::Base64Encode(
      "{\"expiration\": \"2030-01-01T00:00:00Z\", \"conditions\": [{\"bucket\": \"" + bucket +
      "\"}, {\"key\": \"" + key + "\"}]}");
  return {{"key", key},
          {"AWSAccessKeyId", key_id},
          {"policy", policy},
          {"signature", text::Base64Encode(auth::HmacSha1(secret, policy))}};
}

class PostObjectTest : public ServiceTest {
 protected:
  Reply Post(const std::string& bucket, std::string body,
             std::string content_type = std::string("multipart/form-data; boundary=") + kBoundary) {
    Req req;
    req.method = "POST";
    req.path = "/" + bucket;
    req.key_id = kAnonymous;  // the form carries the credentials
    req.headers = {{"content-type", std::move(content_type)}};
    req.body = std::move(body);
    return Send(std::move(req));
  }
};

TEST_F(PostObjectTest, FormCallerIsAuthorized) {
  MakeBucket("shared");
  MakeBucket("other");
  struct Case {
    std::string name, bucket, key_id, secret;
    int status;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"writer on its bucket", "shared", kWriterId, kKeySecret, 204, ""},
      {"reader may not write", "shared", kReaderId, kKeySecret, 403, "AccessDenied"},
      {"writer on another bucket", "other", kWriterId, kKeySecret, 403, "AccessDenied"},
      {"wrong secret", "shared", kWriterId, "not-the-secret", 403, "SignatureDoesNotMatch"},
      {"unknown key", "shared", "CBNOBODY000000000000", kKeySecret, 403, "InvalidAccessKeyId"},
      {"missing bucket", "nosuch", kRootId, kRootSecret, 404, "NoSuchBucket"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string key = "k-" + c.name;
    Reply r = Post(c.bucket, FormBody(SignedFields(c.bucket, key, c.key_id, c.secret), "data"));
    EXPECT_EQ(r.status(), c.status) << r.body;
    if (!c.code.empty()) EXPECT_EQ(r.Code(), c.code);
    if (c.bucket != "nosuch") EXPECT_EQ(ObjectExists(c.bucket, key), c.status == 204);
  }
  EXPECT_EQ(Get("/shared/k-writer on its bucket").body, "data");
}

TEST_F(PostObjectTest, Refusals) {
  MakeBucket("shared");
  const std::string good = FormBody(SignedFields("shared", "k", kRootId, kRootSecret), "x");
  Reply r = Post("shared", good, "application/x-www-form-urlencoded");
  EXPECT_EQ(r.status(), 412);
  EXPECT_EQ(r.Code(), "PreconditionFailed");
  r = Post("shared", FormBody({{"key", "anon"}}, "x"));  // anonymous, bucket not public
  EXPECT_EQ(r.status(), 403);
  EXPECT_EQ(r.Code(), "AccessDenied");
  r = Post("shared", FormBody({{"acl", "private"}}, "x"));
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(r.Code(), "InvalidArgument");
  EXPECT_TRUE(Contains(r.body, "Bucket POST must contain a field named &apos;key&apos;."))
      << r.body;
  r = Post("shared", good.substr(0, good.size() - 20));  // no closing boundary
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(r.Code(), "MalformedPOSTRequest");
  EXPECT_FALSE(ObjectExists("shared", "k"));
  EXPECT_FALSE(ObjectExists("shared", "anon"));
  EXPECT_EQ(Post("shared", good).status(), 204);
  EXPECT_TRUE(ObjectExists("shared", "k"));
}

}  // namespace
}  // namespace cubby::s3api
