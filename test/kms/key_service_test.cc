// kms::KeyService over a real RocksDB Store in a temp folder with a random KEK: data keys
// (every way to name a key, every state), the cache against state changes, and the JSON API
// operation by operation with each error it answers.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "crypt/key.h"
#include "kms/kms.h"
#include "test/storage/test_util.h"
#include "text/json.h"

namespace cubby::kms {
namespace {

using storage::testing::OpenOrDie;
using storage::testing::SmallOptions;
using storage::testing::TempDir;

constexpr int64_t kNow = 1700000000123;
constexpr char kRegion[] = "eu-central-1";

crypt::Key256 RandomKek() {
  crypt::Result<crypt::Key256> k = crypt::NewRandomKey();
  EXPECT_TRUE(k.ok());
  return std::move(k).value();
}

struct Reply {
  int status = 0;
  std::string body;
  text::JsonValue json;
  std::string Type() const {
    const text::JsonValue* t = json.Find("__type");
    return t == nullptr ? "" : t->text;
  }
  std::string Str(std::string_view a, std::string_view b = {}) const {
    const text::JsonValue* v = json.Find(a);
    if (v != nullptr && !b.empty()) v = v->Find(b);
    return v == nullptr                       ? "<none>"
           : v->type == text::JsonType::kBool ? (v->boolean ? "true" : "false")
                                              : v->text;
  }
};

class KeyServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(options_);
    ASSERT_NE(store_, nullptr);
    service_ = std::make_unique<KeyService>(store_.get(), &kek_, kRegion);
    storage::Result<std::string> account = store_->GetAccountId();
    ASSERT_TRUE(account.ok());
    account_ = *account;
  }

  Reply Call(std::string_view op, std::string_view body, int64_t now_ms = kNow) {
    Reply r;
    service_->HandleApi(op, body, now_ms, &r.status, &r.body);
    if (!r.body.empty()) {
      EXPECT_TRUE(text::ParseJson(r.body, 1 << 20, &r.json, nullptr)) << r.body;
    }
    return r;
  }
  // A new customer key's id.
  std::string NewKey(std::string description = "test key") {
    Reply r = Call("CreateKey", R"({"Description":")" + description + R"("})");
    EXPECT_EQ(r.status, 200) << r.body;
    return r.Str("KeyMetadata", "KeyId");
  }
  std::string Arn(std::string_view id) {
    return std::string("arn:aws:kms:") + kRegion + ":" + account_ + ":key/" + std::string(id);
  }
  void ExpectError(const Reply& r, std::string_view type, int status = 400) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.Type(), type) << r.body;
  }

  TempDir dir_;
  storage::StoreOptions options_ = SmallOptions(dir_.path());
  std::unique_ptr<storage::Store> store_;
  crypt::Key256 kek_ = RandomKek();
  std::unique_ptr<KeyService> service_;
  std::string account_;
};

// ---------------------------------------------------------------- data keys

