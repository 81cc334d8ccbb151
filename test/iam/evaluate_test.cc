// The Authorizer's one evaluation (iam/authorize.h): each mechanism that allows (bucket ACL,
// object ACL, bucket policy by ARN / canonical id / account, user policy), explicit Deny beating
// every Allow, anonymous callers, block public access and condition keys, against a real store.
#include <gtest/gtest.h>

#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iam/acl.h"
#include "iam/authorize.h"
#include "storage/users.h"
#include "test/storage/test_util.h"
#include "text/time.h"

namespace cubby::iam {
namespace {

using storage::AclGrant;
using storage::AclRecord;
using storage::testing::Bucket;
using storage::testing::OpenOrDie;
using storage::testing::SmallOptions;
using storage::testing::TempDir;

class EvaluateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(SmallOptions(dir_.path()));
    ASSERT_NE(store_, nullptr);
    for (const char* name : {"alice", "bob", "carol"}) {
      storage::UserRecord candidate;
      candidate.name = name;
      storage::Result<storage::UserRecord> user = store_->CreateUser(candidate);
      ASSERT_TRUE(user.ok()) << user.status().ToString();
      users_[name] = *user;
      storage::AccessKeyRecord key;
      key.access_key_id = std::string("AK") + name;
      key.user_id = user->user_id;
      keys_[name] = key;
    }
    storage::Result<std::string> account = store_->GetAccountId();
    ASSERT_TRUE(account.ok());
    account_ = *account;
    storage::BucketRecord b = Bucket("alices");
    b.owner_id = id("alice");
    b.acl = storage::BucketAclFor(b.owner_id, storage::AccessMode::kNone);
    ASSERT_OK(store_->CreateBucket(b));
    ASSERT_TRUE(storage::testing::PutObject(*store_, "alices", "doc", "data").ok());
  }

  const std::string& id(const std::string& name) { return users_[name].user_id; }
  std::string arn(const std::string& name) { return storage::UserArn(account_, users_[name]); }
  Identity Who(const std::string& name) {
    return name == "anonymous" ? Identity::Anonymous() : Identity::Key(keys_[name]);
  }
  void SetBucket(const std::function<void(storage::BucketRecord*)>& change) {
    ASSERT_OK(store_->UpdateBucket("alices", [&](storage::BucketRecord* b) {
      change(b);
      return storage::Status::Ok();
    }));
  }
  void SetObjectAcl(const AclRecord& acl) {
    storage::Result<storage::ObjectMeta> meta = store_->HeadObject("alices", "doc");
    ASSERT_TRUE(meta.ok());
    meta->owner_id = id("alice");
    meta->acl = acl;
    ASSERT_TRUE(store_->UpdateObjectMeta("alices", "doc", *meta).ok());
  }
  Verdict Ask(const Authorizer& a, const std::string& who, Action action,
              const std::string& key = "doc", const RequestFacts& facts = {}) {
    return a.Authorize(Who(who), action, {"alices", key}, facts).verdict;
  }

  TempDir dir_;
  std::unique_ptr<storage::Store> store_;
  std::map<std::string, storage::UserRecord> users_;
  std::map<std::string, storage::AccessKeyRecord> keys_;
  std::string account_;
};

constexpr Verdict kAllow = Verdict::kAllow;
constexpr Verdict kDeny = Verdict::kDeny;

std::string AllowPolicy(const std::string& principal, const std::string& action,
                        const std::string& resource, const std::string& effect = "Allow",
                        const std::string& condition = "") {
  std::string s = R"({"Version":"2012-10-17","Statement":[{"Effect":")" + effect + "\",";
  if (!principal.empty()) s += R"("Principal":)" + principal + ",";
  s += R"("Action":")" + action + R"(","Resource":")" + resource + "\"";
  if (!condition.empty()) s += R"(,"Condition":)" + condition;
  return s + "}]}";
}

TEST_F(EvaluateTest, OwnerThroughAclOthersDenied) {
  const Authorizer a(store_.get());
  EXPECT_EQ(Ask(a, "alice", Action::kGetObject), kAllow);
  EXPECT_EQ(Ask(a, "alice", Action::kPutBucketPolicy, ""), kAllow);  // not grantable: owner's
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject), kDeny);
  EXPECT_EQ(Ask(a, "bob", Action::kListBucket, ""), kDeny);
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject, "missing"), kDeny);  // no NoSuchKey leak
  EXPECT_EQ(Ask(a, "alice", Action::kGetObject, "missing"), kAllow);
  EXPECT_EQ(Ask(a, "anonymous", Action::kGetObject), kDeny);
}

