// The /_cubby/quota endpoint (issue 17) as a plain function (HandleQuotaRequest) over a real
// Store: the JSON it reads and answers, every error it answers, and the root-only rule.
#include "server/quota_admin.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "s3api/auth/crypto.h"
#include "s3api/auth/signer.h"
#include "text/encoding.h"
#include "text/json.h"

namespace cubby::server {
namespace {

namespace fs = std::filesystem;

constexpr char kRootId[] = "AKIAROOTQUOTATEST001";
constexpr char kRootSecret[] = "root/secret/for/quota/tests/0000000000001";
constexpr char kUserId[] = "AKIAUSERQUOTATEST001";
constexpr char kUserSecret[] = "user/secret/for/quota/tests/0000000000001";

// The value of response header `name` as set (names compared exactly), or "".
std::string HeaderOf(const s3api::HttpResponse& r, std::string_view name) {
  for (const s3api::Header& h : r.headers) {
    if (h.name == name) return h.value;
  }
  return "";
}

class QuotaEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cubby-quota-endpoint-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    storage::StoreOptions options;
    options.path = dir_ + "/db";
    options.sync = false;
    auto opened = storage::Store::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    storage::AccessKeyRecord root{kRootId, storage::SecretKey(kRootSecret), true, {}, "", 1,
                                  "",      storage::KeyStatus::kActive};
    ASSERT_TRUE(store_->PutAccessKey(root).ok());
    storage::AccessKeyRecord user{kUserId, storage::SecretKey(kUserSecret),
                                  false,   {{"b", storage::AccessMode::kReadWrite}},
                                  "ba-1",  1,
                                  "",      storage::KeyStatus::kActive};
    ASSERT_TRUE(store_->PutAccessKey(user).ok());
    storage::BucketRecord b;
    b.name = "b";
    ASSERT_TRUE(store_->CreateBucket(b).ok());
    b.name = "a";
    ASSERT_TRUE(store_->CreateBucket(b).ok());
    auto writer = store_->NewObjectWriter("b");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append("hello").ok());
    ASSERT_TRUE((*writer)->Commit("k", {}).ok());
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  struct Call {
    std::string method = "GET";
    std::string query;
    std::string body;
    std::string id = kRootId;  // empty: anonymous
    std::string secret = kRootSecret;
    std::optional<std::string> signed_sha256;  // what the signature claims; default the body's
  };
  s3api::HttpResponse Send(const Call& c) {
    s3api::HttpRequest request;
    request.method = c.method;
    request.target = "/_cubby/quota" + (c.query.empty() ? "" : "?" + c.query);
    request.request_id = "REQ1";
    request.headers.push_back({"host", "h"});
    request.content_length = c.body.size();
    if (!c.id.empty()) {
      s3api::auth::SignInput in;
      in.method = c.method;
      in.host = "h";
      in.path = "/_cubby/quota";
      in.query = c.query;
      in.payload_sha256 =
          c.signed_sha256 ? *c.signed_sha256 : text::HexEncode(s3api::auth::Sha256(c.body));
      in.access_key_id = c.id;
      in.secret_key = c.secret;
      in.region = "us-east-1";
      in.now = std::chrono::system_clock::now();
      for (const s3api::Header& h : s3api::auth::SignV4(in)) {
        if (h.name != "host") request.headers.push_back(h);
      }
    }
    s3api::StringBodyReader body(c.body);
    const iam::Authorizer authorizer(store_.get());
    return HandleQuotaRequest(
        request, body,
        AdminDoor{*store_, authorizer, "us-east-1", std::chrono::system_clock::now()});
  }
  static std::string Member(const s3api::HttpResponse& r, std::string_view name) {
    text::JsonValue doc;
    if (!text::ParseJson(r.body, 1 << 20, &doc, nullptr)) return "<not json>";
    const text::JsonValue* v = doc.type == text::JsonType::kObject ? doc.Find(name) : nullptr;
    return v != nullptr ? v->text : "<missing>";
  }

  std::string dir_;
  std::unique_ptr<storage::Store> store_;
};

