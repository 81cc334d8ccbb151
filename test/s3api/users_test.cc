// Users through the S3 front door (issue 13, interim rules of iam/authorize.h): a user's key
// authenticates while Active, users own the buckets they create and reach nothing else,
// ListBuckets lists the caller's own, BucketAlreadyExists, expected-bucket-owner.
#include "storage/users.h"

#include <gtest/gtest.h>

#include "test/s3api/service_fixture.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

constexpr char kAliceKey[] = "CBALICEKEY0000000001";
constexpr char kBobKey[] = "CBBOBKEY000000000001";

class UsersTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    for (auto [name, key] : {std::pair{"alice", kAliceKey}, std::pair{"bob", kBobKey}}) {
      storage::UserRecord user;
      user.name = name;
      auto made = store_->CreateUser(user);
      ASSERT_TRUE(made.ok()) << made.status().ToString();
      storage::AccessKeyRecord k;
      k.access_key_id = key;
      k.secret = storage::SecretKey(kKeySecret);
      ASSERT_TRUE(store_->CreateAccessKey(name, k).ok());
    }
    alice_id_ = store_->GetUser("alice")->user_id;
    bob_id_ = store_->GetUser("bob")->user_id;
  }
  Reply Put(const std::string& path, const std::string& key_id, std::vector<Header> headers = {}) {
    Req r;
    r.method = "PUT";
    r.path = path;
    r.key_id = key_id;
    r.headers = std::move(headers);
    r.body = path.find('/', 1) == std::string::npos ? "" : "data";
    return Send(r);
  }
  std::string alice_id_, bob_id_;
};

TEST_F(UsersTest, UsersOwnTheirBucketsAndReachNoOtherOnes) {
  ASSERT_EQ(Put("/alices", kAliceKey).status(), 200);
  EXPECT_EQ(store_->GetBucket("alices")->owner_id, alice_id_);
  EXPECT_EQ(store_->GetBucket("alices")->acl,
            storage::BucketAclFor(alice_id_, storage::AccessMode::kNone));
  ASSERT_EQ(Put("/alices/k", kAliceKey).status(), 200);
  EXPECT_EQ(Do("GET", "/alices/k", "", kAliceKey).status(), 200);
  struct Case {
    const char* method;
    const char* path;
    const char* query;
  } cases[] = {
      {"GET", "/alices/k", ""},    {"HEAD", "/alices/k", ""}, {"GET", "/alices", "list-type=2"},
      {"DELETE", "/alices/k", ""}, {"DELETE", "/alices", ""}, {"GET", "/alices", "location"},
      {"PUT", "/alices/k2", ""},
  };
  for (const Case& c : cases) {
    Reply r = Do(c.method, c.path, c.query, kBobKey);
    EXPECT_EQ(r.status(), 403) << c.method << " " << c.path << "?" << c.query;
    if (std::string(c.method) != "HEAD") {
      EXPECT_EQ(r.Code(), "AccessDenied") << c.method << " " << c.path;
    }
  }
  // A COSI key (the fixture's kReaderId has grants, no user) reaches only its grants.
  EXPECT_EQ(Do("GET", "/alices/k", "", kReaderId).status(), 403);
  // Root reaches everything.
  EXPECT_EQ(Do("GET", "/alices/k", "", kRootId).status(), 200);
  // A user's request on a missing bucket hears NoSuchBucket.
  EXPECT_EQ(Do("GET", "/nobody", "list-type=2", kBobKey).Code(), "NoSuchBucket");
}

TEST_F(UsersTest, CreatingAnotherUsersBucketIsBucketAlreadyExists) {
  ASSERT_EQ(Put("/alices", kAliceKey).status(), 200);
  Reply r = Put("/alices", kBobKey);
  EXPECT_EQ(r.status(), 409);
  EXPECT_EQ(r.Code(), "BucketAlreadyExists");
  r = Put("/alices", kRootId);  // root is the administrator, not the owner
  EXPECT_EQ(r.Code(), "BucketAlreadyExists");
  EXPECT_EQ(Put("/alices", kAliceKey).status(), 200);  // us-east-1: your own again is 200
  EXPECT_EQ(store_->GetBucket("alices")->owner_id, alice_id_);
}

