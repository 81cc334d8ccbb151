#include "lifecycle/lifecycle.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "text/time.h"

namespace cubby::lifecycle {
namespace {

using std::chrono::seconds;
using storage::LifecycleConfig;
using storage::LifecycleRule;

// "20140115T103000Z" → Unix epoch milliseconds.
int64_t Ms(const char* basic) {
  std::optional<text::TimePoint> t = text::ParseIso8601Basic(basic);
  EXPECT_TRUE(t.has_value()) << basic;
  return t ? text::ToUnixMillis(*t) : 0;
}

LifecycleRule DaysRule(std::string id, uint32_t days, std::string prefix = "") {
  LifecycleRule r;
  r.id = std::move(id);
  r.filter.prefix = std::move(prefix);
  r.expiration_days = days;
  return r;
}

TEST(LifecycleTest, AfterDaysRoundsUpToNextMidnightWithRealDays) {
  struct Case {
    const char* start;
    uint32_t days;
    seconds day;
    const char* want;
  };
  const Case cases[] = {
      // AWS's example: 1/15/2014 10:30 + 3 days = 1/18 10:30, rounded to 1/19 00:00.
      {"20140115T103000Z", 3, kDay, "20140119T000000Z"},
      {"20140115T000000Z", 1, kDay, "20140117T000000Z"},  // midnight moves to the next one
      {"20140115T235959Z", 1, kDay, "20140117T000000Z"},
      {"20141231T120000Z", 1, kDay, "20150102T000000Z"},  // over a year's end
      {"20160228T120000Z", 1, kDay, "20160301T000000Z"},  // over a leap day
      // An accelerated day: no rounding.
      {"20140115T103000Z", 3, seconds(10), "20140115T103030Z"},
      {"20140115T103000Z", 1, seconds(86399), "20140116T102959Z"},
      {"20140115T103000Z", 0, seconds(1), "20140115T103000Z"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(AfterDays(Ms(c.start), c.days, c.day), Ms(c.want))
        << c.start << " + " << c.days << " x " << c.day.count() << "s";
  }
  // Before the epoch: 1969-12-31T12:00Z + 1 day rounds to 1970-01-02T00:00Z.
  EXPECT_EQ(AfterDays(-43200000, 1, kDay), Ms("19700102T000000Z"));
  EXPECT_EQ(AfterDays(-86400000, 1, kDay), Ms("19700102T000000Z"));  // from a midnight
  EXPECT_EQ(AfterDays(INT64_MAX - 5, 1, kDay), INT64_MAX);
  EXPECT_EQ(AfterDays(0, UINT32_MAX, seconds(INT64_MAX / 1000)), INT64_MAX);
}

TEST(LifecycleTest, FilterMatches) {
  const std::vector<Tag> tags = {{"env", "prod"}, {"team", "a"}};
  storage::LifecycleFilter any;
  storage::LifecycleFilter prefix{"logs/", {}, {}, {}};
  storage::LifecycleFilter tag{"", {{"env", "prod"}}, {}, {}};
  storage::LifecycleFilter two_tags{"", {{"env", "prod"}, {"team", "b"}}, {}, {}};
  storage::LifecycleFilter sizes{"", {}, 10, 20};
  storage::LifecycleFilter all{"logs/", {{"team", "a"}}, 0, 100};
  struct Case {
    const storage::LifecycleFilter* filter;
    const char* key;
    uint64_t size;
    bool tagged;
    bool want;
  };
  const Case cases[] = {
      {&any, "", 0, false, true},         {&prefix, "logs/a", 0, false, true},
      {&prefix, "logs", 0, false, false}, {&prefix, "Logs/a", 0, false, false},  // case-sensitive
      {&tag, "k", 0, true, true},         {&tag, "k", 0, false, false},
      {&two_tags, "k", 0, true, false},  // team=a, not b
      {&sizes, "k", 10, false, false},   // bounds are exclusive
      {&sizes, "k", 11, false, true},     {&sizes, "k", 19, false, true},
      {&sizes, "k", 20, false, false},    {&all, "logs/x", 50, true, true},
      {&all, "logs/x", 0, true, false},   {&all, "logs/x", 50, false, false},
      {&all, "other", 50, true, false},
  };
  for (const Case& c : cases) {
    std::span<const Tag> t = c.tagged ? std::span<const Tag>(tags) : std::span<const Tag>();
    EXPECT_EQ(FilterMatches(*c.filter, c.key, c.size, t), c.want)
        << c.key << " size " << c.size << " tagged " << c.tagged;
  }
}

TEST(LifecycleTest, CurrentVersionExpiryPicksTheEarliestEnabledMatchingRule) {
  LifecycleRule thirty = DaysRule("thirty", 30);
  LifecycleRule logs = DaysRule("logs-3", 3, "logs/");
  LifecycleRule disabled = DaysRule("disabled", 1);
  disabled.enabled = false;
  LifecycleRule date;
  date.id = "date";
  date.expiration_date_ms = Ms("20140120T000000Z");
  LifecycleRule big = DaysRule("big", 1);
  big.filter.size_greater_than = 1000;
  LifecycleRule noncurrent_only;
  noncurrent_only.id = "nc";
  noncurrent_only.noncurrent_days = 1;
  LifecycleRule tie = DaysRule("tie", 3);
  const LifecycleConfig config{{thirty, logs, disabled, date, big, noncurrent_only}};
  const int64_t created = Ms("20140115T103000Z");
  struct Case {
    LifecycleConfig config;
    const char* key;
    uint64_t size;
    seconds day;
    std::optional<Expiry> want;
  };
  const Case cases[] = {
      {config, "a", 1, kDay, Expiry{Ms("20140120T000000Z"), "date"}},
      {config, "logs/a", 1, kDay, Expiry{Ms("20140119T000000Z"), "logs-3"}},
      {config, "a", 5000, kDay, Expiry{Ms("20140117T000000Z"), "big"}},
      // Accelerated: 30 "days" of 1 s beat the date.
      {config, "a", 1, seconds(1), Expiry{created + 30000, "thirty"}},
      {LifecycleConfig{{logs, tie}}, "logs/a", 1, kDay, Expiry{Ms("20140119T000000Z"), "logs-3"}},
      {LifecycleConfig{{disabled, noncurrent_only}}, "a", 1, kDay, std::nullopt},
      {LifecycleConfig{}, "a", 1, kDay, std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CurrentVersionExpiry(c.config, {c.key, c.size, {}, created}, c.day), c.want)
        << c.key << " size " << c.size;
  }
}

TEST(LifecycleTest, ExpirationHeaderHasAwsShape) {
  EXPECT_EQ(ExpirationHeader({Ms("20121223T000000Z"), "rule-1"}),
            "expiry-date=\"Sun, 23 Dec 2012 00:00:00 GMT\", rule-id=\"rule-1\"");
  EXPECT_EQ(ExpirationHeader({Ms("20121221T000000Z"), "Rule 1"}),
            "expiry-date=\"Fri, 21 Dec 2012 00:00:00 GMT\", rule-id=\"Rule 1\"");
}

TEST(LifecycleTest, DueNoncurrentVersions) {
  // Versions newest first, each written a day apart at 12:00; versions[0] is current.
  const std::vector<Tag> tags = {{"keep", "no"}};
  std::vector<VersionFacts> versions = {
      {false, 10, {}, Ms("20140110T120000Z")},    // current
      {false, 10, tags, Ms("20140109T120000Z")},  // noncurrent since 01-10 12:00
      {true, 0, {}, Ms("20140108T120000Z")},      // a noncurrent delete marker, since 01-09
      {false, 5000, {}, Ms("20140107T120000Z")},  // since 01-08
  };
  LifecycleRule one_day;
  one_day.id = "nc1";
  one_day.noncurrent_days = 1;
  LifecycleRule keep_two = one_day;
  keep_two.id = "keep2";
  keep_two.newer_noncurrent_versions = 2;
  LifecycleRule tagged = one_day;
  tagged.id = "tagged";
  tagged.filter.tags = {{"keep", "no"}};
  LifecycleRule small = one_day;
  small.id = "small";
  small.filter.size_less_than = 100;
  LifecycleRule disabled = one_day;
  disabled.enabled = false;
  struct Case {
    const char* name;
    LifecycleConfig config;
    int64_t now;
    seconds day;
    std::vector<DueVersion> want;
  };
  const Case cases[] = {
      // 01-10 12:00 + 1 day rounds to 01-12 00:00; 01-09 → 01-11; 01-08 → 01-10.
      {"before any", {{one_day}}, Ms("20140109T235959Z"), kDay, {}},
      {"oldest only",
       {{one_day}},
       Ms("20140110T000000Z"),
       kDay,
       {{3, {Ms("20140110T000000Z"), "nc1"}}}},
      {"two",
       {{one_day}},
       Ms("20140111T000000Z"),
       kDay,
       {{2, {Ms("20140111T000000Z"), "nc1"}}, {3, {Ms("20140110T000000Z"), "nc1"}}}},
      {"all",
       {{one_day}},
       Ms("20140112T000000Z"),
       kDay,
       {{1, {Ms("20140112T000000Z"), "nc1"}},
        {2, {Ms("20140111T000000Z"), "nc1"}},
        {3, {Ms("20140110T000000Z"), "nc1"}}}},
      {"newest two kept",
       {{keep_two}},
       Ms("20140201T000000Z"),
       kDay,
       {{3, {Ms("20140110T000000Z"), "keep2"}}}},
      {"tag filter",
       {{tagged}},
       Ms("20140201T000000Z"),
       kDay,
       {{1, {Ms("20140112T000000Z"), "tagged"}}}},
      {"size filter: the marker is size 0",
       {{small}},
       Ms("20140201T000000Z"),
       kDay,
       {{1, {Ms("20140112T000000Z"), "small"}}, {2, {Ms("20140111T000000Z"), "small"}}}},
      {"disabled", {{disabled}}, Ms("20140201T000000Z"), kDay, {}},
      // Accelerated day of 60 s: no rounding; version 1 became noncurrent 01-10 12:00.
      {"accelerated",
       {{one_day}},
       Ms("20140110T120100Z"),
       seconds(60),
       {{1, {Ms("20140110T120100Z"), "nc1"}},
        {2, {Ms("20140109T120100Z"), "nc1"}},
        {3, {Ms("20140108T120100Z"), "nc1"}}}},
      {"earliest rule wins",
       {{keep_two, one_day}},
       Ms("20140110T000000Z"),
       kDay,
       {{3, {Ms("20140110T000000Z"), "keep2"}}}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DueNoncurrentVersions(c.config, "k", versions, c.day, c.now), c.want) << c.name;
  }
  EXPECT_TRUE(DueNoncurrentVersions({{one_day}}, "k", std::span(versions).first(1), kDay,
                                    Ms("20990101T000000Z"))
                  .empty());
}

TEST(LifecycleTest, DueExpiredDeleteMarker) {
  const int64_t written = Ms("20140115T103000Z");
  const std::vector<VersionFacts> lone_marker = {{true, 0, {}, written}};
  const std::vector<VersionFacts> marker_over_version = {{true, 0, {}, written},
                                                         {false, 1, {}, written - 1000}};
  const std::vector<VersionFacts> lone_version = {{false, 1, {}, written}};
  LifecycleRule eodm;
  eodm.id = "eodm";
  eodm.expired_object_delete_marker = true;
  LifecycleRule days = DaysRule("days", 3);
  LifecycleRule other_prefix = eodm;
  other_prefix.filter.prefix = "x/";
  LifecycleRule noncurrent;
  noncurrent.id = "nc";
  noncurrent.noncurrent_days = 1;
  LifecycleRule big_only = eodm;
  big_only.filter.size_greater_than = 0;
  struct Case {
    const char* name;
    LifecycleConfig config;
    const std::vector<VersionFacts>* versions;
    int64_t now;
    std::optional<Expiry> want;
  };
  const Case cases[] = {
      {"eodm: at once", {{eodm}}, &lone_marker, written, Expiry{written, "eodm"}},
      {"days: not yet", {{days}}, &lone_marker, Ms("20140118T235959Z"), std::nullopt},
      {"days: once old enough",
       {{days}},
       &lone_marker,
       Ms("20140119T000000Z"),
       Expiry{Ms("20140119T000000Z"), "days"}},
      {"not the only version", {{eodm}}, &marker_over_version, written, std::nullopt},
      {"not a marker", {{eodm}}, &lone_version, written, std::nullopt},
      {"prefix does not match", {{other_prefix}}, &lone_marker, written, std::nullopt},
      {"a marker has size 0", {{big_only}}, &lone_marker, written, std::nullopt},
      {"noncurrent rules do not",
       {{noncurrent}},
       &lone_marker,
       Ms("20990101T000000Z"),
       std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(DueExpiredDeleteMarker(c.config, "k", *c.versions, kDay, c.now), c.want) << c.name;
  }
}

TEST(LifecycleTest, UploadAbortExpiry) {
  const int64_t initiated = Ms("20140115T103000Z");
  LifecycleRule seven;
  seven.id = "seven";
  seven.abort_incomplete_days = 7;
  LifecycleRule tmp = seven;
  tmp.id = "tmp-1";
  tmp.filter.prefix = "tmp/";
  tmp.abort_incomplete_days = 1;
  // Size filters cannot apply to an upload: only the prefix selects it.
  LifecycleRule sized = seven;
  sized.id = "sized";
  sized.filter.size_greater_than = 1 << 30;
  sized.abort_incomplete_days = 2;
  LifecycleRule disabled = tmp;
  disabled.enabled = false;
  LifecycleRule expire_only = DaysRule("expire", 1);
  struct Case {
    LifecycleConfig config;
    const char* key;
    seconds day;
    std::optional<Expiry> want;
  };
  const Case cases[] = {
      {{{seven, tmp}}, "a", kDay, Expiry{Ms("20140123T000000Z"), "seven"}},
      {{{seven, tmp}}, "tmp/a", kDay, Expiry{Ms("20140117T000000Z"), "tmp-1"}},
      {{{sized}}, "a", kDay, Expiry{Ms("20140118T000000Z"), "sized"}},
      {{{seven}}, "a", seconds(2), Expiry{initiated + 14000, "seven"}},
      {{{disabled, expire_only}}, "tmp/a", kDay, std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(UploadAbortExpiry(c.config, {c.key, initiated}, c.day), c.want) << c.key;
  }
}

}  // namespace
}  // namespace cubby::lifecycle
