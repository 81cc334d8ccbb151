// Users and their access keys in the store (store.h "Users"), the IAM rules of storage/users.h,
// and the format-1 → 2 migration that gives every existing key and bucket its user.
#include "storage/users.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "storage/codec.h"
#include "storage/db_options.h"
#include "storage/format_internal.h"
#include "storage/keygen.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using namespace std::string_literals;
using testing::OpenOrDie;
using testing::SmallOptions;
using testing::TempDir;

UserRecord User(std::string name, std::string email = {}) {
  UserRecord u;
  u.name = std::move(name);
  u.email = std::move(email);
  return u;
}

AccessKeyRecord Key(std::string id, std::string secret = "secret/+0123456789") {
  AccessKeyRecord k;
  k.access_key_id = std::move(id);
  k.secret = SecretKey(std::move(secret));
  return k;
}

class UsersTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = OpenOrDie(options_); }
  void Reopen() {
    store_.reset();
    store_ = OpenOrDie(options_);
  }
  TempDir dir_;
  StoreOptions options_ = SmallOptions(dir_.path());
  std::unique_ptr<Store> store_;
};

// ---------------------------------------------------------------- rules (users.h)

TEST(UserRules, Names) {
  struct Case {
    std::string name;
    bool ok;
  } cases[] = {
      {"alice", true},     {"A_b+c=d,e.f@g-h", true},     {std::string(64, 'x'), true},
      {"", false},         {std::string(65, 'x'), false}, {"with space", false},
      {"slash/no", false}, {"umlaut\xc3\xa4", false},     {"nul\0"s, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ValidateUserName(c.name).ok(), c.ok) << c.name;
    if (!c.ok) {
      EXPECT_EQ(ValidateUserName(c.name).code(), Code::kInvalidArgument);
    }
  }
  EXPECT_TRUE(ValidatePolicyName(std::string(128, 'p')).ok());
  EXPECT_FALSE(ValidatePolicyName(std::string(129, 'p')).ok());
  EXPECT_FALSE(ValidatePolicyName("").ok());
}

TEST(UserRules, TagsAndEmails) {
  struct TagCase {
    std::string key, value;
    bool ok;
  } tags[] = {
      {"team", "storage", true},
      {"a:b/c=d+e-f@g_h.i", "v w", true},
      {"k\xc3\xa4", "\xe6\x97\xa5", true},  // letters beyond ASCII
      {"k", "", true},
      {std::string(128, 'k'), std::string(256, 'v'), true},
      {"", "v", false},
      {std::string(129, 'k'), "v", false},
      {"k", std::string(257, 'v'), false},
      {"aws:reserved", "v", false},
      {"AWS:Reserved", "v", false},
      {"k", "semi;colon", false},
      {"k", "bad\xff", false},
      {"tab\t", "v", false},
  };
  for (const TagCase& c : tags) {
    EXPECT_EQ(ValidateTag(c.key, c.value).ok(), c.ok) << c.key << "=" << c.value;
  }
  struct EmailCase {
    std::string email;
    bool ok;
  } emails[] = {
      {"a@b", true},
      {"first.last@example.com", true},
      {"", false},
      {"@b", false},
      {"a@", false},
      {"ab", false},
      {"a@b@c", false},
      {"a b@c", false},
      {std::string(125, 'a') + "@b.c", false},
  };
  for (const EmailCase& c : emails) EXPECT_EQ(ValidateEmail(c.email).ok(), c.ok) << c.email;
}

