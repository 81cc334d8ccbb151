// Small text formats S3 responses use: timestamps of stored records, ETags.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/time.h"

namespace cubby::s3api {

// A stored time (Unix epoch milliseconds) in S3's two forms, text/time.h's under the names the
// handlers use: "2009-10-12T17:50:30.000Z" (ListBuckets, ListObjects) and the IMF-fixdate
// "Wed, 21 Oct 2015 07:28:00 GMT" (Last-Modified). REQUIRES: a time text::TimePoint holds (the
// years 1678 to 2261), as every time cubby stores is.
inline std::string Iso8601(int64_t ms) { return text::FormatIso8601Millis(ms); }
inline std::string HttpDate(int64_t ms) { return text::FormatHttpDate(ms); }

// "\"<etag>\"".
std::string QuoteEtag(std::string_view etag);
// Splits an If-Match / If-None-Match list into ETags without quotes or W/ ("*" stays "*").
std::vector<std::string> ParseEtagList(std::string_view header);

}  // namespace cubby::s3api
