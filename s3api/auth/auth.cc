#include "s3api/auth/auth.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "s3api/auth/chunked.h"
#include "s3api/auth/crypto.h"
#include "s3api/auth/sigv2.h"
#include "s3api/auth/sigv4.h"

namespace cubby::s3api::auth {
namespace {

using sigv4::TimePoint;

// ---- Small helpers

// Looks a header up without HttpRequest::Find, so this library does not need s3api's objects.
const std::string* FindHeader(const std::vector<Header>& headers, std::string_view name) {
  for (const Header& h : headers) {
    if (h.name == name) return &h.value;
  }
  return nullptr;
}

std::string Lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool IsHex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return std::isxdigit(c) != 0;
         });
}

AuthResult Fail(ErrorCode code, std::string message = {}) {
  AuthResult r;
  r.error = code;
  r.error_message = std::move(message);
  return r;
}

struct Target {
  std::string_view path;
  std::string_view query;  // without '?'
};

Target SplitTarget(std::string_view target) {
  const size_t q = target.find('?');
  if (q == std::string_view::npos) return {target, {}};
  return {target.substr(0, q), target.substr(q + 1)};
}

// The first parameter named `key`; *duplicate is set if it appears again.
const std::string* FindParam(const std::vector<sigv4::QueryParam>& params, std::string_view key,
                             bool* duplicate = nullptr) {
  const std::string* found = nullptr;
  for (const sigv4::QueryParam& p : params) {
    if (p.key != key) continue;
    if (found != nullptr) {
      if (duplicate != nullptr) *duplicate = true;
      return found;
    }
    found = &p.value;
  }
  return found;
}

// ---- Steps shared by header and query authentication

// Which authentication a request carries. SigV2 gets its own branch in a later issue.
enum class Scheme { kAnonymous, kHeaderV4, kHeaderV2, kHeaderUnknown, kQueryV4, kQueryV2 };

Scheme DetectScheme(const std::string* authorization,
                    const std::vector<sigv4::QueryParam>& params) {
  if (authorization != nullptr) {
    const std::string_view v = *authorization;
    if (v.starts_with("AWS4-")) return Scheme::kHeaderV4;
    if (v.starts_with("AWS ")) return Scheme::kHeaderV2;
    return Scheme::kHeaderUnknown;
  }
  if (FindParam(params, sigv4::kQueryAlgorithm) != nullptr ||
      FindParam(params, sigv4::kQueryCredential) != nullptr) {
    return Scheme::kQueryV4;
  }
  // Any SigV2 parameter makes it a SigV2 presigned request, so a missing one is an error
  // rather than an anonymous request.
  if (FindParam(params, "AWSAccessKeyId") != nullptr) return Scheme::kQueryV2;
  return Scheme::kAnonymous;
}

bool IsPresignQuery(const std::vector<sigv4::QueryParam>& params) {
  return FindParam(params, sigv4::kQueryAlgorithm) != nullptr ||
         FindParam(params, sigv4::kQueryCredential) != nullptr ||
         FindParam(params, "AWSAccessKeyId") != nullptr;
}

// x-amz-content-sha256 → payload mode; false if the value is none of the accepted forms.
bool ClassifyPayload(std::string_view value, bool allow_streaming, AuthResult* result) {
  if (IsHex64(value)) {
    result->payload = PayloadMode::kSha256;
    result->payload_sha256 = Lowercase(value);
    return true;
  }
  if (value == sigv4::kUnsignedPayload) {
    result->payload = PayloadMode::kUnsigned;
    return true;
  }
  if (!allow_streaming) return false;
  if (value == sigv4::kStreamingSignedPayload) {
    result->payload = PayloadMode::kStreamingSigned;
  } else if (value == sigv4::kStreamingUnsignedTrailer) {
    result->payload = PayloadMode::kStreamingUnsignedTrailer;
  } else if (value == sigv4::kStreamingSignedTrailer) {
    result->payload = PayloadMode::kStreamingSignedTrailer;
  } else {
    return false;
  }
  return true;
}

