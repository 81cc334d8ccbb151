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

}  // namespace
}  // namespace cubby::text
