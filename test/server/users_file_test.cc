// The users file (server/users_file.h): its format as a table of lines, and applying it to a
// real store twice (idempotent) and with a key id that belongs to someone else.
#include "server/users_file.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "test/storage/test_util.h"

namespace cubby::server {
namespace {

using storage::testing::OpenOrDie;
using storage::testing::SmallOptions;
using storage::testing::TempDir;

constexpr int64_t kNow = 1700000000000;

TEST(UsersFile, Parse) {
  auto lines = ParseUsersFile(
      "# fixtures\n"
      "\n"
      "alice AKIAALICE0000000001 secret/+1\r\n"
      "  bob\tAKIABOB000000000001   s3cr3t  \n"
      "alice AKIAALICE0000000002 other\n");
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  ASSERT_EQ(lines->size(), 3u);
  EXPECT_EQ((*lines)[0].line, 3);
  EXPECT_EQ((*lines)[0].name, "alice");
  EXPECT_EQ((*lines)[0].access_key_id, "AKIAALICE0000000001");
  EXPECT_EQ((*lines)[0].secret.reveal(), "secret/+1");
  EXPECT_EQ((*lines)[1].name, "bob");
  EXPECT_EQ((*lines)[1].secret.reveal(), "s3cr3t");
  EXPECT_TRUE(ParseUsersFile("")->empty());
  EXPECT_EQ((*lines)[0].email, "");
  auto with_email = ParseUsersFile("carol AKIACAROL0000000001 s carol@example.com\n");
  ASSERT_TRUE(with_email.ok()) << with_email.status().ToString();
  EXPECT_EQ((*with_email)[0].email, "carol@example.com");

  struct Case {
    std::string text;
    std::string message;  // expected in the error (built without the secret)
  } cases[] = {
      {"alice AKIAALICE0000000001\n", "users file line 1: expected NAME ACCESS_KEY_ID"},
      {"# c\nalice AKIAALICE0000000001 sec a@b.c extra\n", "users file line 2: expected"},
      {"alice AKIAALICE0000000001 sec not-an-address\n", "users file line 1: an e-mail address is"},
      {"alice AKIAALICE0000000001 s a@b.c\nalice AKIAALICE0000000002 s d@e.f\n",
       "users file line 2: user alice was given another e-mail address on line 1"},
      {"bad/name AKIAALICE0000000001 sec\n", "users file line 1: user name may contain only"},
      {"alice SHORT sec\n", "users file line 1: the access key id must be"},
      {"alice AKIA-ALICE-000000001 sec\n", "users file line 1: the access key id must be"},
      {"alice AKIAALICE0000000001 " + std::string(129, 's') + "\n",
       "users file line 1: the secret must be"},
  };
  for (const Case& c : cases) {
    auto r = ParseUsersFile(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), storage::Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
  }
}

TEST(UsersFile, AppliedTwiceChangesNothingTheSecondTime) {
  TempDir dir;
  std::unique_ptr<storage::Store> store = OpenOrDie(SmallOptions(dir.path()));
  auto lines = ParseUsersFile(
      "alice AKIAALICE0000000001 s1\n"
      "alice AKIAALICE0000000002 s2\n"
      "bob AKIABOB000000000001 s3\n");
  ASSERT_TRUE(lines.ok());
  auto first = ApplyUsersFile(*store, *lines, kNow);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->users_created, 2);
  EXPECT_EQ(first->keys_created, 3);
  const std::string alice = store->GetUser("alice")->user_id;
  EXPECT_EQ(store->GetAccessKey("AKIAALICE0000000002")->user_id, alice);
  EXPECT_EQ(store->GetAccessKey("AKIABOB000000000001")->secret.reveal(), "s3");

  // Again, with a changed secret: what exists is left as it is.
  auto changed = ParseUsersFile(
      "alice AKIAALICE0000000001 s1\n"
      "alice AKIAALICE0000000002 s2\n"
      "bob AKIABOB000000000001 changed\n");
  auto second = ApplyUsersFile(*store, *changed, kNow);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->users_created, 0);
  EXPECT_EQ(second->keys_created, 0);
  EXPECT_EQ(store->GetUser("alice")->user_id, alice);
  EXPECT_EQ(store->GetAccessKey("AKIABOB000000000001")->secret.reveal(), "s3");
}

TEST(UsersFile, Errors) {
  TempDir dir;
  std::unique_ptr<storage::Store> store = OpenOrDie(SmallOptions(dir.path()));
  ASSERT_TRUE(ApplyUsersFile(*store, *ParseUsersFile("alice AKIAALICE0000000001 s1\n"), kNow).ok());
  struct Case {
    std::string text;
    std::string message;
  } cases[] = {
      {"bob AKIAALICE0000000001 s1\n",
       "users file line 1: access key AKIAALICE0000000001 "
       "belongs to another user"},
      {"alice AKIAALICE0000000002 s\nalice AKIAALICE0000000003 s\n",
       "users file line 2: Cannot exceed quota for AccessKeysPerUser: 2"},
  };
  for (const Case& c : cases) {
    auto r = ApplyUsersFile(*store, *ParseUsersFile(c.text), kNow);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().code(), storage::Code::kInvalidArgument);
    EXPECT_EQ(r.status().message(), c.message);
  }
  // An address another user has stops the line; the user is not made.
  ASSERT_TRUE(
      ApplyUsersFile(*store, *ParseUsersFile("dave AKIADAVE00000000001 s dave@example.com\n"), kNow)
          .ok());
  EXPECT_EQ(store->FindUserByEmail("dave@example.com")->name, "dave");
  auto taken =
      ApplyUsersFile(*store, *ParseUsersFile("erin AKIAERIN00000000001 s DAVE@example.com\n"), kNow);
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status().message().rfind("users file line 1: ", 0), 0u) << taken.status().message();
  EXPECT_EQ(store->GetUser("erin").status().code(), storage::Code::kNoSuchEntity);
  // The refused key stays alice's.
  EXPECT_EQ(store->GetAccessKey("AKIAALICE0000000001")->user_id, store->GetUser("alice")->user_id);
}

}  // namespace
}  // namespace cubby::server