TEST(UserRules, ChosenAccessKeys) {
  struct Case {
    std::string id;
    bool ok;
  } ids[] = {
      {"AKIAIOSFODNN7EXAMPLE", true},
      {std::string(16, 'a'), true},
      {std::string(128, 'Z'), true},
      {"under_score_0123", true},
      {std::string(15, 'a'), false},
      {std::string(129, 'a'), false},
      {"AKIAIOSFODNN7EXAMPL-", false},
      {"AKIAIOSFODNN7EXAMPL\xc3\xa4", false},
      {"", false},
  };
  for (const Case& c : ids) EXPECT_EQ(IsValidAccessKeyId(c.id), c.ok) << c.id;
  Case secrets[] = {
      {"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", true},
      {"!", true},
      {"~", true},
      {std::string(128, 's'), true},
      {"", false},
      {std::string(129, 's'), false},
      {"with space", false},
      {"tab\t", false},
      {"del\x7f", false},
      {"\xc3\xa4", false},
  };
  for (const Case& c : secrets) EXPECT_EQ(IsValidSecretKey(c.id), c.ok) << c.id;
}

TEST(UserRules, DerivedValues) {
  UserRecord u = User("Alice");
  EXPECT_EQ(UserArn("123456789012", u), "arn:aws:iam::123456789012:user/Alice");
  u.path = "/team/";
  EXPECT_EQ(UserArn("123456789012", u), "arn:aws:iam::123456789012:user/team/Alice");
  EXPECT_EQ(FoldName("MiXeD@Case"), "mixed@case");
  EXPECT_TRUE(IsCanonicalId(std::string(64, 'a')));
  EXPECT_FALSE(IsCanonicalId(std::string(64, 'A')));
  EXPECT_FALSE(IsCanonicalId(std::string(63, 'a')));
  EXPECT_EQ(PolicyChars(" {\n\t\"a\" : 1 }\r\n"), 7u);

  const std::string owner(64, 'c');
  struct Case {
    AccessMode mode;
    std::vector<AclPermission> group;
  } cases[] = {
      {AccessMode::kNone, {}},
      {AccessMode::kReadOnly, {AclPermission::kRead}},
      {AccessMode::kWriteOnly, {AclPermission::kWrite}},
      {AccessMode::kReadWrite, {AclPermission::kRead, AclPermission::kWrite}},
  };
  for (const Case& c : cases) {
    AclRecord acl = BucketAclFor(owner, c.mode);
    EXPECT_EQ(acl.owner_id, owner);
    ASSERT_EQ(acl.grants.size(), 1 + c.group.size());
    for (size_t i = 0; i < c.group.size(); ++i) {
      EXPECT_EQ(acl.grants[i],
                (AclGrant{GranteeType::kGroup, std::string(kAllUsersGroup), c.group[i]}));
    }
    // The owner after the groups, as the canned ACLs public-read(-write) list it.
    EXPECT_EQ(acl.grants.back(),
              (AclGrant{GranteeType::kCanonicalUser, owner, AclPermission::kFullControl}));
  }
}

TEST(UserRules, GeneratedIds) {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    Result<std::string> id = GenerateCanonicalId();
    ASSERT_OK(id.status());
    EXPECT_TRUE(IsCanonicalId(*id)) << *id;
    seen.insert(*id);
    Result<std::string> account = GenerateAccountId();
    ASSERT_OK(account.status());
    EXPECT_EQ(account->size(), 12u);
    EXPECT_TRUE(std::all_of(account->begin(), account->end(), ::isdigit)) << *account;
  }
  EXPECT_EQ(seen.size(), 50u);
}

// ---------------------------------------------------------------- users

TEST_F(UsersTest, AccountIdIsMadeOnceWithTheFolder) {
  Result<std::string> account = store_->GetAccountId();
  ASSERT_OK(account.status());
  EXPECT_EQ(account->size(), 12u);
  Reopen();
  EXPECT_EQ(*store_->GetAccountId(), *account);
}