TEST_F(KeyServiceTest, DefaultKeyIsMadeOnceAndRoundTrips) {
  DataKey a, b;
  ASSERT_TRUE(service_->GenerateDataKey("", "bucket/key", &a).ok());
  ASSERT_TRUE(service_->GenerateDataKey("alias/aws/s3", "bucket/key", &b).ok());
  EXPECT_EQ(a.key_arn, b.key_arn);
  EXPECT_TRUE(
      a.key_arn.starts_with(std::string("arn:aws:kms:") + kRegion + ":" + account_ + ":key/"));
  EXPECT_FALSE(a.plaintext.SameAs(b.plaintext));
  EXPECT_EQ(a.wrapped.size(), crypt::kWrappedKeyBytes);

  crypt::DataKey back;
  ASSERT_TRUE(service_->DecryptDataKey(a.key_arn, "bucket/key", a.wrapped, &back).ok());
  EXPECT_TRUE(back.SameAs(a.plaintext));
  // Another context, or an altered blob, does not open: kInternal.
  EXPECT_EQ(service_->DecryptDataKey(a.key_arn, "bucket/other", a.wrapped, &back).code,
            Code::kInternal);
  std::string altered = a.wrapped;
  altered[20] ^= 1;
  EXPECT_EQ(service_->DecryptDataKey(a.key_arn, "bucket/key", altered, &back).code,
            Code::kInternal);

  // The AWS-managed key is listed and described as AWS's.
  Reply d = Call("DescribeKey", R"({"KeyId":"alias/aws/s3"})");
  EXPECT_EQ(d.status, 200);
  EXPECT_EQ(d.Str("KeyMetadata", "KeyManager"), "AWS");
  EXPECT_EQ(d.Str("KeyMetadata", "Arn"), a.key_arn);
  Reply aliases = Call("ListAliases", "{}");
  ASSERT_EQ(aliases.json.Find("Aliases")->items.size(), 1u);
  EXPECT_EQ(aliases.json.Find("Aliases")->items[0].Find("AliasName")->text, "alias/aws/s3");

  // A new service (a restart) reads the material from the store.
  KeyService again(store_.get(), &kek_, kRegion);
  ASSERT_TRUE(again.DecryptDataKey(a.key_arn, "bucket/key", a.wrapped, &back).ok());
  EXPECT_TRUE(back.SameAs(a.plaintext));
  // Under another KEK the stored material does not unwrap.
  crypt::Key256 other = RandomKek();
  KeyService wrong(store_.get(), &other, kRegion);
  EXPECT_EQ(wrong.DecryptDataKey(a.key_arn, "bucket/key", a.wrapped, &back).code, Code::kInternal);
}

TEST_F(KeyServiceTest, MaterialThatDoesNotUnwrapIsInternal) {
  storage::KmsKeyRecord broken;
  broken.key_id = "11111111-2222-4333-8444-555555555555";
  broken.created_ms = kNow;
  broken.wrapped_material = "not a wrapped key";
  ASSERT_TRUE(store_->PutKmsKey(broken, nullptr).ok());
  DataKey dk;
  Status s = service_->GenerateDataKey(broken.key_id, "ctx", &dk);
  EXPECT_EQ(s.code, Code::kInternal);
  EXPECT_EQ(s.message.find("not a wrapped key"), std::string::npos);  // no material in it
  crypt::DataKey back;
  EXPECT_EQ(service_->DecryptDataKey(Arn(broken.key_id), "ctx", std::string(61, 'x'), &back).code,
            Code::kInternal);
  // The API describes it all the same (no material needed).
  EXPECT_EQ(Call("DescribeKey", R"({"KeyId":")" + broken.key_id + R"("})").status, 200);
}

TEST_F(KeyServiceTest, EveryWayToNameAKey) {
  const std::string id = NewKey();
  ASSERT_EQ(
      Call("CreateAlias", R"({"AliasName":"alias/mine","TargetKeyId":")" + id + R"("})").status,
      200);
  const std::string alias_arn =
      std::string("arn:aws:kms:") + kRegion + ":" + account_ + ":alias/mine";
  for (const std::string& name : {id, Arn(id), std::string("alias/mine"), alias_arn}) {
    DataKey dk;
    Status s = service_->GenerateDataKey(name, "ctx", &dk);
    ASSERT_TRUE(s.ok()) << name << ": " << s.message;
    EXPECT_EQ(dk.key_arn, Arn(id));
    std::string arn;
    ASSERT_TRUE(service_->ResolveKey(name, &arn).ok());
    EXPECT_EQ(arn, Arn(id));
  }
  struct Case {
    std::string name;
    Code code;
  } cases[] = {
      {"not-a-key", Code::kInvalidKeyId},
      {"arn:aws:kms:" + std::string(kRegion), Code::kInvalidKeyId},
      {"arn:aws:s3:::bucket/key", Code::kInvalidKeyId},
      {"arn:aws:kms:" + std::string(kRegion) + ":" + account_ + ":thing/x", Code::kInvalidKeyId},
      {"00000000-0000-4000-8000-000000000000", Code::kNotFound},
      {Arn("00000000-0000-4000-8000-000000000000"), Code::kNotFound},
      {"arn:aws:kms:us-west-2:" + account_ + ":key/" + id, Code::kNotFound},  // other region
      {"arn:aws:kms:" + std::string(kRegion) + ":000000000000:key/" + id, Code::kNotFound},
      {"alias/none", Code::kNotFound},
      {"alias/aws/other", Code::kNotFound},
  };
  for (const Case& c : cases) {
    DataKey dk;
    EXPECT_EQ(service_->GenerateDataKey(c.name, "ctx", &dk).code, c.code) << c.name;
  }
  crypt::DataKey back;
  EXPECT_EQ(
      service_->DecryptDataKey(Arn("00000000-0000-4000-8000-000000000000"), "c", "x", &back).code,
      Code::kNotFound);
}