// Each mechanism on its own lets bob read "doc"; the table resets the bucket between rows.
TEST_F(EvaluateTest, EachMechanismAllows) {
  struct Case {
    std::string name;
    std::string bucket_policy;
    std::vector<AclGrant> bucket_grants;
    std::vector<AclGrant> object_grants;
    std::string bob_policy;
    Action action;
    Verdict bob, carol;
  };
  const std::string obj = "arn:aws:s3:::alices/doc";
  const std::vector<Case> cases = {
      {"nothing", "", {}, {}, "", Action::kGetObject, kDeny, kDeny},
      {"bucket ACL READ by id lists",
       "",
       {{GranteeType::kCanonicalUser, id("bob"), AclPermission::kRead}},
       {},
       "",
       Action::kListBucket,
       kAllow,
       kDeny},
      {"bucket ACL READ does not read objects",
       "",
       {{GranteeType::kCanonicalUser, id("bob"), AclPermission::kRead}},
       {},
       "",
       Action::kGetObject,
       kDeny,
       kDeny},
      {"object ACL READ by id",
       "",
       {},
       {{GranteeType::kCanonicalUser, id("bob"), AclPermission::kRead}},
       "",
       Action::kGetObject,
       kAllow,
       kDeny},
      {"object ACL READ to AuthenticatedUsers",
       "",
       {},
       {{GranteeType::kGroup, std::string(kAuthenticatedUsersGroup), AclPermission::kRead}},
       "",
       Action::kGetObject,
       kAllow,
       kAllow},
      {"bucket ACL WRITE",
       "",
       {{GranteeType::kCanonicalUser, id("bob"), AclPermission::kWrite}},
       {},
       "",
       Action::kPutObject,
       kAllow,
       kDeny},
      {"bucket policy by ARN",
       AllowPolicy(R"({"AWS":")" + arn("bob") + "\"}", "s3:GetObject", obj),
       {},
       {},
       "",
       Action::kGetObject,
       kAllow,
       kDeny},
      {"bucket policy by canonical id",
       AllowPolicy(R"({"CanonicalUser":")" + id("bob") + "\"}", "s3:GetObject", obj),
       {},
       {},
       "",
       Action::kGetObject,
       kAllow,
       kDeny},
      {"bucket policy by account",
       AllowPolicy(R"({"AWS":")" + account_ + "\"}", "s3:GetObject", obj),
       {},
       {},
       "",
       Action::kGetObject,
       kAllow,
       kAllow},
      {"bucket policy: another action",
       AllowPolicy(R"({"AWS":")" + arn("bob") + "\"}", "s3:PutObject", obj),
       {},
       {},
       "",
       Action::kGetObject,
       kDeny,
       kDeny},
      {"user policy",
       "",
       {},
       {},
       AllowPolicy("", "s3:GetObject", "arn:aws:s3:::alices/*"),
       Action::kGetObject,
       kAllow,
       kDeny},
      {"user policy: another bucket",
       "",
       {},
       {},
       AllowPolicy("", "s3:GetObject", "arn:aws:s3:::other/*"),
       Action::kGetObject,
       kDeny,
       kDeny},
      {"bucket Deny beats object ACL",
       AllowPolicy(R"({"AWS":")" + arn("bob") + "\"}", "s3:GetObject", obj, "Deny"),
       {},
       {{GranteeType::kCanonicalUser, id("bob"), AclPermission::kRead}},
       "",
       Action::kGetObject,
       kDeny,
       kDeny},
      {"user Deny beats bucket policy Allow",
       AllowPolicy(R"({"AWS":")" + account_ + "\"}", "s3:GetObject", obj),
       {},
       {},
       AllowPolicy("", "s3:*", "*", "Deny"),
       Action::kGetObject,
       kDeny,
       kAllow},
  };
  const Authorizer a(store_.get());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SetBucket([&](storage::BucketRecord* b) {
      b->policy = c.bucket_policy;
      b->acl = storage::BucketAclFor(id("alice"), storage::AccessMode::kNone);
      for (const AclGrant& g : c.bucket_grants) b->acl.grants.push_back(g);
    });
    AclRecord object_acl = storage::BucketAclFor(id("alice"), storage::AccessMode::kNone);
    for (const AclGrant& g : c.object_grants) object_acl.grants.push_back(g);
    SetObjectAcl(object_acl);
    if (c.bob_policy.empty()) {
      (void)store_->DeleteUserPolicy("bob", "p");  // absent on the first rows: ignored
    } else {
      ASSERT_OK(store_->PutUserPolicy("bob", "p", c.bob_policy));
    }
    const std::string key = c.action == Action::kListBucket ? "" : "doc";
    EXPECT_EQ(Ask(a, "bob", c.action, key), c.bob);
    EXPECT_EQ(Ask(a, "carol", c.action, key), c.carol);
  }
}

