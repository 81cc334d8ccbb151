#include "s3api/auth/crypto.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <string>
#include <vector>

#include "text/encoding.h"

namespace cubby::s3api::auth {
namespace {

struct HashCase {
  HashAlgorithm algorithm;
  std::string input;
  std::string hex;
};

// FIPS 180 / RFC 1321 test vectors.
const std::vector<HashCase> kHashCases = {
    {HashAlgorithm::kMd5, "", "d41d8cd98f00b204e9800998ecf8427e"},
    {HashAlgorithm::kMd5, "abc", "900150983cd24fb0d6963f7d28e17f72"},
    {HashAlgorithm::kMd5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
    {HashAlgorithm::kSha1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
    {HashAlgorithm::kSha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
    {HashAlgorithm::kSha256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {HashAlgorithm::kSha256, "abc",
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {HashAlgorithm::kSha256, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};

TEST(HasherTest, KnownVectorsOneShotAndByteByByte) {
  for (const HashCase& c : kHashCases) {
    SCOPED_TRACE(c.input);
    Hasher whole(c.algorithm);
    whole.Update(c.input);
    EXPECT_EQ(text::HexEncode(whole.Finish()), c.hex);

    Hasher pieces(c.algorithm);
    for (char ch : c.input) pieces.Update(std::string_view(&ch, 1));
    EXPECT_EQ(text::HexEncode(pieces.Finish()), c.hex);
  }
}

TEST(HasherTest, OneShotHelpers) {
  EXPECT_EQ(text::HexEncode(Md5("")), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(text::HexEncode(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256("x").size(), 32u);
  EXPECT_EQ(Md5("x").size(), 16u);
}

TEST(HasherTest, MillionAsInUnevenPieces) {
  Hasher h(HashAlgorithm::kSha256);
  const std::string block(997, 'a');
  size_t left = 1000000;
  while (left > 0) {
    const size_t n = std::min(left, block.size());
    h.Update(std::string_view(block).substr(0, n));
    left -= n;
  }
  EXPECT_EQ(text::HexEncode(h.Finish()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(HasherTest, MoveKeepsState) {
  Hasher a(HashAlgorithm::kSha256);
  a.Update("a");
  Hasher b(std::move(a));
  b.Update("bc");
  Hasher c(HashAlgorithm::kMd5);
  c = std::move(b);
  EXPECT_EQ(text::HexEncode(c.Finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

struct HmacCase {
  std::string key;
  std::string data;
  std::string sha256_hex;
  std::string sha1_hex;
};

// RFC 4231 (HMAC-SHA256) and RFC 2202 (HMAC-SHA1) test cases 1, 2 and the long-key case.
const std::vector<HmacCase> kHmacCases = {
    {std::string(20, '\x0b'), "Hi There",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
     "b617318655057264e28bc0b6fb378c8ef146be00"},
    {"Jefe", "what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
     "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"},
    {std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", ""},
    {"", "", "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad", ""},
};

TEST(HmacTest, RfcVectors) {
  for (const HmacCase& c : kHmacCases) {
    SCOPED_TRACE(c.data);
    EXPECT_EQ(text::HexEncode(HmacSha256(c.key, c.data)), c.sha256_hex);
    if (!c.sha1_hex.empty()) {
      EXPECT_EQ(text::HexEncode(HmacSha1(c.key, c.data)), c.sha1_hex);
    }
  }
}

TEST(HmacTest, RekeyingBetweenCallsDoesNotLeakState) {
  // The per-thread context is re-keyed per call; alternate keys to catch a stale key.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(text::HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
              kHmacCases[1].sha256_hex);
    EXPECT_EQ(text::HexEncode(HmacSha256("", "")), kHmacCases[3].sha256_hex);
  }
}

TEST(HmacTest, ThreadsEachGetTheirOwnContext) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&wrong, t] {
      const HmacCase& c = kHmacCases[t % 2];
      for (int i = 0; i < 500; ++i) {
        if (text::HexEncode(HmacSha256(c.key, c.data)) != c.sha256_hex) ++wrong;
        if (text::HexEncode(Sha256("abc")) !=
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ConstantTimeEqualsTest, ComparesContentAndLength) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
  EXPECT_FALSE(ConstantTimeEquals(std::string("a\0b", 3), std::string("a\0c", 3)));
}

TEST(RandomBytesTest, ProducesRequestedLengthAndVaries) {
  std::set<std::string> seen;
  for (int i = 0; i < 8; ++i) {
    std::string out;
    ASSERT_TRUE(RandomBytes(32, &out));
    EXPECT_EQ(out.size(), 32u);
    seen.insert(out);
  }
  EXPECT_EQ(seen.size(), 8u);
  std::string empty = "x";
  ASSERT_TRUE(RandomBytes(0, &empty));
  EXPECT_EQ(empty, "");
}

}  // namespace
}  // namespace cubby::s3api::auth
