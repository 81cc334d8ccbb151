// Key material: Key256's hygiene, KEK derivation, wrapping (wrong KEK, wrong context, damaged
// blobs), rewrapping for master key rotation, the master key file (generate, load, every bad
// file), its check value, and SSE-C key checks.
#include "crypt/key.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <type_traits>

#include "crypt/customer_key.h"
#include "crypt/master_key.h"
#include "text/encoding.h"

namespace cubby::crypt {
namespace {

Key256 Filled(unsigned char fill) {
  unsigned char bytes[Key256::kBytes];
  for (auto& b : bytes) b = fill;
  return Key256::FromBytes(bytes);
}

std::string Raw(const Key256& k) {
  return std::string(reinterpret_cast<const char*>(k.reveal()), Key256::kBytes);
}

// Key material cannot be streamed into a log line, copied implicitly, or turned into a string.
template <typename T, typename = void>
struct Streamable : std::false_type {};
template <typename T>
struct Streamable<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<T>())>>
    : std::true_type {};
static_assert(Streamable<int>::value);  // the detector works
static_assert(!Streamable<const Key256&>::value);
static_assert(!std::is_copy_constructible_v<Key256>);
static_assert(!std::is_convertible_v<Key256, std::string>);
static_assert(!std::is_convertible_v<Key256, std::string_view>);

TEST(Key, MoveLeavesZeroesAndCloneIsExplicit) {
  Key256 a = Filled(0xab);
  Key256 b = a.Clone();
  EXPECT_TRUE(a.SameAs(b));
  Key256 c = std::move(a);
  EXPECT_TRUE(c.SameAs(b));
  EXPECT_TRUE(a.SameAs(Key256()));  // NOLINT: moved-from is zeroed on purpose
  EXPECT_FALSE(c.SameAs(Key256()));
}

TEST(Key, RandomKeysDiffer) {
  auto a = NewRandomKey();
  auto b = NewRandomKey();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->SameAs(*b));
  EXPECT_FALSE(a->SameAs(Key256()));
}

TEST(Key, KeksAreDeterministicAndDifferPerPurposeAndMaster) {
  const Key256 master = Filled(1);
  auto s3 = DeriveKek(master, KekPurpose::kSseS3);
  auto s3_again = DeriveKek(master, KekPurpose::kSseS3);
  auto kms = DeriveKek(master, KekPurpose::kKmsKeyMaterial);
  auto other = DeriveKek(Filled(2), KekPurpose::kSseS3);
  ASSERT_TRUE(s3.ok() && s3_again.ok() && kms.ok() && other.ok());
  EXPECT_TRUE(s3->SameAs(*s3_again));
  EXPECT_FALSE(s3->SameAs(*kms));
  EXPECT_FALSE(s3->SameAs(*other));
  EXPECT_FALSE(s3->SameAs(master));
}

TEST(Wrap, RoundTripAndFreshNonces) {
  const Key256 kek = Filled(3);
  const Key256 data = Filled(4);
  auto blob = WrapKey(kek, "sse-s3", data);
  auto blob2 = WrapKey(kek, "sse-s3", data);
  ASSERT_TRUE(blob.ok() && blob2.ok());
  EXPECT_EQ(blob->size(), kWrappedKeyBytes);
  EXPECT_EQ(static_cast<unsigned char>((*blob)[0]), kWrapVersion);
  EXPECT_NE(*blob, *blob2);  // a random nonce each time
  EXPECT_EQ(blob->find(Raw(data)), std::string::npos);
  auto back = UnwrapKey(kek, "sse-s3", *blob);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->SameAs(data));
}

TEST(Wrap, FailuresTable) {
  const Key256 kek = Filled(5);
  auto blob = WrapKey(kek, "ctx", Filled(6));
  ASSERT_TRUE(blob.ok());
  std::string flipped = *blob;
  flipped[20] ^= 0x04;
  std::string future = *blob;
  future[0] = 2;
  struct Case {
    const char* name;
    unsigned char kek_fill;
    std::string context;
    std::string blob;
    Code code;
  };
  const Case cases[] = {
      {"wrong kek", 7, "ctx", *blob, Code::kWrongKey},
      {"wrong context", 5, "ctx2", *blob, Code::kWrongKey},
      {"altered byte", 5, "ctx", flipped, Code::kWrongKey},
      {"unknown version", 5, "ctx", future, Code::kBadFormat},
      {"short", 5, "ctx", blob->substr(0, kWrappedKeyBytes - 1), Code::kBadFormat},
      {"long", 5, "ctx", *blob + "x", Code::kBadFormat},
      {"empty", 5, "ctx", "", Code::kBadFormat},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = UnwrapKey(Filled(c.kek_fill), c.context, c.blob);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), c.code);
  }
}