constexpr std::string_view kBadContentSha256 =
    "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, "
    "STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, or a "
    "valid sha256 value.";

bool IsStreaming(PayloadMode mode) {
  switch (mode) {
    case PayloadMode::kUnsigned:
    case PayloadMode::kSha256:
      return false;
    case PayloadMode::kStreamingSigned:
    case PayloadMode::kStreamingUnsignedTrailer:
    case PayloadMode::kStreamingSignedTrailer:
      return true;
  }
  return false;
}

// For the STREAMING-* modes: x-amz-decoded-content-length (required) and x-amz-trailer into
// `result`. Returns kNone or the error, with its message in *message.
ErrorCode ReadStreamingHeaders(const std::vector<Header>& headers, AuthResult* result,
                               std::string* message) {
  if (!IsStreaming(result->payload)) return ErrorCode::kNone;
  const std::string* decoded = FindHeader(headers, "x-amz-decoded-content-length");
  if (decoded == nullptr) {
    *message = "x-amz-decoded-content-length is required for aws-chunked uploads.";
    return ErrorCode::kMissingContentLength;
  }
  const char* end = decoded->data() + decoded->size();
  const auto [stop, error] = std::from_chars(decoded->data(), end, result->decoded_content_length);
  if (decoded->empty() || error != std::errc() || stop != end) {
    *message = "x-amz-decoded-content-length must be a decimal number.";
    return ErrorCode::kInvalidArgument;
  }
  for (const Header& h : headers) {
    if (h.name != "x-amz-trailer") continue;
    std::string_view rest = h.value;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      std::string_view name = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
      while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
      if (!name.empty()) result->trailer_names.push_back(Lowercase(name));
    }
  }
  return ErrorCode::kNone;
}

// Host must be signed, and so must every x-amz-* header the request carries: otherwise anyone
// holding a signed request could add e.g. x-amz-meta-* or x-amz-copy-source to it.
// x-amz-content-sha256 is exempt as it is covered as the canonical request's payload hash.
std::string UnsignedHeaders(const std::vector<Header>& headers,
                            const std::vector<std::string>& signed_names) {
  auto is_signed = [&](std::string_view name) {
    return std::find(signed_names.begin(), signed_names.end(), name) != signed_names.end();
  };
  std::string missing;
  auto add = [&](std::string_view name) {
    if (missing.find(std::string(name) + ",") != std::string::npos) return;
    missing.append(name).push_back(',');
  };
  if (!is_signed(sigv4::kHost)) add(sigv4::kHost);
  for (const Header& h : headers) {
    if (h.name.starts_with("x-amz-") && h.name != sigv4::kAmzContentSha256 && !is_signed(h.name)) {
      add(h.name);
    }
  }
  if (!missing.empty()) missing.pop_back();
  return missing;
}

struct SignedRequest {
  sigv4::Credential credential;
  std::vector<std::string> signed_headers;
  std::string signature;       // as the client sent it
  std::string amz_date;        // "20130524T000000Z"
  std::string hashed_payload;  // last line of the canonical request
  std::string canonical_query;
};

// The last steps, common to both forms: look the key up, recompute, compare in constant time.
AuthResult VerifySignature(const HttpRequest& request, std::string_view raw_path,
                           const SignedRequest& s, const KeyLookup& lookup, AuthResult result) {
  std::optional<storage::AccessKeyRecord> key = lookup(s.credential.access_key_id);
  if (!key) return Fail(ErrorCode::kInvalidAccessKeyId);

  const std::string canonical_request = sigv4::CanonicalRequest(
      request.method, sigv4::CanonicalUri(raw_path), s.canonical_query,
      sigv4::CanonicalHeaders(request.headers, s.signed_headers),
      sigv4::JoinSignedHeaders(s.signed_headers), s.hashed_payload);
  const std::string scope = s.credential.Scope();
  const std::string string_to_sign = sigv4::StringToSign(s.amz_date, scope, canonical_request);
  std::string signing_key = sigv4::CachedSigningKey(key->secret.reveal(), s.credential.date,
                                                    s.credential.region, s.credential.service);
  const std::string expected = sigv4::Signature(signing_key, string_to_sign);
  if (!ConstantTimeEquals(expected, s.signature)) return Fail(ErrorCode::kSignatureDoesNotMatch);

  result.error = ErrorCode::kNone;
  result.anonymous = false;
  result.key = std::move(key);
  result.amz_date = s.amz_date;
  result.scope = scope;
  switch (result.payload) {
    case PayloadMode::kUnsigned:
    case PayloadMode::kSha256:
      break;
    case PayloadMode::kStreamingSigned:
    case PayloadMode::kStreamingUnsignedTrailer:
    case PayloadMode::kStreamingSignedTrailer:
      result.seed_signature = expected;
      result.signing_key = std::move(signing_key);
      break;
  }
  return result;
}