TEST_F(UsersTest, CreateFillsDefaultsAndLookupsFindTheUser) {
  Result<UserRecord> alice = store_->CreateUser(User("Alice", "Alice@Example.com"));
  ASSERT_OK(alice.status());
  EXPECT_TRUE(IsCanonicalId(alice->user_id));
  EXPECT_EQ(alice->path, "/");
  EXPECT_EQ(alice->display_name, "Alice");
  EXPECT_GT(alice->created_ms, 0);
  Reopen();  // durable
  for (const char* name : {"Alice", "alice", "ALICE"}) {
    Result<UserRecord> got = store_->GetUser(name);
    ASSERT_OK(got.status());
    EXPECT_EQ(got->user_id, alice->user_id);
    EXPECT_EQ(got->name, "Alice");  // as created
  }
  EXPECT_EQ(store_->GetUserById(alice->user_id)->name, "Alice");
  EXPECT_EQ(store_->FindUserByEmail("alice@example.COM")->user_id, alice->user_id);
  EXPECT_EQ(store_->GetUser("bob").status().code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->GetUserById(std::string(64, '0')).status().code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->FindUserByEmail("bob@example.com").status().code(), Code::kNoSuchEntity);
}

TEST_F(UsersTest, CreateErrors) {
  ASSERT_OK(store_->CreateUser(User("alice", "a@example.com")).status());
  UserRecord bad_id = User("carol");
  bad_id.user_id = "not-hex";
  UserRecord bad_path = User("dave");
  bad_path.path = "no-slash";
  UserRecord bad_tag = User("erin");
  bad_tag.tags = {{"aws:x", "v"}};
  UserRecord many_tags = User("frank");
  for (int i = 0; i < 51; ++i) many_tags.tags.emplace_back("k" + std::to_string(i), "v");
  struct Case {
    const char* what;
    UserRecord user;
    Code code;
  } cases[] = {
      {"same name", User("alice"), Code::kEntityAlreadyExists},
      {"same name, other case", User("ALICE"), Code::kEntityAlreadyExists},
      {"same e-mail, other case", User("bob", "A@EXAMPLE.com"), Code::kEntityAlreadyExists},
      {"bad name", User("a b"), Code::kInvalidArgument},
      {"bad e-mail", User("bob", "nope"), Code::kInvalidArgument},
      {"bad user id", bad_id, Code::kInvalidArgument},
      {"bad path", bad_path, Code::kInvalidArgument},
      {"bad tag", bad_tag, Code::kInvalidArgument},
      {"51 tags", many_tags, Code::kLimitExceeded},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(store_->CreateUser(c.user).status().code(), c.code) << c.what;
  }
  // Nothing of the refused ones was stored.
  Result<UsersPage> page = store_->ListUsers("", 100);
  ASSERT_OK(page.status());
  ASSERT_EQ(page->users.size(), 1u);
  EXPECT_EQ(page->users[0].name, "alice");
}

TEST_F(UsersTest, ListUsersPagesByFoldedName) {
  for (const char* name : {"delta", "Alpha", "charlie", "bravo", "echo"}) {
    ASSERT_OK(store_->CreateUser(User(name)).status());
  }
  std::vector<std::string> seen;
  std::string marker;
  int pages = 0;
  for (;;) {
    Result<UsersPage> page = store_->ListUsers(marker, 2);
    ASSERT_OK(page.status());
    ++pages;
    for (const UserRecord& u : page->users) seen.push_back(u.name);
    if (!page->truncated) {
      EXPECT_TRUE(page->next_marker.empty());
      break;
    }
    EXPECT_EQ(page->users.size(), 2u);
    marker = page->next_marker;
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, (std::vector<std::string>{"Alpha", "bravo", "charlie", "delta", "echo"}));
  Result<UsersPage> none = store_->ListUsers("", 0);
  ASSERT_OK(none.status());
  EXPECT_TRUE(none->users.empty());
  EXPECT_TRUE(none->truncated);
}