TEST(Wrap, RewrapMovesTheSameKeyToTheNewKek) {
  auto old_master = NewRandomKey();
  auto new_master = NewRandomKey();
  ASSERT_TRUE(old_master.ok() && new_master.ok());
  auto old_kek = DeriveKek(*old_master, KekPurpose::kSseS3);
  auto new_kek = DeriveKek(*new_master, KekPurpose::kSseS3);
  ASSERT_TRUE(old_kek.ok() && new_kek.ok());
  const Key256 data = Filled(8);
  auto blob = WrapKey(*old_kek, "b/k", data);
  ASSERT_TRUE(blob.ok());
  auto rewrapped = RewrapKey(*old_kek, *new_kek, "b/k", *blob);
  ASSERT_TRUE(rewrapped.ok());
  auto back = UnwrapKey(*new_kek, "b/k", *rewrapped);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->SameAs(data));
  EXPECT_EQ(UnwrapKey(*old_kek, "b/k", *rewrapped).status().code(), Code::kWrongKey);
  // Rewrapping a blob with the wrong old KEK changes nothing and says so.
  EXPECT_EQ(RewrapKey(*new_kek, *old_kek, "b/k", *blob).status().code(), Code::kWrongKey);
}

// ---- The master key file

class MasterKeyFile : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = testing::TempDir() + "/crypt_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& content, mode_t mode) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    EXPECT_EQ(::chmod(path.c_str(), mode), 0);
    return path;
  }

  std::string dir_;
};

TEST_F(MasterKeyFile, GenerateThenLoad) {
  const std::string path = dir_ + "/master.key";
  auto made = GenerateMasterKeyFile(path);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::ifstream in(path, std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, text::Base64Encode(Raw(*made)) + "\n");
  auto loaded = LoadMasterKeyFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(loaded->SameAs(*made));
  // No temporary file is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
}

TEST_F(MasterKeyFile, GenerateNeverOverwrites) {
  const std::string path = Write("master.key", "precious", 0600);
  auto r = GenerateMasterKeyFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kAlreadyExists);
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "precious");
}

TEST_F(MasterKeyFile, GenerateInAMissingFolderIsAnIOError) {
  auto r = GenerateMasterKeyFile(dir_ + "/no/such/master.key");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kIOError);
}

TEST_F(MasterKeyFile, LoadsBase64WithOrWithoutNewline) {
  const Key256 key = Filled(0x5a);
  const std::string b64 = text::Base64Encode(Raw(key));
  for (const std::string& content : {b64, b64 + "\n"}) {
    auto r = LoadMasterKeyFile(Write("k", content, 0400));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->SameAs(key));
    std::filesystem::remove(dir_ + "/k");
  }
}

TEST_F(MasterKeyFile, BadFilesTable) {
  const std::string b64 = text::Base64Encode(Raw(Filled(0x11)));
  struct Case {
    const char* name;
    std::string content;
    mode_t mode;
    Code code;
  };
  const Case cases[] = {
      {"group readable", b64, 0640, Code::kBadPermissions},
      {"world readable", b64, 0644, Code::kBadPermissions},
      {"world writable", b64, 0602, Code::kBadPermissions},
      {"raw 32 bytes", Raw(Filled(0x11)), 0600, Code::kBadFormat},
      {"base64 of 31 bytes", text::Base64Encode(std::string(31, 'x')), 0600, Code::kBadFormat},
      {"base64 of 33 bytes", text::Base64Encode(std::string(33, 'x')), 0600, Code::kBadFormat},
      {"two newlines", b64 + "\n\n", 0600, Code::kBadFormat},
      {"CRLF", b64 + "\r\n", 0600, Code::kBadFormat},
      {"leading space", " " + b64, 0600, Code::kBadFormat},
      {"not base64", std::string(44, '*'), 0600, Code::kBadFormat},
      {"empty", "", 0600, Code::kBadFormat},
      {"huge", std::string(4096, 'A'), 0600, Code::kBadFormat},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = LoadMasterKeyFile(Write("k", c.content, c.mode));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), c.code) << r.status().ToString();
    // The message never quotes the file's content.
    if (c.content.size() > 8) {
      EXPECT_EQ(r.status().message().find(c.content), std::string::npos);
    }
    std::filesystem::remove(dir_ + "/k");
  }
}

