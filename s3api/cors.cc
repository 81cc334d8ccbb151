// CORS: Put/Get/DeleteBucketCors, the preflight OPTIONS answer, the headers of actual requests
// with an Origin, and the pure evaluation of cors.h.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketCors.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketCors.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucketCors.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/RESTOPTIONSobject.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html
#include "s3api/cors.h"

#include <algorithm>
#include <memory>
#include <string>

#include "s3api/bucket_config_xml.h"
#include "s3api/handlers.h"
#include "text/ascii.h"

namespace cubby::s3api {

namespace {

// `pattern` (at most one '*') against `value`, bytes compared by `same`.
template <typename Same>
bool WildcardMatches(std::string_view pattern, std::string_view value, Same same) {
  auto equal = [&](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same);
  };
  const size_t star = pattern.find('*');
  if (star == std::string_view::npos) return equal(pattern, value);
  const std::string_view head = pattern.substr(0, star), tail = pattern.substr(star + 1);
  // The text around the wildcard may not overlap in `value`.
  return value.size() >= head.size() + tail.size() && equal(head, value.substr(0, head.size())) &&
         equal(tail, value.substr(value.size() - tail.size()));
}

bool IsCorsMethod(std::string_view m) {
  return m == "GET" || m == "PUT" || m == "POST" || m == "DELETE" || m == "HEAD";
}

std::string Join(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) {
    if (!out.empty()) out += ", ";
    out += v;
  }
  return out;
}

constexpr std::string_view kNotAllowed =
    "CORSResponse: This CORS request is not allowed. This is usually because the evalution of "
    "Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers "
    "are not whitelisted by the resource's CORS spec.";

}  // namespace

bool CorsOriginMatches(std::string_view pattern, std::string_view origin) {
  return WildcardMatches(pattern, origin, [](char a, char b) { return a == b; });
}

bool CorsHeaderMatches(std::string_view pattern, std::string_view name) {
  return WildcardMatches(pattern, name,
                         [](char a, char b) { return text::AsciiLower(a) == text::AsciiLower(b); });
}

