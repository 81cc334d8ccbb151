// The master key and the keyring (server/master_key.h) in real temp folders: the keyring's text
// format, first start, reopen, configured and generated keys, every refusal (with the folder
// left byte for byte as it was), rotation with both kinds of key, and crashes simulated at each
// step of a rotation and by a temporary file left behind.
#include "server/master_key.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "crypt/master_key.h"
#include "text/encoding.h"

namespace cubby::server {
namespace {

namespace fs = std::filesystem;
using storage::Code;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const fs::path& path, std::string_view content, fs::perms mode) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  fs::permissions(path, mode);
}

// Every file under `dir` (relative path -> content).
std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), dir).string()] = ReadAll(entry.path());
    }
  }
  return files;
}

std::string KeyText(unsigned char fill) {
  std::string raw(32, static_cast<char>(fill));
  return text::Base64Encode(raw) + "\n";
}

class MasterKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cubby-master-key-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    root_ = pattern;
    data_ = root_ / "data";
    fs::create_directory(data_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // A key file outside the data folder, mode 0600 (or `mode`).
  std::string KeyFile(std::string_view name, unsigned char fill,
                      fs::perms mode = fs::perms::owner_read | fs::perms::owner_write) {
    const fs::path path = root_ / name;
    WriteAll(path, KeyText(fill), mode);
    return path.string();
  }

  storage::Result<OpenedKeyring> Open(const std::string& key_file = "") {
    warnings_.clear();
    return OpenKeyring(data_.string(), key_file,
                       [this](const std::string& w) { warnings_.push_back(w); });
  }

  fs::path root_;
  fs::path data_;
  std::vector<std::string> warnings_;
};

bool SameKeys(const crypt::ServiceKeys& a, const crypt::ServiceKeys& b) {
  return a.sse_s3.SameAs(b.sse_s3) && a.kms.SameAs(b.kms);
}

TEST(KeyringFormatTest, RoundTrip) {
  KeyringFile keyring{"v1:" + std::string(64, 'a'), std::string(crypt::kWrappedKeyBytes, '\x01'),
                      std::string(crypt::kWrappedKeyBytes, '\x02')};
  const std::string text = FormatKeyring(keyring);
  EXPECT_TRUE(text.starts_with("cubby-keyring v1\ncheck v1:")) << text;
  auto parsed = ParseKeyring(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->check, keyring.check);
  EXPECT_EQ(parsed->sse_s3_wrapped, keyring.sse_s3_wrapped);
  EXPECT_EQ(parsed->kms_wrapped, keyring.kms_wrapped);
}

TEST(KeyringFormatTest, Refusals) {
  const std::string good = FormatKeyring(KeyringFile{"v1:" + std::string(64, 'a'),
                                                     std::string(crypt::kWrappedKeyBytes, 'x'),
                                                     std::string(crypt::kWrappedKeyBytes, 'y')});
  const std::string wrapped = text::Base64Encode(std::string(crypt::kWrappedKeyBytes, 'x'));
  const std::string short_wrapped = text::Base64Encode(std::string(40, 'x'));
  struct Case {
    std::string text;
    Code code;
  } cases[] = {
      {"", Code::kCorruption},
      {"hello\n", Code::kCorruption},
      {good.substr(0, good.size() - 1), Code::kCorruption},  // no final newline
      {good + "extra 1\n", Code::kCorruption},
      {"cubby-keyring v2\ncheck x\n", Code::kFormatTooNew},
      {"cubby-keyring vX\n", Code::kCorruption},
      {"cubby-keyring v1\ncheck v1:ab\nkms " + wrapped + "\nsse-s3 " + wrapped + "\n",
       Code::kCorruption},  // entries out of order
      {"cubby-keyring v1\ncheck v1:ab\nsse-s3 " + short_wrapped + "\nkms " + wrapped + "\n",
       Code::kCorruption},
      {"cubby-keyring v1\ncheck v1:ab\nsse-s3 !!!\nkms " + wrapped + "\n", Code::kCorruption},
      {"cubby-keyring v1\ncheckv1:ab\nsse-s3 " + wrapped + "\nkms " + wrapped + "\n",
       Code::kCorruption},
  };
  for (const Case& c : cases) {
    auto parsed = ParseKeyring(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().code(), c.code) << c.text << ": " << parsed.status().message();
  }
}

TEST(KeyringFormatTest, MasterKeyFileNames) {
  EXPECT_TRUE(IsMasterKeyFileName("master.key"));
  EXPECT_TRUE(IsMasterKeyFileName("master.key.next"));
  EXPECT_TRUE(IsMasterKeyFileName("master.key.tmp-0011223344556677"));
  EXPECT_TRUE(IsMasterKeyFileName("master.key.next.tmp-0011223344556677"));
  EXPECT_FALSE(IsMasterKeyFileName("keyring"));
  EXPECT_FALSE(IsMasterKeyFileName("root-credentials"));
  EXPECT_FALSE(IsMasterKeyFileName("master.keyring"));
}