TEST_F(KeyServiceTest, StateChangesTakeEffectOnTheNextRequest) {
  const std::string id = NewKey();
  DataKey dk;
  ASSERT_TRUE(service_->GenerateDataKey(id, "ctx", &dk).ok());  // the material is now cached
  crypt::DataKey back;

  ASSERT_EQ(Call("DisableKey", R"({"KeyId":")" + id + R"("})").status, 200);
  EXPECT_EQ(service_->GenerateDataKey(id, "ctx", &dk).code, Code::kDisabled);
  EXPECT_EQ(service_->DecryptDataKey(Arn(id), "ctx", dk.wrapped, &back).code, Code::kDisabled);
  std::string arn;
  EXPECT_EQ(service_->ResolveKey(id, &arn).code, Code::kDisabled);
  Reply d = Call("DescribeKey", R"({"KeyId":")" + id + R"("})");
  EXPECT_EQ(d.Str("KeyMetadata", "KeyState"), "Disabled");
  EXPECT_EQ(d.Str("KeyMetadata", "Enabled"), "false");

  ASSERT_EQ(Call("EnableKey", R"({"KeyId":")" + Arn(id) + R"("})").status, 200);
  ASSERT_TRUE(service_->DecryptDataKey(Arn(id), "ctx", dk.wrapped, &back).ok());
  EXPECT_TRUE(back.SameAs(dk.plaintext));

  Reply s = Call("ScheduleKeyDeletion", R"({"KeyId":")" + id + R"(","PendingWindowInDays":7})");
  ASSERT_EQ(s.status, 200) << s.body;
  EXPECT_EQ(s.Str("KeyId"), Arn(id));
  EXPECT_EQ(s.Str("KeyState"), "PendingDeletion");
  EXPECT_EQ(s.json.Find("PendingWindowInDays")->text, "7");
  EXPECT_EQ(*s.json.Find("DeletionDate")->Number(), (kNow + 7 * 86400000LL) / 1000.0);
  EXPECT_EQ(service_->GenerateDataKey(id, "ctx", &dk).code, Code::kInvalidState);
  EXPECT_EQ(service_->DecryptDataKey(Arn(id), "ctx", dk.wrapped, &back).code, Code::kInvalidState);
  d = Call("DescribeKey", R"({"KeyId":")" + id + R"("})");
  EXPECT_EQ(d.Str("KeyMetadata", "KeyState"), "PendingDeletion");
  EXPECT_NE(d.json.Find("KeyMetadata")->Find("DeletionDate"), nullptr);

  Reply c = Call("CancelKeyDeletion", R"({"KeyId":")" + id + R"("})");
  ASSERT_EQ(c.status, 200) << c.body;
  EXPECT_EQ(c.Str("KeyId"), Arn(id));
  d = Call("DescribeKey", R"({"KeyId":")" + id + R"("})");
  EXPECT_EQ(d.Str("KeyMetadata", "KeyState"), "Disabled");  // as AWS: cancelled → Disabled
  EXPECT_EQ(d.json.Find("KeyMetadata")->Find("DeletionDate"), nullptr);
}

// ---------------------------------------------------------------- the JSON API

