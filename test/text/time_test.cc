#include "text/time.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace cubby::text {
namespace {

std::optional<int64_t> Seconds(std::optional<TimePoint> t) {
  if (!t) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count();
}

TEST(TimeTest, Formats) {
  struct Case {
    int64_t ms;
    std::string http, iso_millis, iso_basic;
  };
  const std::vector<Case> cases = {
      {0, "Thu, 01 Jan 1970 00:00:00 GMT", "1970-01-01T00:00:00.000Z", "19700101T000000Z"},
      {784111777000, "Sun, 06 Nov 1994 08:49:37 GMT", "1994-11-06T08:49:37.000Z",
       "19941106T084937Z"},
      {1255369830123, "Mon, 12 Oct 2009 17:50:30 GMT", "2009-10-12T17:50:30.123Z",
       "20091012T175030Z"},
      {1445412480999, "Wed, 21 Oct 2015 07:28:00 GMT", "2015-10-21T07:28:00.999Z",
       "20151021T072800Z"},
      {951782400000, "Tue, 29 Feb 2000 00:00:00 GMT", "2000-02-29T00:00:00.000Z",
       "20000229T000000Z"},  // leap day
      {-1, "Wed, 31 Dec 1969 23:59:59 GMT", "1969-12-31T23:59:59.999Z", "19691231T235959Z"},
      {9214646399999, "Tue, 31 Dec 2261 23:59:59 GMT", "2261-12-31T23:59:59.999Z",
       "22611231T235959Z"},
      {-8520336000000, "Fri, 01 Jan 1700 00:00:00 GMT", "1700-01-01T00:00:00.000Z",
       "17000101T000000Z"},
  };
  for (const Case& c : cases) {
    const TimePoint t = FromUnixMillis(c.ms);
    EXPECT_EQ(ToUnixMillis(t), c.ms);
    EXPECT_EQ(FormatHttpDate(t), c.http) << c.ms;
    EXPECT_EQ(FormatIso8601Millis(t), c.iso_millis) << c.ms;
    EXPECT_EQ(FormatIso8601Basic(t), c.iso_basic) << c.ms;
    EXPECT_EQ(FormatHttpDate(c.ms), c.http) << c.ms;  // the Unix-milliseconds forms
    EXPECT_EQ(FormatIso8601Millis(c.ms), c.iso_millis) << c.ms;
  }
}

// The calendar arithmetic agrees with gmtime_r over the years TimePoint holds.
TEST(TimeTest, FormatsMatchGmtime) {
  uint64_t x = 88172645463325252ull;  // xorshift64: a fixed spread of instants
  const int64_t first = -8520336000000, last = 9214646399999;  // 1700-01-01 .. 2261-12-31
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t ms = first + static_cast<int64_t>(x % static_cast<uint64_t>(last - first));
    const int64_t s = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    std::time_t t = static_cast<std::time_t>(s);
    std::tm tm{};
    ASSERT_NE(gmtime_r(&t, &tm), nullptr);
    char http[64], iso[64], basic[64];
    std::snprintf(http, sizeof http, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday],
                  tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                  tm.tm_sec);
    std::snprintf(iso, sizeof iso, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms - s * 1000));
    std::snprintf(basic, sizeof basic, "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    const TimePoint tp = FromUnixMillis(ms);
    ASSERT_EQ(FormatHttpDate(tp), http) << ms;
    ASSERT_EQ(FormatIso8601Millis(tp), iso) << ms;
    ASSERT_EQ(FormatIso8601Basic(tp), basic) << ms;
    if (tm.tm_year + 1900 >= 1970) {
      ASSERT_EQ(Seconds(ParseHttpDate(http)), s) << http;
      ASSERT_EQ(Seconds(ParseIso8601Basic(basic)), s) << basic;
    }
  }
}

TEST(TimeTest, NowUnixMillisReadsTheSystemClock) {
  const int64_t before = ToUnixMillis(std::chrono::system_clock::now());
  const int64_t now = NowUnixMillis();
  const int64_t after = ToUnixMillis(std::chrono::system_clock::now());
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
  EXPECT_GT(now, int64_t{1700000000000});  // after November 2023
}

