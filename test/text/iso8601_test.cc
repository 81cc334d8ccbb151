#include "text/iso8601.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

namespace cubby::text {
namespace {

TEST(Iso8601Test, ParsesExtendedDateTimes) {
  struct Case {
    const char* text;
    std::optional<int64_t> want_ms;
  };
  const Case cases[] = {
      {"1970-01-01T00:00:00Z", 0},
      {"2030-01-01T00:00:00Z", 1893456000000},
      {"2030-01-01T00:00:00.000Z", 1893456000000},
      {"2030-01-01T00:00:00.5Z", 1893456000500},
      {"2030-01-01T00:00:00.123456Z", 1893456000123},  // truncated to the millisecond
      {"2030-01-01T01:00:00+01:00", 1893456000000},
      {"2029-12-31T19:00:00-05:00", 1893456000000},
      {"2024-02-29T12:00:00Z", 1709208000000},
      {"2261-12-31T23:59:59Z", 9214646399000},
      // Refused.
      {"", std::nullopt},
      {"2030-01-01", std::nullopt},
      {"2030-01-01T00:00:00", std::nullopt},  // no zone
      {"2030-01-01t00:00:00Z", std::nullopt},
      {"2030-01-01T00:00:00z", std::nullopt},
      {" 2030-01-01T00:00:00Z", std::nullopt},
      {"2030-01-01T00:00:00Z ", std::nullopt},
      {"2030-01-01T00:00:00.Z", std::nullopt},
      {"2030-02-30T00:00:00Z", std::nullopt},
      {"2023-02-29T00:00:00Z", std::nullopt},
      {"2030-01-01T24:00:00Z", std::nullopt},
      {"2030-01-01T00:60:00Z", std::nullopt},
      {"2030-01-01T00:00:60Z", std::nullopt},
      {"2030-13-01T00:00:00Z", std::nullopt},
      {"2030-01-01T00:00:00+24:00", std::nullopt},
      {"2030-01-01T00:00:00+0100", std::nullopt},
      {"1969-12-31T23:59:59Z", std::nullopt},
      {"1970-01-01T00:00:00+00:01", std::nullopt},  // before the epoch once offset
      {"2262-01-01T00:00:00Z", std::nullopt},
      {"20300101T000000Z", std::nullopt},
      {"+2030-01-01T00:00:00Z", std::nullopt},
  };
  for (const Case& c : cases) {
    std::optional<TimePoint> t = ParseIso8601Extended(c.text);
    if (!c.want_ms) {
      EXPECT_FALSE(t.has_value()) << c.text;
      continue;
    }
    ASSERT_TRUE(t.has_value()) << c.text;
    EXPECT_EQ(ToUnixMillis(*t), *c.want_ms) << c.text;
  }
}

TEST(Iso8601Test, ParsesIamConditionDates) {
  struct Case {
    const char* text;
    std::optional<int64_t> want_ms;
  };
  const Case cases[] = {
      {"1563278400", 1563278400000},  // epoch seconds
      {"0", 0},
      {"253402300799", 253402300799000},  // the end of 9999
      {"2019-07-16", 1563235200000},
      {"2019-07-16T12:00", 1563278400000},  // no zone: UTC
      {"2019-07-16t12:00Z", 1563278400000},
      {"2019-07-16T12:00:30.5Z", 1563278430500},
      {"2019-07-16T12:00:30.123456z", 1563278430123},  // truncated to the millisecond
      {"2019-07-16T12:00+01:30", 1563273000000},
      {"2019-07-16T12:00-0530", 1563298200000},
      {"2019-07-16T23:59:60Z", 1563321600000},  // a leap second is the next day's first
      {"2024-02-29", 1709164800000},
      {"1000-01-01", -30610224000000},  // beyond what TimePoint holds
      {"9999-12-31T23:59:59Z", 253402300799000},
      // Refused.
      {"", std::nullopt},
      {"253402300800", std::nullopt},
      {"-1563278400", std::nullopt},
      {"1563278400.5", std::nullopt},
      {"0999-12-31", std::nullopt},
      {"2019-7-16", std::nullopt},
      {"2019-02-30", std::nullopt},
      {"2019-07-16Z", std::nullopt},
      {"2019-07-16 12:00", std::nullopt},
      {"2019-07-16T12", std::nullopt},
      {"2019-07-16T24:00", std::nullopt},
      {"2019-07-16T12:60", std::nullopt},
      {"2019-07-16T12:00:61", std::nullopt},
      {"2019-07-16T12:00:00.Z", std::nullopt},
      {"2019-07-16T12:00+24:00", std::nullopt},
      {"2019-07-16T12:00+01:60", std::nullopt},
      {"2019-07-16T12:00Zx", std::nullopt},
  };
  for (const Case& c : cases) {
    int64_t ms = 42;
    const bool ok = ParseIso8601OrEpochSeconds(c.text, &ms);
    EXPECT_EQ(ok, c.want_ms.has_value()) << c.text;
    EXPECT_EQ(ms, c.want_ms.value_or(42)) << c.text;  // untouched when refused
  }
}

}  // namespace
}  // namespace cubby::text