TEST_F(MasterKeyTest, FirstStartGeneratesTheKeyAndTheKeyringThenReopens) {
  auto first = Open();
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->generated_key_file);
  EXPECT_TRUE(first->key_generated);
  EXPECT_TRUE(first->keyring_created);
  EXPECT_EQ(first->master_key_file, (data_ / "master.key").string());
  for (const char* name : {"master.key", "keyring"}) {
    struct stat st {};
    ASSERT_EQ(::stat((data_ / name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << name;
  }
  // The warning says what the generated key protects, and never holds the key.
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("--master-key-file"), std::string::npos) << warnings_[0];
  std::string key_text = ReadAll(data_ / "master.key");
  key_text.pop_back();
  EXPECT_EQ(warnings_[0].find(key_text), std::string::npos);
  EXPECT_EQ(ReadAll(data_ / "keyring").find(key_text), std::string::npos);

  auto second = Open();
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_FALSE(second->key_generated);
  EXPECT_FALSE(second->keyring_created);
  EXPECT_EQ(warnings_.size(), 1u);  // every start with the generated key warns
  EXPECT_TRUE(SameKeys(first->keys, second->keys));
  EXPECT_FALSE(first->keys.sse_s3.SameAs(first->keys.kms));
}

TEST_F(MasterKeyTest, ConfiguredKeyCreatesAKeyringAndNoKeyFile) {
  const std::string key = KeyFile("k1", 1);
  auto first = Open(key);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->generated_key_file);
  EXPECT_EQ(first->master_key_file, key);
  EXPECT_TRUE(warnings_.empty());
  EXPECT_FALSE(fs::exists(data_ / "master.key"));
  auto second = Open(key);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(SameKeys(first->keys, second->keys));
  // A read-only (0400) key file, as a Kubernetes Secret with defaultMode 0400 gives it, works.
  fs::permissions(key, fs::perms::owner_read);
  EXPECT_TRUE(Open(key).ok());
}

TEST_F(MasterKeyTest, RefusalsChangeNothing) {
  const std::string right = KeyFile("right", 1);
  ASSERT_TRUE(Open(right).ok());
  const std::string wrong = KeyFile("wrong", 2);
  const std::string group_readable =
      KeyFile("group", 1, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const std::string malformed = (root_ / "malformed").string();
  WriteAll(malformed, "not a key\n", fs::perms::owner_read | fs::perms::owner_write);
  const auto before = Snapshot(data_);
  struct Case {
    std::string key_file;
    std::string message;
  } cases[] = {
      {wrong, "the master key does not match this data folder's keyring (" +
                  (data_ / "keyring").string() + ")"},
      {group_readable, "must not be accessible to group or others"},
      {malformed, "must hold a 32-byte key in base64"},
      {(root_ / "missing").string(), "does not exist"},
      // A keyring, no configured key and no DATA/master.key: never a new key over data.
      {"", "no master key"},
  };
  for (const Case& c : cases) {
    auto opened = Open(c.key_file);
    ASSERT_FALSE(opened.ok()) << c.key_file;
    EXPECT_EQ(opened.status().code(), Code::kInvalidArgument) << opened.status().message();
    EXPECT_NE(opened.status().message().find(c.message), std::string::npos)
        << opened.status().message();
    EXPECT_EQ(Snapshot(data_), before) << c.key_file;
  }
  EXPECT_FALSE(fs::exists(data_ / "master.key"));
}

TEST_F(MasterKeyTest, GeneratedKeyWithAWrongKeyIsRefused) {
  ASSERT_TRUE(Open().ok());
  WriteAll(data_ / "master.key", KeyText(9), fs::perms::owner_read | fs::perms::owner_write);
  const auto before = Snapshot(data_);
  auto opened = Open();
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Snapshot(data_), before);
}

TEST_F(MasterKeyTest, CorruptKeyringIsRefused) {
  const std::string key = KeyFile("k", 1);
  ASSERT_TRUE(Open(key).ok());
  const std::string good = ReadAll(data_ / "keyring");
  auto keyring = ParseKeyring(good);
  ASSERT_TRUE(keyring.ok());
  // One bit of the wrapped KMS root key flipped: the check value still matches the key.
  KeyringFile altered = *keyring;
  altered.kms_wrapped[20] ^= 1;
  struct Case {
    std::string text;
    Code code;
  } cases[] = {
      {FormatKeyring(altered), Code::kCorruption},
      {good.substr(0, 40), Code::kCorruption},
      {"garbage", Code::kCorruption},
      {"cubby-keyring v7\n", Code::kFormatTooNew},
  };
  for (const Case& c : cases) {
    WriteAll(data_ / "keyring", c.text, fs::perms::owner_read | fs::perms::owner_write);
    auto opened = Open(key);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.status().code(), c.code) << opened.status().message();
    EXPECT_EQ(ReadAll(data_ / "keyring"), c.text);
  }
}