// ---- Authorization: AWS4-HMAC-SHA256 ...

AuthResult AuthenticateHeader(const HttpRequest& request, const Target& target,
                              const std::vector<sigv4::QueryParam>& params,
                              std::string_view authorization, std::string_view region,
                              const KeyLookup& lookup, TimePoint now) {
  constexpr std::string_view kMalformed = "The authorization header is malformed; ";
  std::string why;
  std::optional<sigv4::ParsedAuthorization> parsed = sigv4::ParseAuthorization(authorization, &why);
  if (!parsed) return Fail(ErrorCode::kAuthorizationHeaderMalformed, std::string(kMalformed) + why);

  // The request time: x-amz-date, else Date. The string to sign always uses the ISO 8601 form.
  std::optional<TimePoint> when;
  if (const std::string* amz_date = FindHeader(request.headers, sigv4::kAmzDate)) {
    when = sigv4::ParseAmzDate(*amz_date);
  } else if (const std::string* date = FindHeader(request.headers, sigv4::kDate)) {
    when = sigv4::ParseHttpDate(*date);
  }
  if (!when) {
    return Fail(ErrorCode::kAccessDenied,
                "AWS authentication requires a valid Date or x-amz-date header");
  }
  SignedRequest s;
  s.amz_date = sigv4::FormatAmzDate(*when);
  why = sigv4::CheckScope(parsed->credential, std::string_view(s.amz_date).substr(0, 8), region);
  if (!why.empty()) {
    return Fail(ErrorCode::kAuthorizationHeaderMalformed, std::string(kMalformed) + why);
  }

  AuthResult result;
  const std::string* content_sha256 = FindHeader(request.headers, sigv4::kAmzContentSha256);
  if (content_sha256 == nullptr) {
    return Fail(ErrorCode::kInvalidRequest, "Missing required header for this request: "
                                            "x-amz-content-sha256");
  }
  if (!ClassifyPayload(*content_sha256, /*allow_streaming=*/true, &result)) {
    return Fail(ErrorCode::kInvalidArgument, std::string(kBadContentSha256));
  }
  std::string streaming_error;
  if (ErrorCode code = ReadStreamingHeaders(request.headers, &result, &streaming_error);
      code != ErrorCode::kNone) {
    return Fail(code, std::move(streaming_error));
  }

  const std::string unsigned_headers = UnsignedHeaders(request.headers, parsed->signed_headers);
  if (!unsigned_headers.empty()) {
    return Fail(ErrorCode::kAccessDenied,
                "There were headers present in the request which were not signed: " +
                    unsigned_headers);
  }

  if (now - *when > sigv4::kMaxSkew || *when - now > sigv4::kMaxSkew) {
    return Fail(ErrorCode::kRequestTimeTooSkewed);
  }

  s.credential = std::move(parsed->credential);
  s.signed_headers = std::move(parsed->signed_headers);
  s.signature = std::move(parsed->signature);
  s.hashed_payload = *content_sha256;
  s.canonical_query = sigv4::CanonicalQueryString(params);
  return VerifySignature(request, target.path, s, lookup, std::move(result));
}

// ---- ?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=...

