// CORS as S3 evaluates a bucket's configuration, as pure functions of the rules and the
// request's headers: which rule a request matches, the headers of a preflight (OPTIONS) answer
// and of an actual request that carries an Origin, and the preflight's refusals. The handlers
// (Put/Get/DeleteBucketCors, OptionsObject) and the one place the service adds the headers to
// every answer are in cors.cc; the XML is bucket_config_xml.h's.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/ManageCorsUsing.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/RESTOPTIONSobject.html
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "s3api/errors.h"
#include "s3api/http.h"
#include "storage/bucket_config.h"

namespace cubby::s3api {

// Vary of every answer with CORS headers: the answer depends on these request headers.
inline constexpr std::string_view kCorsVary =
    "Origin, Access-Control-Request-Headers, Access-Control-Request-Method";

// Whether an AllowedOrigin `pattern` admits `origin`: byte for byte (case-sensitive, as S3
// compares origins), where the pattern's one '*' stands for any run of bytes, possibly empty
// ("https://*.example.com" admits "https://a.b.example.com", not "https://example.com").
bool CorsOriginMatches(std::string_view pattern, std::string_view origin);

// Whether an AllowedHeader `pattern` admits the request header `name`: as CorsOriginMatches, but
// ASCII case-insensitive ("x-amz-*" admits "X-Amz-Date").
bool CorsHeaderMatches(std::string_view pattern, std::string_view name);

// The names of Access-Control-Request-Headers ("Content-Type, x-amz-date"): split at commas,
// trimmed, lowercased, empty names dropped, in order.
std::vector<std::string> CorsRequestHeaderNames(std::string_view value);

// The first rule of `config`, in order, whose AllowedOrigin admits `origin`, whose AllowedMethod
// lists `method` (exactly, case-sensitive) and, when `request_headers` is not null (a
// preflight), whose AllowedHeader admits every one of them (a rule without AllowedHeader admits
// none). nullptr when none does.
const storage::CorsRule* MatchCorsRule(const storage::CorsConfig& config, std::string_view origin,
                                       std::string_view method,
                                       const std::vector<std::string>* request_headers);

// The headers S3 answers for `rule` matched by a request from `origin`, in S3's order:
// Access-Control-Allow-Origin ("*" when the rule's origins include "*", else `origin`),
// Access-Control-Allow-Methods (the rule's, ", "-joined), Access-Control-Allow-Headers (the
// names of `allow_headers` when not empty: a preflight's request headers, as
// CorsRequestHeaderNames gives them), Access-Control-Expose-Headers and Access-Control-Max-Age
// (when the rule has them), Access-Control-Allow-Credentials: true (unless the origin answered
// is "*"), and Vary (kCorsVary).
std::vector<Header> CorsHeaders(const storage::CorsRule& rule, std::string_view origin,
                                const std::vector<std::string>& allow_headers);

// The outcome of a preflight: on success (error kNone) the headers of the 200 answer; otherwise
// the error, its message and the request method and resource type S3 names in the error
// document (<Method>, <ResourceType>) for kAccessForbidden.
struct PreflightAnswer {
  ErrorCode error = ErrorCode::kNone;
  std::string message;
  std::vector<Header> headers;
};

// Where a preflight stands before its rules are read.
enum class CorsBucket {
  kMissing,     // the bucket does not exist
  kNoConfig,    // it has no CORS configuration
  kConfigured,  // it has rules
};

// A preflight OPTIONS request with headers `request` against a bucket in state `bucket` (with
// `config` its rules when kConfigured). Checked in this order, as S3 answers:
//  - kBadRequest "Insufficient information. Origin request header needed.": Origin absent or
//    empty;
//  - kBadRequest "Invalid Access-Control-Request-Method: <m>": the header absent (<m> is
//    "null") or not one of GET, PUT, POST, DELETE, HEAD;
//  - kAccessForbidden "CORSResponse: Bucket not found": kMissing;
//  - kAccessForbidden "CORSResponse: CORS is not enabled for this bucket.": kNoConfig;
//  - kAccessForbidden "CORSResponse: This CORS request is not allowed. ...": no rule matches
//    (MatchCorsRule with the Access-Control-Request-Headers names);
// else the CorsHeaders of the rule that matched.
PreflightAnswer AnswerPreflight(CorsBucket bucket, const storage::CorsConfig& config,
                                const HttpRequest& request);

// The CORS headers of an actual (non-preflight) request with a non-empty Origin to a bucket with
// `config`: those of the first rule matching the Origin and the method (the request's, or its
// Access-Control-Request-Method when it has one, as S3 does); AllowedHeader is not consulted and
// no Access-Control-Allow-Headers is answered. Empty when there is no Origin or no rule matches.
std::vector<Header> ActualRequestCorsHeaders(const storage::CorsConfig& config,
                                             const HttpRequest& request);

}  // namespace cubby::s3api
