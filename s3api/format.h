// Small text formats S3 responses use: timestamps, ETags, URL encoding for encoding-type=url.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cubby::s3api {

// "2009-10-12T17:50:30.000Z" from Unix epoch milliseconds (ListBuckets, ListObjects).
std::string Iso8601(int64_t ms);
// "Wed, 21 Oct 2015 07:28:00 GMT" (RFC 7231 IMF-fixdate) from Unix epoch milliseconds.
std::string HttpDate(int64_t ms);
// Parses an HTTP date (IMF-fixdate, RFC 850 or asctime) into Unix epoch seconds.
std::optional<int64_t> ParseHttpDate(std::string_view text);

// "\"<etag>\"".
std::string QuoteEtag(std::string_view etag);
// Splits an If-Match / If-None-Match list into ETags without quotes or W/ ("*" stays "*").
std::vector<std::string> ParseEtagList(std::string_view header);

// Percent-encodes everything but unreserved characters and '/', as S3 does for
// encoding-type=url (space → %20, '+' → %2B).
std::string UrlEncode(std::string_view text);

}  // namespace cubby::s3api
