// EvaluatePreconditions: one table, run under the GetObject/HeadObject header names and under
// the x-amz-copy-source-if-* ones (the same evaluation serves both).
#include "s3api/preconditions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cubby::s3api {
namespace {

// The object: etag "abc", modified Sun, 06 Nov 1994 08:49:37.500 GMT.
constexpr int64_t kModifiedMs = 784111777500;
constexpr const char* kSameSecond = "Sun, 06 Nov 1994 08:49:37 GMT";
constexpr const char* kSecondBefore = "Sun, 06 Nov 1994 08:49:36 GMT";

struct Case {
  const char* name;
  // Header values; nullptr: not sent.
  const char* if_match;
  const char* if_none_match;
  const char* if_modified_since;
  const char* if_unmodified_since;
  PreconditionResult want;
};

constexpr PreconditionResult kHolds = PreconditionResult::kHolds;
constexpr PreconditionResult kFailed = PreconditionResult::kFailed;
constexpr PreconditionResult kNotModified = PreconditionResult::kNotModified;

const Case kCases[] = {
    {"nothing sent", nullptr, nullptr, nullptr, nullptr, kHolds},
    {"if-match bare", "abc", nullptr, nullptr, nullptr, kHolds},
    {"if-match quoted", "\"abc\"", nullptr, nullptr, nullptr, kHolds},
    {"if-match in a list", "\"x\", \"abc\"", nullptr, nullptr, nullptr, kHolds},
    {"if-match star", "*", nullptr, nullptr, nullptr, kHolds},
    {"if-match other", "\"x\"", nullptr, nullptr, nullptr, kFailed},
    {"if-none-match same", nullptr, "\"abc\"", nullptr, nullptr, kNotModified},
    {"if-none-match weak", nullptr, "W/\"abc\"", nullptr, nullptr, kNotModified},
    {"if-none-match star", nullptr, "*", nullptr, nullptr, kNotModified},
    {"if-none-match other", nullptr, "\"x\"", nullptr, nullptr, kHolds},
    {"if-unmodified-since same second", nullptr, nullptr, nullptr, kSameSecond, kHolds},
    {"if-unmodified-since before", nullptr, nullptr, nullptr, kSecondBefore, kFailed},
    {"if-unmodified-since unparsable", nullptr, nullptr, nullptr, "yesterday", kHolds},
    {"if-modified-since same second", nullptr, nullptr, kSameSecond, nullptr, kNotModified},
    {"if-modified-since before", nullptr, nullptr, kSecondBefore, nullptr, kHolds},
    {"if-modified-since unparsable", nullptr, nullptr, "yesterday", nullptr, kHolds},
    // If-Match decides instead of If-Unmodified-Since, If-None-Match instead of
    // If-Modified-Since.
    {"if-match holds, unmodified-since fails", "abc", nullptr, nullptr, kSecondBefore, kHolds},
    {"if-none-match holds, modified-since fails", nullptr, "\"x\"", kSameSecond, nullptr, kHolds},
    // A failed If-Match or If-Unmodified-Since wins over the other pair.
    {"if-match fails, if-none-match matches", "\"x\"", "abc", nullptr, nullptr, kFailed},
    {"unmodified-since fails, modified-since too", nullptr, nullptr, kSameSecond, kSecondBefore,
     kFailed},
    {"if-match holds, if-none-match matches", "abc", "abc", nullptr, nullptr, kNotModified},
    {"if-match holds, modified-since fails", "abc", nullptr, kSameSecond, nullptr, kNotModified},
};

TEST(PreconditionsTest, Table) {
  storage::ObjectMeta meta;
  meta.etag = "abc";
  meta.last_modified_ms = kModifiedMs;
  for (const PreconditionHeaders& names : {kObjectPreconditions, kCopySourcePreconditions}) {
    for (const Case& c : kCases) {
      SCOPED_TRACE(std::string(names.if_match) + ": " + c.name);
      HttpRequest request;
      auto add = [&](std::string_view name, const char* value) {
        if (value != nullptr) request.headers.push_back({std::string(name), value});
      };
      add(names.if_match, c.if_match);
      add(names.if_none_match, c.if_none_match);
      add(names.if_modified_since, c.if_modified_since);
      add(names.if_unmodified_since, c.if_unmodified_since);
      EXPECT_EQ(EvaluatePreconditions(request, names, meta), c.want);
    }
  }
}

// The names of one set are not read for the other.
TEST(PreconditionsTest, OtherNamesAreIgnored) {
  storage::ObjectMeta meta;
  meta.etag = "abc";
  meta.last_modified_ms = kModifiedMs;
  HttpRequest request;
  request.headers.push_back({"if-match", "\"x\""});
  EXPECT_EQ(EvaluatePreconditions(request, kCopySourcePreconditions, meta), kHolds);
  EXPECT_EQ(EvaluatePreconditions(request, kObjectPreconditions, meta), kFailed);
}

}  // namespace
}  // namespace cubby::s3api