TEST_F(MasterKeyTest, LeftoverTemporaryFilesAreIgnoredAndRemoved) {
  auto first = Open();
  ASSERT_TRUE(first.ok());
  // A crash during a keyring write leaves its temporary file; the keyring itself is whole.
  WriteAll(data_ / "keyring.tmp-0011223344556677", "cubby-keyring v1\nche",
           fs::perms::owner_read | fs::perms::owner_write);
  WriteAll(data_ / "master.key.tmp-8899aabbccddeeff", KeyText(3),
           fs::perms::owner_read | fs::perms::owner_write);
  auto second = Open();
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(SameKeys(first->keys, second->keys));
  EXPECT_FALSE(fs::exists(data_ / "keyring.tmp-0011223344556677"));
  EXPECT_FALSE(fs::exists(data_ / "master.key.tmp-8899aabbccddeeff"));
}

TEST_F(MasterKeyTest, RotateAnExternalKey) {
  const std::string old_key = KeyFile("old", 1);
  const std::string new_key = KeyFile("new", 2);
  auto before = Open(old_key);
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(RotateMasterKey(data_.string(), old_key, new_key).ok());
  auto after = Open(new_key);
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_TRUE(SameKeys(before->keys, after->keys));  // the root keys, so every object, stay
  auto refused = Open(old_key);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_FALSE(fs::exists(data_ / "master.key"));
}

TEST_F(MasterKeyTest, RotateTheGeneratedKeyReplacesIt) {
  auto before = Open();
  ASSERT_TRUE(before.ok());
  const std::string new_key = KeyFile("new", 2);
  ASSERT_TRUE(RotateMasterKey(data_.string(), "", new_key).ok());
  EXPECT_EQ(ReadAll(data_ / "master.key"), KeyText(2));
  EXPECT_FALSE(fs::exists(data_ / "master.key.next"));
  auto after = Open();
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_TRUE(SameKeys(before->keys, after->keys));
  EXPECT_TRUE(Open(new_key).ok());
}

TEST_F(MasterKeyTest, RotationRefusalsChangeNothing) {
  const std::string old_key = KeyFile("old", 1);
  const std::string new_key = KeyFile("new", 2);
  const std::string wrong = KeyFile("wrong", 3);
  // No keyring yet.
  auto none = RotateMasterKey(data_.string(), old_key, new_key);
  EXPECT_EQ(none.code(), Code::kInvalidArgument) << none.message();
  ASSERT_TRUE(Open(old_key).ok());
  const auto before = Snapshot(data_);
  struct Case {
    std::string old_file, new_file, message;
  } cases[] = {
      {wrong, new_key, "does not match"},
      {old_key, old_key, "is the current one"},
      {old_key, (root_ / "missing").string(), "does not exist"},
      {"", new_key, "no master key"},
  };
  for (const Case& c : cases) {
    auto s = RotateMasterKey(data_.string(), c.old_file, c.new_file);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find(c.message), std::string::npos) << s.message();
    EXPECT_EQ(Snapshot(data_), before);
  }
}

// A crash after each step of rotating the generated key: the next start opens the same root
// keys with no key given, completing the rotation when the keyring was already replaced.
TEST_F(MasterKeyTest, CrashDuringRotationOfTheGeneratedKey) {
  for (std::string_view step : {"next-key", "keyring"}) {
    SCOPED_TRACE(step);
    fs::remove_all(data_);
    fs::create_directory(data_);
    auto before = Open();
    ASSERT_TRUE(before.ok());
    const std::string old_text = ReadAll(data_ / "master.key");
    const std::string new_key = KeyFile("new", 2);
    ASSERT_TRUE(RotateMasterKey(data_.string(), "", new_key, [step](std::string_view at) {
                  return at == step;
                }).ok());
    EXPECT_TRUE(fs::exists(data_ / "master.key.next"));
    auto after = Open();
    ASSERT_TRUE(after.ok()) << after.status().message();
    EXPECT_TRUE(SameKeys(before->keys, after->keys));
    EXPECT_FALSE(fs::exists(data_ / "master.key.next"));
    if (step == "next-key") {
      EXPECT_EQ(ReadAll(data_ / "master.key"), old_text);  // the rotation did not happen
    } else {
      EXPECT_EQ(ReadAll(data_ / "master.key"), KeyText(2));  // completed at start
      ASSERT_EQ(warnings_.size(), 2u);
      EXPECT_NE(warnings_[1].find("interrupted master key rotation"), std::string::npos);
    }
  }
}