AuthResult AuthenticateQuery(const HttpRequest& request, const Target& target,
                             const std::vector<sigv4::QueryParam>& params,
                             std::string_view region, const KeyLookup& lookup, TimePoint now) {
  auto fail = [](std::string message) {
    return Fail(ErrorCode::kAuthorizationQueryParametersError, std::move(message));
  };
  bool duplicate = false;
  const std::string* algorithm = FindParam(params, sigv4::kQueryAlgorithm, &duplicate);
  const std::string* credential = FindParam(params, sigv4::kQueryCredential, &duplicate);
  const std::string* date = FindParam(params, sigv4::kQueryDate, &duplicate);
  const std::string* expires = FindParam(params, sigv4::kQueryExpires, &duplicate);
  const std::string* signed_headers = FindParam(params, sigv4::kQuerySignedHeaders, &duplicate);
  const std::string* signature = FindParam(params, sigv4::kQuerySignature, &duplicate);
  const std::string* content_sha256 = FindParam(params, sigv4::kQueryContentSha256, &duplicate);
  if (!algorithm || !credential || !date || !expires || !signed_headers || !signature) {
    return fail(
        "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, "
        "X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.");
  }
  if (duplicate) return fail("An X-Amz-* authentication parameter appears more than once.");
  if (*algorithm != sigv4::kAlgorithm) {
    return fail("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"");
  }
  std::optional<sigv4::Credential> cred = sigv4::ParseCredential(*credential);
  if (!cred) {
    return fail(
        "Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "
        "\"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".");
  }
  std::optional<TimePoint> when = sigv4::ParseAmzDate(*date);
  if (!when) {
    return fail("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
  }
  int64_t expires_seconds = 0;
  const char* expires_end = expires->data() + expires->size();
  const auto [expires_stop, expires_error] =
      std::from_chars(expires->data(), expires_end, expires_seconds);
  if (expires->empty() || expires_error != std::errc() || expires_stop != expires_end) {
    return fail("X-Amz-Expires should be a number");
  }
  if (expires_seconds < 1) return fail("X-Amz-Expires must be at least one second");
  if (expires_seconds > sigv4::kMaxPresignExpiresSeconds) {
    return fail("X-Amz-Expires must be less than a week (in seconds) that is 604800");
  }
  std::string why = sigv4::CheckScope(*cred, std::string_view(*date).substr(0, 8), region);
  if (!why.empty()) return fail("Error parsing the X-Amz-Credential parameter; " + why);
  std::optional<std::vector<std::string>> names = sigv4::ParseSignedHeaders(*signed_headers);
  if (!names) return fail("X-Amz-SignedHeaders is empty or has an empty header name.");

  // A presigned URL signs no payload unless it says otherwise, in the query or a header.
  AuthResult result;
  std::string hashed_payload(sigv4::kUnsignedPayload);
  if (content_sha256 == nullptr) {
    content_sha256 = FindHeader(request.headers, sigv4::kAmzContentSha256);
  }
  if (content_sha256 != nullptr) {
    if (!ClassifyPayload(*content_sha256, /*allow_streaming=*/false, &result)) {
      return Fail(ErrorCode::kInvalidArgument,
                  "X-Amz-Content-Sha256 must be UNSIGNED-PAYLOAD or a valid sha256 value.");
    }
    hashed_payload = *content_sha256;
  }

  const std::string unsigned_headers = UnsignedHeaders(request.headers, *names);
  if (!unsigned_headers.empty()) {
    return Fail(ErrorCode::kAccessDenied,
                "There were headers present in the request which were not signed: " +
                    unsigned_headers);
  }
  // https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
  if (*when - now > sigv4::kMaxSkew) {
    return Fail(ErrorCode::kAccessDenied, "Request is not valid yet");
  }
  if (now > *when + std::chrono::seconds(expires_seconds)) {
    return Fail(ErrorCode::kAccessDenied, "Request has expired");
  }

  SignedRequest s;
  s.credential = std::move(*cred);
  s.signed_headers = std::move(*names);
  s.signature = *signature;
  s.amz_date = *date;
  s.hashed_payload = std::move(hashed_payload);
  s.canonical_query = sigv4::CanonicalQueryString(params, sigv4::kQuerySignature);
  return VerifySignature(request, target.path, s, lookup, std::move(result));
}

// ---- Signature Version 2
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html

// The value of the first raw query parameter `name`, percent-decoded without turning '+' into
// a space (a base64 signature that was not encoded keeps its '+').
std::optional<std::string> RawParam(std::string_view raw_query, std::string_view name) {
  while (!raw_query.empty()) {
    const size_t amp = raw_query.find('&');
    const std::string_view piece = raw_query.substr(0, amp);
    raw_query = amp == std::string_view::npos ? std::string_view{} : raw_query.substr(amp + 1);
    const size_t eq = piece.find('=');
    if (piece.substr(0, eq) != name) continue;
    if (eq == std::string_view::npos) return std::string();
    return sigv4::PercentDecode(piece.substr(eq + 1), /*plus_is_space=*/false);
  }
  return std::nullopt;
}

// The Date header as SigV2 clients send it: RFC 1123 with "GMT" or "+0000".
std::optional<TimePoint> ParseV2Date(std::string_view text) {
  if (text.ends_with(" +0000")) {
    std::string gmt(text.substr(0, text.size() - 6));
    gmt += " GMT";
    return sigv4::ParseHttpDate(gmt);
  }
  return sigv4::ParseHttpDate(text);
}

// The strings to sign for each resource form the client may have used (sigv2.h).
std::vector<std::string> V2StringsToSign(const HttpRequest& request, const Target& target,
                                         std::string_view vhost_bucket, std::string_view date) {
  const std::string* md5 = FindHeader(request.headers, "content-md5");
  const std::string* type = FindHeader(request.headers, "content-type");
  const std::string amz_headers = sigv2::CanonicalAmzHeaders(request.headers);
  std::vector<std::string> out;
  for (const std::string& resource :
       sigv2::CandidateResources(vhost_bucket, target.path, target.query)) {
    out.push_back(sigv2::StringToSign(request.method, md5 ? *md5 : std::string_view{},
                                      type ? *type : std::string_view{}, date, amz_headers,
                                      resource));
  }
  return out;
}

AuthResult VerifyV2(std::string_view access_key_id, std::string_view signature,
                    const std::vector<std::string>& strings_to_sign, const KeyLookup& lookup) {
  std::optional<storage::AccessKeyRecord> key = lookup(access_key_id);
  if (!key) return Fail(ErrorCode::kInvalidAccessKeyId);
  bool match = false;
  for (const std::string& string_to_sign : strings_to_sign) {
    const std::string expected = sigv2::Signature(key->secret.reveal(), string_to_sign);
    match = ConstantTimeEquals(expected, signature) || match;
  }
  if (!match) return Fail(ErrorCode::kSignatureDoesNotMatch);
  AuthResult result;
  result.anonymous = false;
  result.key = std::move(key);
  result.payload = PayloadMode::kUnsigned;
  result.signature_version = 2;
  return result;
}

AuthResult AuthenticateV2Header(const HttpRequest& request, const Target& target,
                                std::string_view authorization, std::string_view vhost_bucket,
                                const KeyLookup& lookup, TimePoint now) {
  std::string_view credential = authorization.substr(4);  // after "AWS "
  while (!credential.empty() && credential.front() == ' ') credential.remove_prefix(1);
  const size_t colon = credential.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == credential.size()) {
    return Fail(ErrorCode::kInvalidArgument,
                "AWS authorization header is invalid.  Expected AwsAccessKeyId:signature");
  }
  // The date that was signed: x-amz-date takes the Date line's place as an x-amz-* header.
  const std::string* amz_date = FindHeader(request.headers, sigv4::kAmzDate);
  const std::string* date = FindHeader(request.headers, sigv4::kDate);
  std::optional<TimePoint> when;
  if (amz_date != nullptr) {
    when = ParseV2Date(*amz_date);
    if (!when) when = sigv4::ParseAmzDate(*amz_date);
  } else if (date != nullptr) {
    when = ParseV2Date(*date);
  }
  if (!when) {
    return Fail(ErrorCode::kAccessDenied,
                "AWS authentication requires a valid Date or x-amz-date header");
  }
  if (now - *when > sigv4::kMaxSkew || *when - now > sigv4::kMaxSkew) {
    return Fail(ErrorCode::kRequestTimeTooSkewed);
  }
  const std::string_view signed_date =
      amz_date != nullptr ? std::string_view{} : std::string_view(*date);
  return VerifyV2(credential.substr(0, colon), credential.substr(colon + 1),
                  V2StringsToSign(request, target, vhost_bucket, signed_date), lookup);
}

AuthResult AuthenticateV2Query(const HttpRequest& request, const Target& target,
                               std::string_view vhost_bucket, const KeyLookup& lookup,
                               TimePoint now) {
  const std::optional<std::string> akid = RawParam(target.query, "AWSAccessKeyId");
  const std::optional<std::string> signature = RawParam(target.query, "Signature");
  const std::optional<std::string> expires = RawParam(target.query, "Expires");
  int64_t expires_at = 0;
  bool expires_ok = false;
  if (expires) {
    const char* end = expires->data() + expires->size();
    const auto [stop, error] = std::from_chars(expires->data(), end, expires_at);
    expires_ok = !expires->empty() && error == std::errc() && stop == end;
  }
  if (!akid || !signature || akid->empty() || signature->empty() || !expires_ok) {
    return Fail(ErrorCode::kAccessDenied,
                "Query-string authentication requires the Signature, Expires and "
                "AWSAccessKeyId parameters");
  }
  const int64_t now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  if (now_seconds > expires_at) return Fail(ErrorCode::kAccessDenied, "Request has expired");
  return VerifyV2(*akid, *signature, V2StringsToSign(request, target, vhost_bucket, *expires),
                  lookup);
}

// ---- Body readers

// Hashes the body as it passes and checks it against x-amz-content-sha256 at end of body.
class Sha256CheckingReader : public BodyReader {
 public:
  Sha256CheckingReader(std::unique_ptr<BodyReader> raw, std::string expected_hex)
      : raw_(std::move(raw)), expected_hex_(std::move(expected_hex)) {}

  ReadResult Read(char* buf, size_t n) override {
    if (finished_) return {0, final_error_};
    ReadResult r = raw_->Read(buf, n);
    if (r.error != ErrorCode::kNone) return r;
    if (r.n > 0) {
      hasher_.Update(std::string_view(buf, r.n));
      return r;
    }
    finished_ = true;
    if (HexEncode(hasher_.Finish()) != expected_hex_) {
      final_error_ = ErrorCode::kXAmzContentSHA256Mismatch;
    }
    return {0, final_error_};
  }

 private:
  std::unique_ptr<BodyReader> raw_;
  std::string expected_hex_;  // lowercase
  Hasher hasher_{HashAlgorithm::kSha256};
  bool finished_ = false;
  ErrorCode final_error_ = ErrorCode::kNone;
};

// A PayloadReader over a non-streaming body: no trailers.
class PlainPayloadReader : public PayloadReader {
 public:
  explicit PlainPayloadReader(std::unique_ptr<BodyReader> inner) : inner_(std::move(inner)) {}
  ReadResult Read(char* buf, size_t n) override { return inner_->Read(buf, n); }
  const std::vector<Header>& trailers() const override { return trailers_; }
  std::string_view error_message() const override { return {}; }

 private:
  std::unique_ptr<BodyReader> inner_;
  std::vector<Header> trailers_;
};

// For a payload mode WrapBody does not know (unreachable: the switch is exhaustive).
class InternalErrorReader : public PayloadReader {
 public:
  ReadResult Read(char*, size_t) override { return {0, ErrorCode::kInternalError}; }
  const std::vector<Header>& trailers() const override { return trailers_; }
  std::string_view error_message() const override { return {}; }

 private:
  std::vector<Header> trailers_;
};

std::vector<std::string> SortedNames(const std::vector<Header>& headers) {
  std::vector<std::string> names;
  for (const Header& h : headers) names.push_back(h.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool HasHeader(const std::vector<Header>& headers, std::string_view name) {
  return FindHeader(headers, name) != nullptr;
}

std::vector<Header> LowercaseHeaders(const std::vector<Header>& headers) {
  std::vector<Header> out;
  out.reserve(headers.size());
  for (const Header& h : headers) out.push_back({Lowercase(h.name), h.value});
  return out;
}

}  // namespace

namespace {

// An anonymous request may still send an aws-chunked body with an unsigned trailer (SDKs do
// for checksums); anything else in x-amz-content-sha256 is not checked, as before.
AuthResult AuthenticateAnonymous(const HttpRequest& request) {
  AuthResult result;
  const std::string* content_sha256 = FindHeader(request.headers, sigv4::kAmzContentSha256);
  if (content_sha256 == nullptr || *content_sha256 != sigv4::kStreamingUnsignedTrailer) {
    return result;
  }
  result.payload = PayloadMode::kStreamingUnsignedTrailer;
  std::string message;
  if (ErrorCode code = ReadStreamingHeaders(request.headers, &result, &message);
      code != ErrorCode::kNone) {
    return Fail(code, std::move(message));
  }
  return result;
}

}  // namespace

const std::string* PayloadReader::Trailer(std::string_view name) const {
  return FindHeader(trailers(), name);
}

AuthResult Authenticate(const HttpRequest& request, std::string_view region,
                        const KeyLookup& lookup, std::chrono::system_clock::time_point now,
                        std::string_view vhost_bucket) {
  const Target target = SplitTarget(request.target);
  const std::vector<sigv4::QueryParam> params = sigv4::ParseQuery(target.query);
  const std::string* authorization = FindHeader(request.headers, sigv4::kAuthorization);
  if (authorization != nullptr && IsPresignQuery(params)) {
    return Fail(ErrorCode::kInvalidArgument,
                "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, "
                "Signature query string parameter or the Authorization header should be "
                "specified");
  }
  switch (DetectScheme(authorization, params)) {
    case Scheme::kAnonymous:
      return AuthenticateAnonymous(request);
    case Scheme::kQueryV4:
      return AuthenticateQuery(request, target, params, region, lookup, now);
    case Scheme::kHeaderV4:
      return AuthenticateHeader(request, target, params, *authorization, region, lookup, now);
    case Scheme::kHeaderV2:
      return AuthenticateV2Header(request, target, *authorization, vhost_bucket, lookup, now);
    case Scheme::kHeaderUnknown:
      return Fail(ErrorCode::kAuthorizationHeaderMalformed,
                  "The authorization header is malformed; Unsupported authorization type; "
                  "expecting \"AWS4-HMAC-SHA256\".");
    case Scheme::kQueryV2:
      return AuthenticateV2Query(request, target, vhost_bucket, lookup, now);
  }
  return Fail(ErrorCode::kInternalError);
}

std::unique_ptr<PayloadReader> WrapBody(const AuthResult& auth, std::unique_ptr<BodyReader> raw) {
  switch (auth.payload) {
    case PayloadMode::kUnsigned:
      return std::make_unique<PlainPayloadReader>(std::move(raw));
    case PayloadMode::kSha256:
      return std::make_unique<PlainPayloadReader>(
          std::make_unique<Sha256CheckingReader>(std::move(raw), auth.payload_sha256));
    case PayloadMode::kStreamingSigned:
    case PayloadMode::kStreamingUnsignedTrailer:
    case PayloadMode::kStreamingSignedTrailer:
      return MakeChunkedReader(auth, std::move(raw));
  }
  return std::make_unique<InternalErrorReader>();
}

std::vector<Header> SignV4(const SignInput& in) {
  const std::string amz_date = sigv4::FormatAmzDate(in.now);
  const std::string payload =
      in.payload_sha256.empty() ? std::string(sigv4::kUnsignedPayload) : in.payload_sha256;

  std::vector<Header> headers = LowercaseHeaders(in.extra_headers);
  std::vector<Header> added;
  if (!HasHeader(headers, sigv4::kHost)) added.push_back({std::string(sigv4::kHost), in.host});
  if (!HasHeader(headers, sigv4::kAmzDate)) {
    added.push_back({std::string(sigv4::kAmzDate), amz_date});
  }
  if (!HasHeader(headers, sigv4::kAmzContentSha256)) {
    added.push_back({std::string(sigv4::kAmzContentSha256), payload});
  }
  headers.insert(headers.end(), added.begin(), added.end());
  const std::vector<std::string> names = SortedNames(headers);

  sigv4::Credential credential{in.access_key_id, amz_date.substr(0, 8), in.region,
                               std::string(sigv4::kService), std::string(sigv4::kTerminator)};
  const std::string signed_headers = sigv4::JoinSignedHeaders(names);
  const std::string canonical_request = sigv4::CanonicalRequest(
      in.method, sigv4::CanonicalUri(in.path),
      sigv4::CanonicalQueryString(sigv4::ParseQuery(in.query)),
      sigv4::CanonicalHeaders(headers, names), signed_headers, payload);
  const std::string scope = credential.Scope();
  const std::string signature =
      sigv4::Signature(sigv4::CachedSigningKey(in.secret_key, credential.date, in.region,
                                               sigv4::kService),
                       sigv4::StringToSign(amz_date, scope, canonical_request));

  std::string authorization(sigv4::kAlgorithm);
  authorization += " Credential=" + in.access_key_id + "/" + scope;
  authorization += ", SignedHeaders=" + signed_headers;
  authorization += ", Signature=" + signature;
  added.push_back({std::string(sigv4::kAuthorization), std::move(authorization)});
  return added;
}

std::string PresignV4(const SignInput& in, int expires_seconds) {
  const std::string amz_date = sigv4::FormatAmzDate(in.now);
  std::vector<Header> headers = LowercaseHeaders(in.extra_headers);
  if (!HasHeader(headers, sigv4::kHost)) headers.push_back({std::string(sigv4::kHost), in.host});
  const std::vector<std::string> names = SortedNames(headers);
  const std::string signed_headers = sigv4::JoinSignedHeaders(names);

  sigv4::Credential credential{in.access_key_id, amz_date.substr(0, 8), in.region,
                               std::string(sigv4::kService), std::string(sigv4::kTerminator)};
  const std::string scope = credential.Scope();
  std::string auth_query;
  auth_query += std::string(sigv4::kQueryAlgorithm) + "=" + std::string(sigv4::kAlgorithm);
  auth_query += "&" + std::string(sigv4::kQueryCredential) + "=" +
                sigv4::UriEncode(in.access_key_id + "/" + scope, true);
  auth_query += "&" + std::string(sigv4::kQueryDate) + "=" + amz_date;
  auth_query += "&" + std::string(sigv4::kQueryExpires) + "=" + std::to_string(expires_seconds);
  auth_query += "&" + std::string(sigv4::kQuerySignedHeaders) + "=" +
                sigv4::UriEncode(signed_headers, true);
  std::string payload(sigv4::kUnsignedPayload);
  if (!in.payload_sha256.empty() && in.payload_sha256 != sigv4::kUnsignedPayload) {
    payload = in.payload_sha256;
    auth_query += "&" + std::string(sigv4::kQueryContentSha256) + "=" + payload;
  }
  const std::string query = in.query.empty() ? auth_query : in.query + "&" + auth_query;

  const std::string canonical_request = sigv4::CanonicalRequest(
      in.method, sigv4::CanonicalUri(in.path),
      sigv4::CanonicalQueryString(sigv4::ParseQuery(query)), sigv4::CanonicalHeaders(headers, names),
      signed_headers, payload);
  const std::string signature =
      sigv4::Signature(sigv4::CachedSigningKey(in.secret_key, credential.date, in.region,
                                               sigv4::kService),
                       sigv4::StringToSign(amz_date, scope, canonical_request));
  return in.path + "?" + query + "&" + std::string(sigv4::kQuerySignature) + "=" + signature;
}

}  // namespace cubby::s3api::auth