TEST_F(UsersTest, DeleteConflictsWhileKeysOrPoliciesRemain) {
  ASSERT_OK(store_->CreateUser(User("alice", "a@example.com")).status());
  ASSERT_OK(store_->CreateAccessKey("alice", Key("CBALICE1")).status());
  ASSERT_OK(store_->PutUserPolicy("alice", "p", "{}"));
  EXPECT_EQ(store_->DeleteUser("alice").code(), Code::kDeleteConflict);  // keys
  ASSERT_OK(store_->DeleteUserAccessKey("alice", "CBALICE1"));
  EXPECT_EQ(store_->DeleteUser("alice").code(), Code::kDeleteConflict);  // policies
  ASSERT_OK(store_->DeleteUserPolicy("alice", "p"));
  ASSERT_OK(store_->TagUser("alice", {{"k", "v"}}));  // tags do not hold a user back
  ASSERT_OK(store_->DeleteUser("ALICE"));
  EXPECT_EQ(store_->GetUser("alice").status().code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->FindUserByEmail("a@example.com").status().code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->DeleteUser("alice").code(), Code::kNoSuchEntity);
  // The name and address are free again.
  ASSERT_OK(store_->CreateUser(User("Alice", "a@example.com")).status());
}

TEST_F(UsersTest, RootCannotBeDeleted) {
  ASSERT_OK(store_->CreateUser(User("root")).status());
  EXPECT_EQ(store_->DeleteUser("root").code(), Code::kDeleteConflict);
}

TEST_F(UsersTest, InlinePolicies) {
  ASSERT_OK(store_->CreateUser(User("alice")).status());
  const std::string doc = R"({"Version":"2012-10-17","Statement":[]})";
  ASSERT_OK(store_->PutUserPolicy("alice", "b-policy", doc));
  ASSERT_OK(store_->PutUserPolicy("alice", "a-policy", "{ }"));
  ASSERT_OK(store_->PutUserPolicy("alice", "a-policy", "{}"));  // replaces
  EXPECT_EQ(*store_->GetUserPolicy("alice", "b-policy"), doc);
  EXPECT_EQ(*store_->GetUserPolicy("alice", "a-policy"), "{}");
  EXPECT_EQ(*store_->ListUserPolicies("alice"), (std::vector<std::string>{"a-policy", "b-policy"}));
  struct Case {
    const char* what;
    Status status;
    Code code;
  } cases[] = {
      {"get missing policy", store_->GetUserPolicy("alice", "nope").status(), Code::kNoSuchEntity},
      {"get of missing user", store_->GetUserPolicy("bob", "a").status(), Code::kNoSuchEntity},
      {"put on missing user", store_->PutUserPolicy("bob", "a", "{}"), Code::kNoSuchEntity},
      {"bad policy name", store_->PutUserPolicy("alice", "a b", "{}"), Code::kInvalidArgument},
      {"empty document", store_->PutUserPolicy("alice", "a", ""), Code::kInvalidArgument},
      {"over the aggregate size",
       store_->PutUserPolicy("alice", "big", std::string(kMaxUserPolicyChars, 'x')),
       Code::kLimitExceeded},
      {"delete missing policy", store_->DeleteUserPolicy("alice", "nope"), Code::kNoSuchEntity},
      {"list of missing user", store_->ListUserPolicies("bob").status(), Code::kNoSuchEntity},
  };
  for (const Case& c : cases) EXPECT_EQ(c.status.code(), c.code) << c.what;
  // White space does not count towards the size.
  ASSERT_OK(store_->PutUserPolicy("alice", "spacey", std::string(5000, ' ') + "{}"));
  EXPECT_EQ(store_->ListUserPolicies("alice")->size(), 3u);  // the refused one is not there
}

TEST_F(UsersTest, Tags) {
  ASSERT_OK(store_->CreateUser(User("alice")).status());
  ASSERT_OK(store_->TagUser("alice", {{"b", "1"}, {"a", "2"}}));
  ASSERT_OK(store_->TagUser("alice", {{"b", "3"}, {"c", ""}}));
  EXPECT_EQ(*store_->ListUserTags("alice"),
            (std::vector<UserTag>{{"b", "3"}, {"a", "2"}, {"c", ""}}));
  ASSERT_OK(store_->UntagUser("alice", {"a", "missing"}));
  EXPECT_EQ(*store_->ListUserTags("alice"), (std::vector<UserTag>{{"b", "3"}, {"c", ""}}));
  std::vector<UserTag> many;
  for (int i = 0; i < 49; ++i) many.emplace_back("k" + std::to_string(i), "v");
  EXPECT_EQ(store_->TagUser("alice", many).code(), Code::kLimitExceeded);  // 51
  EXPECT_EQ(store_->ListUserTags("alice")->size(), 2u);                    // unchanged
  many.pop_back();
  ASSERT_OK(store_->TagUser("alice", many));  // exactly 50
  EXPECT_EQ(store_->TagUser("alice", {{"aws:k", "v"}}).code(), Code::kInvalidArgument);
  EXPECT_EQ(store_->TagUser("bob", {{"k", "v"}}).code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->UntagUser("bob", {"k"}).code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->ListUserTags("bob").status().code(), Code::kNoSuchEntity);
}