TEST_F(KeyServiceTest, CreateAndDescribeKey) {
  Reply r = Call("CreateKey", R"({"Description":"d\u00e4","KeySpec":"SYMMETRIC_DEFAULT",
                 "KeyUsage":"ENCRYPT_DECRYPT","Origin":"AWS_KMS","MultiRegion":false})");
  ASSERT_EQ(r.status, 200) << r.body;
  const text::JsonValue* m = r.json.Find("KeyMetadata");
  ASSERT_NE(m, nullptr);
  const std::string id = m->Find("KeyId")->text;
  EXPECT_EQ(id.size(), 36u);
  EXPECT_EQ(m->Find("AWSAccountId")->text, account_);
  EXPECT_EQ(m->Find("Arn")->text, Arn(id));
  EXPECT_EQ(*m->Find("CreationDate")->Number(), 1700000000.123);
  EXPECT_TRUE(m->Find("Enabled")->boolean);
  EXPECT_EQ(m->Find("Description")->text, "d\xc3\xa4");
  EXPECT_EQ(m->Find("KeyUsage")->text, "ENCRYPT_DECRYPT");
  EXPECT_EQ(m->Find("KeyState")->text, "Enabled");
  EXPECT_EQ(m->Find("Origin")->text, "AWS_KMS");
  EXPECT_EQ(m->Find("KeyManager")->text, "CUSTOMER");
  EXPECT_EQ(m->Find("KeySpec")->text, "SYMMETRIC_DEFAULT");
  EXPECT_EQ(m->Find("CustomerMasterKeySpec")->text, "SYMMETRIC_DEFAULT");
  EXPECT_EQ(m->Find("EncryptionAlgorithms")->items.at(0).text, "SYMMETRIC_DEFAULT");
  EXPECT_FALSE(m->Find("MultiRegion")->boolean);
  EXPECT_EQ(m->Find("DeletionDate"), nullptr);

  Reply d = Call("DescribeKey", R"({"KeyId":")" + Arn(id) + R"(","GrantTokens":[]})");
  ASSERT_EQ(d.status, 200);
  EXPECT_EQ(d.Str("KeyMetadata", "KeyId"), id);
  // An empty body is an empty request.
  EXPECT_EQ(Call("CreateKey", "").status, 200);
}

TEST_F(KeyServiceTest, CreateKeyRefusesWhatItCannotMake) {
  struct Case {
    std::string body;
    std::string type;
  } cases[] = {
      {R"({"KeySpec":"RSA_2048"})", "UnsupportedOperationException"},
      {R"({"CustomerMasterKeySpec":"HMAC_256"})", "UnsupportedOperationException"},
      {R"({"KeyUsage":"SIGN_VERIFY"})", "UnsupportedOperationException"},
      {R"({"Origin":"EXTERNAL"})", "UnsupportedOperationException"},
      {R"({"MultiRegion":true})", "UnsupportedOperationException"},
      {R"({"Policy":"{}"})", "UnsupportedOperationException"},
      {R"({"Tags":[{"TagKey":"a","TagValue":"b"}]})", "UnsupportedOperationException"},
      {R"({"CustomKeyStoreId":"cks-1"})", "UnsupportedOperationException"},
      {R"({"Description":")" + std::string(8193, 'x') + R"("})", "ValidationException"},
      {R"({"Description":5})", "SerializationException"},
      {R"({"MultiRegion":"yes"})", "SerializationException"},
      {R"({"Description":"x",})", "SerializationException"},  // trailing comma
      {R"(["Description"])", "SerializationException"},
      {"{\"Description\":\"\\ud800\"}", "SerializationException"},  // lone surrogate
  };
  for (const Case& c : cases) {
    Reply r = Call("CreateKey", c.body);
    ExpectError(r, c.type);
    EXPECT_NE(r.json.Find("message"), nullptr) << c.body;
  }
  // Nothing was made.
  Reply list = Call("ListKeys", "{}");
  EXPECT_TRUE(list.json.Find("Keys")->items.empty());
  // Over 64 KiB.
  ExpectError(Call("CreateKey", std::string(65 << 10, ' ')), "ValidationException");
}

TEST_F(KeyServiceTest, UnknownOperation) {
  ExpectError(Call("Encrypt", "{}"), "UnknownOperationException");
  ExpectError(Call("", "{}"), "UnknownOperationException");
  EXPECT_TRUE(IsApiOperation("ListKeys"));
  EXPECT_FALSE(IsApiOperation("Encrypt"));
}

