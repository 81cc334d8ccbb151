#include "lifecycle/lifecycle.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "text/time.h"

namespace cubby::lifecycle {
namespace {

constexpr int64_t kDayMs = 86400 * int64_t{1000};

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return sum;
}

int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return std::numeric_limits<int64_t>::max();
  return product;
}

// Keeps the earlier of two expiries (the one already held on a tie: rules are visited in order).
void KeepEarliest(std::optional<Expiry>* best, int64_t at_ms, const std::string& rule_id) {
  if (!*best || at_ms < (*best)->at_ms) *best = Expiry{at_ms, rule_id};
}

}  // namespace

bool FilterMatches(const storage::LifecycleFilter& filter, std::string_view key, uint64_t size,
                   std::span<const Tag> tags) {
  if (!key.starts_with(filter.prefix)) return false;
  if (filter.size_greater_than && !(size > *filter.size_greater_than)) return false;
  if (filter.size_less_than && !(size < *filter.size_less_than)) return false;
  for (const Tag& wanted : filter.tags) {
    if (std::find(tags.begin(), tags.end(), wanted) == tags.end()) return false;
  }
  return true;
}

int64_t AfterDays(int64_t start_ms, uint32_t days, std::chrono::seconds day) {
  const int64_t day_ms = SaturatingMul(day.count(), 1000);
  const int64_t end = SaturatingAdd(start_ms, SaturatingMul(days, day_ms));
  if (day != kDay || end == std::numeric_limits<int64_t>::max()) return end;
  // S3 rounds up to the next midnight UTC: the start of the day after `end`'s day. Floor
  // division, so times before 1970 round the same way.
  int64_t midnight = end / kDayMs * kDayMs;
  if (midnight > end) midnight -= kDayMs;
  return SaturatingAdd(midnight, kDayMs);
}

std::optional<Expiry> CurrentVersionExpiry(const storage::LifecycleConfig& config,
                                           const ObjectFacts& object, std::chrono::seconds day) {
  std::optional<Expiry> best;
  for (const storage::LifecycleRule& rule : config.rules) {
    if (!rule.enabled || !FilterMatches(rule.filter, object.key, object.size, object.tags)) {
      continue;
    }
    if (rule.expiration_days) {
      KeepEarliest(&best, AfterDays(object.last_modified_ms, *rule.expiration_days, day), rule.id);
    }
    if (rule.expiration_date_ms) KeepEarliest(&best, *rule.expiration_date_ms, rule.id);
  }
  return best;
}

std::string ExpirationHeader(const Expiry& expiry) {
  return "expiry-date=\"" + text::FormatHttpDate(text::FromUnixMillis(expiry.at_ms)) +
         "\", rule-id=\"" + expiry.rule_id + "\"";
}

std::vector<DueVersion> DueNoncurrentVersions(const storage::LifecycleConfig& config,
                                              std::string_view key,
                                              std::span<const VersionFacts> versions,
                                              std::chrono::seconds day, int64_t now_ms) {
  std::vector<DueVersion> due;
  for (size_t i = 1; i < versions.size(); ++i) {
    const VersionFacts& v = versions[i];
    const int64_t became_noncurrent = versions[i - 1].last_modified_ms;
    const size_t newer_noncurrent = i - 1;
    std::optional<Expiry> best;
    for (const storage::LifecycleRule& rule : config.rules) {
      if (!rule.enabled || !rule.noncurrent_days ||
          newer_noncurrent < rule.newer_noncurrent_versions.value_or(0) ||
          !FilterMatches(rule.filter, key, v.size, v.tags)) {
        continue;
      }
      KeepEarliest(&best, AfterDays(became_noncurrent, *rule.noncurrent_days, day), rule.id);
    }
    if (best && best->at_ms <= now_ms) due.push_back({i, std::move(*best)});
  }
  return due;
}

std::optional<Expiry> DueExpiredDeleteMarker(const storage::LifecycleConfig& config,
                                             std::string_view key,
                                             std::span<const VersionFacts> versions,
                                             std::chrono::seconds day, int64_t now_ms) {
  if (versions.size() != 1 || !versions[0].is_delete_marker) return std::nullopt;
  const VersionFacts& marker = versions[0];
  std::optional<Expiry> best;
  for (const storage::LifecycleRule& rule : config.rules) {
    if (!rule.enabled || !FilterMatches(rule.filter, key, 0, {})) continue;
    if (rule.expired_object_delete_marker) {
      KeepEarliest(&best, marker.last_modified_ms, rule.id);
    }
    if (rule.expiration_days) {
      KeepEarliest(&best, AfterDays(marker.last_modified_ms, *rule.expiration_days, day), rule.id);
    }
  }
  if (!best || best->at_ms > now_ms) return std::nullopt;
  return best;
}

std::optional<Expiry> UploadAbortExpiry(const storage::LifecycleConfig& config,
                                        const UploadFacts& upload, std::chrono::seconds day) {
  std::optional<Expiry> best;
  for (const storage::LifecycleRule& rule : config.rules) {
    if (!rule.enabled || !rule.abort_incomplete_days ||
        !upload.key.starts_with(rule.filter.prefix)) {
      continue;
    }
    KeepEarliest(&best, AfterDays(upload.initiated_ms, *rule.abort_incomplete_days, day), rule.id);
  }
  return best;
}

}  // namespace cubby::lifecycle
