#include "s3api/preconditions.h"

#include <chrono>
#include <optional>
#include <string>

#include "s3api/format.h"
#include "text/time.h"

namespace cubby::s3api {
namespace {

bool AnyEtagMatches(std::string_view header, const std::string& etag) {
  for (const std::string& e : ParseEtagList(header)) {
    if (e == "*" || e == etag) return true;
  }
  return false;
}

}  // namespace

PreconditionResult EvaluatePreconditions(const HttpRequest& request,
                                         const PreconditionHeaders& names,
                                         const storage::ObjectMeta& meta) {
  // HTTP dates have whole seconds: compare the modification time at that precision.
  const auto modified =
      std::chrono::floor<std::chrono::seconds>(text::FromUnixMillis(meta.last_modified_ms));
  if (const std::string* h = request.Find(names.if_match)) {
    if (!AnyEtagMatches(*h, meta.etag)) return PreconditionResult::kFailed;
  } else if (const std::string* h = request.Find(names.if_unmodified_since)) {
    std::optional<text::TimePoint> since = text::ParseHttpDate(*h);
    if (since && modified > *since) return PreconditionResult::kFailed;
  }
  if (const std::string* h = request.Find(names.if_none_match)) {
    if (AnyEtagMatches(*h, meta.etag)) return PreconditionResult::kNotModified;
  } else if (const std::string* h = request.Find(names.if_modified_since)) {
    std::optional<text::TimePoint> since = text::ParseHttpDate(*h);
    if (since && modified <= *since) return PreconditionResult::kNotModified;
  }
  return PreconditionResult::kHolds;
}

}  // namespace cubby::s3api