TEST_F(EvaluateTest, DenyBeatsTheOwner) {
  const Authorizer a(store_.get());
  SetBucket([&](storage::BucketRecord* b) {
    b->policy = AllowPolicy(R"("*")", "s3:DeleteObject", "arn:aws:s3:::alices/*", "Deny");
  });
  EXPECT_EQ(Ask(a, "alice", Action::kDeleteObject), kDeny);
  EXPECT_EQ(Ask(a, "alice", Action::kGetObject), kAllow);
}

TEST_F(EvaluateTest, AnonymousAndBlockPublicAccess) {
  const Authorizer a(store_.get());
  SetBucket([&](storage::BucketRecord* b) {
    b->policy = AllowPolicy(R"("*")", "s3:GetObject", "arn:aws:s3:::alices/*");
  });
  EXPECT_EQ(Ask(a, "anonymous", Action::kGetObject), kAllow);
  EXPECT_EQ(Ask(a, "anonymous", Action::kPutObject), kDeny);
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject), kAllow);
  SetBucket([&](storage::BucketRecord* b) {
    b->public_access_block = {.configured = true, .restrict_public_buckets = true};
  });
  EXPECT_EQ(Ask(a, "anonymous", Action::kGetObject), kDeny);
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject), kDeny);
  EXPECT_EQ(Ask(a, "alice", Action::kGetObject), kAllow);
  // Public ACLs, then IgnorePublicAcls.
  SetBucket([&](storage::BucketRecord* b) {
    b->policy.clear();
    b->public_access_block = {};
  });
  SetObjectAcl(ExpandCanned(CannedAcl::kPublicRead, id("alice"), id("alice"), false));
  EXPECT_EQ(Ask(a, "anonymous", Action::kGetObject), kAllow);
  EXPECT_EQ(Ask(a, "anonymous", Action::kListBucket, ""), kDeny);
  SetBucket([&](storage::BucketRecord* b) {
    b->public_access_block = {.configured = true, .ignore_public_acls = true};
  });
  EXPECT_EQ(Ask(a, "anonymous", Action::kGetObject), kDeny);
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject), kDeny);
  EXPECT_EQ(Ask(a, "alice", Action::kGetObject), kAllow);
  // A missing bucket.
  EXPECT_EQ(a.Authorize(Who("anonymous"), Action::kGetObject, {"nope", "k"}, {}).verdict,
            Verdict::kNoSuchBucket);
}

