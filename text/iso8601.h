// ISO 8601 extended date-times as S3 request bodies and headers carry them (RetainUntilDate,
// x-amz-object-lock-retain-until-date, a lifecycle rule's Date) and as IAM policy conditions
// compare them:
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ObjectLockRetention.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_LifecycleExpiration.html
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "text/time.h"

namespace cubby::text {

// "YYYY-MM-DDTHH:MM:SS", an optional fraction of one or more digits after '.', then 'Z' or an
// offset "+HH:MM" / "-HH:MM" (e.g. "2030-01-01T00:00:00Z", "2030-01-01T00:00:00.123Z",
// "2030-01-01T01:00:00+01:00"). The fraction is kept to the millisecond (truncated). nullopt for
// anything else: no surrounding spaces, lowercase 't' or 'z', a missing zone, an impossible date
// or time (Feb 30, 24:00:00, a leap second), an offset beyond 23:59, a year before 1970 or after
// 2261 (what TimePoint holds, as text/time.h's parsers).
std::optional<TimePoint> ParseIso8601Extended(std::string_view text);

// A date as IAM's Date condition operators take it, in Unix epoch milliseconds: epoch seconds
// ("1563278400", at most 253402300799, the end of 9999), or ISO 8601 "YYYY-MM-DD" with a year
// from 1000 to 9999, optionally followed by "THH:MM" ('t' too), then optionally ":SS" (60
// allowed) and ".fraction" (kept to the millisecond), then optionally a zone "Z", "z", "+HH:MM",
// "+HHMM", "-HH:MM" or "-HHMM" (none: UTC). False (and *unix_ms untouched) for anything else.
// The years go beyond what TimePoint holds, hence milliseconds.
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_Date
[[nodiscard]] bool ParseIso8601OrEpochSeconds(std::string_view text, int64_t* unix_ms);

}  // namespace cubby::text