TEST_F(KeyServiceTest, DescribeKeyErrors) {
  ExpectError(Call("DescribeKey", "{}"), "ValidationException");
  ExpectError(Call("DescribeKey", R"({"KeyId":""})"), "ValidationException");
  ExpectError(Call("DescribeKey", R"({"KeyId":7})"), "SerializationException");
  ExpectError(Call("DescribeKey", R"({"KeyId":"nope"})"), "NotFoundException");
  ExpectError(Call("DescribeKey", R"({"KeyId":"alias/nope"})"), "NotFoundException");
  ExpectError(Call("DescribeKey", R"({"KeyId":"00000000-0000-4000-8000-000000000000"})"),
              "NotFoundException");
}

TEST_F(KeyServiceTest, ListKeysPages) {
  std::set<std::string> made;
  for (int i = 0; i < 5; ++i) made.insert(NewKey());
  std::set<std::string> seen;
  std::string marker;
  int pages = 0;
  for (;;) {
    std::string body = R"({"Limit":2)";
    if (!marker.empty()) body += R"(,"Marker":")" + marker + "\"";
    Reply r = Call("ListKeys", body + "}");
    ASSERT_EQ(r.status, 200) << r.body;
    ++pages;
    for (const text::JsonValue& k : r.json.Find("Keys")->items) {
      seen.insert(k.Find("KeyId")->text);
      EXPECT_EQ(k.Find("KeyArn")->text, Arn(k.Find("KeyId")->text));
    }
    if (r.Str("Truncated") == "false") {
      EXPECT_EQ(r.json.Find("NextMarker"), nullptr);
      break;
    }
    marker = r.Str("NextMarker");
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, made);
  ExpectError(Call("ListKeys", R"({"Limit":0})"), "ValidationException");
  ExpectError(Call("ListKeys", R"({"Limit":1001})"), "ValidationException");
  ExpectError(Call("ListKeys", R"({"Limit":1.5})"), "SerializationException");
  ExpectError(Call("ListKeys", R"({"Limit":"2"})"), "SerializationException");
}

TEST_F(KeyServiceTest, Aliases) {
  const std::string id = NewKey(), other = NewKey();
  auto create = [&](std::string name, std::string target) {
    return Call("CreateAlias",
                R"({"AliasName":")" + name + R"(","TargetKeyId":")" + target + R"("})");
  };
  Reply ok = create("alias/b-one", id);
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_TRUE(ok.body.empty());
  ASSERT_EQ(create("alias/a-two", Arn(other)).status, 200);
  ASSERT_EQ(create("alias/c-three", id).status, 200);

  ExpectError(create("alias/b-one", other), "AlreadyExistsException");
  ExpectError(create("mine", id), "InvalidAliasNameException");
  ExpectError(create("alias/", id), "InvalidAliasNameException");
  ExpectError(create("alias/aws/mine", id), "NotAuthorizedException");
  ExpectError(create("alias/with space", id), "ValidationException");
  ExpectError(create("alias/" + std::string(251, 'x'), id), "ValidationException");
  ExpectError(create("alias/x", "00000000-0000-4000-8000-000000000000"), "NotFoundException");
  ExpectError(create("alias/x", "alias/b-one"), "NotFoundException");  // a key, not an alias
  ExpectError(Call("CreateAlias", R"({"AliasName":"alias/x"})"), "ValidationException");

  // ListAliases: by name, the filter, paging.
  Reply all = Call("ListAliases", "{}");
  ASSERT_EQ(all.status, 200);
  const auto& items = all.json.Find("Aliases")->items;
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].Find("AliasName")->text, "alias/a-two");
  EXPECT_EQ(items[0].Find("TargetKeyId")->text, other);
  EXPECT_EQ(items[0].Find("AliasArn")->text,
            std::string("arn:aws:kms:") + kRegion + ":" + account_ + ":alias/a-two");
  EXPECT_EQ(all.Str("Truncated"), "false");
  Reply mine = Call("ListAliases", R"({"KeyId":")" + id + R"("})");
  ASSERT_EQ(mine.json.Find("Aliases")->items.size(), 2u);
  Reply page = Call("ListAliases", R"({"Limit":1})");
  EXPECT_EQ(page.Str("Truncated"), "true");
  EXPECT_EQ(page.Str("NextMarker"), "alias/a-two");
  page = Call("ListAliases", R"({"Limit":1,"Marker":"alias/a-two"})");
  EXPECT_EQ(page.json.Find("Aliases")->items.at(0).Find("AliasName")->text, "alias/b-one");
  ExpectError(Call("ListAliases", R"({"KeyId":"00000000-0000-4000-8000-000000000000"})"),
              "NotFoundException");
  ExpectError(Call("ListAliases", R"({"Limit":101})"), "ValidationException");

  // An alias names its key everywhere an alias may.
  EXPECT_EQ(Call("DescribeKey", R"({"KeyId":"alias/b-one"})").Str("KeyMetadata", "KeyId"), id);
  // The state-changing operations take a key id or ARN only.
  ExpectError(Call("DisableKey", R"({"KeyId":"alias/b-one"})"), "NotFoundException");

  ASSERT_EQ(Call("DeleteAlias", R"({"AliasName":"alias/b-one"})").status, 200);
  ExpectError(Call("DeleteAlias", R"({"AliasName":"alias/b-one"})"), "NotFoundException");
  ExpectError(Call("DeleteAlias", R"({"AliasName":"alias/aws/s3"})"), "NotAuthorizedException");
  ExpectError(Call("DeleteAlias", "{}"), "ValidationException");
  ExpectError(Call("DescribeKey", R"({"KeyId":"alias/b-one"})"), "NotFoundException");

  // No alias to a key pending deletion.
  ASSERT_EQ(Call("ScheduleKeyDeletion", R"({"KeyId":")" + other + R"("})").status, 200);
  ExpectError(create("alias/late", other), "KMSInvalidStateException");
}