// ---------------------------------------------------------------- access keys

TEST_F(UsersTest, AtMostTwoKeysPerUser) {
  ASSERT_OK(store_->CreateUser(User("alice")).status());
  Result<AccessKeyRecord> first = store_->CreateAccessKey("alice", Key("CBALICE1"));
  ASSERT_OK(first.status());
  EXPECT_FALSE(first->user_id.empty());
  EXPECT_EQ(first->status, KeyStatus::kActive);
  EXPECT_FALSE(first->all_buckets);
  EXPECT_GT(first->created_ms, 0);
  ASSERT_OK(store_->CreateAccessKey("alice", Key("CBALICE2")).status());
  EXPECT_EQ(store_->CreateAccessKey("alice", Key("CBALICE3")).status().code(),
            Code::kLimitExceeded);
  EXPECT_EQ(store_->GetAccessKey("CBALICE3").status().code(), Code::kNoSuchAccessKey);
  // An Inactive key still counts, as in IAM.
  ASSERT_OK(store_->UpdateAccessKeyStatus("alice", "CBALICE1", KeyStatus::kInactive));
  EXPECT_EQ(store_->CreateAccessKey("alice", Key("CBALICE3")).status().code(),
            Code::kLimitExceeded);
  ASSERT_OK(store_->DeleteUserAccessKey("alice", "CBALICE1"));
  ASSERT_OK(store_->CreateAccessKey("alice", Key("CBALICE3")).status());
  Result<std::vector<AccessKeyRecord>> keys = store_->ListAccessKeys("alice");
  ASSERT_OK(keys.status());
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[0].access_key_id, "CBALICE2");
  EXPECT_EQ((*keys)[1].access_key_id, "CBALICE3");
}

TEST_F(UsersTest, ConcurrentCreatesNeverPassTheLimit) {
  ASSERT_OK(store_->CreateUser(User("alice")).status());
  std::atomic<int> created{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      if (store_->CreateAccessKey("alice", Key("CBRACE" + std::to_string(i))).ok()) ++created;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created.load(), 2);
  EXPECT_EQ(store_->ListAccessKeys("alice")->size(), 2u);
}

TEST_F(UsersTest, KeyStatusAndOwnership) {
  ASSERT_OK(store_->CreateUser(User("alice")).status());
  ASSERT_OK(store_->CreateUser(User("bob")).status());
  ASSERT_OK(store_->CreateAccessKey("alice", Key("CBALICE1")).status());
  ASSERT_OK(store_->UpdateAccessKeyStatus("alice", "CBALICE1", KeyStatus::kInactive));
  EXPECT_EQ(store_->GetAccessKey("CBALICE1")->status, KeyStatus::kInactive);
  ASSERT_OK(store_->UpdateAccessKeyStatus("alice", "CBALICE1", KeyStatus::kActive));
  EXPECT_EQ(store_->GetAccessKey("CBALICE1")->status, KeyStatus::kActive);
  struct Case {
    const char* what;
    Status status;
    Code code;
  } cases[] = {
      {"update: another user's key",
       store_->UpdateAccessKeyStatus("bob", "CBALICE1", KeyStatus::kInactive), Code::kNoSuchEntity},
      {"update: missing key", store_->UpdateAccessKeyStatus("alice", "CBNONE", KeyStatus::kActive),
       Code::kNoSuchEntity},
      {"update: missing user",
       store_->UpdateAccessKeyStatus("carol", "CBALICE1", KeyStatus::kActive), Code::kNoSuchEntity},
      {"delete: another user's key", store_->DeleteUserAccessKey("bob", "CBALICE1"),
       Code::kNoSuchEntity},
      {"delete: missing key", store_->DeleteUserAccessKey("alice", "CBNONE"), Code::kNoSuchEntity},
      {"create: id in use", store_->CreateAccessKey("bob", Key("CBALICE1")).status(),
       Code::kEntityAlreadyExists},
      {"create: missing user", store_->CreateAccessKey("carol", Key("CBC")).status(),
       Code::kNoSuchEntity},
      {"create: no secret", store_->CreateAccessKey("bob", Key("CBB", "")).status(),
       Code::kInvalidArgument},
      {"list: missing user", store_->ListAccessKeys("carol").status(), Code::kNoSuchEntity},
  };
  for (const Case& c : cases) EXPECT_EQ(c.status.code(), c.code) << c.what;
  EXPECT_EQ(store_->GetAccessKey("CBALICE1")->status, KeyStatus::kActive);  // bob changed nothing
  EXPECT_TRUE(store_->ListAccessKeys("bob")->empty());
}