TEST(TimeTest, ParseHttpDateAcceptsTheThreeForms) {
  struct Case {
    std::string_view text;
    std::optional<int64_t> seconds;
  };
  const std::vector<Case> cases = {
      {"Sun, 06 Nov 1994 08:49:37 GMT", 784111777},
      {"Sunday, 06-Nov-94 08:49:37 GMT", 784111777},
      {"Sun Nov  6 08:49:37 1994", 784111777},
      {"Sun Nov 06 08:49:37 1994", 784111777},
      {"  Sun, 06 Nov 1994 08:49:37 GMT \t", 784111777},
      {"Fri, 24 May 2013 00:00:00 GMT", 1369353600},
      {"Thursday, 01-Jan-70 00:00:00 GMT", 0},
      {"Saturday, 01-Jan-00 00:00:00 GMT", 946684800},   // 00-69 → 20xx
      {"Wednesday, 31-Dec-69 23:59:59 GMT", 3155759999}, // 2069
      {"Tue, 29 Feb 2000 00:00:00 GMT", 951782400},
      {"Sat, 31 Dec 2261 23:59:59 GMT", 9214646399},
      {"Sun, 01 Jan 2262 00:00:00 GMT", std::nullopt},  // past what TimePoint holds
      {"Fri, 31 Dec 9999 23:59:59 GMT", std::nullopt},
      {"Wed, 31 Dec 1969 23:59:59 GMT", std::nullopt},  // before 1970
      {"Sun, 06 Foo 1994 08:49:37 GMT", std::nullopt},
      {"Sun, 06 nov 1994 08:49:37 GMT", std::nullopt},  // names are case-sensitive
      {"Sun, 06 Nov 1994 08:49:37 gmt", std::nullopt},
      {"Sun, 06 Nov 1994 08:49:37 GMT junk", std::nullopt},
      {"Sun, 06 Nov 1994 08:49:37", std::nullopt},
      {"Sun, 6 Nov 1994 08:49:37 GMT", std::nullopt},
      {"Sun, 06 Nov 94 08:49:37 GMT", std::nullopt},
      {"Sun 06 Nov 1994 08:49:37 GMT", std::nullopt},
      {"Sun, 31 Jun 2013 00:00:00 GMT", std::nullopt},  // no 31 June
      {"Mon, 29 Feb 2100 00:00:00 GMT", std::nullopt},  // 2100 is no leap year
      {"Sun, 06 Nov 1994 24:00:00 GMT", std::nullopt},
      {"Sun, 06 Nov 1994 08:60:00 GMT", std::nullopt},
      {"Sun, 06 Nov 1994 8:49:37 GMT", std::nullopt},
      {"Sunday, 06-Nov-1994 08:49:37 GMT", std::nullopt},
      {"Sun, 06-Nov-94 08:49:37 GMT", std::nullopt},  // RFC 850 has the long day name
      {"Sunday, 06 Nov 1994 08:49:37 GMT", std::nullopt},  // IMF-fixdate has the short one
      {"Sunday Nov  6 08:49:37 1994", std::nullopt},       // and so has asctime
      {"Wednesdays, 06-Nov-94 08:49:37 GMT", std::nullopt},  // longer than any day name
      {"Sun Nov  6 08:49:37 94", std::nullopt},
      {"Sun Nov 6 08:49:37 1994", std::nullopt},
      {"20130524T000000Z", std::nullopt},
      {"yesterday", std::nullopt},
      {"", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(Seconds(ParseHttpDate(c.text)), c.seconds) << c.text;
}

TEST(TimeTest, ParseImfFixdateOnlyTakesThatForm) {
  EXPECT_EQ(Seconds(ParseImfFixdate("Fri, 24 May 2013 00:00:00 GMT")), 1369353600);
  EXPECT_EQ(Seconds(ParseImfFixdate(" Sun, 06 Nov 1994 08:49:37 GMT ")), 784111777);
  for (std::string_view bad : {"", "Fri, 24 May 2013 00:00:00", "Fri, 24 Foo 2013 00:00:00 GMT",
                               "Friday, 24-May-13 00:00:00 GMT", "Fri May 24 00:00:00 2013",
                               "Friday, 24 May 2013 00:00:00 GMT",
                               "Fri, 31 Jun 2013 00:00:00 GMT", "20130524T000000Z"}) {
    EXPECT_EQ(ParseImfFixdate(bad), std::nullopt) << bad;
  }
}

TEST(TimeTest, ParseImfFixdateOrUtcOffsetTakesAZeroOffsetForGmt) {
  struct Case {
    std::string_view text;
    std::optional<int64_t> seconds;
  };
  const std::vector<Case> cases = {
      {"Fri, 24 May 2013 00:00:00 GMT", 1369353600},
      {"Fri, 24 May 2013 00:00:00 +0000", 1369353600},
      {"Fri, 24 May 2013 00:00:00 -0000", 1369353600},
      {" Fri, 24 May 2013 00:00:00 +0000", 1369353600},
      {"Fri, 24 May 2013 00:00:00 +0100", std::nullopt},
      {"Fri, 24 May 2013 00:00:00 +0000 ", std::nullopt},
      {"Fri, 24 May 2013 00:00:00+0000", std::nullopt},
      {"Fri, 24 May 2013 00:00:00 UTC", std::nullopt},
      {"Friday, 24-May-13 00:00:00 GMT", std::nullopt},  // IMF-fixdate only
      {"Tue, 07 Jul 1950 21:53:04 GMT", std::nullopt},
      {"+0000", std::nullopt},
      {"", std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Seconds(ParseImfFixdateOrUtcOffset(c.text)), c.seconds) << c.text;
  }
}

TEST(TimeTest, Iso8601BasicRoundTripAndRejects) {
  EXPECT_EQ(Seconds(ParseIso8601Basic("20130524T000000Z")), 1369353600);
  const std::optional<TimePoint> leap = ParseIso8601Basic("20240229T235959Z");
  ASSERT_TRUE(leap);
  EXPECT_EQ(FormatIso8601Basic(*leap + std::chrono::milliseconds(999)), "20240229T235959Z");
  for (std::string_view bad : {"", "20130524", "20130524T000000", "20130524T000000z",
                               "2013-05-24T00:00:00Z", "20130532T000000Z", "20130229T000000Z",
                               "20131324T000000Z", "20130524T240000Z", "2013052aT000000Z",
                               "20130524T000000Z ", " 20130524T000000Z", "+0130524T000000Z",
                               "99991231T235959Z"}) {
    EXPECT_EQ(ParseIso8601Basic(bad), std::nullopt) << bad;
  }
}

// Found by fuzz/auth_fuzz: an x-amz-date years before 1970 overflowed TimePoint's 64-bit
// nanoseconds (undefined behaviour) instead of being refused as HTTP dates before 1970 are.
TEST(TimeTest, Iso8601BasicRefusesYearsBefore1970) {
  for (std::string_view early : {"19691231T235959Z", "16770921T000000Z", "12030524T000000Z",
                                 "00000101T000000Z"}) {
    EXPECT_EQ(ParseIso8601Basic(early), std::nullopt) << early;
  }
  EXPECT_EQ(Seconds(ParseIso8601Basic("19700101T000000Z")), 0);
}

}  // namespace
}  // namespace cubby::text