TEST_F(QuotaEndpointTest, SetGetListClear) {
  s3api::HttpResponse r = Send({.method = "GET", .query = "bucket=b"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(
      r.body,
      R"({"bucket":"b","quota":{"bytes":null,"objects":null},"usage":{"bytes":5,"objects":1}})");
  EXPECT_EQ(HeaderOf(r, "Content-Type"), "application/json");

  r = Send({.method = "PUT", .query = "bucket=b", .body = R"({"bytes": 1048576, "objects": 10})"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(
      r.body,
      R"({"bucket":"b","quota":{"bytes":1048576,"objects":10},"usage":{"bytes":5,"objects":1}})");
  EXPECT_EQ(store_->GetBucket("b")->quota, (storage::BucketQuota{.bytes = 1048576, .objects = 10}));

  // One limit alone; null and absent are alike; the largest value.
  r = Send({.method = "PUT",
            .query = "bucket=a",
            .body = R"({"objects":null,"bytes":18446744073709551615})"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(store_->GetBucket("a")->quota, (storage::BucketQuota{.bytes = UINT64_MAX}));

  r = Send({.method = "GET"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(
      r.body,
      R"({"buckets":[)"
      R"({"bucket":"a","quota":{"bytes":18446744073709551615,"objects":null},"usage":{"bytes":0,"objects":0}},)"
      R"({"bucket":"b","quota":{"bytes":1048576,"objects":10},"usage":{"bytes":5,"objects":1}}]})");

  // Both null removes the quota; DELETE does too.
  r = Send({.method = "PUT", .query = "bucket=a", .body = R"({"bytes":null})"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(store_->GetBucket("a")->quota, storage::BucketQuota{});
  r = Send({.method = "DELETE", .query = "bucket=b"});
  EXPECT_EQ(r.status, 204);
  EXPECT_TRUE(r.body.empty());
  EXPECT_EQ(store_->GetBucket("b")->quota, storage::BucketQuota{});
  r = Send({.method = "PUT", .query = "bucket=a", .body = "{}"});
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(QuotaEndpointTest, Errors) {
  struct Case {
    const char* what;
    Call call;
    int status;
    std::string code;
    std::string message;  // empty: not checked
  };
  const std::string big(kMaxQuotaBodyBytes + 1, ' ');
  const std::vector<Case> cases = {
      {"anonymous", {.id = ""}, 403, "AccessDenied", "Access Denied"},
      {"not root", {.id = kUserId, .secret = kUserSecret}, 403, "AccessDenied", ""},
      {"not root PUT",
       {.method = "PUT", .query = "bucket=b", .body = "{}", .id = kUserId, .secret = kUserSecret},
       403,
       "AccessDenied",
       ""},
      {"bad signature", {.secret = kUserSecret}, 403, "SignatureDoesNotMatch", ""},
      {"unknown key", {.id = "AKIANOSUCHKEY0000000"}, 403, "InvalidAccessKeyId", ""},
      {"method", {.method = "POST", .query = "bucket=b"}, 405, "MethodNotAllowed", ""},
      {"no such bucket GET", {.query = "bucket=nope"}, 404, "NoSuchBucket", ""},
      {"no such bucket PUT",
       {.method = "PUT", .query = "bucket=nope", .body = "{}"},
       404,
       "NoSuchBucket",
       ""},
      {"no such bucket DELETE",
       {.method = "DELETE", .query = "bucket=nope"},
       404,
       "NoSuchBucket",
       ""},
      {"PUT without bucket",
       {.method = "PUT", .body = "{}"},
       400,
       "InvalidArgument",
       "the bucket query parameter (a bucket name) is required"},
      {"DELETE without bucket", {.method = "DELETE"}, 400, "InvalidArgument", ""},
      {"empty bucket", {.query = "bucket="}, 400, "InvalidArgument", ""},
      {"not JSON",
       {.method = "PUT", .query = "bucket=b", .body = "{bytes: 1}"},
       400,
       "InvalidArgument",
       ""},
      {"empty body", {.method = "PUT", .query = "bucket=b"}, 400, "InvalidArgument", ""},
      {"not an object",
       {.method = "PUT", .query = "bucket=b", .body = "[1]"},
       400,
       "InvalidArgument",
       R"(the body must be a JSON object: {"bytes": N | null, "objects": M | null})"},
      {"negative",
       {.method = "PUT", .query = "bucket=b", .body = R"({"bytes":-1})"},
       400,
       "InvalidArgument",
       R"("bytes" must be null or a whole number from 0 to 18446744073709551615 written )"
       "without sign, fraction or exponent"},
      {"fraction",
       {.method = "PUT", .query = "bucket=b", .body = R"({"objects":1.5})"},
       400,
       "InvalidArgument",
       ""},
      {"exponent",
       {.method = "PUT", .query = "bucket=b", .body = R"({"objects":1e3})"},
       400,
       "InvalidArgument",
       ""},
      {"too large",
       {.method = "PUT", .query = "bucket=b", .body = R"({"bytes":18446744073709551616})"},
       400,
       "InvalidArgument",
       ""},
      {"string",
       {.method = "PUT", .query = "bucket=b", .body = R"({"bytes":"5"})"},
       400,
       "InvalidArgument",
       ""},
      {"bool",
       {.method = "PUT", .query = "bucket=b", .body = R"({"bytes":true})"},
       400,
       "InvalidArgument",
       ""},
      {"unknown member",
       {.method = "PUT", .query = "bucket=b", .body = R"({"byte":5})"},
       400,
       "InvalidArgument",
       R"(unknown member "byte": only "bytes" and "objects" are allowed)"},
      {"twice",
       {.method = "PUT", .query = "bucket=b", .body = R"({"bytes":5,"bytes":6})"},
       400,
       "InvalidArgument",
       R"("bytes" is given twice)"},
      {"body too large",
       {.method = "PUT", .query = "bucket=b", .body = "{}" + big},
       400,
       "InvalidArgument",
       "the body is larger than 4096 bytes"},
      {"body not what was signed",
       {.method = "PUT",
        .query = "bucket=b",
        .body = R"({"bytes":1})",
        .signed_sha256 = text::HexEncode(s3api::auth::Sha256(R"({"bytes":2})"))},
       400,
       "XAmzContentSHA256Mismatch",
       ""},
  };
  for (const Case& c : cases) {
    s3api::HttpResponse r = Send(c.call);
    EXPECT_EQ(r.status, c.status) << c.what << ": " << r.body;
    EXPECT_EQ(Member(r, "code"), c.code) << c.what;
    if (!c.message.empty()) {
      EXPECT_EQ(Member(r, "message"), c.message) << c.what;
    }
    EXPECT_EQ(HeaderOf(r, "Content-Type"), "application/json") << c.what;
  }
  // Nothing changed.
  EXPECT_EQ(store_->GetBucket("b")->quota, storage::BucketQuota{});
  s3api::HttpResponse method = Send({.method = "POST"});
  EXPECT_EQ(HeaderOf(method, "Allow"), "GET, PUT, DELETE");
}

// A user (not root, not a COSI key) may call what its policies allow: cubby:GetBucketQuota on
// bucket b reads b's quota, and nothing else (no listing of all buckets, no PUT, no other
// bucket); an explicit Deny wins over an Allow.
TEST_F(QuotaEndpointTest, UserPoliciesGrantAdminActions) {
  storage::UserRecord alice;
  alice.name = "alice";
  alice.policies["read-b"] = R"({"Version":"2012-10-17","Statement":[
      {"Effect":"Allow","Action":"cubby:GetBucketQuota","Resource":"arn:aws:s3:::b"},
      {"Effect":"Allow","Action":"cubby:PutBucketQuota","Resource":"*"},
      {"Effect":"Deny","Action":"cubby:PutBucketQuota","Resource":"arn:aws:s3:::b"}]})";
  auto made = store_->CreateUser(alice);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const std::string id = "AKIAALICE00000000000", secret = "alice-secret-0123456789";
  storage::AccessKeyRecord key{id, storage::SecretKey(secret), false, {}, "", 1, made->user_id,
                               storage::KeyStatus::kActive};
  ASSERT_TRUE(store_->PutAccessKey(key).ok());

  s3api::HttpResponse read = Send({.query = "bucket=b", .id = id, .secret = secret});
  EXPECT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(Send({.id = id, .secret = secret}).status, 403);  // every bucket: resource "*"
  EXPECT_EQ(Send({.query = "bucket=nope", .id = id, .secret = secret}).status, 403);
  const s3api::HttpResponse put = Send(
      {.method = "PUT", .query = "bucket=b", .body = R"({"bytes":1})", .id = id, .secret = secret});
  EXPECT_EQ(put.status, 403) << put.body;  // denied on b although allowed on "*"
  EXPECT_EQ(Send({.method = "DELETE", .query = "bucket=b", .id = id, .secret = secret}).status,
            403);
}

}  // namespace
}  // namespace cubby::server
