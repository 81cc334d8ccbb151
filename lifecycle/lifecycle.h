// Lifecycle rule evaluation as pure functions: which rule expires an object's current version
// and when, which noncurrent versions, expired object delete markers and incomplete multipart
// uploads are due, and the x-amz-expiration header. No store access and no clock: the caller (the
// background worker, or a handler answering PUT/GET/HEAD) feeds small structs from its listings
// and passes `now` and the day length.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/intro-lifecycle-rules.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/lifecycle-expire-general-considerations.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/ManagingDelMarkers.html
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/bucket_config.h"

namespace cubby::lifecycle {

// An AWS lifecycle day. A shorter day (a setting, for tests) makes every rule's days pass that
// much faster.
inline constexpr std::chrono::seconds kDay{86400};

using Tag = std::pair<std::string, std::string>;  // key, value

// True if an object with this key, size and tags is selected by `filter`: the key starts with
// the prefix, every tag of the filter is among `tags` with the same value, and the size is
// strictly above size_greater_than and strictly below size_less_than where those are set.
bool FilterMatches(const storage::LifecycleFilter& filter, std::string_view key, uint64_t size,
                   std::span<const Tag> tags);

// The moment `days` lifecycle days after `start_ms` (Unix epoch milliseconds). With the real day
// (kDay), as S3 computes it: start + days, rounded up to the next midnight UTC (a time exactly
// at midnight also moves to the next one), e.g. 2014-01-15T10:30Z + 3 days is 2014-01-19T00:00Z.
// With any other day length: start + days * day, not rounded. Saturates at INT64_MAX.
int64_t AfterDays(int64_t start_ms, uint32_t days, std::chrono::seconds day);

// When, and by which rule, something expires.
struct Expiry {
  int64_t at_ms = 0;
  std::string rule_id;
  bool operator==(const Expiry&) const = default;
};

// A current object version that is not a delete marker.
struct ObjectFacts {
  std::string_view key;
  uint64_t size = 0;
  std::span<const Tag> tags;
  int64_t last_modified_ms = 0;
};

// The expiry of a current version: among the enabled rules whose filter selects it and that have
// Expiration Days (AfterDays(last_modified, days)) or Date (that date), the earliest; the first
// such rule in the configuration on a tie. nullopt: no rule expires it. The version is due when
// at_ms <= now. This is what x-amz-expiration names on PUT, GET and HEAD.
std::optional<Expiry> CurrentVersionExpiry(const storage::LifecycleConfig& config,
                                           const ObjectFacts& object, std::chrono::seconds day);

// The x-amz-expiration header value:
//   expiry-date="Fri, 23 Dec 2012 00:00:00 GMT", rule-id="rule-1"
// (an HTTP date; the rule id as stored, S3 does not escape it).
std::string ExpirationHeader(const Expiry& expiry);

// One version of a key, in a listing of its versions newest first.
struct VersionFacts {
  bool is_delete_marker = false;
  uint64_t size = 0;          // 0 for a delete marker
  std::span<const Tag> tags;  // empty for a delete marker
  int64_t last_modified_ms = 0;
};

// A noncurrent version that is due, by index into the listing.
struct DueVersion {
  size_t index = 0;
  Expiry expiry;
  bool operator==(const DueVersion&) const = default;
};

// The noncurrent versions of `key` due for permanent deletion at `now_ms`. `versions` holds all
// versions of the key newest first; versions[0] is current and never returned. Version i >= 1
// became noncurrent when versions[i-1] was written (its last_modified). It is due under an
// enabled rule with NoncurrentDays whose filter selects it (its own size and tags) when
// AfterDays(became_noncurrent, NoncurrentDays) <= now and, with NewerNoncurrentVersions N, at
// least N newer noncurrent versions exist (the newest N noncurrent versions are kept). Noncurrent
// delete markers count as versions and are removed like them. Each due version is returned once,
// with the rule that expired it earliest. In index order.
std::vector<DueVersion> DueNoncurrentVersions(const storage::LifecycleConfig& config,
                                              std::string_view key,
                                              std::span<const VersionFacts> versions,
                                              std::chrono::seconds day, int64_t now_ms);

// Whether the key's only remaining version, a delete marker (an "expired object delete marker"),
// is to be removed at `now_ms`, and by which rule: an enabled rule selecting the key (size 0, no
// tags) with ExpiredObjectDeleteMarker removes it at once; one with Expiration Days removes it
// once the marker is that old (AfterDays(marker's last_modified, days) <= now), as S3 does.
// nullopt when `versions` is not exactly one delete marker, or no rule removes it yet.
std::optional<Expiry> DueExpiredDeleteMarker(const storage::LifecycleConfig& config,
                                             std::string_view key,
                                             std::span<const VersionFacts> versions,
                                             std::chrono::seconds day, int64_t now_ms);

// An incomplete multipart upload.
struct UploadFacts {
  std::string_view key;
  int64_t initiated_ms = 0;
};

// When an incomplete upload is aborted: among the enabled rules with
// AbortIncompleteMultipartUpload whose prefix the key starts with (an upload has no size or
// tags yet, so only the prefix filters it), the earliest AfterDays(initiated,
// DaysAfterInitiation). It is due when at_ms <= now. (This is also what CreateMultipartUpload's
// x-amz-abort-date and x-amz-abort-rule-id name.)
std::optional<Expiry> UploadAbortExpiry(const storage::LifecycleConfig& config,
                                        const UploadFacts& upload, std::chrono::seconds day);

}  // namespace cubby::lifecycle
