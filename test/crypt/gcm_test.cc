// AES-256-GCM as OpenSSL computes it, against the published test vectors of the GCM
// specification submitted to NIST (McGrew & Viega, "The Galois/Counter Mode of Operation",
// Appendix B, test cases 13-16: the 256-bit key cases with a 96-bit IV), and the one-shot
// helpers' failure paths.
#include "crypt/gcm.h"

#include <gtest/gtest.h>

#include <string>

#include "text/encoding.h"

namespace cubby::crypt {
namespace {

std::string Unhex(std::string_view hex) {
  std::string raw;
  EXPECT_TRUE(text::HexDecode(hex, &raw)) << hex;
  return raw;
}

Key256 KeyFromHex(std::string_view hex) {
  std::string raw = Unhex(hex);
  EXPECT_EQ(raw.size(), Key256::kBytes);
  return Key256::FromBytes(reinterpret_cast<const unsigned char*>(raw.data()));
}

TEST(Gcm, KnownAnswers) {
  struct Case {
    const char* name;
    const char* key;
    const char* iv;
    const char* plaintext;
    const char* aad;
    const char* ciphertext;
    const char* tag;
  };
  const Case cases[] = {
      {"test case 13", "0000000000000000000000000000000000000000000000000000000000000000",
       "000000000000000000000000", "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"},
      {"test case 14", "0000000000000000000000000000000000000000000000000000000000000000",
       "000000000000000000000000", "00000000000000000000000000000000", "",
       "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"},
      {"test case 15", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
       "cafebabefacedbaddecaf888",
       "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
       "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
       "",
       "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
       "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
       "b094dac5d93471bdec1a502270e3cc6c"},
      {"test case 16", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
       "cafebabefacedbaddecaf888",
       "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
       "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
       "feedfacedeadbeeffeedfacedeadbeefabaddad2",
       "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
       "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
       "76fc6ece0f4e1768cddf8853bb2d551b"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Key256 key = KeyFromHex(c.key);
    const std::string expected = Unhex(c.ciphertext) + Unhex(c.tag);
    auto sealed = GcmSeal(key, Unhex(c.iv), Unhex(c.aad), Unhex(c.plaintext));
    ASSERT_TRUE(sealed.ok());
    EXPECT_EQ(text::HexEncode(*sealed), text::HexEncode(expected));
    auto opened = GcmOpen(key, Unhex(c.iv), Unhex(c.aad), expected);
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(*opened, Unhex(c.plaintext));
  }
}

TEST(Gcm, OpenRefusesAlteredInput) {
  const Key256 key = KeyFromHex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308");
  const std::string iv = Unhex("cafebabefacedbaddecaf888");
  auto sealed = GcmSeal(key, iv, "aad", "hello, world");
  ASSERT_TRUE(sealed.ok());
  struct Case {
    const char* name;
    std::string iv, aad, sealed;
  };
  std::string flipped = *sealed;
  flipped[0] ^= 0x80;
  std::string bad_tag = *sealed;
  bad_tag.back() ^= 0x01;
  std::string other_iv = iv;
  other_iv[11] ^= 0x01;
  const Case cases[] = {
      {"ciphertext byte", iv, "aad", flipped},
      {"tag byte", iv, "aad", bad_tag},
      {"aad", iv, "aae", *sealed},
      {"nonce", other_iv, "aad", *sealed},
      {"shorter than a tag", iv, "aad", sealed->substr(0, 15)},
      {"truncated", iv, "aad", sealed->substr(1)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = GcmOpen(key, c.iv, c.aad, c.sealed);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kAuthFailed);
  }
}

TEST(Gcm, NonceMustBe12Bytes) {
  const Key256 key;
  EXPECT_EQ(GcmSeal(key, "short", "", "x").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(GcmOpen(key, "short", "", std::string(20, 'x')).status().code(),
            Code::kInvalidArgument);
}

}  // namespace
}  // namespace cubby::crypt
