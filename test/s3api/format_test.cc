#include "s3api/format.h"

#include <gtest/gtest.h>

namespace cubby::s3api {
namespace {

TEST(FormatTest, Timestamps) {
  EXPECT_EQ(Iso8601(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(Iso8601(1255369830123), "2009-10-12T17:50:30.123Z");
  EXPECT_EQ(HttpDate(784111777000), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(HttpDate(1445412480999), "Wed, 21 Oct 2015 07:28:00 GMT");
}

TEST(FormatTest, ParseHttpDate) {
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
  EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777);
  EXPECT_EQ(ParseHttpDate("Sun Nov  6 08:49:37 1994"), 784111777);
  EXPECT_EQ(ParseHttpDate("  Sun, 06 Nov 1994 08:49:37 GMT "), 784111777);
  EXPECT_EQ(ParseHttpDate("Sun, 06 Foo 1994 08:49:37 GMT"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("yesterday"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT junk"), std::nullopt);
  EXPECT_EQ(ParseHttpDate(""), std::nullopt);
}

TEST(FormatTest, Etags) {
  EXPECT_EQ(QuoteEtag("abc"), "\"abc\"");
  EXPECT_EQ(ParseEtagList("\"a\", W/\"b\",c , *"),
            (std::vector<std::string>{"a", "b", "c", "*"}));
  EXPECT_TRUE(ParseEtagList("").empty());
}

TEST(FormatTest, UrlEncode) {
  EXPECT_EQ(UrlEncode("a b+c/d~e_f.g-h"), "a%20b%2Bc/d~e_f.g-h");
  EXPECT_EQ(UrlEncode("\xC3\xA9&\x01"), "%C3%A9%26%01");
}

}  // namespace
}  // namespace cubby::s3api
