#include "text/ascii.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cubby::text {
namespace {

TEST(AsciiTest, LowercaseTouchesOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLowercase("Content-MD5 X-Amz-Date"), "content-md5 x-amz-date");
  EXPECT_EQ(AsciiLowercase("@[`{AZaz09"), "@[`{azaz09");  // the bytes around 'A'-'Z'
  EXPECT_EQ(AsciiLowercase("\xC3\x89\xC3\xA9"), "\xC3\x89\xC3\xA9");  // UTF-8 É é unchanged
  EXPECT_EQ(AsciiLowercase(""), "");
  EXPECT_EQ(AsciiLower('Q'), 'q');
  EXPECT_EQ(AsciiLower('\xC9'), '\xC9');
}

TEST(AsciiTest, EqualsIgnoreCase) {
  struct Case {
    std::string_view a, b;
    bool equal;
  };
  const std::vector<Case> cases = {
      {"Content-Length", "content-length", true}, {"", "", true},
      {"abc", "ABC", true},                       {"abc", "abd", false},
      {"abc", "abcd", false},                     {"@", "`", false},  // 0x40 vs 0x60
      {"\xC3\x89", "\xC3\xA9", false},            {"[", "{", false},
  };
  for (const Case& c : cases) EXPECT_EQ(EqualsIgnoreCase(c.a, c.b), c.equal) << c.a << " " << c.b;
  EXPECT_TRUE(StartsWithIgnoreCase("AWS4-HMAC-SHA256 Credential", "aws4-"));
  EXPECT_TRUE(StartsWithIgnoreCase("x", ""));
  EXPECT_FALSE(StartsWithIgnoreCase("AWS", "AWS4"));
}

TEST(AsciiTest, TrimOwsRemovesOnlySpacesAndTabs) {
  struct Case {
    std::string_view in, out;
  };
  const std::vector<Case> cases = {
      {"  a b \t", "a b"}, {"\t\t", ""},          {"", ""},           {"a", "a"},
      {"\ra\n", "\ra\n"},  {" \va\v ", "\va\v"}, {"\x00 a", "\x00 a"},
  };
  for (const Case& c : cases) EXPECT_EQ(TrimOws(c.in), c.out) << c.in;
}

TEST(AsciiTest, TrimXmlSpaceRemovesXmlWhiteSpace) {
  struct Case {
    std::string_view in, out;
  };
  const std::vector<Case> cases = {
      {" \t\r\nEnabled\n\t ", "Enabled"},
      {"a b", "a b"},
      {"\r\n", ""},
      {"", ""},
      {"\va\f", "\va\f"},        // vertical tab and form feed are not XML's white space
      {"\xC2\xA0", "\xC2\xA0"},  // nor is U+00A0
  };
  for (const Case& c : cases) EXPECT_EQ(TrimXmlSpace(c.in), c.out) << c.in;
}

TEST(AsciiTest, TrimSpacesRemovesOnlySpaces) {
  struct Case {
    std::string_view in, out;
  };
  const std::vector<Case> cases = {
      {"  'x' ", "'x'"}, {"   ", ""}, {"", ""}, {"\ta\t", "\ta\t"}, {" a b ", "a b"},
  };
  for (const Case& c : cases) EXPECT_EQ(TrimSpaces(c.in), c.out) << c.in;
}

TEST(AsciiTest, ParseUint64Table) {
  struct Case {
    std::string_view in;
    int base;
    bool ok;
    uint64_t value;
  };
  const std::vector<Case> cases = {
      {"0", 10, true, 0},
      {"10000", 10, true, 10000},
      {"007", 10, true, 7},
      {"18446744073709551615", 10, true, 18446744073709551615ull},
      {"18446744073709551616", 10, false, 0},  // overflow
      {"99999999999999999999", 10, false, 0},
      {"", 10, false, 0},
      {"-1", 10, false, 0},
      {"+1", 10, false, 0},
      {" 1", 10, false, 0},
      {"1 ", 10, false, 0},
      {"1.5", 10, false, 0},
      {"abc", 10, false, 0},
      {"1e3", 10, false, 0},
      {"ff", 16, true, 255},
      {"FF", 16, true, 255},
      {"ffffffffffffffff", 16, true, 18446744073709551615ull},
      {"10000000000000000", 16, false, 0},
      {"0x1", 16, false, 0},
      {"g", 16, false, 0},
  };
  for (const Case& c : cases) {
    uint64_t v = 12345;
    EXPECT_EQ(ParseUint64(c.in, &v, c.base), c.ok) << c.in;
    if (c.ok) {
      EXPECT_EQ(v, c.value) << c.in;
    }
  }
  EXPECT_TRUE(IsDecimalDigits("0123456789"));
  EXPECT_FALSE(IsDecimalDigits(""));
  EXPECT_FALSE(IsDecimalDigits("12a"));
}

}  // namespace
}  // namespace cubby::text