std::vector<std::string> CorsRequestHeaderNames(std::string_view value) {
  std::vector<std::string> names;
  while (!value.empty()) {
    const size_t comma = value.find(',');
    const std::string_view name = text::TrimOws(value.substr(0, comma));
    if (!name.empty()) names.push_back(text::AsciiLowercase(name));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return names;
}

const storage::CorsRule* MatchCorsRule(const storage::CorsConfig& config, std::string_view origin,
                                       std::string_view method,
                                       const std::vector<std::string>* request_headers) {
  for (const storage::CorsRule& rule : config.rules) {
    const auto& origins = rule.allowed_origins;
    if (std::none_of(origins.begin(), origins.end(),
                     [&](const std::string& p) { return CorsOriginMatches(p, origin); })) {
      continue;
    }
    if (std::find(rule.allowed_methods.begin(), rule.allowed_methods.end(), method) ==
        rule.allowed_methods.end()) {
      continue;
    }
    if (request_headers != nullptr &&
        !std::all_of(request_headers->begin(), request_headers->end(), [&](const std::string& h) {
          return std::any_of(rule.allowed_headers.begin(), rule.allowed_headers.end(),
                             [&](const std::string& p) { return CorsHeaderMatches(p, h); });
        })) {
      continue;
    }
    return &rule;
  }
  return nullptr;
}

std::vector<Header> CorsHeaders(const storage::CorsRule& rule, std::string_view origin,
                                const std::vector<std::string>& allow_headers) {
  const bool any = std::find(rule.allowed_origins.begin(), rule.allowed_origins.end(), "*") !=
                   rule.allowed_origins.end();
  std::vector<Header> headers;
  headers.push_back({"Access-Control-Allow-Origin", any ? "*" : std::string(origin)});
  headers.push_back({"Access-Control-Allow-Methods", Join(rule.allowed_methods)});
  if (!allow_headers.empty()) {
    headers.push_back({"Access-Control-Allow-Headers", Join(allow_headers)});
  }
  if (!rule.expose_headers.empty()) {
    headers.push_back({"Access-Control-Expose-Headers", Join(rule.expose_headers)});
  }
  if (rule.max_age_seconds) {
    headers.push_back({"Access-Control-Max-Age", std::to_string(*rule.max_age_seconds)});
  }
  if (!any) headers.push_back({"Access-Control-Allow-Credentials", "true"});
  headers.push_back({"Vary", std::string(kCorsVary)});
  return headers;
}

PreflightAnswer AnswerPreflight(CorsBucket bucket, const storage::CorsConfig& config,
                                const HttpRequest& request) {
  const std::string* origin = request.Find("origin");
  if (origin == nullptr || origin->empty()) {
    return {ErrorCode::kBadRequest, "Insufficient information. Origin request header needed.", {}};
  }
  const std::string* method = request.Find("access-control-request-method");
  if (method == nullptr || !IsCorsMethod(*method)) {
    return {ErrorCode::kBadRequest,
            "Invalid Access-Control-Request-Method: " + (method ? *method : std::string("null")),
            {}};
  }
  switch (bucket) {
    case CorsBucket::kMissing:
      return {ErrorCode::kAccessForbidden, "CORSResponse: Bucket not found", {}};
    case CorsBucket::kNoConfig:
      return {
          ErrorCode::kAccessForbidden, "CORSResponse: CORS is not enabled for this bucket.", {}};
    case CorsBucket::kConfigured:
      break;
  }
  const std::string* names = request.Find("access-control-request-headers");
  const std::vector<std::string> request_headers =
      names ? CorsRequestHeaderNames(*names) : std::vector<std::string>{};
  const storage::CorsRule* rule = MatchCorsRule(config, *origin, *method, &request_headers);
  if (rule == nullptr) return {ErrorCode::kAccessForbidden, std::string(kNotAllowed), {}};
  return {ErrorCode::kNone, {}, CorsHeaders(*rule, *origin, request_headers)};
}

std::vector<Header> ActualRequestCorsHeaders(const storage::CorsConfig& config,
                                             const HttpRequest& request) {
  const std::string* origin = request.Find("origin");
  if (origin == nullptr || origin->empty()) return {};
  const std::string* asked = request.Find("access-control-request-method");
  const std::string& method = asked ? *asked : request.method;
  const storage::CorsRule* rule = MatchCorsRule(config, *origin, method, nullptr);
  if (rule == nullptr) return {};
  return CorsHeaders(*rule, *origin, {});
}

// ---- Handlers.

// 200 with no body. The body needs Content-MD5 or a checksum (the API marks PutBucketCors
// httpChecksumRequired); MalformedXML and InvalidRequest from the parser; the configuration
// replaces any earlier one as a whole.
HttpResponse PutBucketCors(const Context& ctx) {
  storage::CorsConfig config;
  if (Failure f = ReadXmlBody(ctx, kDigestRequired, &config, ParseCorsConfiguration)) {
    return f.TakeResponse();
  }
  return AnswerBucketChange(ctx, [&](storage::BucketRecord* bucket) {
    bucket->cors = config;
    return Failure::None();
  });
}

// The stored rules; 404 NoSuchCORSConfiguration when none are set.
HttpResponse GetBucketCors(const Context& ctx) {
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  if (bucket->cors.rules.empty()) return ErrorResponse(ctx, ErrorCode::kNoSuchCORSConfiguration);
  return XmlResponse(CorsConfigurationXml(bucket->cors));
}

// 204 whether or not rules were set (as S3 answers).
HttpResponse DeleteBucketCors(const Context& ctx) {
  return AnswerBucketChange(ctx, [](storage::BucketRecord* bucket) {
    bucket->cors = {};
    return Failure::None();
  }, 204);
}

HttpResponse OptionsObject(const Context& ctx) {
  CorsBucket state = CorsBucket::kMissing;
  std::shared_ptr<const storage::BucketRecord> record;
  if (!ctx.route.bucket.empty()) {
    storage::Result<std::shared_ptr<const storage::BucketRecord>> read = RequestBucket(ctx);
    if (read.ok()) {
      record = std::move(read).value();
      state = record->cors.rules.empty() ? CorsBucket::kNoConfig : CorsBucket::kConfigured;
    } else if (read.status().code() != storage::Code::kNoSuchBucket) {
      return StorageError(ctx, read.status());
    }
  }
  static const storage::CorsConfig kNone;
  PreflightAnswer answer = AnswerPreflight(state, record ? record->cors : kNone, ctx.request);
  if (answer.error != ErrorCode::kNone) {
    HttpResponse r = ErrorResponse(ctx, answer.error, answer.message);
    if (answer.error == ErrorCode::kAccessForbidden) {
      // S3 names the method asked about and what the request addressed.
      XmlWriter w;
      w.Open("Error");
      w.Element("Code", Info(answer.error).code);
      w.Element("Message", answer.message);
      w.Element("Method", *ctx.request.Find("access-control-request-method"));
      w.Element("ResourceType", ctx.route.key.empty() ? "BUCKET" : "OBJECT");
      w.Element("RequestId", ctx.request.request_id);
      w.Close();
      r.body = std::move(w).Finish();
    }
    return r;
  }
  HttpResponse r;
  r.headers = std::move(answer.headers);
  return r;
}

void SetCorsHeaders(const Context& ctx, HttpResponse* r) {
  // The common case first: no Origin, nothing to read.
  const std::string* origin = ctx.request.Find("origin");
  if (origin == nullptr || ctx.route.bucket.empty() || ctx.route.op == Operation::kOptionsObject) {
    return;
  }
  storage::Result<std::shared_ptr<const storage::BucketRecord>> bucket = RequestBucket(ctx);
  if (!bucket.ok() || (*bucket)->cors.rules.empty()) return;
  for (Header& h : ActualRequestCorsHeaders((*bucket)->cors, ctx.request)) {
    r->headers.push_back(std::move(h));
  }
}

}  // namespace cubby::s3api