TEST_F(MasterKeyFile, MissingFileFolderAndFifo) {
  auto missing = LoadMasterKeyFile(dir_ + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  ASSERT_EQ(::chmod(dir_.c_str(), 0700), 0);
  auto folder = LoadMasterKeyFile(dir_);
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.status().code(), Code::kBadFormat);
  // A FIFO is refused at once instead of blocking start-up.
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto pipe = LoadMasterKeyFile(fifo);
  ASSERT_FALSE(pipe.ok());
  EXPECT_EQ(pipe.status().code(), Code::kBadFormat);
}

TEST(CheckValue, DetectsAWrongMasterKey) {
  const Key256 master = Filled(0x21);
  auto check = MasterKeyCheckValue(master);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(check->size(), 3u + 64u);
  EXPECT_EQ(check->substr(0, 3), "v1:");
  EXPECT_EQ(*check, *MasterKeyCheckValue(master));  // deterministic
  EXPECT_TRUE(VerifyMasterKeyCheckValue(master, *check).ok());
  EXPECT_EQ(VerifyMasterKeyCheckValue(Filled(0x22), *check).code(), Code::kWrongKey);
  EXPECT_EQ(check->find(text::HexEncode(Raw(master))), std::string::npos);
  for (const std::string& bad : {std::string(""), std::string("v2:") + check->substr(3),
                                 check->substr(0, 66), *check + "0"}) {
    EXPECT_EQ(VerifyMasterKeyCheckValue(master, bad).code(), Code::kBadFormat) << bad;
  }
}

// ---- SSE-C

TEST(CustomerKey, ParseTable) {
  const std::string key(32, 'k');
  const std::string key_b64 = text::Base64Encode(key);
  // base64(MD5(32 x "k")) and of 32 x "j", computed independently:
  //   printf 'k%.0s' $(seq 1 32) | openssl md5 -binary | base64
  const std::string good_md5 = "mT2HRsMGJ5IX5C+0rreZ8Q==";
  const std::string other_md5 = "i6qJOqb8EmJKrlLOjo18Fg==";
  struct Case {
    const char* name;
    std::string key;
    std::string md5;
    CustomerKeyProblem want;
  };
  const Case cases[] = {
      {"good", key_b64, good_md5, CustomerKeyProblem::kNone},
      {"key not base64", "not base64!", good_md5, CustomerKeyProblem::kKeyNotBase64},
      {"key empty", "", good_md5, CustomerKeyProblem::kKeyNot256Bits},
      {"key 16 bytes", text::Base64Encode(std::string(16, 'k')), good_md5,
       CustomerKeyProblem::kKeyNot256Bits},
      {"key 33 bytes", text::Base64Encode(std::string(33, 'k')), good_md5,
       CustomerKeyProblem::kKeyNot256Bits},
      {"md5 not base64", key_b64, "%%%", CustomerKeyProblem::kMd5NotBase64},
      {"md5 empty", key_b64, "", CustomerKeyProblem::kMd5NotBase64},
      {"md5 of 15 bytes", key_b64, text::Base64Encode(std::string(15, 'x')),
       CustomerKeyProblem::kMd5NotBase64},
      {"md5 of another key", key_b64, other_md5, CustomerKeyProblem::kMd5Mismatch},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Key256 parsed;
    EXPECT_EQ(ParseCustomerKey(c.key, c.md5, &parsed), c.want);
    if (c.want == CustomerKeyProblem::kNone) {
      EXPECT_EQ(Raw(parsed), key);
    } else {
      EXPECT_TRUE(parsed.SameAs(Key256()));  // untouched on failure
    }
  }
}

TEST(CustomerKey, CheckRecognisesOnlyTheSameKey) {
  const Key256 key = Filled(0x31);
  auto check = NewCustomerKeyCheck(key);
  auto check2 = NewCustomerKeyCheck(key);
  ASSERT_TRUE(check.ok() && check2.ok());
  EXPECT_NE(*check, *check2);  // salted
  EXPECT_EQ(check->find(text::HexEncode(Raw(key))), std::string::npos);
  EXPECT_EQ(check->find(text::Base64Encode(Raw(key))), std::string::npos);
  EXPECT_TRUE(CustomerKeyMatches(key, *check));
  EXPECT_TRUE(CustomerKeyMatches(key, *check2));
  EXPECT_FALSE(CustomerKeyMatches(Filled(0x32), *check));
  std::string altered = *check;
  altered.back() = altered.back() == '0' ? '1' : '0';
  for (const std::string& bad :
       {std::string(""), std::string("v1:"), std::string("v2:") + check->substr(3), altered,
        check->substr(0, check->size() - 1), std::string("v1:AAAA:00")}) {
    EXPECT_FALSE(CustomerKeyMatches(key, bad)) << bad;
  }
}

}  // namespace
}  // namespace cubby::crypt
