// The built-in KMS's key and alias records in the store (store.h "KMS", kms_codec.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/kms_codec.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using testing::OpenOrDie;
using testing::SmallOptions;
using testing::TempDir;

KmsKeyRecord KmsKey(std::string id, KmsKeyState state = KmsKeyState::kEnabled) {
  KmsKeyRecord k;
  k.key_id = std::move(id);
  k.description = "a key";
  k.created_ms = 1700000000123;
  k.state = state;
  k.wrapped_material = std::string("\x01\x00wrapped\xff", 10);
  return k;
}

KmsAliasRecord Alias(std::string name, std::string key_id) {
  KmsAliasRecord a;
  a.alias_name = std::move(name);
  a.key_id = std::move(key_id);
  a.created_ms = 1700000000456;
  return a;
}

class KmsStoreTest : public ::testing::Test {
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

TEST(KmsCodec, RoundTripsEveryField) {
  for (KmsKeyState state :
       {KmsKeyState::kEnabled, KmsKeyState::kDisabled, KmsKeyState::kPendingDeletion}) {
    KmsKeyRecord k = KmsKey("1234abcd-12ab-34cd-56ef-1234567890ab", state);
    k.deletion_date_ms = -5;
    k.aws_managed = state == KmsKeyState::kDisabled;
    Result<KmsKeyRecord> back = codec::DecodeKmsKey(codec::EncodeKmsKey(k));
    ASSERT_OK(back.status());
    EXPECT_EQ(back->key_id, k.key_id);
    EXPECT_EQ(back->description, k.description);
    EXPECT_EQ(back->created_ms, k.created_ms);
    EXPECT_EQ(back->state, k.state);
    EXPECT_EQ(back->deletion_date_ms, k.deletion_date_ms);
    EXPECT_EQ(back->wrapped_material, k.wrapped_material);
    EXPECT_EQ(back->aws_managed, k.aws_managed);
  }
  Result<KmsAliasRecord> alias =
      codec::DecodeKmsAlias(codec::EncodeKmsAlias(Alias("alias/a", "k")));
  ASSERT_OK(alias.status());
  EXPECT_EQ(alias->alias_name, "alias/a");
  EXPECT_EQ(alias->key_id, "k");
  EXPECT_EQ(alias->created_ms, 1700000000456);
}

TEST(KmsCodec, RejectsMalformedRecords) {
  const std::string key = codec::EncodeKmsKey(KmsKey("id"));
  std::string bad_state = key;
  // The state byte follows version, id (1+2), description (1+5) and created_ms (6 bytes).
  const size_t state_at = 1 + 3 + 6 + 6;
  ASSERT_EQ(bad_state[state_at], 0);
  bad_state[state_at] = 3;
  std::string bad_bool = key;
  bad_bool.back() = 2;
  const std::vector<std::string> cases = {
      "",                             // empty
      "\x02" + key.substr(1),         // unknown version
      key.substr(0, key.size() - 1),  // truncated
      key + "x",                      // trailing bytes
      bad_state,                      // state out of range
      bad_bool,                       // bool out of range
  };
  for (const std::string& c : cases) {
    Result<KmsKeyRecord> r = codec::DecodeKmsKey(c);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kCorruption);
  }
  const std::string alias = codec::EncodeKmsAlias(Alias("alias/a", "k"));
  EXPECT_EQ(codec::DecodeKmsAlias(alias + "x").status().code(), Code::kCorruption);
  EXPECT_EQ(codec::DecodeKmsAlias(alias.substr(0, 3)).status().code(), Code::kCorruption);
}