TEST_F(EvaluateTest, ConditionKeys) {
  const Authorizer a(store_.get());
  const std::string bob = R"({"AWS":")" + arn("bob") + "\"}";
  struct Case {
    std::string name;
    std::string action, resource, condition;
    Action asked;
    RequestFacts facts;
    Verdict verdict;
  };
  const std::string obj = "arn:aws:s3:::alices/*";
  const std::vector<Case> cases = {
      {"source ip in",
       "s3:GetObject",
       obj,
       R"({"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}})",
       Action::kGetObject,
       {.source_ip = "10.1.2.3"},
       kAllow},
      {"source ip out",
       "s3:GetObject",
       obj,
       R"({"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}})",
       Action::kGetObject,
       {.source_ip = "127.0.0.1"},
       kDeny},
      {"secure transport",
       "s3:GetObject",
       obj,
       R"({"Bool":{"aws:SecureTransport":"true"}})",
       Action::kGetObject,
       {.secure_transport = true},
       kAllow},
      {"insecure transport",
       "s3:GetObject",
       obj,
       R"({"Bool":{"aws:SecureTransport":"true"}})",
       Action::kGetObject,
       {},
       kDeny},
      {"prefix",
       "s3:ListBucket",
       "arn:aws:s3:::alices",
       R"({"StringLike":{"s3:prefix":"home/*"}})",
       Action::kListBucket,
       {.prefix = "home/x"},
       kAllow},
      {"other prefix",
       "s3:ListBucket",
       "arn:aws:s3:::alices",
       R"({"StringLike":{"s3:prefix":"home/*"}})",
       Action::kListBucket,
       {.prefix = "etc/"},
       kDeny},
      {"no prefix",
       "s3:ListBucket",
       "arn:aws:s3:::alices",
       R"({"StringLike":{"s3:prefix":"home/*"}})",
       Action::kListBucket,
       {},
       kDeny},
      {"username",
       "s3:GetObject",
       "arn:aws:s3:::alices/${aws:username}/*",
       "",
       Action::kGetObject,
       {},
       kDeny},
      {"signature version",
       "s3:GetObject",
       obj,
       R"({"StringEquals":{"s3:signatureversion":"AWS4-HMAC-SHA256"}})",
       Action::kGetObject,
       {.signature_version = "AWS4-HMAC-SHA256"},
       kAllow},
      {"epoch time",
       "s3:GetObject",
       obj,
       R"({"NumericGreaterThan":{"aws:EpochTime":"1000"}})",
       Action::kGetObject,
       {.now = std::chrono::system_clock::now()},
       kAllow},
      {"current time",
       "s3:GetObject",
       obj,
       R"({"DateLessThan":{"aws:CurrentTime":"2000-01-01T00:00:00Z"}})",
       Action::kGetObject,
       {.now = std::chrono::system_clock::now()},
       kDeny},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SetBucket([&](storage::BucketRecord* b) {
      b->policy = AllowPolicy(bob, c.action, c.resource, "Allow", c.condition);
    });
    const std::string key = c.asked == Action::kListBucket ? "" : "doc";
    EXPECT_EQ(Ask(a, "bob", c.asked, key, c.facts), c.verdict);
  }
  // ${aws:username} in a resource: bob's own folder.
  SetBucket([&](storage::BucketRecord* b) {
    b->policy = AllowPolicy(bob, "s3:GetObject", "arn:aws:s3:::alices/${aws:username}/*");
  });
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject, "bob/x"), kAllow);
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject, "alice/x"), kDeny);
}

// Headers of a test request (iam::RequestHeaders over a map).
class MapHeaders final : public RequestHeaders {
 public:
  explicit MapHeaders(std::map<std::string, std::string> headers) : headers_(std::move(headers)) {}
  std::optional<std::string_view> Find(std::string_view name) const override {
    auto it = headers_.find(std::string(name));
    if (it == headers_.end()) return std::nullopt;
    return std::string_view(it->second);
  }

 private:
  std::map<std::string, std::string> headers_;
};

// Each key cubby fills, on an action AWS fills it for: an Allow for everyone conditioned on it
// lets bob in when the request carries the value, and keeps him out (the ACL denies) when the
// key is absent, or when the action is not one the key applies to.
TEST_F(EvaluateTest, FilledKeys) {
  const Authorizer a(store_.get());
  ASSERT_OK(store_->TagUser("bob", {{"team", "red"}}));
  SetBucket([](storage::BucketRecord* b) { b->tags = {{"env", "prod"}}; });
  {
    storage::Result<storage::ObjectMeta> meta = store_->HeadObject("alices", "doc");
    ASSERT_TRUE(meta.ok());
    ASSERT_TRUE(store_->PutObjectTags("alices", "doc", "", {{"Project", "X"}}).ok());
    ASSERT_TRUE(storage::testing::PutObject(*store_, "alices", "untagged", "data").ok());
  }
  const std::string in_two_years = [] {
    const auto t = std::chrono::system_clock::now() + std::chrono::hours(24 * 730);
    const time_t secs = std::chrono::system_clock::to_time_t(t);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(buf);
  }();
  using Headers = std::map<std::string, std::string>;
  struct Row {
    std::string name;
    std::string condition;
    Action asked;
    Headers headers;
    std::function<void(RequestFacts*)> facts;  // null: none beyond the headers
    Verdict want;
    std::string who = "bob";
    std::string key = "doc";
    std::string version_id = {};
  };
  const std::string kSse = R"({"StringEquals":{"s3:x-amz-server-side-encryption":"AES256"}})";
  const auto copy = [](RequestFacts* f) { f->copy_source = true; };
  const std::vector<Row> rows = {
      {"sse filled",
       kSse,
       Action::kPutObject,
       {{"x-amz-server-side-encryption", "AES256"}},
       {},
       kAllow},
      {"sse other",
       kSse,
       Action::kPutObject,
       {{"x-amz-server-side-encryption", "aws:kms"}},
       {},
       kDeny},
      {"sse absent", kSse, Action::kPutObject, {}, {}, kDeny},
      {"sse not on GetObject",
       kSse,
       Action::kGetObject,
       {{"x-amz-server-side-encryption", "AES256"}},
       {},
       kDeny},
      {"sse absent, negated",
       R"({"StringNotEquals":{"s3:x-amz-server-side-encryption":"AES256"}})",
       Action::kPutObject,
       {},
       {},
       kAllow},
      {"kms key id",
       R"({"StringLike":{"s3:x-amz-server-side-encryption-aws-kms-key-id":"k-*"}})",
       Action::kPutObject,
       {{"x-amz-server-side-encryption-aws-kms-key-id", "k-1"}},
       {},
       kAllow},
      {"kms key id absent",
       R"({"StringLike":{"s3:x-amz-server-side-encryption-aws-kms-key-id":"k-*"}})",
       Action::kPutObject,
       {},
       {},
       kDeny},
      {"sse-c algorithm",
       R"({"StringEquals":{"s3:x-amz-server-side-encryption-customer-algorithm":"AES256"}})",
       Action::kPutObject,
       {{"x-amz-server-side-encryption-customer-algorithm", "AES256"}},
       {},
       kAllow},
      {"sse-c algorithm absent, IfExists",
       R"({"StringEqualsIfExists":{"s3:x-amz-server-side-encryption-customer-algorithm":"x"}})",
       Action::kPutObject,
       {},
       {},
       kAllow},
      {"canned acl",
       R"({"StringEquals":{"s3:x-amz-acl":"public-read"}})",
       Action::kPutObject,
       {},
       [](RequestFacts* f) { f->canned_acl = "public-read"; },
       kAllow},
      {"grant read",
       R"({"StringEquals":{"s3:x-amz-grant-read":"id=abc"}})",
       Action::kPutObject,
       {{"x-amz-grant-read", "id=abc"}},
       {},
       kAllow},
      {"grant read absent",
       R"({"StringEquals":{"s3:x-amz-grant-read":"id=abc"}})",
       Action::kPutObject,
       {},
       {},
       kDeny},
      {"grant write",
       R"({"StringEquals":{"s3:x-amz-grant-write":"id=abc"}})",
       Action::kPutObjectAcl,
       {{"x-amz-grant-write", "id=abc"}},
       {},
       kAllow},
      {"grant read-acp",
       R"({"StringEquals":{"s3:x-amz-grant-read-acp":"id=abc"}})",
       Action::kPutObject,
       {{"x-amz-grant-read-acp", "id=abc"}},
       {},
       kAllow},
      {"grant write-acp",
       R"({"StringEquals":{"s3:x-amz-grant-write-acp":"id=abc"}})",
       Action::kPutObject,
       {{"x-amz-grant-write-acp", "id=abc"}},
       {},
       kAllow},
      {"grant full control",
       R"({"StringEquals":{"s3:x-amz-grant-full-control":"id=abc"}})",
       Action::kPutObjectAcl,
       {{"x-amz-grant-full-control", "id=abc"}},
       {},
       kAllow},
      {"copy source",
       R"({"StringLike":{"s3:x-amz-copy-source":"src/a b*"}})",
       Action::kPutObject,
       {{"x-amz-copy-source", "/src/a%20b.txt?versionId=1"}},
       copy,
       kAllow},
      {"copy source other",
       R"({"StringLike":{"s3:x-amz-copy-source":"src/a b*"}})",
       Action::kPutObject,
       {{"x-amz-copy-source", "other/a%20b.txt"}},
       copy,
       kDeny},
      {"copy source absent",
       R"({"StringLike":{"s3:x-amz-copy-source":"src/*"}})",
       Action::kPutObject,
       {},
       {},
       kDeny},
      {"metadata directive",
       R"({"StringEquals":{"s3:x-amz-metadata-directive":"REPLACE"}})",
       Action::kPutObject,
       {{"x-amz-copy-source", "src/k"}, {"x-amz-metadata-directive", "REPLACE"}},
       copy,
       kAllow},
      {"metadata directive absent",
       R"({"StringEquals":{"s3:x-amz-metadata-directive":"REPLACE"}})",
       Action::kPutObject,
       {{"x-amz-copy-source", "src/k"}},
       copy,
       kDeny},
      {"storage class",
       R"({"StringEquals":{"s3:x-amz-storage-class":"STANDARD_IA"}})",
       Action::kPutObject,
       {{"x-amz-storage-class", "STANDARD_IA"}},
       {},
       kAllow},
      {"content sha256",
       R"({"StringNotEquals":{"s3:x-amz-content-sha256":"UNSIGNED-PAYLOAD"}})",
       Action::kGetObject,
       {{"x-amz-content-sha256", "UNSIGNED-PAYLOAD"}},
       {},
       kDeny},
      {"content sha256 signed",
       R"({"StringNotEquals":{"s3:x-amz-content-sha256":"UNSIGNED-PAYLOAD"}})",
       Action::kGetObject,
       {{"x-amz-content-sha256", "e3b0c442"}},
       {},
       kAllow},
      {"website redirect",
       R"({"StringLike":{"s3:x-amz-website-redirect-location":"/*"}})",
       Action::kPutObject,
       {{"x-amz-website-redirect-location", "/x"}},
       {},
       kAllow},
      {"if-none-match",
       R"({"StringEquals":{"s3:if-none-match":"*"}})",
       Action::kPutObject,
       {{"if-none-match", "*"}},
       {},
       kAllow},
      {"request tag",
       R"({"StringEquals":{"s3:RequestObjectTag/Project":"X"}})",
       Action::kPutObject,
       {{"x-amz-tagging", "Project=X&b=2"}},
       {},
       kAllow},
      {"request tag, case of the tag key",
       R"({"StringEquals":{"s3:RequestObjectTag/project":"X"}})",
       Action::kPutObject,
       {{"x-amz-tagging", "Project=X"}},
       {},
       kDeny},
      {"request tag absent",
       R"({"StringEquals":{"s3:RequestObjectTag/Project":"X"}})",
       Action::kPutObject,
       {},
       {},
       kDeny},
      {"request tag keys, all",
       R"({"ForAllValues:StringEquals":{"s3:RequestObjectTagKeys":["Project","b"]}})",
       Action::kPutObject,
       {{"x-amz-tagging", "Project=X&b=2"}},
       {},
       kAllow},
      {"request tag keys, one too many",
       R"({"ForAllValues:StringEquals":{"s3:RequestObjectTagKeys":["Project"]}})",
       Action::kPutObject,
       {{"x-amz-tagging", "Project=X&b=2"}},
       {},
       kDeny},
      {"request tag keys, any, absent",
       R"({"ForAnyValue:StringEquals":{"s3:RequestObjectTagKeys":["Project"]}})",
       Action::kPutObject,
       {},
       {},
       kDeny},
      {"request tag from a body",
       R"({"StringEquals":{"s3:RequestObjectTag/Project":"Y"}})",
       Action::kPutObjectTagging,
       {{"x-amz-tagging", "Project=X"}},
       [](RequestFacts* f) {
         static const std::vector<std::pair<std::string, std::string>> tags = {{"Project", "Y"}};
         f->request_tags = &tags;
       },
       kAllow},
      {"existing tag",
       R"({"StringEquals":{"s3:ExistingObjectTag/Project":"X"}})",
       Action::kGetObject,
       {},
       {},
       kAllow},
      {"existing tag, untagged object",
       R"({"StringEquals":{"s3:ExistingObjectTag/Project":"X"}})",
       Action::kGetObject,
       {},
       {},
       kDeny,
       "bob",
       "untagged"},
      {"existing tag, missing object",
       R"({"StringEquals":{"s3:ExistingObjectTag/Project":"X"}})",
       Action::kGetObject,
       {},
       {},
       kDeny,
       "bob",
       "missing"},
      {"existing tag on GetObjectTagging",
       R"({"StringEquals":{"s3:ExistingObjectTag/Project":"X"}})",
       Action::kGetObjectTagging,
       {},
       {},
       kAllow},
      {"existing tag not on PutObject",
       R"({"StringEquals":{"s3:ExistingObjectTag/Project":"X"}})",
       Action::kPutObject,
       {},
       {},
       kDeny},
      {"version id",
       R"({"StringEquals":{"s3:VersionId":"v1"}})",
       Action::kGetObjectVersion,
       {},
       {},
       kAllow,
       "bob",
       "doc",
       "v1"},
      {"version id absent",
       R"({"StringEquals":{"s3:VersionId":"v1"}})",
       Action::kGetObject,
       {},
       {},
       kDeny},
      {"lock mode",
       R"({"StringEquals":{"s3:object-lock-mode":"GOVERNANCE"}})",
       Action::kPutObject,
       {{"x-amz-object-lock-mode", "GOVERNANCE"}},
       {},
       kAllow},
      {"lock legal hold",
       R"({"StringEquals":{"s3:object-lock-legal-hold":"ON"}})",
       Action::kPutObject,
       {{"x-amz-object-lock-legal-hold", "ON"}},
       {},
       kAllow},
      {"lock retain until",
       R"({"DateGreaterThan":{"s3:object-lock-retain-until-date":"2030-01-01T00:00:00Z"}})",
       Action::kPutObject,
       {{"x-amz-object-lock-retain-until-date", "2031-06-01T00:00:00.000Z"}},
       {},
       kAllow},
      {"lock remaining days",
       R"({"NumericGreaterThan":{"s3:object-lock-remaining-retention-days":"700"}})",
       Action::kPutObject,
       {{"x-amz-object-lock-retain-until-date", in_two_years}},
       [](RequestFacts* f) { f->now = std::chrono::system_clock::now(); },
       kAllow},
      {"lock remaining days, too few",
       R"({"NumericGreaterThan":{"s3:object-lock-remaining-retention-days":"800"}})",
       Action::kPutObject,
       {{"x-amz-object-lock-retain-until-date", in_two_years}},
       [](RequestFacts* f) { f->now = std::chrono::system_clock::now(); },
       kDeny},
      {"prefix on ListBucketVersions",
       R"({"StringLike":{"s3:prefix":"home/*"}})",
       Action::kListBucketVersions,
       {},
       [](RequestFacts* f) { f->prefix = "home/x"; },
       kAllow,
       "bob",
       ""},
      {"signature age",
       R"({"NumericLessThan":{"s3:signatureAge":"600000"}})",
       Action::kGetObject,
       {},
       [](RequestFacts* f) {
         f->signature_version = "AWS4-HMAC-SHA256";
         f->signature_date = "20200101T000000Z";
         f->now = text::FromUnixMillis(1577836801000);  // a second later
       },
       kAllow},
      {"signature too old",
       R"({"NumericLessThan":{"s3:signatureAge":"600000"}})",
       Action::kGetObject,
       {},
       [](RequestFacts* f) {
         f->signature_version = "AWS4-HMAC-SHA256";
         f->signature_date = "20200101T000000Z";
         f->now = text::FromUnixMillis(1577836800000 + 700000);
       },
       kDeny},
      {"signature age, SigV2",
       R"({"NumericEquals":{"s3:signatureAge":"0"}})",
       Action::kGetObject,
       {},
       [](RequestFacts* f) { f->signature_version = "AWS"; },
       kAllow},
      {"signature age, anonymous",
       R"({"Null":{"s3:signatureAge":"true"}})",
       Action::kGetObject,
       {},
       {},
       kAllow,
       "anonymous"},
      {"tls version",
       R"({"NumericGreaterThanEquals":{"s3:TlsVersion":"1.2"}})",
       Action::kGetObject,
       {},
       [](RequestFacts* f) { f->tls_version = "1.3"; },
       kAllow},
      {"no tls",
       R"({"NumericGreaterThanEquals":{"s3:TlsVersion":"1.2"}})",
       Action::kGetObject,
       {},
       {},
       kDeny},
      {"resource account",
       R"({"StringEquals":{"s3:ResourceAccount":")" + account_ + "\"}}",
       Action::kGetObject,
       {},
       {},
       kAllow},
      {"aws resource account",
       R"({"StringEquals":{"aws:ResourceAccount":")" + account_ + "\"}}",
       Action::kGetObject,
       {},
       {},
       kAllow},
      {"principal arn",
       R"({"ArnEquals":{"aws:PrincipalArn":")" + arn("bob") + "\"}}",
       Action::kGetObject,
       {},
       {},
       kAllow},
      {"principal arn, anonymous",
       R"({"Null":{"aws:PrincipalArn":"true"}})",
       Action::kGetObject,
       {},
       {},
       kAllow,
       "anonymous"},
      {"principal account",
       R"({"StringEquals":{"aws:PrincipalAccount":")" + account_ + "\"}}",
       Action::kGetObject,
       {},
       {},
       kAllow},
      {"principal type",
       R"({"StringEquals":{"aws:PrincipalType":"User"}})",
       Action::kGetObject,
       {},
       {},
       kAllow},
      {"principal tag",
       R"({"StringEquals":{"aws:PrincipalTag/team":"red"}})",
       Action::kGetObject,
       {},
       {},
       kAllow},
      {"principal tag other",
       R"({"StringEquals":{"aws:PrincipalTag/team":"blue"}})",
       Action::kGetObject,
       {},
       {},
       kDeny},
      {"principal tag, a user without it",
       R"({"StringEquals":{"aws:PrincipalTag/team":"red"}})",
       Action::kGetObject,
       {},
       {},
       kDeny,
       "carol"},
      {"bucket tag",
       R"({"StringEquals":{"s3:BucketTag/env":"prod"}})",
       Action::kGetObject,
       {},
       {},
       kAllow},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    const std::string resource = row.key.empty() ? "arn:aws:s3:::alices" : "arn:aws:s3:::alices/*";
    SetBucket([&](storage::BucketRecord* b) {
      b->policy = AllowPolicy(R"("*")", std::string(ActionName(row.asked)), resource, "Allow",
                              row.condition);
    });
    const MapHeaders headers(row.headers);
    RequestFacts facts;
    facts.headers = &headers;
    if (row.facts) row.facts(&facts);
    const Resource asked{.bucket = "alices", .key = row.key, .version_id = row.version_id};
    EXPECT_EQ(a.Authorize(Who(row.who), row.asked, asked, facts).verdict, row.want);
  }
}

// s3:LocationConstraint and s3:x-amz-object-ownership on CreateBucket, through a user policy
// (a bucket to be made has no bucket policy): a Deny unless the body named us-east-1.
TEST_F(EvaluateTest, CreateBucketKeys) {
  const Authorizer a(store_.get());
  ASSERT_OK(store_->PutUserPolicy(
      "bob", "p",
      R"({"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:CreateBucket",)"
      R"("Resource":"*","Condition":{"StringNotEquals":{"s3:LocationConstraint":"us-east-1"}}},)"
      R"({"Effect":"Deny","Action":"s3:CreateBucket","Resource":"*","Condition":)"
      R"({"StringEquals":{"s3:x-amz-object-ownership":"ObjectWriter"}}}]})"));
  struct Row {
    std::optional<std::string_view> location;
    std::map<std::string, std::string> headers;
    Verdict want;
  };
  const Row rows[] = {
      {"us-east-1", {}, kAllow},
      {"eu-west-1", {}, kDeny},
      {std::nullopt, {}, kDeny},  // absent: StringNotEquals holds
      {"us-east-1", {{"x-amz-object-ownership", "ObjectWriter"}}, kDeny},
      {"us-east-1", {{"x-amz-object-ownership", "BucketOwnerEnforced"}}, kAllow},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(row.location.value_or("(absent)")));
    const MapHeaders headers(row.headers);
    RequestFacts facts;
    facts.headers = &headers;
    facts.location_constraint = row.location;
    EXPECT_EQ(
        a.Authorize(Who("bob"), Action::kCreateBucket, {.bucket = "newbucket"}, facts).verdict,
        row.want);
  }
}

// The cache follows the stored text: a changed policy counts at once.
TEST_F(EvaluateTest, ChangedPoliciesCountAtOnce) {
  const Authorizer a(store_.get());
  const std::string bob = R"({"AWS":")" + arn("bob") + "\"}";
  SetBucket([&](storage::BucketRecord* b) {
    b->policy = AllowPolicy(bob, "s3:GetObject", "arn:aws:s3:::alices/*");
  });
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject), kAllow);
  SetBucket([&](storage::BucketRecord* b) {
    b->policy = AllowPolicy(bob, "s3:PutObject", "arn:aws:s3:::alices/*");
  });
  EXPECT_EQ(Ask(a, "bob", Action::kGetObject), kDeny);
  ASSERT_OK(store_->PutUserPolicy("carol", "p", AllowPolicy("", "s3:GetObject", "*")));
  EXPECT_EQ(Ask(a, "carol", Action::kGetObject), kAllow);
  ASSERT_OK(store_->PutUserPolicy("carol", "p", AllowPolicy("", "s3:PutObject", "*")));
  EXPECT_EQ(Ask(a, "carol", Action::kGetObject), kDeny);
  ASSERT_OK(store_->PutUserPolicy("carol", "p", AllowPolicy("", "s3:GetObject", "*")));
  EXPECT_EQ(Ask(a, "carol", Action::kGetObject), kAllow);
  ASSERT_OK(store_->DeleteUserPolicy("carol", "p"));
  EXPECT_EQ(Ask(a, "carol", Action::kGetObject), kDeny);
  // An ACL grant, and its removal.
  SetBucket([&](storage::BucketRecord* b) {
    b->acl.grants.push_back({GranteeType::kCanonicalUser, id("carol"), AclPermission::kRead});
  });
  EXPECT_EQ(Ask(a, "carol", Action::kListBucket), kAllow);
  SetBucket([&](storage::BucketRecord* b) { b->acl.grants.pop_back(); });
  EXPECT_EQ(Ask(a, "carol", Action::kListBucket), kDeny);
  // A deleted bucket is gone for the next request (the cache held its record).
  ASSERT_OK(store_->DeleteBucket("alices", /*force=*/true));
  EXPECT_EQ(Ask(a, "alice", Action::kListBucket), Verdict::kNoSuchBucket);
  EXPECT_EQ(Ask(a, "anonymous", Action::kListBucket), Verdict::kNoSuchBucket);
}

// Ownership BucketOwnerEnforced: object ACLs stop counting; the bucket owner's FULL_CONTROL.
TEST_F(EvaluateTest, BucketOwnerEnforcedIgnoresObjectAcls) {
  const Authorizer a(store_.get());
  SetObjectAcl(ExpandCanned(CannedAcl::kPublicRead, id("alice"), id("alice"), false));
  EXPECT_EQ(Ask(a, "anonymous", Action::kGetObject), kAllow);
  SetBucket([&](storage::BucketRecord* b) {
    b->object_ownership = ObjectOwnership::kBucketOwnerEnforced;
  });
  EXPECT_EQ(Ask(a, "anonymous", Action::kGetObject), kDeny);
  EXPECT_EQ(Ask(a, "alice", Action::kGetObject), kAllow);
}

}  // namespace
}  // namespace cubby::iam