TEST_F(KeyServiceTest, StateOperationErrors) {
  const std::string id = NewKey();
  const std::string key = R"({"KeyId":")" + id + "\"";
  ExpectError(Call("ScheduleKeyDeletion", key + R"(,"PendingWindowInDays":6})"),
              "ValidationException");
  ExpectError(Call("ScheduleKeyDeletion", key + R"(,"PendingWindowInDays":31})"),
              "ValidationException");
  ExpectError(Call("CancelKeyDeletion", key + "}"), "KMSInvalidStateException");
  Reply s = Call("ScheduleKeyDeletion", key + "}");
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(s.json.Find("PendingWindowInDays")->text, "30");  // the default
  ExpectError(Call("ScheduleKeyDeletion", key + "}"), "KMSInvalidStateException");
  ExpectError(Call("EnableKey", key + "}"), "KMSInvalidStateException");
  ExpectError(Call("DisableKey", key + "}"), "KMSInvalidStateException");
  ExpectError(Call("EnableKey", R"({"KeyId":"00000000-0000-4000-8000-000000000000"})"),
              "NotFoundException");
  ExpectError(Call("CancelKeyDeletion", "{}"), "ValidationException");

  // The AWS-managed key cannot be changed.
  DataKey dk;
  ASSERT_TRUE(service_->GenerateDataKey("", "ctx", &dk).ok());
  const std::string aws = R"({"KeyId":")" + dk.key_arn + "\"}";
  ExpectError(Call("DisableKey", aws), "NotAuthorizedException");
  ExpectError(Call("ScheduleKeyDeletion", aws), "NotAuthorizedException");
  ExpectError(Call("CreateAlias", R"({"AliasName":"alias/x","TargetKeyId":")" + dk.key_arn + "\"}"),
              "NotAuthorizedException");
  ExpectError(Call("EnableKey", aws), "NotAuthorizedException");
  // Enabling an enabled key and disabling a disabled one are fine.
  const std::string fresh = R"({"KeyId":")" + NewKey() + "\"}";
  EXPECT_EQ(Call("EnableKey", fresh).status, 200);
  EXPECT_EQ(Call("DisableKey", fresh).status, 200);
  EXPECT_EQ(Call("DisableKey", fresh).status, 200);
}

}  // namespace
}  // namespace cubby::kms
