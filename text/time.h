// The date and time formats of HTTP and AWS, on std::chrono's civil calendar (no gmtime_r or
// timegm: those take glibc's time zone lock, and every request formats a date or two).
//   https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7 (HTTP-date)
//   https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html (x-amz-date)
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cubby::text {

// system_clock's nanoseconds: it holds the years 1678 to 2261, so every parser here refuses a year
// after 2261 rather than overflow.
using TimePoint = std::chrono::system_clock::time_point;

// Unix epoch milliseconds (how storage keeps times) ↔ TimePoint.
TimePoint FromUnixMillis(int64_t ms);
int64_t ToUnixMillis(TimePoint t);

// The system clock now, in Unix epoch milliseconds: ToUnixMillis(system_clock::now()). The one
// clock read here; code whose tests need another time takes `now` from its caller instead.
int64_t NowUnixMillis();

// IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT" (Date, Last-Modified, Expires). Sub-second parts
// are dropped (floored).
std::string FormatHttpDate(TimePoint t);

// An HTTP-date in any of the three forms RFC 9110 requires a recipient to accept:
//   IMF-fixdate  "Sun, 06 Nov 1994 08:49:37 GMT"
//   RFC 850      "Sunday, 06-Nov-94 08:49:37 GMT" (two-digit year: 70-99 → 19xx, 00-69 → 20xx)
//   asctime      "Sun Nov  6 08:49:37 1994" (day padded with a space or a zero)
// Surrounding spaces and tabs are ignored. Names are case-sensitive, as the grammar says; the
// weekday's name is checked for shape, not against the date. nullopt for anything else,
// including impossible dates (Feb 30) and years before 1970 or after 2261.
std::optional<TimePoint> ParseHttpDate(std::string_view text);

// Only the IMF-fixdate form of ParseHttpDate (what a sender must generate).
std::optional<TimePoint> ParseImfFixdate(std::string_view text);

// An IMF-fixdate, or one whose zone is the numeric "+0000" or "-0000" in place of "GMT"
// ("Fri, 24 May 2013 00:00:00 +0000", RFC 1123's numeric zone, as Python's
// email.utils.formatdate writes the Date header of a SigV2 request). Other zones: nullopt.
std::optional<TimePoint> ParseImfFixdateOrUtcOffset(std::string_view text);

// ISO 8601 basic format in UTC, as SigV4 uses it: "20130524T000000Z".
std::string FormatIso8601Basic(TimePoint t);
// Exactly 16 characters "YYYYMMDDTHHMMSSZ" naming a valid date and time from 1970 up to 2261;
// nullopt otherwise.
std::optional<TimePoint> ParseIso8601Basic(std::string_view text);

// ISO 8601 extended format with milliseconds, as S3's XML uses it: "2009-10-12T17:50:30.000Z".
std::string FormatIso8601Millis(TimePoint t);

// A stored time (Unix epoch milliseconds) as the two functions above write it: S3's and IAM's
// XML dates and the Last-Modified header. REQUIRES: a time TimePoint holds (the years 1678 to
// 2261), as every time cubby stores is.
std::string FormatIso8601Millis(int64_t unix_ms);
std::string FormatHttpDate(int64_t unix_ms);

}  // namespace cubby::text
