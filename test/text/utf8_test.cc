#include "text/utf8.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cubby::text {
namespace {

struct Case {
  std::string_view in;
  size_t len;      // DecodeUtf8's answer for the first sequence
  char32_t value;  // its scalar value when len > 0
};

// The boundaries of each length, and each way a sequence can be malformed (Unicode's table 3-7).
const std::vector<Case> kCases = {
    {"a", 1, 'a'},
    {std::string_view("\0", 1), 1, 0},
    {"\x7F", 1, 0x7F},
    {"\xC2\x80", 2, 0x80},
    {"\xC3\xA9x", 2, 0xE9},  // é, then more text
    {"\xDF\xBF", 2, 0x7FF},
    {"\xE0\xA0\x80", 3, 0x800},
    {"\xED\x9F\xBF", 3, 0xD7FF},
    {"\xEE\x80\x80", 3, 0xE000},
    {"\xEF\xBF\xBF", 3, 0xFFFF},
    {"\xF0\x90\x80\x80", 4, 0x10000},
    {"\xF0\x9F\x98\x80", 4, 0x1F600},
    {"\xF4\x8F\xBF\xBF", 4, 0x10FFFF},
    {"", 0, 0},
    {"\x80", 0, 0},  // a continuation byte alone
    {"\xBF", 0, 0},
    {"\xFF\xFE", 0, 0},          // never in UTF-8
    {"\xC0\xAF", 0, 0},          // overlong '/'
    {"\xC1\xBF", 0, 0},          // overlong 0x7F
    {"\xE0\x80\xAF", 0, 0},      // overlong '/'
    {"\xE0\x9F\xBF", 0, 0},      // overlong U+07FF
    {"\xF0\x80\x80\xAF", 0, 0},  // overlong '/'
    {"\xF0\x8F\xBF\xBF", 0, 0},  // overlong U+FFFF
    {"\xED\xA0\x80", 0, 0},      // U+D800, a high surrogate
    {"\xED\xBF\xBF", 0, 0},      // U+DFFF, a low surrogate
    {"\xF4\x90\x80\x80", 0, 0},  // U+110000
    {"\xF5\x80\x80\x80", 0, 0},
    {"\xF8\x88\x80\x80\x80", 0, 0},  // the old 5-byte form
    {"\xC3", 0, 0},                  // truncated
    {"\xE2\x82", 0, 0},
    {"\xF0\x9F\x98", 0, 0},
    {"\xC3\x28", 0, 0},  // a lead byte followed by ASCII
    {"\xE2\x28\xA1", 0, 0},
};

TEST(Utf8Test, DecodeUtf8) {
  for (const Case& c : kCases) {
    char32_t cp = 0xFFFFFFFF;
    EXPECT_EQ(DecodeUtf8(c.in, &cp), c.len) << testing::PrintToString(c.in);
    if (c.len > 0) {
      EXPECT_EQ(static_cast<uint32_t>(cp), static_cast<uint32_t>(c.value))
          << testing::PrintToString(c.in);
    }
  }
}

TEST(Utf8Test, IsValidUtf8) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("photos/2024/caf\xC3\xA9 \xF0\x9F\x98\x80.jpg"));
  EXPECT_TRUE(IsValidUtf8("\x01\x1F\x7F\r"));  // control characters are text
  EXPECT_FALSE(IsValidUtf8("\xFF\xFE"));
  EXPECT_FALSE(IsValidUtf8("a/\xC0\xAF"));
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));
  EXPECT_FALSE(IsValidUtf8("ok\xC3"));  // truncated at the end
  EXPECT_FALSE(IsValidUtf8("\xC3\xA9\x80"));
}

TEST(Utf8Test, AppendUtf8RoundTripsThroughDecode) {
  for (char32_t cp : {0x0u, 0x41u, 0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xD7FFu, 0xE000u, 0xFFFDu, 0xFFFFu,
                      0x10000u, 0x10FFFFu}) {
    std::string s;
    AppendUtf8(cp, &s);
    char32_t back = 0;
    EXPECT_EQ(DecodeUtf8(s, &back), s.size()) << static_cast<uint32_t>(cp);
    EXPECT_EQ(static_cast<uint32_t>(back), static_cast<uint32_t>(cp));
  }
}

}  // namespace
}  // namespace cubby::text
