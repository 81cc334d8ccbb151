#include "s3api/format.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>

namespace cubby::s3api {
namespace {

TEST(FormatTest, Timestamps) {
  EXPECT_EQ(Iso8601(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(Iso8601(1255369830123), "2009-10-12T17:50:30.123Z");
  EXPECT_EQ(HttpDate(784111777000), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(HttpDate(1445412480999), "Wed, 21 Oct 2015 07:28:00 GMT");
  EXPECT_EQ(HttpDate(951782400000), "Tue, 29 Feb 2000 00:00:00 GMT");  // leap day
  EXPECT_EQ(Iso8601(-1), "1969-12-31T23:59:59.999Z");                   // before the epoch
  EXPECT_EQ(HttpDate(-1), "Wed, 31 Dec 1969 23:59:59 GMT");
  EXPECT_EQ(Iso8601(253402300799999), "9999-12-31T23:59:59.999Z");
}

// The calendar arithmetic agrees with gmtime_r over years 1..9999.
TEST(FormatTest, TimestampsMatchGmtime) {
  uint64_t x = 88172645463325252ull;  // xorshift64: a fixed spread of instants
  const int64_t first = -62135596800000, last = 253402300799999;  // 0001-01-01 .. 9999-12-31
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t ms = first + static_cast<int64_t>(x % static_cast<uint64_t>(last - first));
    const int64_t s = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    std::time_t t = static_cast<std::time_t>(s);
    std::tm tm{};
    ASSERT_NE(gmtime_r(&t, &tm), nullptr);
    char http[64], iso[64];
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::snprintf(http, sizeof http, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                  tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                  tm.tm_sec);
    std::snprintf(iso, sizeof iso, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms - s * 1000));
    ASSERT_EQ(HttpDate(ms), http) << ms;
    ASSERT_EQ(Iso8601(ms), iso) << ms;
  }
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