TEST_F(UsersTest, RootKeysAreAllBucketKeys) {
  ASSERT_OK(store_->CreateUser(User("root")).status());
  Result<AccessKeyRecord> key = store_->CreateAccessKey("root", Key("CBROOT2"));
  ASSERT_OK(key.status());
  EXPECT_TRUE(key->all_buckets);
}

TEST_F(UsersTest, PutAccessKeyKeepsTheUsersKeyIndex) {
  Result<UserRecord> root = store_->CreateUser(User("root"));
  Result<UserRecord> other = store_->CreateUser(User("other"));
  ASSERT_OK(root.status());
  ASSERT_OK(other.status());
  AccessKeyRecord k = Key("CBROOT");
  k.all_buckets = true;
  k.user_id = root->user_id;
  ASSERT_OK(store_->PutAccessKey(k));
  EXPECT_EQ(store_->ListAccessKeys("root")->size(), 1u);
  k.user_id = other->user_id;  // moved: out of root's index, into other's
  ASSERT_OK(store_->PutAccessKey(k));
  EXPECT_TRUE(store_->ListAccessKeys("root")->empty());
  EXPECT_EQ(store_->ListAccessKeys("other")->size(), 1u);
  ASSERT_OK(store_->DeleteAccessKey("CBROOT"));
  EXPECT_TRUE(store_->ListAccessKeys("other")->empty());
  ASSERT_OK(store_->GetUser("other").status());  // not a COSI user: it stays
}

// ---------------------------------------------------------------- COSI grants

AccessKeyRecord Grant(const std::string& bucket, const std::string& grant, const std::string& id) {
  AccessKeyRecord k = Key(id);
  k.grants[bucket] = AccessMode::kReadWrite;
  k.grant_name = grant;
  return k;
}

