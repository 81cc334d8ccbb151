#include "s3api/auth/sigv4_presigned.h"

#include <charconv>
#include <optional>
#include <utility>

#include "s3api/auth/sigv4.h"
#include "s3api/auth/sigv4_verify.h"
#include "text/time.h"

namespace cubby::s3api::auth::sigv4 {
namespace {

AuthResult QueryError(std::string message) {
  return Refuse(ErrorCode::kAuthorizationQueryParametersError, std::move(message));
}

// The X-Amz-* parameters of a presigned URL; null where absent.
struct PresignParams {
  const std::string* algorithm = nullptr;
  const std::string* credential = nullptr;
  const std::string* date = nullptr;
  const std::string* expires = nullptr;
  const std::string* signed_headers = nullptr;
  const std::string* signature = nullptr;
  const std::string* content_sha256 = nullptr;
  bool duplicate = false;  // one of them appears more than once
};

PresignParams FindPresignParams(const std::vector<text::NameValue>& params) {
  PresignParams p;
  const std::pair<std::string_view, const std::string**> slots[] = {
      {kQueryAlgorithm, &p.algorithm},          {kQueryCredential, &p.credential},
      {kQueryDate, &p.date},                    {kQueryExpires, &p.expires},
      {kQuerySignedHeaders, &p.signed_headers}, {kQuerySignature, &p.signature},
      {kQueryContentSha256, &p.content_sha256}};
  for (const text::NameValue& param : params) {
    for (const auto& [name, slot] : slots) {
      if (param.name != name) continue;
      if (*slot != nullptr) {
        p.duplicate = true;
      } else {
        *slot = &param.value;
      }
    }
  }
  return p;
}

// X-Amz-Expires as a number of seconds, or the error, in S3's words: not a number is 400
// AuthorizationQueryParametersError; negative or over a week the same code with 403. 0 is well
// formed: such a URL has expired when it is made (VerifyPresigned: 403 AccessDenied).
AuthResult ParseExpires(const std::string& text, int64_t* seconds) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, *seconds);
  if (text.empty() || error != std::errc() || stop != end) {
    return QueryError("X-Amz-Expires should be a number");
  }
  if (*seconds < 0) {
    return Refuse(ErrorCode::kExpiresOutOfRange, "X-Amz-Expires must be non-negative");
  }
  if (*seconds > kMaxPresignExpiresSeconds) {
    return Refuse(ErrorCode::kExpiresOutOfRange,
                  "X-Amz-Expires must be less than a week (in seconds); that is, the given "
                  "X-Amz-Expires must be less than 604800 seconds");
  }
  return {};
}

// The parameters' shape, scope and lifetime into `s`; the first problem as an error.
AuthResult ParseParams(const PresignParams& p, std::string_view region, SignedRequest* s,
                       TimePoint* when, int64_t* expires_seconds) {
  if (!p.algorithm || !p.credential || !p.date || !p.expires || !p.signed_headers ||
      !p.signature) {
    return QueryError(
        "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, "
        "X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.");
  }
  if (p.duplicate) {
    return QueryError("An X-Amz-* authentication parameter appears more than once.");
  }
  if (*p.algorithm != kAlgorithm) {
    return QueryError("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"");
  }
  std::optional<Credential> credential = ParseCredential(*p.credential);
  if (!credential) {
    return QueryError(
        "Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "
        "\"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".");
  }
  const std::optional<TimePoint> date = text::ParseIso8601Basic(*p.date);
  if (!date) {
    return QueryError("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
  }
  if (AuthResult r = ParseExpires(*p.expires, expires_seconds); r.error != ErrorCode::kNone) {
    return r;
  }
  const std::string why = CheckScope(*credential, std::string_view(*p.date).substr(0, 8), region);
  if (!why.empty()) {
    AuthResult refused = QueryError("Error parsing the X-Amz-Credential parameter; " + why);
    if (credential->region != region) refused.error_region = std::string(region);
    return refused;
  }
  std::optional<std::vector<std::string>> names = ParseSignedHeaders(*p.signed_headers);
  if (!names) return QueryError("X-Amz-SignedHeaders is empty or has an empty header name.");
  *when = *date;
  s->credential = std::move(*credential);
  s->signed_headers = std::move(*names);
  s->signature = *p.signature;
  s->amz_date = *p.date;
  return {};
}

// A presigned URL signs no payload unless it says otherwise, in the query or a header.
AuthResult ReadPayloadHash(const std::string* content_sha256, SignedRequest* s, AuthResult result) {
  s->hashed_payload = kUnsignedPayload;
  if (content_sha256 == nullptr) return result;
  if (!ClassifyPayload(*content_sha256, /*allow_streaming=*/false, &result)) {
    return Refuse(ErrorCode::kInvalidArgument,
                  "X-Amz-Content-Sha256 must be UNSIGNED-PAYLOAD or a valid sha256 value.");
  }
  s->hashed_payload = *content_sha256;
  return result;
}

}  // namespace

AuthResult VerifyPresigned(const VerifyInput& in) {
  const PresignParams p = FindPresignParams(in.params);
  SignedRequest s;
  TimePoint when;
  int64_t expires_seconds = 0;
  AuthResult result = ParseParams(p, in.region, &s, &when, &expires_seconds);
  if (result.error != ErrorCode::kNone) return result;
  const std::string* content_sha256 =
      p.content_sha256 != nullptr ? p.content_sha256
                                  : FindHeader(in.request.headers, kAmzContentSha256);
  result = ReadPayloadHash(content_sha256, &s, std::move(result));
  if (result.error != ErrorCode::kNone) return result;
  result = RequireSigned(in.request.headers, s.signed_headers, std::move(result));
  if (result.error != ErrorCode::kNone) return result;
  if (when - in.now > kMaxSkew) return Refuse(ErrorCode::kAccessDenied, "Request is not valid yet");
  if (expires_seconds == 0 || in.now > when + std::chrono::seconds(expires_seconds)) {
    return Refuse(ErrorCode::kAccessDenied, "Request has expired");
  }
  s.canonical_query = CanonicalQueryString(in.params, kQuerySignature);
  return VerifySignature(in, s, std::move(result));
}

}  // namespace cubby::s3api::auth::sigv4
