// The HTTP preconditions of a read (RFC 7232) on an object's ETag and modification time, as S3
// evaluates them for GetObject/HeadObject and, under the x-amz-copy-source-if-* names, for the
// source of CopyObject and UploadPartCopy. One evaluation for both.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html
// (Conditional writes, If-Match / If-None-Match: * on PUT, are storage::WriteCondition,
// checked atomically with the commit.)
#pragma once

#include <string_view>

#include "s3api/http.h"
#include "storage/records.h"

namespace cubby::s3api {

// The names of the four headers (lowercase, as HttpRequest::Find takes them).
struct PreconditionHeaders {
  std::string_view if_match;
  std::string_view if_none_match;
  std::string_view if_modified_since;
  std::string_view if_unmodified_since;
};
inline constexpr PreconditionHeaders kObjectPreconditions{
    "if-match", "if-none-match", "if-modified-since", "if-unmodified-since"};
inline constexpr PreconditionHeaders kCopySourcePreconditions{
    "x-amz-copy-source-if-match", "x-amz-copy-source-if-none-match",
    "x-amz-copy-source-if-modified-since", "x-amz-copy-source-if-unmodified-since"};

enum class PreconditionResult {
  kHolds,
  kFailed,       // If-Match or If-Unmodified-Since does not hold: 412
  kNotModified,  // If-None-Match or If-Modified-Since does not hold: 304 on GET/HEAD, 412 for a
                 // copy source
};

// The preconditions `names` of `request` against `meta`, in S3's order (RFC 7232 section 6):
// If-Match, when sent, decides instead of If-Unmodified-Since (so one that holds makes a
// failing If-Unmodified-Since irrelevant), and If-None-Match instead of If-Modified-Since; a
// failed If-Match (or If-Unmodified-Since) wins over the other pair. ETag lists are split by
// ParseEtagList ("*" matches any ETag, W/ is ignored); dates compare at whole seconds, as HTTP
// dates have them; an unparsable date is ignored.
PreconditionResult EvaluatePreconditions(const HttpRequest& request,
                                         const PreconditionHeaders& names,
                                         const storage::ObjectMeta& meta);

}  // namespace cubby::s3api