TEST_F(UsersTest, GrantsMakeTheirUserAndRevokingRemovesIt) {
  ASSERT_OK(store_->CreateBucket(testing::Bucket("b")));
  bool created = false;
  Result<AccessKeyRecord> key =
      store_->GetOrCreateGrant("b", "ba-1", Grant("b", "ba-1", "CBGRANT1"), &created);
  ASSERT_OK(key.status());
  ASSERT_TRUE(created);
  Result<UserRecord> user = store_->GetUser("ba-1");
  ASSERT_OK(user.status());
  EXPECT_EQ(key->user_id, user->user_id);
  EXPECT_EQ(store_->GetAccessKey("CBGRANT1")->user_id, user->user_id);
  EXPECT_EQ(store_->ListAccessKeys("ba-1")->size(), 1u);
  // A retried grant returns the same key and makes no second user.
  key = store_->GetOrCreateGrant("b", "ba-1", Grant("b", "ba-1", "CBGRANT2"), &created);
  ASSERT_OK(key.status());
  EXPECT_FALSE(created);
  EXPECT_EQ(key->access_key_id, "CBGRANT1");
  // Revoke (COSI deletes the key): the user goes too.
  ASSERT_OK(store_->DeleteAccessKey("CBGRANT1"));
  EXPECT_EQ(store_->GetUser("ba-1").status().code(), Code::kNoSuchEntity);

  // A grant whose name is taken by another user gets a user of its own all the same.
  ASSERT_OK(store_->CreateUser(User("ba-2")).status());
  key = store_->GetOrCreateGrant("b", "ba-2", Grant("b", "ba-2", "CBGRANT3"), &created);
  ASSERT_OK(key.status());
  Result<UserRecord> fallback = store_->GetUserById(key->user_id);
  ASSERT_OK(fallback.status());
  EXPECT_EQ(fallback->name, GrantUserName("ba-2"));
  // ... and when that name is taken too, one named after the key.
  ASSERT_OK(store_->CreateUser(User(GrantUserName("ba-3"))).status());
  ASSERT_OK(store_->CreateUser(User("ba-3")).status());
  key = store_->GetOrCreateGrant("b", "ba-3", Grant("b", "ba-3", "CBGRANT4"), &created);
  ASSERT_OK(key.status());
  EXPECT_EQ(store_->GetUserById(key->user_id)->name, "cosi-cbgrant4");
  // Deleting the bucket revokes the grants, and their users go.
  ASSERT_OK(store_->DeleteBucket("b", false));
  EXPECT_EQ(store_->GetAccessKey("CBGRANT3").status().code(), Code::kNoSuchAccessKey);
  EXPECT_EQ(store_->GetUser(GrantUserName("ba-2")).status().code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->GetUser("cosi-cbgrant4").status().code(), Code::kNoSuchEntity);
  ASSERT_OK(store_->GetUser("ba-2").status());  // the unrelated user stays
}

// ---------------------------------------------------------------- migration 1 → 2

// Format-1 encodings, spelled out by hand (as codec.cc wrote them before format 2), so this
// test keeps checking real old records whatever the codec writes today.
std::string V1Bytes(std::string_view s) {
  return std::string(1, static_cast<char>(s.size())) + std::string(s);
}
std::string V1Bucket(std::string_view name, AccessMode anonymous) {
  return "\x01"s + V1Bytes(name) + "\x00"s /* created 0 */ +
         std::string(1, static_cast<char>(anonymous)) +
         "\x00\x01\x00"s /* force, cosi, no params */;
}
std::string V1Key(std::string_view id, std::string_view secret, bool all, std::string_view bucket,
                  std::string_view grant) {
  std::string out = "\x01"s + V1Bytes(id) + V1Bytes(secret) + (all ? "\x01"s : "\x00"s);
  if (bucket.empty()) {
    out += "\x00"s;
  } else {
    out += "\x01"s + V1Bytes(bucket) + "\x03"s;  // kReadWrite
  }
  return out + V1Bytes(grant) + "\x00"s;  // created 0
}

