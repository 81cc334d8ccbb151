#include "s3api/auth/sigv4_header.h"

#include <utility>

#include "s3api/auth/crypto.h"
#include "s3api/auth/sigv4_verify.h"
#include "text/ascii.h"
#include "text/encoding.h"
#include "text/time.h"

namespace cubby::s3api::auth::sigv4 {
namespace {

constexpr std::string_view kMalformed = "The authorization header is malformed; ";

constexpr std::string_view kBadContentSha256 =
    "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, "
    "STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, or a "
    "valid sha256 value.";

// The request time: x-amz-date, else Date (the string to sign always uses the ISO 8601 form);
// a Date beside x-amz-date is not read. Date is IMF-fixdate, or RFC 2822's numeric zone "+0000"
// or "-0000" in place of "GMT" (botocore signs a request that has a Date header with
// email.utils.formatdate(), which writes "-0000"). Dates before 1970 do not parse: AccessDenied.
std::optional<TimePoint> RequestTime(const std::vector<Header>& headers) {
  if (const std::string* amz_date = FindHeader(headers, kAmzDate)) {
    return text::ParseIso8601Basic(*amz_date);
  }
  const std::string* date = FindHeader(headers, kDate);
  if (date == nullptr) return std::nullopt;
  if (date->ends_with(" +0000") || date->ends_with(" -0000")) {
    return text::ParseImfFixdate(date->substr(0, date->size() - 6) + " GMT");
  }
  return text::ParseImfFixdate(*date);
}

// x-amz-content-sha256 and, for the streaming modes, the headers that go with it.
AuthResult ReadPayloadHeaders(const std::vector<Header>& headers, AuthResult result) {
  const std::string* content_sha256 = FindHeader(headers, kAmzContentSha256);
  if (content_sha256 == nullptr) {
    return Refuse(ErrorCode::kInvalidRequest,
                  "Missing required header for this request: x-amz-content-sha256");
  }
  if (!ClassifyPayload(*content_sha256, /*allow_streaming=*/true, &result)) {
    return Refuse(ErrorCode::kInvalidArgument, std::string(kBadContentSha256));
  }
  return ReadStreamingHeaders(headers, std::move(result));
}

// More than kMaxSkew between the request time and the server's clock.
bool Skewed(TimePoint when, TimePoint now) {
  return now - when > kMaxSkew || when - now > kMaxSkew;
}

// The region a credential's scope must name under `rules`: the server's, or for a global
// service the credential's own when that is kIamSigningRegion or empty.
std::string_view ScopeRegion(const HeaderRules& rules, const Credential& credential,
                             std::string_view server_region) {
  const bool global = credential.region == kIamSigningRegion || credential.region.empty();
  return rules.global_region && global ? std::string_view(credential.region) : server_region;
}

}  // namespace

AuthResult VerifyHeader(const VerifyInput& in, std::string_view authorization,
                        const HeaderRules& rules, std::string_view body) {
  const std::vector<Header>& headers = in.request.headers;
  std::string why;
  std::optional<ParsedAuthorization> parsed = ParseAuthorization(authorization, &why);
  if (!parsed) {
    return Refuse(ErrorCode::kAuthorizationHeaderMalformed, std::string(kMalformed) + why);
  }
  const std::optional<TimePoint> when = RequestTime(headers);
  if (!when) {
    return Refuse(ErrorCode::kAccessDenied,
                  "AWS authentication requires a valid Date or x-amz-date header");
  }
  if (rules.time_before_scope && Skewed(*when, in.now)) {
    return Refuse(ErrorCode::kRequestTimeTooSkewed);
  }
  SignedRequest s;
  s.amz_date = text::FormatIso8601Basic(*when);
  const std::string_view region = ScopeRegion(rules, parsed->credential, in.region);
  why = CheckScope(parsed->credential, std::string_view(s.amz_date).substr(0, 8), region,
                   rules.service);
  if (!why.empty()) {
    AuthResult refused =
        Refuse(ErrorCode::kAuthorizationHeaderMalformed, std::string(kMalformed) + why);
    if (parsed->credential.region != region) refused.error_region = std::string(region);
    return refused;
  }
  AuthResult result;
  if (!rules.payload_from_body) {
    result = ReadPayloadHeaders(headers, std::move(result));
    if (result.error != ErrorCode::kNone) return result;
  }
  result = RequireSigned(headers, parsed->signed_headers, std::move(result));
  if (result.error != ErrorCode::kNone) return result;
  if (!rules.time_before_scope && Skewed(*when, in.now)) {
    return Refuse(ErrorCode::kRequestTimeTooSkewed);
  }
  if (rules.payload_from_body) {
    s.hashed_payload = text::HexEncode(Sha256(body));
    if (const std::string* sent = FindHeader(headers, kAmzContentSha256);
        sent != nullptr && text::AsciiLowercase(*sent) != s.hashed_payload) {
      return Refuse(ErrorCode::kXAmzContentSHA256Mismatch);
    }
  } else {
    s.hashed_payload = *FindHeader(headers, kAmzContentSha256);
  }
  s.credential = std::move(parsed->credential);
  s.signed_headers = std::move(parsed->signed_headers);
  s.signature = std::move(parsed->signature);
  s.canonical_query = CanonicalQueryString(in.params);
  return VerifySignature(in, s, std::move(result));
}

std::optional<ParsedAuthorization> ParseAuthorization(std::string_view value, std::string* error) {
  value = text::TrimOws(value);
  const size_t space = value.find(' ');
  const std::string_view algorithm = value.substr(0, space);
  if (algorithm != kAlgorithm) {
    *error = "Unsupported authorization algorithm; expecting \"AWS4-HMAC-SHA256\".";
    return std::nullopt;
  }
  if (space == std::string_view::npos) {
    *error = "missing Credential, SignedHeaders and Signature.";
    return std::nullopt;
  }
  std::string_view rest = value.substr(space + 1);
  std::optional<std::string_view> credential, signed_headers, signature;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = text::TrimOws(rest.substr(0, comma));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      *error = "the component \"" + std::string(item) + "\" is not of the form key=value.";
      return std::nullopt;
    }
    const std::string_view key = item.substr(0, eq);
    const std::string_view val = item.substr(eq + 1);
    std::optional<std::string_view>* slot = key == "Credential"      ? &credential
                                            : key == "SignedHeaders" ? &signed_headers
                                            : key == "Signature"     ? &signature
                                                                     : nullptr;
    if (slot == nullptr) {
      *error = "unknown component \"" + std::string(key) + "\".";
      return std::nullopt;
    }
    if (slot->has_value()) {
      *error = "the component \"" + std::string(key) + "\" appears twice.";
      return std::nullopt;
    }
    *slot = val;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (!credential || !signed_headers || !signature) {
    *error = "it must contain Credential, SignedHeaders and Signature.";
    return std::nullopt;
  }
  ParsedAuthorization parsed;
  std::optional<Credential> c = ParseCredential(*credential);
  if (!c) {
    *error =
        "the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/"
        "aws4_request\".";
    return std::nullopt;
  }
  parsed.credential = std::move(*c);
  std::optional<std::vector<std::string>> names = ParseSignedHeaders(*signed_headers);
  if (!names) {
    *error = "SignedHeaders is empty or has an empty header name.";
    return std::nullopt;
  }
  parsed.signed_headers = std::move(*names);
  if (signature->empty()) {
    *error = "the Signature is empty.";
    return std::nullopt;
  }
  parsed.signature = std::string(*signature);
  return parsed;
}

}  // namespace cubby::s3api::auth::sigv4