TEST_F(UsersTest, ListBucketsListsTheCallersOwnWithTheRealOwner) {
  ASSERT_EQ(Put("/alices", kAliceKey).status(), 200);
  ASSERT_EQ(Put("/alices2", kAliceKey).status(), 200);
  ASSERT_EQ(Put("/bobs", kBobKey).status(), 200);
  Reply alice = Do("GET", "/", "", kAliceKey);
  ASSERT_EQ(alice.status(), 200);
  EXPECT_EQ(Tag(alice.body, "ID"), alice_id_);
  EXPECT_EQ(Tag(alice.body, "DisplayName"), "alice");
  EXPECT_TRUE(Contains(alice.body, "<Name>alices</Name>"));
  EXPECT_TRUE(Contains(alice.body, "<Name>alices2</Name>"));
  EXPECT_FALSE(Contains(alice.body, "<Name>bobs</Name>"));
  Reply bob = Do("GET", "/", "", kBobKey);
  EXPECT_EQ(Tag(bob.body, "ID"), bob_id_);
  EXPECT_TRUE(Contains(bob.body, "<Name>bobs</Name>"));
  EXPECT_FALSE(Contains(bob.body, "<Name>alices</Name>"));
}

TEST_F(UsersTest, InactiveAndDeletedKeysAreRefusedOnTheNextRequest) {
  ASSERT_EQ(Do("GET", "/", "", kAliceKey).status(), 200);
  ASSERT_TRUE(
      store_->UpdateAccessKeyStatus("alice", kAliceKey, storage::KeyStatus::kInactive).ok());
  Reply r = Do("GET", "/", "", kAliceKey);
  EXPECT_EQ(r.status(), 403);
  EXPECT_EQ(r.Code(), "InvalidAccessKeyId");
  ASSERT_TRUE(store_->UpdateAccessKeyStatus("alice", kAliceKey, storage::KeyStatus::kActive).ok());
  EXPECT_EQ(Do("GET", "/", "", kAliceKey).status(), 200);
  ASSERT_TRUE(store_->DeleteUserAccessKey("alice", kAliceKey).ok());
  r = Do("GET", "/", "", kAliceKey);
  EXPECT_EQ(r.status(), 403);
  EXPECT_EQ(r.Code(), "InvalidAccessKeyId");
}

TEST_F(UsersTest, ExpectedBucketOwner) {
  ASSERT_EQ(Put("/alices", kAliceKey).status(), 200);
  ASSERT_EQ(Put("/alices/k", kAliceKey).status(), 200);
  storage::UserRecord root;
  root.name = "root";
  ASSERT_TRUE(store_->CreateUser(root).ok());
  const std::string account = *store_->GetAccountId();
  auto get = [&](const std::string& path, std::vector<Header> headers) {
    Req r;
    r.path = path;
    r.key_id = kAliceKey;
    r.headers = std::move(headers);
    return Send(r);
  };
  EXPECT_EQ(get("/alices/k", {{"x-amz-expected-bucket-owner", alice_id_}}).status(), 200);
  Reply denied = get("/alices/k", {{"x-amz-expected-bucket-owner", bob_id_}});
  EXPECT_EQ(denied.status(), 403);
  EXPECT_EQ(denied.Code(), "AccessDenied");
  // The account id names root's buckets only.
  EXPECT_EQ(get("/alices/k", {{"x-amz-expected-bucket-owner", account}}).Code(), "AccessDenied");
  // A missing bucket: the handler's NoSuchBucket, not a denial.
  EXPECT_EQ(get("/nobody/k", {{"x-amz-expected-bucket-owner", bob_id_}}).Code(), "NoSuchBucket");

  // Copy: the source's owner is checked too.
  Req copy;
  copy.method = "PUT";
  copy.path = "/alices/copy";
  copy.key_id = kAliceKey;
  copy.headers = {{"x-amz-copy-source", "/alices/k"},
                  {"x-amz-source-expected-bucket-owner", bob_id_}};
  EXPECT_EQ(Send(copy).Code(), "AccessDenied");
  copy.headers[1].value = alice_id_;
  EXPECT_EQ(Send(copy).status(), 200);

  // Root's bucket (created by a key without a user: no owner, so root's) by the account id.
  MakeBucket("roots");
  Req r;
  r.path = "/roots";
  r.query = "list-type=2";
  r.headers = {{"x-amz-expected-bucket-owner", account}};
  EXPECT_EQ(Send(r).status(), 200);
  r.headers[0].value = "111111111111";
  EXPECT_EQ(Send(r).Code(), "AccessDenied");
}

}  // namespace
}  // namespace cubby::s3api