TEST_F(KmsStoreTest, KeysPersistAndPage) {
  EXPECT_EQ(store_->GetKmsKey("nope").status().code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->PutKmsKey(KmsKey(""), nullptr).code(), Code::kInvalidArgument);
  for (const char* id : {"c", "a", "b"}) ASSERT_OK(store_->PutKmsKey(KmsKey(id), nullptr));
  // An update replaces the record.
  KmsKeyRecord b = KmsKey("b", KmsKeyState::kPendingDeletion);
  b.deletion_date_ms = 42;
  ASSERT_OK(store_->PutKmsKey(b, nullptr));
  Reopen();
  Result<KmsKeyRecord> got = store_->GetKmsKey("b");
  ASSERT_OK(got.status());
  EXPECT_EQ(got->state, KmsKeyState::kPendingDeletion);
  EXPECT_EQ(got->deletion_date_ms, 42);
  EXPECT_EQ(got->wrapped_material, KmsKey("b").wrapped_material);

  Result<KmsKeysPage> page = store_->ListKmsKeys("", 2);
  ASSERT_OK(page.status());
  ASSERT_EQ(page->keys.size(), 2u);
  EXPECT_EQ(page->keys[0].key_id, "a");
  EXPECT_EQ(page->keys[1].key_id, "b");
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_marker, "b");
  page = store_->ListKmsKeys(page->next_marker, 2);
  ASSERT_OK(page.status());
  ASSERT_EQ(page->keys.size(), 1u);
  EXPECT_EQ(page->keys[0].key_id, "c");
  EXPECT_FALSE(page->truncated);
  EXPECT_EQ(page->next_marker, "");
  // Access keys and users in the same family are not KMS keys.
  Result<std::vector<KmsAliasRecord>> aliases = store_->ListKmsAliases();
  ASSERT_OK(aliases.status());
  EXPECT_TRUE(aliases->empty());
}

TEST_F(KmsStoreTest, AliasesAreUniqueAndNeedTheirKey) {
  KmsAliasRecord a = Alias("alias/one", "k1");
  EXPECT_EQ(store_->CreateKmsAlias(a).code(), Code::kNoSuchEntity);  // no key k1 yet
  EXPECT_EQ(store_->CreateKmsAlias(Alias("", "k1")).code(), Code::kInvalidArgument);
  ASSERT_OK(store_->PutKmsKey(KmsKey("k1"), nullptr));
  ASSERT_OK(store_->CreateKmsAlias(a));
  EXPECT_EQ(store_->CreateKmsAlias(Alias("alias/one", "k1")).code(), Code::kEntityAlreadyExists);
  // A key made together with an alias: one batch, refused whole when the alias is taken.
  EXPECT_EQ(store_->PutKmsKey(KmsKey("k2"), &a).code(), Code::kEntityAlreadyExists);
  EXPECT_EQ(store_->GetKmsKey("k2").status().code(), Code::kNoSuchEntity);
  KmsAliasRecord aws = Alias("alias/aws/s3", "k2");
  ASSERT_OK(store_->PutKmsKey(KmsKey("k2"), &aws));
  KmsAliasRecord empty = Alias("", "k2");
  EXPECT_EQ(store_->PutKmsKey(KmsKey("k3"), &empty).code(), Code::kInvalidArgument);

  Reopen();
  Result<KmsAliasRecord> got = store_->GetKmsAlias("alias/aws/s3");
  ASSERT_OK(got.status());
  EXPECT_EQ(got->key_id, "k2");
  Result<std::vector<KmsAliasRecord>> all = store_->ListKmsAliases();
  ASSERT_OK(all.status());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].alias_name, "alias/aws/s3");
  EXPECT_EQ((*all)[1].alias_name, "alias/one");

  ASSERT_OK(store_->DeleteKmsAlias("alias/one"));
  EXPECT_EQ(store_->DeleteKmsAlias("alias/one").code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->GetKmsAlias("alias/one").status().code(), Code::kNoSuchEntity);
  EXPECT_EQ(store_->DeleteKmsAlias("").code(), Code::kNoSuchEntity);
  // The key stays when its alias goes.
  ASSERT_OK(store_->GetKmsKey("k1").status());
}

}  // namespace
}  // namespace cubby::storage
