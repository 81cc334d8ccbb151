#include "text/encoding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cubby::text {
namespace {

TEST(HexTest, EncodeDecodeRoundTrip) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  const std::string hex = HexEncode(all);
  EXPECT_EQ(hex.size(), 512u);
  EXPECT_EQ(hex.substr(0, 8), "00010203");
  EXPECT_EQ(hex.substr(504), "fcfdfeff");
  std::string back;
  ASSERT_TRUE(HexDecode(hex, &back));
  EXPECT_EQ(back, all);
  ASSERT_TRUE(HexDecode("DEADbeef", &back));
  EXPECT_EQ(back, "\xde\xad\xbe\xef");
  ASSERT_TRUE(HexDecode("", &back));
  EXPECT_EQ(back, "");
}

TEST(HexTest, RejectsBadInputAndLeavesOutputAlone) {
  for (std::string_view bad : {"a", "abc", "zz", "0g", " 00", "00 ", "0x00", "-1", "\xC3\xA9"}) {
    std::string out = "unchanged";
    EXPECT_FALSE(HexDecode(bad, &out)) << bad;
    EXPECT_EQ(out, "unchanged");
  }
}

TEST(HexTest, Uint64InFixedWidth) {
  struct Case {
    uint64_t value;
    size_t digits;
    std::string_view hex;
  };
  const std::vector<Case> cases = {
      {0, 2, "00"},
      {0xab, 4, "00ab"},
      {0x1ab, 2, "ab"},  // only the low digits
      {0xff, 2, "ff"},
      {0x0123456789abcdef, 16, "0123456789abcdef"},
      {UINT64_MAX, 16, "ffffffffffffffff"},
      {UINT64_MAX, 20, "0000ffffffffffffffff"},
      {42, 0, ""},
  };
  for (const Case& c : cases) EXPECT_EQ(HexUint64(c.value, c.digits), c.hex) << c.value;
}

TEST(HexTest, DigitValues) {
  const std::vector<std::pair<char, int>> cases = {
      {'0', 0},  {'9', 9},  {'a', 10}, {'f', 15}, {'A', 10}, {'F', 15},
      {'g', -1}, {'G', -1}, {'/', -1}, {':', -1}, {'@', -1}, {'`', -1}, {'\0', -1}, {'\xff', -1},
  };
  for (const auto& [c, v] : cases) EXPECT_EQ(HexDigitValue(c), v) << static_cast<int>(c);
}

TEST(Base64Test, Rfc4648Vectors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},             {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}, {"\xfb\xff", "+/8="},
  };
  for (const auto& [raw, b64] : cases) {
    EXPECT_EQ(Base64Encode(raw), b64);
    std::string back = "x";
    ASSERT_TRUE(Base64Decode(b64, &back)) << b64;
    EXPECT_EQ(back, raw);
  }
}

TEST(Base64Test, BinaryRoundTrip) {
  std::string all;
  for (int i = 255; i >= 0; --i) all.push_back(static_cast<char>(i));
  for (size_t n = 0; n <= all.size(); n += 37) {
    const std::string raw = all.substr(0, n);
    std::string back;
    ASSERT_TRUE(Base64Decode(Base64Encode(raw), &back));
    EXPECT_EQ(back, raw);
  }
}

TEST(Base64Test, RejectsBadInputAndLeavesOutputAlone) {
  for (std::string_view bad :
       {"Zg", "Zg=", "Z===", "====", "Zm9v!", "Zm 9v", " Zm9v", "Zm9v\n", "=Zm9", "Zg==Zg==",
        "Zm=v", "Zm9v-_==", "Zm9v\r\n", "Zm9"}) {
    std::string out = "unchanged";
    EXPECT_FALSE(Base64Decode(bad, &out)) << bad;
    EXPECT_EQ(out, "unchanged");
  }
}

}  // namespace
}  // namespace cubby::text