// Before the store opens nothing is written, not even to complete a rotation: a rotation
// running meanwhile (it holds the store's lock) must not see its files change.
TEST_F(MasterKeyTest, InterruptedRotationIsCompletedOnlyByFinishKeyringOpen) {
  auto before = Open();
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(RotateMasterKey(data_.string(), "", KeyFile("new", 2), [](std::string_view at) {
                return at == "keyring";
              }).ok());
  const auto files = Snapshot(data_);
  auto opened = OpenExistingKeyring(data_.string(), "", {});
  ASSERT_TRUE(opened.ok() && opened->has_value()) << opened.status().message();
  EXPECT_TRUE((*opened)->complete_rotation);
  EXPECT_TRUE(SameKeys(before->keys, (*opened)->keys));
  EXPECT_EQ(Snapshot(data_), files);
  ASSERT_TRUE(FinishKeyringOpen(data_.string(), **opened, {}).ok());
  EXPECT_EQ(ReadAll(data_ / "master.key"), KeyText(2));
  EXPECT_FALSE(fs::exists(data_ / "master.key.next"));
}

// A second rotation right after a crashed one (no start in between) first completes it.
TEST_F(MasterKeyTest, RotationAfterAnInterruptedRotation) {
  auto before = Open();
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(RotateMasterKey(data_.string(), "", KeyFile("new", 2), [](std::string_view at) {
                return at == "keyring";
              }).ok());
  ASSERT_TRUE(RotateMasterKey(data_.string(), "", KeyFile("newer", 3), [](std::string_view at) {
                return at == "next-key";
              }).ok());
  // Crashed again after writing master.key.next: master.key (the first new key) opens it.
  EXPECT_EQ(ReadAll(data_ / "master.key"), KeyText(2));
  auto after = Open();
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_TRUE(SameKeys(before->keys, after->keys));
  ASSERT_TRUE(RotateMasterKey(data_.string(), "", (root_ / "newer").string()).ok());
  EXPECT_EQ(ReadAll(data_ / "master.key"), KeyText(3));
  auto last = Open();
  ASSERT_TRUE(last.ok()) << last.status().message();
  EXPECT_TRUE(SameKeys(before->keys, last->keys));
}

TEST_F(MasterKeyTest, CrashDuringRotationOfAnExternalKey) {
  const std::string old_key = KeyFile("old", 1);
  const std::string new_key = KeyFile("new", 2);
  auto before = Open(old_key);
  ASSERT_TRUE(before.ok());
  // Stopped right after the keyring's rename: the new key opens it, the old one no longer.
  ASSERT_TRUE(RotateMasterKey(data_.string(), old_key, new_key, [](std::string_view at) {
                return at == "keyring";
              }).ok());
  auto after = Open(new_key);
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_TRUE(SameKeys(before->keys, after->keys));
  EXPECT_FALSE(Open(old_key).ok());
}

// The step before the store opens writes nothing when there is no keyring yet.
TEST_F(MasterKeyTest, OpenExistingKeyringNeverCreates) {
  auto none = OpenExistingKeyring(data_.string(), "", {});
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->has_value());
  const std::string key = KeyFile("k", 1);
  auto configured = OpenExistingKeyring(data_.string(), key, {});
  ASSERT_TRUE(configured.ok()) << configured.status().message();
  EXPECT_FALSE(configured->has_value());
  EXPECT_TRUE(fs::is_empty(data_));
  // A configured key file that cannot be used is refused already here.
  auto missing = OpenExistingKeyring(data_.string(), (root_ / "missing").string(), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(fs::is_empty(data_));

  auto created = Open(key);
  ASSERT_TRUE(created.ok());
  auto existing = OpenExistingKeyring(data_.string(), key, {});
  ASSERT_TRUE(existing.ok() && existing->has_value());
  EXPECT_TRUE(SameKeys(created->keys, (*existing)->keys));
  auto wrong = OpenExistingKeyring(data_.string(), KeyFile("wrong", 2), {});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), Code::kInvalidArgument);
}

TEST_F(MasterKeyTest, EphemeralKeysAreRandom) {
  auto a = EphemeralServiceKeys();
  auto b = EphemeralServiceKeys();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->sse_s3.SameAs(b->sse_s3));
  EXPECT_FALSE(a->sse_s3.SameAs(a->kms));
}

}  // namespace
}  // namespace cubby::server
