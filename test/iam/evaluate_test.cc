// The Authorizer's one evaluation (iam/authorize.h): each mechanism that allows (bucket ACL,
// object ACL, bucket policy by ARN / canonical id / account, user policy), explicit Deny beating
// every Allow, anonymous callers, block public access and condition keys, against a real store.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "iam/acl.h"
#include "iam/authorize.h"
#include "storage/users.h"
#include "test/storage/test_util.h"

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
    b->acl.grants.push_back(
        {GranteeType::kCanonicalUser, id("carol"), AclPermission::kRead});
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