// Writes raw records into a closed store, as the release of format 1 left them.
void Plant(const std::string& path,
           const std::vector<std::tuple<CfIndex, std::string, std::string>>& kvs) {
  StoreOptions options;
  options.path = path;
  DbConfig config = MakeDbConfig(options);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(config.db, path, config.column_families, &handles, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  for (const auto& [cf, k, v] : kvs) ASSERT_TRUE(db->Put({}, handles[cf], k, v).ok());
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  ASSERT_TRUE(db->Close().ok());
}

TEST(UsersMigration, Format1FolderGetsUsersOwnersAndAcls) {
  TempDir dir;
  StoreOptions options = SmallOptions(dir.path());
  OpenOrDie(options).reset();  // a folder ...
  const std::string setting(kFormatVersionSetting);
  Plant(dir.path(),
        {
            // ... taken back to format 1, with format-1 records:
            {kDefaultCf, setting, "1"},
            {kDefaultCf, std::string(kRootKeySetting), "CBROOT"},
            {kBucketsCf, "priv", V1Bucket("priv", AccessMode::kNone)},
            {kBucketsCf, "pub", V1Bucket("pub", AccessMode::kReadOnly)},
            {kBucketsCf, "drop", V1Bucket("drop", AccessMode::kWriteOnly)},
            {kKeysCf, codec::AccessKeyKey("CBROOT"), V1Key("CBROOT", "rs", true, "", "")},
            {kKeysCf, codec::AccessKeyKey("CBCOSI1"),
             V1Key("CBCOSI1", "s1", false, "priv", "ba-one")},
            {kKeysCf, codec::AccessKeyKey("CBCOSI2"),
             V1Key("CBCOSI2", "s2", false, "pub", "root")},  // a clashing name
            {kKeysCf, codec::GrantIndexKey("priv", "ba-one"), "CBCOSI1"},
            {kKeysCf, codec::GrantIndexKey("pub", "root"), "CBCOSI2"},
        });
  std::vector<MigrationEvent> events;
  options.on_migration = [&](const MigrationEvent& e) { events.push_back(e); };
  std::unique_ptr<Store> store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_EQ(events.size(), 2u * (kFormatVersion - 1));  // 1 → 2, then the later steps
  EXPECT_EQ(events[0].from, 1u);
  EXPECT_EQ(events[1].to, 2u);
  Result<std::string> account = store->GetAccountId();
  ASSERT_OK(account.status());
  EXPECT_EQ(account->size(), 12u);

  Result<UserRecord> root = store->GetUser("root");
  ASSERT_OK(root.status());
  EXPECT_EQ(root->display_name, "root");
  Result<AccessKeyRecord> root_key = store->GetAccessKey("CBROOT");
  ASSERT_OK(root_key.status());
  EXPECT_EQ(root_key->user_id, root->user_id);
  EXPECT_TRUE(root_key->all_buckets);
  EXPECT_EQ(root_key->secret.reveal(), "rs");
  EXPECT_EQ(root_key->status, KeyStatus::kActive);

  Result<UserRecord> one = store->GetUser("ba-one");
  ASSERT_OK(one.status());
  Result<AccessKeyRecord> k1 = store->GetAccessKey("CBCOSI1");
  EXPECT_EQ(k1->user_id, one->user_id);
  EXPECT_EQ(k1->grants, (std::map<std::string, AccessMode>{{"priv", AccessMode::kReadWrite}}));
  EXPECT_EQ(k1->grant_name, "ba-one");
  Result<UserRecord> two = store->GetUser("cosi-cbcosi2");  // "root" was taken
  ASSERT_OK(two.status());
  EXPECT_EQ(store->GetAccessKey("CBCOSI2")->user_id, two->user_id);
  EXPECT_EQ(store->ListAccessKeys("root")->size(), 1u);
  EXPECT_EQ(store->ListGrants("priv")->size(), 1u);  // the grant index still works

  struct Case {
    const char* bucket;
    AccessMode mode;
  } cases[] = {{"priv", AccessMode::kNone},
               {"pub", AccessMode::kReadOnly},
               {"drop", AccessMode::kWriteOnly}};
  for (const Case& c : cases) {
    Result<BucketRecord> b = store->GetBucket(c.bucket);
    ASSERT_OK(b.status());
    EXPECT_EQ(b->owner_id, root->user_id) << c.bucket;
    EXPECT_EQ(b->acl, BucketAclFor(root->user_id, c.mode)) << c.bucket;
    EXPECT_EQ(b->anonymous, c.mode) << c.bucket;
    EXPECT_TRUE(b->created_by_cosi) << c.bucket;
  }
  // Done once: the next start migrates nothing.
  store.reset();
  events.clear();
  store = OpenOrDie(options);
  EXPECT_TRUE(events.empty());
  Result<UsersPage> users = store->ListUsers("", 10);
  ASSERT_OK(users.status());
  EXPECT_EQ(users->users.size(), 3u);
}

}  // namespace
}  // namespace cubby::storage
