#include "text/uri.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cubby::text {
namespace {

TEST(UriEncodeTest, Table) {
  struct Case {
    std::string in;
    Slash slash;
    std::string out;
  };
  const std::vector<Case> cases = {
      {"AZaz09-._~", Slash::kEncode, "AZaz09-._~"},
      {"a b", Slash::kEncode, "a%20b"},
      {"a/b", Slash::kKeep, "a/b"},
      {"a/b", Slash::kEncode, "a%2Fb"},
      {"!*'()$&+,;=:@", Slash::kEncode, "%21%2A%27%28%29%24%26%2B%2C%3B%3D%3A%40"},
      {"a b+c/d~e_f.g-h", Slash::kKeep, "a%20b%2Bc/d~e_f.g-h"},  // encoding-type=url
      {"\xc3\xa9&\x01", Slash::kKeep, "%C3%A9%26%01"},
      {"%", Slash::kEncode, "%25"},
      {"%2F", Slash::kKeep, "%252F"},  // never decodes first: encoding twice is the caller's
      {std::string("\0\xff", 2), Slash::kEncode, "%00%FF"},
      {"", Slash::kEncode, ""},
  };
  for (const Case& c : cases) EXPECT_EQ(UriEncode(c.in, c.slash), c.out) << c.in;
}

TEST(PercentDecodeTest, StrictTable) {
  struct Case {
    std::string_view in;
    Plus plus;
    bool ok;
    std::string out;
  };
  const std::vector<Case> cases = {
      {"a%2Fb%2fc+d", Plus::kLiteral, true, "a/b/c+d"},
      {"a+b", Plus::kSpace, true, "a b"},
      {"a%2Bb", Plus::kSpace, true, "a+b"},
      {"%C3%A9", Plus::kLiteral, true, "\xc3\xa9"},
      {"%00", Plus::kLiteral, true, std::string("\0", 1)},
      {"", Plus::kLiteral, true, ""},
      {"%", Plus::kLiteral, false, ""},
      {"%1", Plus::kLiteral, false, ""},
      {"%x1", Plus::kLiteral, false, ""},
      {"%1x", Plus::kLiteral, false, ""},
      {"ab%", Plus::kSpace, false, ""},
      {"100%25%", Plus::kSpace, false, ""},
      {"%%41", Plus::kLiteral, false, ""},
  };
  for (const Case& c : cases) {
    std::string out = "junk";
    EXPECT_EQ(PercentDecodeStrict(c.in, c.plus, &out), c.ok) << c.in;
    if (c.ok) {
      EXPECT_EQ(out, c.out) << c.in;
    }
  }
}

TEST(PercentDecodeTest, LenientTable) {
  struct Case {
    std::string_view in;
    Plus plus;
    std::string out;
  };
  const std::vector<Case> cases = {
      {"a%20b%2fc", Plus::kLiteral, "a b/c"},
      {"a+b", Plus::kLiteral, "a+b"},
      {"a+b", Plus::kSpace, "a b"},
      {"%", Plus::kLiteral, "%"},
      {"%4", Plus::kLiteral, "%4"},
      {"%zz%41", Plus::kLiteral, "%zzA"},
      {"%%41", Plus::kLiteral, "%A"},
      {"%C3%A9", Plus::kLiteral, "\xc3\xa9"},
      {"ab%", Plus::kSpace, "ab%"},
      {"", Plus::kSpace, ""},
  };
  for (const Case& c : cases) EXPECT_EQ(PercentDecodeLenient(c.in, c.plus), c.out) << c.in;
}

// Encoding then decoding gives back every byte, with either decoder and either slash rule.
TEST(PercentDecodeTest, RoundTripsEveryByte) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (Slash slash : {Slash::kEncode, Slash::kKeep}) {
    const std::string encoded = UriEncode(all, slash);
    std::string strict;
    ASSERT_TRUE(PercentDecodeStrict(encoded, Plus::kSpace, &strict));
    EXPECT_EQ(strict, all);
    EXPECT_EQ(PercentDecodeLenient(encoded, Plus::kSpace), all);
  }
}

using Pairs = std::vector<NameValue>;

TEST(SplitUrlEncodedTest, Table) {
  struct Case {
    std::string_view raw;
    Plus plus;
    bool strict_ok;
    Pairs pairs;  // the strict result when strict_ok, and always the lenient one
  };
  const std::vector<Case> cases = {
      {"", Plus::kSpace, true, {}},
      {"list-type=2&prefix=a%2Fb", Plus::kSpace, true, {{"list-type", "2"}, {"prefix", "a/b"}}},
      {"acl", Plus::kSpace, true, {{"acl", ""}}},
      {"acl=", Plus::kSpace, true, {{"acl", ""}}},
      {"a=1&a=2", Plus::kSpace, true, {{"a", "1"}, {"a", "2"}}},  // repeats kept, in order
      {"=x&=", Plus::kSpace, true, {{"", "x"}, {"", ""}}},        // empty names kept
      {"a=1&&b&", Plus::kSpace, true, {{"a", "1"}, {"b", ""}}},   // empty pieces skipped
      {"&&&", Plus::kSpace, true, {}},
      {"a=b=c", Plus::kSpace, true, {{"a", "b=c"}}},  // the first '=' splits
      {"q=a+b&r=a%2Bb", Plus::kSpace, true, {{"q", "a b"}, {"r", "a+b"}}},
      {"Signature=ab+c/d=", Plus::kLiteral, true, {{"Signature", "ab+c/d="}}},
      {"Action=ListUsers&Version=2010-05-08", Plus::kSpace, true,
       {{"Action", "ListUsers"}, {"Version", "2010-05-08"}}},  // an IAM form body
      {"a%3Db=c%26d", Plus::kSpace, true, {{"a=b", "c&d"}}},
      {"a=%zz&b=1", Plus::kSpace, false, {{"a", "%zz"}, {"b", "1"}}},
      {"%=1", Plus::kSpace, false, {{"%", "1"}}},
      {"a=1%", Plus::kSpace, false, {{"a", "1%"}}},
  };
  for (const Case& c : cases) {
    Pairs strict = {{"junk", "junk"}};
    EXPECT_EQ(SplitUrlEncodedStrict(c.raw, c.plus, &strict), c.strict_ok) << c.raw;
    if (c.strict_ok) {
      EXPECT_EQ(strict, c.pairs) << c.raw;
    }
    EXPECT_EQ(SplitUrlEncodedLenient(c.raw, c.plus), c.pairs) << c.raw;
  }
}

TEST(SplitUrlEncodedTest, FindValueTakesTheFirst) {
  const Pairs pairs = SplitUrlEncodedLenient("a=1&b=&a=2", Plus::kSpace);
  ASSERT_NE(FindValue(pairs, "a"), nullptr);
  EXPECT_EQ(*FindValue(pairs, "a"), "1");
  ASSERT_NE(FindValue(pairs, "b"), nullptr);
  EXPECT_EQ(*FindValue(pairs, "b"), "");
  EXPECT_EQ(FindValue(pairs, "c"), nullptr);
  EXPECT_EQ(FindValue(pairs, "A"), nullptr);  // names are case-sensitive
}

}  // namespace
}  // namespace cubby::text
